/**
 * Published servers, consecutive releases, every delta's verdict written down: the dumps in
 * test/fixtures/real-world/ (npm servers built with zod 3 and 4, zod-to-json-schema, hand-written
 * schemas; Python servers built with FastMCP and the MCP Python SDK) and, for each pair, the
 * expected kind and severity of every delta in test/fixtures/real-world/verdicts/ (many checked by
 * calling the real server with old-shaped arguments: see each file's `verified`). An expected
 * kind of null means the delta is generator notation and must not be reported.
 *
 * Both directions are held: every expected delta is reported with its verdict, and every
 * reported delta was expected (a new false alarm fails here too).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diffContracts } from '../../src/diff/index.js';
import type { Delta, DiffReport } from '../../src/protocol/index.js';
import { loadDump } from './helpers.js';

interface Verdict {
  entry: string;
  field: string;
  kind: string | null;
  severity: string | null;
  expectedKind: string | null;
  expectedSeverity: string | null;
  why: string;
}

const dir = new URL('../fixtures/real-world/verdicts/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

/** Server-level deltas (instructions, capabilities) the verdict files predate, per pair. */
const SERVER_DELTAS: Record<string, string[]> = {
  'context7@2.1.1__3.0.0.json': ['instructions-changed=COSMETIC'],
  // prompts/resources capabilities declared without a prompt or resource (SDK defaults): not reported.
  'context7@3.0.0__3.2.5.json': ['instructions-changed=COSMETIC'],
  'context7@4.0.0__4.1.1.json': ['list-changed-withdrawn@capabilities.tools.listChanged=RISKY'],
  'exa@3.0.7__3.1.8.json': [
    'capability-added@capabilities.prompts.listChanged=SAFE',
    'capability-added@capabilities.prompts=SAFE',
    'capability-added@capabilities.resources.listChanged=SAFE',
    'capability-added@capabilities.resources=SAFE',
  ],
  'firecrawl@3.22.3__3.26.0.json': ['instructions-changed=COSMETIC'],
  'playwright@0.0.40__0.0.83.json': ['capability-added@capabilities.tools.listChanged=SAFE'],
  'server-memory@2025.11.25__2026.7.4.json': ['capability-added@capabilities.resources.listChanged=SAFE', 'capability-added@capabilities.resources.subscribe=SAFE', 'capability-added@capabilities.resources=SAFE'],
  'server-memory@2025.9.25__2025.11.25.json': ['capability-added@capabilities.tools.listChanged=SAFE'],
  'server-sequential-thinking@2025.7.1__2025.11.25.json': ['capability-added@capabilities.tools.listChanged=SAFE'],
};

function entries(report: DiffReport): Array<{ entry: string; delta: Delta }> {
  const out: Array<{ entry: string; delta: Delta }> = [];
  for (const kind of ['tools', 'prompts', 'resources', 'resourceTemplates'] as const) {
    for (const [name, entry] of Object.entries(report[kind])) for (const delta of entry.deltas) out.push({ entry: `${kind}/${name}`, delta });
  }
  return out;
}

describe('real-world releases, every verdict written down', () => {
  it('covers at least six servers beyond the reference ones, two or more versions each', () => {
    const servers = new Set(files.map((f) => f.split('@')[0]));
    expect(servers.size).toBeGreaterThanOrEqual(8);
  });

  for (const file of files) {
    it(file.replace('.json', '').replace('__', ' → '), async () => {
      const { pair, deltas: verdicts } = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { pair: [string, string]; deltas: Verdict[] };
      const report = await diffContracts(loadDump(pair[0]), loadDump(pair[1]));
      const reported = entries(report);
      const key = (entry: string, field: string, kind: string | null) => `${entry} ${field} ${kind}`;
      const found = new Map(reported.map((r) => [key(r.entry, r.delta.field, r.delta.kind), r.delta]));

      const missing: string[] = [];
      const wrong: string[] = [];
      const notation: string[] = [];
      for (const v of verdicts) {
        if (v.expectedKind === null) {
          // Notation: the kind reported before the conventions were known must be gone.
          if (v.kind !== null && found.has(key(v.entry, v.field, v.kind))) notation.push(`${key(v.entry, v.field, v.kind)} (${v.why})`);
          continue;
        }
        const delta = found.get(key(v.entry, v.field, v.expectedKind));
        if (delta === undefined) missing.push(`${key(v.entry, v.field, v.expectedKind)} ${v.expectedSeverity} (${v.why})`);
        else if (delta.severity !== v.expectedSeverity) wrong.push(`${key(v.entry, v.field, v.expectedKind)}: ${delta.severity}, expected ${v.expectedSeverity}`);
      }
      const expected = new Set(verdicts.filter((v) => v.expectedKind !== null).map((v) => key(v.entry, v.field, v.expectedKind)));
      const unexpected = reported.filter((r) => !expected.has(key(r.entry, r.delta.field, r.delta.kind))).map((r) => `${key(r.entry, r.delta.field, r.delta.kind)} ${r.delta.severity}: ${r.delta.message}`);

      expect({ missing, wrong, notation, unexpected }).toEqual({ missing: [], wrong: [], notation: [], unexpected: [] });
      const server = (report.server?.deltas ?? []).map((d) => `${d.kind}${d.field === 'instructions' ? '' : `@${d.field}`}=${d.severity}`).sort();
      expect(server).toEqual(SERVER_DELTAS[file] ?? []);
    });
  }
});
