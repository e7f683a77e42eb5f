/**
 * Policy a project sets in its config, through the CLI as a process: severity overrides (`rules`)
 * flow from the config into the report (each re-levelled delta says what the table said) and
 * into the gate; and the client capabilities a lockfile was captured with are declared again by
 * `check`, so tools a server shows only to some clients never read as added or removed.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { ROOT, example } from '../helpers/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'mcg-policy-'));
const lockV1 = join(dir, 'v1.lock.json');
const lockV2 = join(dir, 'v2.lock.json');

beforeAll(async () => {
  const results = await Promise.all([
    cli(['lock', '--command', `node ${example('v1')}`, '--lockfile', lockV1, '--quiet']),
    cli(['lock', '--command', `node ${example('v2')}`, '--lockfile', lockV2, '--quiet']),
  ]);
  expect(results.map((r) => r.code)).toEqual([0, 0]);
});

function configWith(rules: unknown): string {
  const repo = mkdtempSync(join(dir, 'repo-'));
  writeFileSync(join(repo, 'mcp-contract-guard.config.json'), JSON.stringify({ servers: { inventory: { file: lockV2 } }, rules }));
  return repo;
}

describe('severity overrides (config "rules")', () => {
  it('re-level deltas in the report, say so in every format, and change the gate', async () => {
    const plain = JSON.parse((await cli(['diff', lockV1, lockV2, '--format', 'json', '--fail-on', 'never'])).stdout);
    const kinds = new Set<string>(Object.values(plain.tools as Record<string, { deltas: Array<{ kind: string; severity: string }> }>).flatMap((e) => e.deltas.filter((d) => d.severity === 'BREAKING').map((d) => d.kind)));
    expect(kinds.size).toBeGreaterThan(1);
    // Every BREAKING kind of v1 → v2 re-levelled to RISKY (one for inputs only, to show the form).
    const rules = Object.fromEntries([...kinds].map((kind) => [kind, kind === 'required-property-added' ? { input: 'RISKY' } : 'RISKY']));
    const repo = configWith(rules);

    const json = await cli(['diff', lockV1, lockV2, '--format', 'json'], { cwd: repo });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.summary.counts.BREAKING).toBe(0);
    const relevelled = Object.values(report.tools as Record<string, { deltas: Array<{ severity: string; defaultSeverity?: string }> }>).flatMap((e) => e.deltas).filter((d) => d.defaultSeverity !== undefined);
    expect(relevelled.length).toBe(plain.summary.counts.BREAKING);
    expect(relevelled.every((d) => d.severity === 'RISKY' && d.defaultSeverity === 'BREAKING')).toBe(true);
    // The text says what the table said; the gate at RISKY still fails on them.
    const text = await cli(['diff', lockV1, lockV2, '--fail-on', 'RISKY'], { cwd: repo });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('(rules: BREAKING → RISKY)');
    const sarif = JSON.parse((await cli(['diff', lockV1, lockV2, '--format', 'sarif'], { cwd: repo })).stdout);
    expect(sarif.runs[0].results.some((r: { properties: { defaultSeverity?: string } }) => r.properties.defaultSeverity === 'BREAKING')).toBe(true);
  });

  it('a kind the table does not know is a config error naming it', async () => {
    const result = await cli(['diff', lockV1, lockV2], { cwd: configWith({ 'enum-shrunk': 'SAFE' }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('rules.enum-shrunk: "enum-shrunk" is not a rule kind');
  });
});

describe('the client capabilities a lockfile was captured with', () => {
  const everything = `node ${join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')} stdio`;

  it('are recorded by lock and declared again by check, so capability-gated tools never read as drift', async () => {
    const lockfile = join(dir, 'everything.lock.json');
    expect((await cli(['lock', '--command', everything, '--capabilities', 'none', '--lockfile', lockfile, '--quiet'])).code).toBe(0);
    const locked = JSON.parse(readFileSync(lockfile, 'utf8'));
    expect(locked.capture).toEqual({ clientCapabilities: [] });
    const fewer = Object.keys(locked.tools).length;

    // No flag: the capture declares what the lockfile records, and nothing changed.
    const same = await cli(['check', '--command', everything, '--lockfile', lockfile, '--quiet']);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('matches');
    expect(same.stderr).not.toContain('captured declaring');

    // Told to declare more: the tools it unlocks are additions, and the run says why.
    const more = await cli(['check', '--command', everything, '--capabilities', 'roots,sampling,elicitation', '--lockfile', lockfile, '--format', 'json', '--quiet']);
    // They no longer match the lockfile: that fails the check (--lockfile-check fail, the default).
    expect(more.code).toBe(1);
    expect(more.stderr).toContain('was captured declaring no client capabilities; this run declares roots, sampling, elicitation');
    const added = Object.values(JSON.parse(more.stdout).tools as Record<string, { deltas: Array<{ kind: string }> }>).filter((e) => e.deltas.some((d) => d.kind === 'tool-added'));
    expect(added.length).toBeGreaterThan(0);
    expect(fewer + added.length).toBeGreaterThan(fewer);
  });
});
