import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/contract/canonical.js';
import type { DiffReport } from '../../src/protocol/index.js';
import { UserError } from '../../src/errors.js';
import { emptyReport, renderContractDeltas } from '../../src/protocol/index.js';
import { renderArtifact, renderJson, renderMarkdown, renderSarif, renderText, renderXml, validateArtifact } from '../../src/report/index.js';
import { sampleReport } from './sample.js';
import { assertWellFormedXml } from './xml-check.js';

const report = await sampleReport();

describe('JSON and the artifact', () => {
  it('renderJson is canonical JSON of the fixed shape, and round-trips', () => {
    const text = renderJson(report);
    expect(text).toBe(canonicalJson(report, true));
    expect(JSON.parse(text)).toEqual(report);
    expect(Object.keys(JSON.parse(text)).sort()).toEqual(['prompts', 'resourceTemplates', 'resources', 'server', 'summary', 'tools', 'version']);
  });

  it('renderArtifact is deterministic and validated on write', async () => {
    const again = await sampleReport();
    expect(renderArtifact(again)).toBe(renderArtifact(report));
    expect(validateArtifact(JSON.parse(renderArtifact(report)))).toEqual(report);
  });

  const broken: Array<[string, (r: DiffReport & Record<string, unknown>) => void, RegExp]> = [
    ['another version', (r) => ((r as { version: unknown }).version = 2), /version 2/],
    ['a wrong count', (r) => (r.summary.counts.SAFE = 9), /summary\.counts\.SAFE must be 1/],
    ['a wrong entry maximum', (r) => ((r.tools.invoices as { maxSeverity: string }).maxSeverity = 'SAFE'), /maxSeverity must be "BREAKING"/],
    ['unsorted deltas', (r) => r.tools.invoices?.deltas.reverse(), /must be in canonical order/],
    ['a wrong semver verdict', (r) => (r.summary.semverBump = 'minor'), /summary\.semverBump must be "major"/],
    ['a kind outside the vocabulary', (r) => ((r.tools.invoices?.deltas[0] as { kind: string }).kind = 'made-up-kind'), /"made-up-kind" is not a rule kind/],
    ['no direction', (r) => delete (r.tools.invoices?.deltas[0] as { direction?: unknown }).direction, /direction must be "input", "output" or null/],
    ['a BREAKING delta without a fix', (r) => delete r.tools.invoices?.deltas[0]?.hint, /must carry a fix hint/],
    ['a malformed fingerprint', (r) => ((r.tools.invoices?.deltas[0] as { fingerprint: string }).fingerprint = 'xyz'), /16 hex digits/],
    ['an unknown delta field', (r) => ((r.tools.invoices?.deltas[0] as unknown as Record<string, unknown>).extra = 1), /is not a delta field/],
    ['an empty entry', (r) => (r.tools.empty = { maxSeverity: null, deltas: [] }), /has no deltas/],
  ];
  for (const [name, breakIt, message] of broken) {
    it(`refuses to write an artifact with ${name}`, () => {
      const copy = structuredClone(report) as DiffReport & Record<string, unknown>;
      breakIt(copy);
      expect(() => renderArtifact(copy)).toThrow(UserError);
      expect(() => renderArtifact(copy)).toThrow(message);
    });
  }
});

describe('text', () => {
  it('lists every delta, worst entries first, with fixes; colour only when asked', () => {
    const plain = renderText(report, { color: false });
    expect(plain).not.toContain('\u001b');
    expect(plain.split('\n')[0]).toBe('BREAKING 3 · RISKY 2 · SAFE 1 · COSMETIC 1 · semver: major');
    expect(plain).toContain('fix: Make the property optional with a default');
    expect(plain.match(/^ {2}[✗!+·] /gm)).toHaveLength(7);
    expect(renderText(report, { color: true })).toContain('\u001b[31;1m');
  });

  it('says so when nothing changed', () => {
    const empty = emptyReport();
    expect(renderText(empty, { color: true })).toBe('No contract changes.\n');
    expect(renderMarkdown(empty)).toContain('No contract changes.');
  });
});

describe('markdown', () => {
  const md = renderMarkdown(report);

  it('groups by severity with counts, per tool, in collapsible details', () => {
    expect(md).toMatch(/^### MCP contract changes: 🔴 BREAKING\n/);
    expect(md).toContain('| 🔴 BREAKING | 3 |');
    expect(md.indexOf('#### 🔴 BREAKING (3)')).toBeLessThan(md.indexOf('#### 🟠 RISKY (2)'));
    expect(md.match(/<details( open)?>/g)?.length).toBe(md.match(/<\/details>/g)?.length);
    expect(md).toContain('<summary>tool <code>invoices</code>: 2 changes</summary>');
    // BREAKING and RISKY start open, SAFE and COSMETIC collapsed.
    expect(md.match(/<details open>/g)).toHaveLength(3);
  });

  it('shows previous → current, the action, and a fix for every BREAKING delta', () => {
    expect(md).toContain('`100` → `50`');
    expect(md).toContain('· action `list`');
    expect(md.match(/\*\*Fix:\*\*/g)).toHaveLength(3);
  });

  it('word-diffs a reworded description', () => {
    expect(md).toContain('Wording: Manage <ins>the </ins>invoices <del>for</del><ins>of</ins> the current account.');
  });

  it('stays under maxLength, closing what it opened and saying what it left out', () => {
    const short = renderMarkdown(report, { maxLength: 1_500 });
    expect(short.length).toBeLessThanOrEqual(1_500);
    expect(short.match(/<details( open)?>/g)?.length ?? 0).toBe(short.match(/<\/details>/g)?.length ?? 0);
    expect(short).toMatch(/> \d+ more changes? (is|are) not shown: this comment is limited to 1,500 characters/);
  });
});

describe('XML', () => {
  it('is the <contract_deltas> form of the self-healing seed, well formed', () => {
    const xml = renderXml(report);
    assertWellFormedXml(xml);
    expect(xml).toContain('<delta severity="BREAKING" kind="required-property-added" field="actions.create.inputSchema.properties.currency" action="create">');
    expect(xml).toContain('<previous>100</previous>');
    expect(xml).toContain('<current>50</current>');
  });

  it('renderContractDeltas renders one entry for the runtime', () => {
    const block = renderContractDeltas(report.tools.invoices?.deltas ?? []);
    assertWellFormedXml(block);
    expect(block.startsWith('<contract_deltas>')).toBe(true);
  });
});

describe('SARIF', () => {
  const sarif = JSON.parse(renderSarif(report, { lockfilePath: 'servers/mcp-contracts.lock.json' }));

  it('is SARIF 2.1.0 with one result per delta and rule ids = delta kinds', () => {
    expect(sarif.version).toBe('2.1.0');
    const run = sarif.runs[0];
    expect(run.results).toHaveLength(7);
    const rules = run.tool.driver.rules.map((r: { id: string }) => r.id);
    for (const result of run.results) {
      expect(rules[result.ruleIndex]).toBe(result.ruleId);
      expect(result.partialFingerprints['mcpContractDelta/v1']).toMatch(/^[0-9a-f]{16}$/);
      expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe('servers/mcp-contracts.lock.json');
    }
    expect(run.results.map((r: { level: string }) => r.level).sort()).toEqual(['error', 'error', 'error', 'none', 'note', 'warning', 'warning']);
  });

  it('points at the entry line when given the lockfile text', () => {
    const lockfileText = '{\n  "digest": "x",\n  "tools": {\n    "get-tiny-image": {\n    },\n    "invoices": {\n    }\n  }\n}\n';
    const located = JSON.parse(renderSarif(report, { lockfilePath: 'l.json', lockfileText }));
    const lines = located.runs[0].results.map((r: { locations: Array<{ physicalLocation: { region: { startLine: number } } }> }) => r.locations[0]?.physicalLocation.region.startLine);
    expect(new Set(lines)).toEqual(new Set([4, 6]));
  });
});
