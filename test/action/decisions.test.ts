/** The Action's pure decisions: inputs, event plan, allow-list, gate, sticky comment, annotations. */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { evaluateAllowList, allowListNotes, todayUtc } from '../../src/policy/allow.js';
import { entryAnnotations, selectAnnotations, type Annotation } from '../../src/github/render/annotations.js';
import { lockfileLines } from '../../src/contract/lockfile.js';
import { planEvent, type RunContext } from '../../src/github/io/event.js';
import { decideGate, type GateInput } from '../../src/policy/gate.js';
import { INPUT_DEFAULTS, readInputs } from '../../src/github/io/inputs.js';
import { computeOutputs } from '../../src/github/render/summary.js';
import { ROOT } from './harness.js';
import { lockCommand, reproduceCommands } from '../../src/github/render/reproduce.js';
import { commentMarker, findSticky, planComment } from '../../src/github/io/sticky.js';
import { delta, reportOf } from './reports.js';
import { normalizeCapture } from '../../src/contract/normalize.js';
import { diffContracts } from '../../src/diff/index.js';
import { VERSION } from '../../src/version.js';

describe('inputs', () => {
  const read = (values: Record<string, string>) => readInputs((name) => values[name] ?? '', '/ws');

  test('defaults match action.yml, paths resolve against the working directory', () => {
    const inputs = read({ command: 'node server.js', 'working-directory': 'packages/inventory', 'fail-on': 'risky' });
    expect(inputs).toMatchObject({
      mode: 'review',
      failOn: 'RISKY',
      comment: 'on-change',
      approveLabel: 'contract-change-approved',
      artifactPath: '/ws/packages/inventory/contract-deltas.json',
      workingDirectory: '/ws/packages/inventory',
      compile: true,
      lockfileCheck: 'fail',
      unsafeAllowPrivilegedEvents: false,
      allowMaxDays: 180,
    });
    expect(inputs.lockfile).toBeUndefined();
    expect(read({ 'fail-on': 'never' }).failOn).toBe('never');
  });

  test('rejects what cannot be meant, naming the input', () => {
    expect(() => read({ command: 'a', url: 'http://x' })).toThrow(/Give one source/);
    expect(() => read({ command: 'a', config: 'c.json' })).toThrow(/"command" and "config"/);
    expect(() => read({ 'fail-on': 'sometimes' })).toThrow(/"fail-on" must be one of BREAKING, RISKY, SAFE, COSMETIC, never/);
    expect(() => read({ compile: 'yes' })).toThrow(/"compile" must be true or false/);
    expect(() => read({ url: 'ftp://x' })).toThrow(/http:\/\//);
    expect(() => read({ url: 'ftp://bob:s3cret-pass@x/mcp' })).toThrow('got "ftp://***@x/mcp"');
    expect(() => read({ headers: 'no colon here' })).toThrow(/"headers"/);
    expect(read({ url: 'https://x/mcp', headers: 'Authorization: Bearer s3cret\nX-Team: a' }).headers).toEqual({ Authorization: 'Bearer s3cret', 'X-Team': 'a' });
  });
});

describe('action.yml', () => {
  const yml = readFileSync(`${ROOT}/action.yml`, 'utf8');
  const section = (name: string) => yml.slice(yml.indexOf(`\n${name}:\n`), yml.indexOf('\n\n', yml.indexOf(`\n${name}:\n`) + 2));
  const declared = (name: string) => [...section(name).matchAll(/^ {2}([a-z-]+):$/gm)].map((m) => m[1]);

  test('declares exactly the inputs the Action reads, with the defaults it applies itself', () => {
    const read = new Set<string>();
    readInputs((name) => (read.add(name), ''), '/ws');
    expect(declared('inputs').sort()).toEqual([...read].sort());
    const defaults = Object.fromEntries([...section('inputs').matchAll(/^ {2}([a-z-]+):\n(?: {4}.*\n)*? {4}default: (.*)$/gm)].map((m) => [m[1], m[2]!.replace(/^'(.*)'$/, '$1')]));
    expect(defaults).toEqual({ ...INPUT_DEFAULTS, 'github-token': '${{ github.token }}' });
    expect(yml).toMatch(/runs:\n {2}using: node24\n {2}main: dist\/index\.js/);
  });

  test('declares every output the Action sets', () => {
    const set = Object.keys(computeOutputs([], { artifacts: [], report: '', review: '', sarif: '' }));
    // mode: capture and mode: watch set one of their own each.
    expect(declared('outputs').sort()).toEqual([...set, 'capture-path', 'drifted'].sort());
  });
});

describe('the event plan', () => {
  const context = (eventName: string, payload: Record<string, unknown>): RunContext => ({ eventName, payload, sha: 'f'.repeat(40), job: 'j', repo: { owner: 'o', repo: 'r' } });
  const pr = { number: 3, labels: [{ name: 'x' }], base: { sha: 'a'.repeat(40), ref: 'main', repo: { full_name: 'o/r' } }, head: { sha: 'b'.repeat(40), repo: { full_name: 'fork/r' } } };

  test('a PR compares with its base commit; its head is the PR head, not the merge commit', () => {
    const plan = planEvent(context('pull_request', { pull_request: pr, action: 'labeled', label: { name: 'ok' }, sender: { login: 'carol' } }));
    expect(plan.baseline).toEqual({ ref: 'a'.repeat(40), describe: 'the base of PR #3 (main @ aaaaaaa)' });
    expect(plan.headSha).toBe('b'.repeat(40));
    expect(plan.pr).toMatchObject({ fork: true, labels: ['x'], labeled: { label: 'ok', by: 'carol' } });
  });

  test('a push compares with "before"; a new branch has none; baseline-ref overrides all', () => {
    expect(planEvent(context('push', { before: 'c'.repeat(40) })).baseline?.ref).toBe('c'.repeat(40));
    const created = planEvent(context('push', { before: '0'.repeat(40) }));
    expect(created.baseline).toBeUndefined();
    expect(created.noBaselineReason).toContain('created the branch');
    // A pushed tag is this run's release: its tag is read, and with no "before" the way to a baseline is named.
    const tagged = planEvent(context('push', { ref: 'refs/tags/v1.1.0', before: '0'.repeat(40) }));
    expect(tagged).toMatchObject({ releaseTag: 'v1.1.0', noBaselineReason: 'this push created the tag v1.1.0, so it has no "before" commit; set "baseline-ref" to the previous release tag to compare with it' });
    expect(planEvent(context('release', { action: 'published', release: { tag_name: 'v2.0.0' } })).releaseTag).toBe('v2.0.0');
    expect(planEvent(context('push', { ref: 'refs/heads/main', before: 'c'.repeat(40) })).releaseTag).toBeUndefined();
    expect(planEvent(context('pull_request', { pull_request: pr }), 'v1.2.0').baseline).toEqual({ ref: 'v1.2.0', describe: 'baseline-ref v1.2.0' });
    expect(planEvent(context('workflow_dispatch', {})).noBaselineReason).toContain('baseline-ref');
  });

  test('dates the release as the event dates its head, in UTC; an event that dates none leaves it to the run', () => {
    expect(planEvent(context('push', { before: 'c'.repeat(40), head_commit: { timestamp: '2025-06-01T23:30:00-02:00' } })).releasedAt).toBe('2025-06-02');
    expect(planEvent(context('release', { release: { published_at: '2025-07-04T10:00:00Z', created_at: '2025-07-01T10:00:00Z' } })).releasedAt).toBe('2025-07-04');
    expect(planEvent(context('pull_request', { pull_request: { ...pr, updated_at: '2025-08-09T00:00:00Z' } })).releasedAt).toBe('2025-08-09');
    expect(planEvent(context('workflow_dispatch', {})).releasedAt).toBeUndefined();
    expect(planEvent(context('push', { head_commit: { timestamp: 'yesterday' } })).releasedAt).toBeUndefined();
  });
});

describe('the allow-list', () => {
  const report = reportOf({ a: [delta('BREAKING', 'f1'), delta('RISKY', 'f2')] });
  const allow = [
    { fingerprint: 'F1', reason: 'migrating clients', expires: '2030-01-31' },
    { fingerprint: 'f2', reason: 'old', expires: '2029-12-31' },
    { fingerprint: 'f9', reason: 'merged long ago', expires: '2030-03-01' },
  ];

  test('accepts through the expiry day (inclusive), not after; fingerprints match without case', () => {
    expect(evaluateAllowList([{ server: 's', report }], allow, '2030-01-31').acceptedBy('f1')?.reason).toBe('migrating clients');
    expect(evaluateAllowList([{ server: 's', report }], allow, '2030-02-01').acceptedBy('f1')).toBeUndefined();
  });

  test('reports expired entries (still needed or not) and unused ones', () => {
    const evaluation = evaluateAllowList([{ server: 's', report }, { server: 't', report: null }], allow, '2030-01-15');
    expect(evaluation.accepted.map((a) => [a.server, a.delta.fingerprint])).toEqual([['s', 'f1']]);
    expect(evaluation.expired).toEqual([{ entry: allow[1], matched: true }]);
    expect(evaluation.unused).toEqual([allow[2]]);
    const notes = allowListNotes(evaluation);
    expect(notes[0]).toContain('f2 expired on 2029-12-31: the change it accepted ("old") counts against the gate again');
    expect(notes[1]).toContain('f9 ("merged long ago") matched no change in this run');
  });

  test('today is UTC, or the override when it is a date', () => {
    expect(todayUtc('2031-05-06')).toBe('2031-05-06');
    expect(todayUtc('tomorrow')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe('the gate', () => {
  const report = reportOf({ a: [delta('BREAKING', 'b1'), delta('RISKY', 'r1'), delta('SAFE', 's1'), delta('COSMETIC', 'c1')] });
  const base: GateInput = { server: 'inv', report, failOn: 'BREAKING', accepted: () => false, lockfileCheck: 'fail', approveLabel: 'ok-label' };

  test.each([
    ['BREAKING', false, 1],
    ['RISKY', false, 2],
    ['SAFE', false, 3],
    ['COSMETIC', false, 4],
    ['never', true, 0],
  ] as const)('fail-on %s: pass %s with %i blocking', (failOn, pass, blocking) => {
    const decision = decideGate({ ...base, failOn });
    expect(decision.pass).toBe(pass);
    expect(decision.blocking).toHaveLength(blocking);
    expect(decision.verdict).toBe(failOn === 'never' ? 'not-gated' : 'blocked');
  });

  test('the failure names the label and the allow-list; without a PR, only the allow-list', () => {
    expect(decideGate(base).failures[0]).toBe(
      'The contracts of inv have 1 change at or above fail-on BREAKING (1 BREAKING). If they are intended, add the label "ok-label" to the pull request (the gate then passes and the comment says who approved), or accept each one by fingerprint in the "allow" list of mcp-contract-guard.config.json.',
    );
    expect(decideGate({ ...base, approveLabel: undefined }).failures[0]).not.toContain('label');
  });

  test('the label approves; the allow-list accepts; neither excuses a stale lockfile', () => {
    expect(decideGate({ ...base, approval: { label: 'ok-label', by: 'carol' } })).toMatchObject({ pass: true, verdict: 'approved' });
    expect(decideGate({ ...base, accepted: (f) => f === 'b1' })).toMatchObject({ pass: true, verdict: 'accepted', accepted: [{ name: 'a' }] });
    const stale = decideGate({ ...base, approval: { label: 'ok-label' }, staleMessage: 'stale: run X' });
    expect(stale).toMatchObject({ pass: false, verdict: 'approved', failures: ['stale: run X'] });
    expect(decideGate({ ...base, approval: { label: 'ok-label' }, staleMessage: 'stale', lockfileCheck: 'warn' }).pass).toBe(true);
  });

  test("the server's own changes are gated like an entry's: a withdrawn capability blocks, and the allow-list accepts it", async () => {
    const contractsOf = (capabilities: Record<string, unknown>) =>
      normalizeCapture({ protocolVersion: '', era: 'legacy', tools: [], prompts: [], resources: [], resourceTemplates: [], server: { name: 'inv', version: '1' }, capabilities }).contracts;
    const withdrawn = await diffContracts(contractsOf({ tools: {}, logging: {} }), contractsOf({ tools: {} }));
    const decision = decideGate({ ...base, report: withdrawn });
    expect(decision).toMatchObject({ pass: false, verdict: 'blocked', blocking: [{ collection: 'server', name: 'inv', delta: { kind: 'capability-withdrawn', severity: 'BREAKING' } }] });
    expect(decision.failures[0]).toContain('1 change at or above fail-on BREAKING');
    const fingerprint = decision.blocking[0]!.delta.fingerprint;
    expect(decideGate({ ...base, report: withdrawn, accepted: (f) => f === fingerprint })).toMatchObject({ pass: true, verdict: 'accepted' });
  });

  test('below the threshold passes; no review (compile failure) fails', () => {
    expect(decideGate({ ...base, report: reportOf({ a: [delta('SAFE', 's')] }) })).toMatchObject({ pass: true, verdict: 'below-threshold' });
    expect(decideGate({ ...base, report: reportOf({}) })).toMatchObject({ pass: true, verdict: 'clean' });
    const failed = decideGate({ ...base, report: null, reviewError: 'The command "nope" was not found on PATH.' });
    expect(failed).toMatchObject({ pass: false, verdict: 'unknown' });
    expect(failed.failures[0]).toBe('Could not review the contracts of inv: The command "nope" was not found on PATH.');
  });
});

describe('the sticky comment', () => {
  const marker = commentMarker('inventory', 'contracts');

  test('the marker names server and job, and nothing in them can end the HTML comment', () => {
    expect(marker).toBe('<!-- mcp-contract-guard:sticky server=inventory job=contracts -->');
    expect(commentMarker('a-->b', 'j')).not.toContain('-->b');
    expect(commentMarker('a', 'j1')).not.toBe(commentMarker('a', 'j2'));
    expect(commentMarker('a b', 'j')).not.toBe(commentMarker('a_b', 'j'));
  });

  test('found by marker on its first line, written by github-actions[bot] or by the token\'s own account; no other bot', () => {
    const comments = [
      { id: 1, body: `quoting ${marker}`, user: { login: 'github-actions[bot]', type: 'Bot' } },
      { id: 2, body: `${marker}\nfake`, user: { login: 'mallory', type: 'User' } },
      { id: 5, body: `${marker}\nanother app`, user: { login: 'helpful-app[bot]', type: 'Bot' } },
      { id: 3, body: `${marker}\nreal`, user: { login: 'github-actions[bot]', type: 'Bot' } },
      { id: 4, body: `${marker}\nlater duplicate`, user: { login: 'github-actions[bot]', type: 'Bot' } },
    ];
    expect(findSticky(comments, marker)?.id).toBe(3);
    expect(findSticky(comments.slice(0, 3), marker)).toBeUndefined();
    expect(findSticky(comments.slice(0, 3), marker, 'mallory')?.id).toBe(2);
    expect(findSticky(comments.slice(0, 3), marker, 'helpful-app[bot]')?.id).toBe(5);
  });

  test('plan: create on change, never on a PR without changes, quiet after a revert, nothing when unchanged', () => {
    const body = `${marker}\nreport`;
    const quietBody = `${marker}\nnone`;
    expect(planComment({ mode: 'on-change', changed: true, body, quietBody })).toEqual({ action: 'create', body });
    expect(planComment({ mode: 'on-change', changed: false, body, quietBody })).toMatchObject({ action: 'none' });
    expect(planComment({ mode: 'always', changed: false, body, quietBody })).toEqual({ action: 'create', body });
    expect(planComment({ mode: 'on-change', changed: false, body, quietBody, existing: { id: 9, body } })).toEqual({ action: 'update', id: 9, body: quietBody });
    expect(planComment({ mode: 'on-change', changed: true, body, quietBody, existing: { id: 9, body: `${body.replace(/\n/g, '\r\n')}\n` } })).toMatchObject({ action: 'none' });
    expect(planComment({ mode: 'never', changed: true, body, quietBody, existing: { id: 9, body: 'old' } })).toMatchObject({ action: 'none' });
  });
});

describe('annotations', () => {
  const lockfile = [
    '{',
    '  "digest": "sha256:…",',
    '  "prompts": {},',
    '  "tools": {',
    '    "a\\"b": {',
    '      "contract": {',
    '        "name": "x": {',
    '      }',
    '    },',
    '    "kept": {',
    '    }',
    '  }',
    '}',
  ].join('\n');

  test('find an entry\'s line under its kind (names JSON-escaped), or the kind\'s line', () => {
    const lines = lockfileLines(lockfile);
    expect(lines.entry('tools', 'a"b')).toBe(5);
    expect(lines.entry('tools', 'kept')).toBe(10);
    expect(lines.entry('prompts', 'kept')).toBeUndefined();
    expect(lines.kind('tools')).toBe(4);
  });

  test('one per changed entry at its worst level; a removed entry points at its kind', () => {
    const report = reportOf({ kept: [delta('SAFE', 's'), delta('RISKY', 'r')], gone: [delta('BREAKING', 'b')] });
    const annotations = entryAnnotations({ server: 'inv', report, lockfile: { file: 'x/lock.json', text: lockfile }, isAccepted: (f) => f === 'r' });
    expect(annotations.map((a) => [a.level, a.line, a.title])).toEqual([
      ['warning', 10, 'RISKY change to tool kept (inv)'],
      ['error', 4, 'BREAKING change to tool gone (inv)'],
    ]);
    // Worst first, as every report lists them.
    expect(annotations[0]!.message).toBe('RISKY (allow-listed): a RISKY change\nSAFE: a SAFE change');
  });

  test('at most 10 per level, worst first, the tenth saying how many more', () => {
    const many: Annotation[] = Array.from({ length: 14 }, (_, i) => ({ level: 'error', title: `e${i}`, message: '', rank: i }));
    const few: Annotation[] = Array.from({ length: 3 }, (_, i) => ({ level: 'notice', title: `n${i}`, message: '', rank: i }));
    const selected = selectAnnotations([...few, ...many]);
    const errors = selected.filter((a) => a.level === 'error');
    expect(errors).toHaveLength(10);
    expect(errors.slice(0, 9).map((a) => a.title)).toEqual(['e13', 'e12', 'e11', 'e10', 'e9', 'e8', 'e7', 'e6', 'e5']);
    expect(errors[9]!.title).toBe('5 more errors');
    expect(selected.filter((a) => a.level === 'notice')).toHaveLength(3);
  });
});

describe('reproduce commands', () => {
  test('git show the base lockfile, lock the head aside, diff with the same threshold, then check', () => {
    const selection = { flags: "--command 'node dist/server.js'", lockfileFlag: '', dir: 'packages/inv' };
    expect(lockCommand(selection)).toBe(`cd packages/inv && npx mcp-contract-guard@${VERSION} lock --command 'node dist/server.js'`);
    expect(reproduceCommands({ selection, lockfileRepoPath: 'packages/inv/mcp-contracts.lock.json', lockfileLocalPath: 'mcp-contracts.lock.json', baselineRef: 'abc', compile: true, failOn: 'RISKY' })).toEqual([
      'cd packages/inv',
      'git show abc:packages/inv/mcp-contracts.lock.json > /tmp/base.lock.json',
      `npx mcp-contract-guard@${VERSION} lock --command 'node dist/server.js' --lockfile /tmp/head.lock.json`,
      `npx mcp-contract-guard@${VERSION} diff /tmp/base.lock.json /tmp/head.lock.json --fail-on RISKY`,
      `npx mcp-contract-guard@${VERSION} check --command 'node dist/server.js'`,
    ]);
    expect(reproduceCommands({ selection: { ...selection, dir: '' }, lockfileRepoPath: 'l.json', lockfileLocalPath: 'l.json', compile: false, failOn: 'never' })).toEqual([`npx mcp-contract-guard@${VERSION} diff l.json l.json`]);
  });
});
