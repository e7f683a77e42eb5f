/**
 * Real servers, real releases: tools/list dumps of consecutive published versions of
 * @modelcontextprotocol/server-everything and server-filesystem (see
 * test/fixtures/real-world/README.md). Each pair's full delta list is kept, reviewed, in
 * test/fixtures/real-world/expected/; the assertions below pin the verdicts that matter.
 */
import { describe, expect, it } from 'vitest';
import { diffContracts, type DiffReport } from '../../src/diff/index.js';
import { ruleOf } from '../../src/rules/index.js';
import { renderMarkdown, renderXml, validateArtifact } from '../../src/report/index.js';
import { brief, loadDump } from './helpers.js';

const EVERYTHING = ['2025.4.8', '2025.4.28', '2025.7.29', '2025.9.12', '2025.11.25', '2026.1.14', '2026.1.26', '2026.7.4'].map((v) => `server-everything@${v}`);
const FILESYSTEM = ['2025.3.28', '2025.7.1', '2025.7.29', '2025.8.18', '2025.11.25', '2026.7.4', '2026.7.10'].map((v) => `server-filesystem@${v}`);
const PAIRS = [EVERYTHING, FILESYSTEM].flatMap((versions) => versions.slice(1).map((v, i) => [versions[i] as string, v] as const));

const reports = new Map<string, Promise<DiffReport>>();
function reportOf(a: string, b: string): Promise<DiffReport> {
  const key = `${a}→${b}`;
  if (!reports.has(key)) reports.set(key, diffContracts(loadDump(a), loadDump(b)));
  return reports.get(key) as Promise<DiffReport>;
}

/** One line per delta: what a reviewer reads. */
function lines(report: DiffReport): string {
  const out: string[] = [];
  for (const kind of ['tools', 'prompts', 'resources', 'resourceTemplates'] as const) {
    for (const [key, entry] of Object.entries(report[kind])) {
      for (const d of entry.deltas) out.push(`${kind}/${key}  ${d.severity} ${d.kind} ${d.field}${d.action ? ` [${d.action}]` : ''}  ${d.message}`);
    }
  }
  return `${JSON.stringify(report.summary)}\n${out.join('\n')}\n`;
}

describe('real-world releases', () => {
  for (const [a, b] of PAIRS) {
    it(`${a} → ${b}: matches the reviewed delta list`, async () => {
      const report = await reportOf(a, b);
      await expect(lines(report)).toMatchFileSnapshot(`../fixtures/real-world/expected/${a}__${b.split('@')[1]}.txt`);
      // Whatever the pair, the report is a valid artifact, every kind has a rule, every BREAKING a fix.
      validateArtifact(JSON.parse(JSON.stringify(report)));
      for (const entry of Object.values(report.tools)) {
        for (const d of entry.deltas) {
          expect(ruleOf(d.kind), d.kind).toBeDefined();
          if (d.severity === 'BREAKING') expect(d.hint).toBeTruthy();
        }
      }
      expect(renderMarkdown(report).length).toBeLessThanOrEqual(65_000);
      expect(renderXml(report)).toContain('<contract_changes');
    });
  }

  it('identical tool lists (only the protocol version moved) give no delta at all', async () => {
    const report = await reportOf('server-everything@2025.4.8', 'server-everything@2025.4.28');
    expect(report.summary.maxSeverity).toBeNull();
  });

  it('the 2026 rewrite of server-everything: renames are found, each as one BREAKING delta', async () => {
    const report = await reportOf('server-everything@2025.11.25', 'server-everything@2026.1.14');
    const renames = Object.values({ ...report.tools, ...report.prompts })
      .flatMap((e) => e.deltas)
      .filter((d) => d.kind.endsWith('-renamed'))
      .map((d) => `${d.renamedFrom} → ${d.renamedTo}`)
      .sort();
    expect(renames).toEqual([
      'add → get-sum',
      'annotatedMessage → get-annotated-message',
      'getResourceLinks → get-resource-links',
      'getResourceReference → get-resource-reference',
      'getTinyImage → get-tiny-image',
      'longRunningOperation → trigger-long-running-operation',
      'printEnv → get-env',
      'resource_prompt → resource-prompt',
      'simple_prompt → simple-prompt',
      'structuredContent → get-structured-content',
    ]);
    // Dropped for good, not renamed: sampling went away, zip became a different gzip tool.
    expect(brief(report.tools.sampleLLM?.deltas ?? [])).toEqual(['tool-removed@=BREAKING']);
    expect(brief(report.tools.zip?.deltas ?? [])).toEqual(['tool-removed@=BREAKING']);
    // A renamed tool whose arguments also narrowed says so.
    expect(brief(report.tools['get-structured-content']?.deltas ?? [])).toContain('enum-narrowed@inputSchema.properties.location.enum=BREAKING');
    expect(brief(report.prompts['resource-prompt']?.deltas ?? [])).toContain('required-prompt-argument-added@arguments.resourceType=BREAKING');
    // The static resources moved from test:// to demo:// URIs: each old one is gone.
    expect(Object.values(report.resources).filter((e) => e.deltas[0]?.kind === 'resource-removed')).toHaveLength(100);
  });

  it('server-filesystem 2025.8.18 shipped empty input schemas; 2025.11.25 restored them: BREAKING for callers', async () => {
    const report = await reportOf('server-filesystem@2025.8.18', 'server-filesystem@2025.11.25');
    expect(brief(report.tools.read_text_file?.deltas ?? []).filter((d) => d.endsWith('BREAKING'))).toEqual(['required-property-added@inputSchema.properties.path=BREAKING']);
    // Declaring the protocol-mandated root type is not itself a change.
    expect(Object.values(report.tools).flatMap((e) => e.deltas).some((d) => d.field === 'inputSchema.type')).toBe(false);
  });

  it('server-filesystem 2026.7.4: move_file now declares itself destructive (RISKY), and nothing else changed', async () => {
    const report = await reportOf('server-filesystem@2025.11.25', 'server-filesystem@2026.7.4');
    expect(report.summary.counts).toEqual({ BREAKING: 0, RISKY: 1, SAFE: 0, COSMETIC: 0 });
    expect(brief(report.tools.move_file?.deltas ?? [])).toEqual(['tool-became-destructive@annotations.destructiveHint=RISKY']);
  });

  it('read_text_file appearing beside read_file is an addition, not a rename (read_file stayed)', async () => {
    const report = await reportOf('server-filesystem@2025.7.1', 'server-filesystem@2025.7.29');
    expect(brief(report.tools.read_text_file?.deltas ?? [])).toEqual(['tool-added@=SAFE']);
  });

  it('downgrading finds the renames backwards', async () => {
    const report = await diffContracts(loadDump('server-everything@2026.1.14'), loadDump('server-everything@2025.11.25'), { semantic: false });
    const renamed = Object.values(report.tools).flatMap((e) => e.deltas).filter((d) => d.kind === 'tool-renamed');
    expect(renamed.map((d) => `${d.renamedFrom} → ${d.renamedTo}`)).toContain('get-sum → add');
    expect(renamed).toHaveLength(8);
  });
});
