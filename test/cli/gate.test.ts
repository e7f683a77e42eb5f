/**
 * `check` and `diff` keep one promise: the same report in every format, the same artifact, and
 * one exit-code rule (1 when a change at or above --fail-on remains after the config's allow
 * list, default BREAKING; never with --fail-on never), with the allow list applied as the
 * Action applies it. `check` also fails on a lockfile that no longer matches its server, as the
 * Action's lockfile-check does (--lockfile-check fail, the default).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { example } from '../helpers/processes.js';
import { CLI_COMMAND } from '../../src/version.js';

const dir = mkdtempSync(join(tmpdir(), 'mcg-gate-'));
const v2 = `node ${example('v2')}`;
const lockV1 = join(dir, 'v1.lock.json');
const lockV2 = join(dir, 'v2.lock.json');

function dump(path: string, properties: Record<string, unknown>): string {
  writeFileSync(path, JSON.stringify({ tools: [{ name: 'search', description: 'Search the catalog.', inputSchema: { type: 'object', properties, required: ['q'] } }] }));
  return path;
}

/** Fingerprints of the BREAKING changes from v1 to v2, from the JSON report. */
let breaking: string[];

beforeAll(async () => {
  const [a, b] = await Promise.all([
    cli(['lock', '--command', `node ${example('v1')}`, '--lockfile', lockV1, '--quiet']),
    cli(['lock', '--command', v2, '--lockfile', lockV2, '--quiet']),
  ]);
  expect([a.code, b.code]).toEqual([0, 0]);
  const report = JSON.parse((await cli(['diff', lockV1, lockV2, '--format', 'json', '--fail-on', 'never'])).stdout);
  breaking = Object.values(report.tools as Record<string, { deltas: Array<{ severity: string; fingerprint: string }> }>)
    .flatMap((entry) => entry.deltas)
    .filter((d) => d.severity === 'BREAKING')
    .map((d) => d.fingerprint);
  expect(breaking.length).toBeGreaterThan(2);
});

describe('check reports like diff', () => {
  it.each(['json', 'markdown', 'xml'])('check --format %s prints on stdout the very document diff prints; the advice goes to stderr', async (format) => {
    const [check, diff] = await Promise.all([
      cli(['check', '--command', v2, '--lockfile', lockV1, '--format', format, '--quiet']),
      cli(['diff', lockV1, lockV2, '--format', format]),
    ]);
    expect(check.stdout).toBe(diff.stdout);
    expect(check.stdout.length).toBeGreaterThan(500);
    expect([check.code, diff.code]).toEqual([1, 1]);
    expect(check.stderr).toContain(`inventory no longer matches ${lockV1} (--lockfile-check fail, the default: exit 1). If these changes are intended, update the lockfile: ${CLI_COMMAND} lock --command`);
    expect(check.stderr).toContain('changes at or above --fail-on BREAKING');
    if (format === 'json') expect(JSON.parse(check.stdout).summary.maxSeverity).toBe('BREAKING');
  });

  it('check --format sarif: the same results as diff, located in the lockfile', async () => {
    const [check, diff] = await Promise.all([
      cli(['check', '--command', v2, '--lockfile', lockV1, '--format', 'sarif', '--quiet']),
      cli(['diff', lockV1, lockV2, '--format', 'sarif']),
    ]);
    const results = (text: string) => (JSON.parse(text).runs[0].results as Array<{ ruleId: string; partialFingerprints: unknown; locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }>);
    expect(results(check.stdout).map((r) => [r.ruleId, r.partialFingerprints])).toEqual(results(diff.stdout).map((r) => [r.ruleId, r.partialFingerprints]));
    expect(new Set(results(check.stdout).map((r) => r.locations[0]!.physicalLocation.artifactLocation.uri))).toEqual(new Set([lockV1]));
  });

  it('check --artifact writes the same artifact as diff --artifact, also when the lockfile matches', async () => {
    const fromCheck = join(dir, 'check.deltas.json');
    const fromDiff = join(dir, 'diff.deltas.json');
    await Promise.all([
      cli(['check', '--command', v2, '--lockfile', lockV1, '--artifact', fromCheck, '--quiet']),
      cli(['diff', lockV1, lockV2, '--artifact', fromDiff]),
    ]);
    expect(readFileSync(fromCheck, 'utf8')).toBe(readFileSync(fromDiff, 'utf8'));
    expect(JSON.parse(readFileSync(fromCheck, 'utf8')).summary.maxSeverity).toBe('BREAKING');

    const unchanged = join(dir, 'unchanged.deltas.json');
    const result = await cli(['check', '--file', lockV2, '--lockfile', lockV2, '--artifact', unchanged]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`✓ inventory matches ${lockV2}`);
    expect(JSON.parse(readFileSync(unchanged, 'utf8')).summary.maxSeverity).toBeNull();
  });
});

describe('one exit-code rule for check and diff', () => {
  const before = dump(join(dir, 'search-v1.json'), { q: { type: 'string' } });
  const after = dump(join(dir, 'search-v2.json'), { q: { type: 'string' }, limit: { type: 'integer' } });
  const lock = join(dir, 'search.lock.json');

  beforeAll(async () => {
    expect((await cli(['lock', before, '--lockfile', lock, '--quiet'])).code).toBe(0);
  });

  it.each([
    [[], 0],
    [['--fail-on', 'SAFE'], 1],
    [['--fail-on', 'safe'], 1],
    [['--fail-on', 'never'], 0],
  ] as Array<[string[], number]>)('a SAFE change with %j: both exit %i (check with --lockfile-check warn)', async (flags, code) => {
    const [check, diff] = await Promise.all([cli(['check', after, '--lockfile', lock, '--lockfile-check', 'warn', ...flags]), cli(['diff', lock, after, ...flags])]);
    expect([check.code, diff.code]).toEqual([code, code]);
  });

  it('whatever the threshold, check fails on a lockfile that no longer matches, with the exact lock command', async () => {
    for (const flags of [[], ['--fail-on', 'never'], ['--lockfile-check', 'FAIL']]) {
      const result = await cli(['check', after, '--lockfile', lock, ...flags], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('✗ unknown no longer matches search.lock.json:');
      expect(result.stdout).toContain(
        `✗ search.lock.json no longer matches the server (--lockfile-check fail, the default: exit 1).\nIf these changes are intended, update the lockfile: ${CLI_COMMAND} lock --file ${after} --lockfile search.lock.json\n`,
      );
    }
    const below = await cli(['check', after, '--lockfile', lock], { cwd: dir });
    expect(below.stdout).toContain('✓ No change at or above --fail-on BREAKING.');
    // The command it gives does bring the lockfile up to date.
    const copy = join(dir, 'search-copy.lock.json');
    writeFileSync(copy, readFileSync(lock));
    expect((await cli(['lock', '--file', after, '--lockfile', copy, '--quiet'])).code).toBe(0);
    const fresh = await cli(['check', after, '--lockfile', copy, '--fail-on', 'COSMETIC']);
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toContain('✓ unknown matches');
  });

  it('--lockfile-check warn says the lockfile no longer matches without failing; off does not say it', async () => {
    const warn = await cli(['check', after, '--lockfile', lock, '--lockfile-check', 'warn'], { cwd: dir });
    expect(warn.code).toBe(0);
    expect(warn.stdout).toContain(`search.lock.json no longer matches the server (--lockfile-check warn: said, not failed).\nIf these changes are intended, update the lockfile: ${CLI_COMMAND} lock --file ${after} --lockfile search.lock.json\n`);
    expect(warn.stdout).not.toContain('✗ search.lock.json');
    const off = await cli(['check', after, '--lockfile', lock, '--lockfile-check', 'off'], { cwd: dir });
    expect(off.code).toBe(0);
    expect(off.stdout).toContain('✓ No change at or above --fail-on BREAKING.');
    expect(off.stdout).not.toContain('update the lockfile');
    // The changes themselves still count: a BREAKING one fails at the default --fail-on, whatever the mode.
    expect((await cli(['check', '--command', v2, '--lockfile', lockV1, '--lockfile-check', 'off', '--quiet'])).code).toBe(1);
    const wrong = await cli(['check', after, '--lockfile', lock, '--lockfile-check', 'strict']);
    expect(wrong).toMatchObject({ code: 2, stderr: 'error: --lockfile-check must be one of fail, warn, off; got "strict".\n' });
  });

  it('BREAKING by default: check and diff exit 1 on v1 → v2 and name what blocks, with its fingerprint', async () => {
    const [check, diff] = await Promise.all([cli(['check', '--command', v2, '--lockfile', lockV1, '--quiet']), cli(['diff', lockV1, lockV2])]);
    for (const result of [check, diff]) {
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(`✗ ${breaking.length} changes at or above --fail-on BREAKING (${breaking.length} BREAKING), not accepted by the allow list:`);
      for (const fingerprint of breaking) expect(result.stdout).toContain(`[${fingerprint}]`);
    }
  });
});

describe('the allow list of the config, as the Action applies it', () => {
  function repoWith(allow: unknown[]): string {
    const repo = mkdtempSync(join(tmpdir(), 'mcg-allow-'));
    writeFileSync(join(repo, 'mcp-contract-guard.config.json'), JSON.stringify({ servers: { inventory: { file: lockV2 } }, allow }));
    return repo;
  }

  it('accepted changes are shown as accepted and do not count toward --fail-on', async () => {
    const repo = repoWith(breaking.map((fingerprint) => ({ fingerprint, reason: 'v2 ships with a migration guide', expires: '2026-04-30' })));
    const env = { MCP_CONTRACT_GUARD_TODAY: '2026-03-01' };
    // The lockfile's own drift is not the subject here: it is only said (--lockfile-check warn).
    const [check, diff] = await Promise.all([cli(['check', '--command', v2, '--lockfile', lockV1, '--lockfile-check', 'warn', '--quiet'], { cwd: repo, env }), cli(['diff', lockV1, lockV2], { cwd: repo, env })]);
    for (const result of [check, diff]) {
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Accepted by the allow list (${breaking.length}):`);
      expect(result.stdout).toContain(`[${breaking[0]}]: v2 ships with a migration guide`);
      expect(result.stdout).toContain('✓ Every change at or above --fail-on BREAKING is accepted by the allow list.');
    }
    // RISKY changes are not in the list: at that threshold they block.
    expect((await cli(['diff', lockV1, lockV2, '--fail-on', 'RISKY'], { cwd: repo, env })).code).toBe(1);
    // An explicit --config is read from anywhere.
    expect((await cli(['diff', lockV1, lockV2, '--config', join(repo, 'mcp-contract-guard.config.json')], { env })).code).toBe(0);
    // An acceptance without an end date, or further ahead than the horizon, accepts nothing.
    const undated = await cli(['diff', lockV1, lockV2], { cwd: repoWith([{ fingerprint: breaking[0], reason: 'forever' }]), env });
    expect(undated.code).toBe(1);
    expect(undated.stderr).toContain(`allow-list entry ${breaking[0]} ("forever") is refused`);
  });

  it('an expired entry accepts nothing and is reported; before its day it still accepts', async () => {
    const [first, ...rest] = breaking;
    const repo = repoWith([
      { fingerprint: first, reason: 'temporary', expires: '2026-03-31' },
      ...rest.map((fingerprint) => ({ fingerprint, reason: 'fine', expires: '2026-05-31' })),
    ]);
    const expired = await cli(['diff', lockV1, lockV2, '--format', 'json'], { cwd: repo, env: { MCP_CONTRACT_GUARD_TODAY: '2026-04-01' } });
    expect(expired.code).toBe(1);
    expect(expired.stderr).toContain(`warning: allow-list entry ${first} expired on 2026-03-31: the change it accepted ("temporary") counts against the gate again`);
    expect(expired.stderr).toContain(`✗ 1 change at or above --fail-on BREAKING (1 BREAKING), not accepted by the allow list:`);
    JSON.parse(expired.stdout);
    const valid = await cli(['check', '--command', v2, '--lockfile', lockV1, '--lockfile-check', 'warn', '--quiet'], { cwd: repo, env: { MCP_CONTRACT_GUARD_TODAY: '2026-03-31' } });
    expect(valid.code).toBe(0);
    expect(valid.stdout).toContain(`(until 2026-03-31)`);
    expect(valid.stderr).not.toContain('expired');
  });
});
