/**
 * What the Action trusts, as pure decisions: which events may run pull request code, which
 * commit owns the baseline, whose label approves, how long an acceptance lasts, and what a
 * review file may not decide.
 */
import { describe, expect, test } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { planEvent, type RunContext } from '../../src/github/io/event.js';
import { readInputs } from '../../src/github/io/inputs.js';
import { PRIVILEGED_EVENTS, privilegePolicy } from '../../src/github/privilege.js';
import type { ServerReview } from '../../src/protocol/index.js';
import { vouchReview } from '../../src/github/vouch.js';
import { allowListNotes, evaluateAllowList } from '../../src/policy/allow.js';
import { judgeApproval } from '../../src/policy/approval.js';
import { planServers } from '../../src/policy/servers.js';
import { delta, reportOf, serverReview } from './reports.js';

describe('privileged events', () => {
  const live = [{ name: 'inventory', kind: 'command' as const }, { name: 'billing', kind: 'url' as const }];

  test('cover every event that runs with secrets on behalf of a pull request', () => {
    expect(PRIVILEGED_EVENTS).toEqual(
      expect.arrayContaining(['pull_request_target', 'workflow_run', 'issue_comment', 'pull_request_review', 'pull_request_review_comment', 'check_run', 'check_suite', 'deployment_status', 'status']),
    );
    for (const safe of ['pull_request', 'push', 'merge_group', 'workflow_dispatch', 'schedule', '__proto__', 'constructor']) {
      expect(privilegePolicy(safe, false), safe).toMatchObject({ headFromCommit: false });
      expect(privilegePolicy(safe, false).refusal(live)).toBeUndefined();
    }
  });

  test.each(PRIVILEGED_EVENTS)('%s: nothing is started or contacted, the head is read by SHA; the opt-in allows it with a warning', (event) => {
    const policy = privilegePolicy(event, false);
    expect(policy.headFromCommit).toBe(true);
    const refusal = policy.refusal(live)!;
    expect(refusal).toContain(`Refusing to start "inventory" or contact the address of "billing" under ${event}`);
    expect(refusal).toContain('examples/workflows/fork-review.yml');
    expect(refusal).toContain('fork-comment.yml');
    expect(refusal).toContain('"compile: false"');
    expect(refusal).toContain('"unsafe-allow-privileged-events: true"');
    expect(policy.refusal([])).toBeUndefined();
    const unsafe = privilegePolicy(event, true);
    expect(unsafe).toMatchObject({ headFromCommit: false });
    expect(unsafe.warning).toContain('unsafe-allow-privileged-events');
    expect(unsafe.refusal(live)).toBeUndefined();
  });

  test('the opt-in has a new name; the old one still works', () => {
    const read = (values: Record<string, string>) => readInputs((name) => values[name] ?? '', '/ws').unsafeAllowPrivilegedEvents;
    expect(read({})).toBe(false);
    expect(read({ 'unsafe-allow-privileged-events': 'true' })).toBe(true);
    expect(read({ 'unsafe-allow-pull-request-target': 'true' })).toBe(true);
  });
});

describe('the event plan of privileged events', () => {
  const context = (eventName: string, payload: Record<string, unknown>): RunContext => ({ eventName, payload, sha: 'f'.repeat(40), job: 'j', repo: { owner: 'o', repo: 'r' } });

  test('workflow_run: the head is the run\'s commit, the base its pull request\'s (a fork\'s run lists none)', () => {
    const run = { head_sha: 'b'.repeat(40), pull_requests: [{ number: 4, base: { sha: 'a'.repeat(40), ref: 'main', repo: { id: 1 } }, head: { sha: 'b'.repeat(40), repo: { id: 1 } } }] };
    const plan = planEvent(context('workflow_run', { workflow_run: run }));
    expect(plan).toMatchObject({ headSha: 'b'.repeat(40), pr: { number: 4, fork: false }, baseline: { ref: 'a'.repeat(40) } });
    const fork = planEvent(context('workflow_run', { workflow_run: { ...run, pull_requests: [] } }));
    expect(fork.headSha).toBe('b'.repeat(40));
    expect(fork.pr).toBeUndefined();
  });

  test('issue_comment on a pull request: looked up through the API; other events name their commit', () => {
    expect(planEvent(context('issue_comment', { issue: { number: 9, pull_request: { url: 'x' } } })).lookUpPullRequest).toBe(9);
    expect(planEvent(context('issue_comment', { issue: { number: 9 } })).lookUpPullRequest).toBeUndefined();
    expect(planEvent(context('deployment_status', { deployment: { sha: 'c'.repeat(40) } })).headSha).toBe('c'.repeat(40));
    expect(planEvent(context('check_suite', { check_suite: { head_sha: 'd'.repeat(40) } })).headSha).toBe('d'.repeat(40));
  });
});

describe('the baseline belongs to the base', () => {
  const server = (name: string, lockfile: string) => ({ name, lockfile });

  test('servers pair by name: a moved lockfile keeps its base path, a dropped server is removed, a new one has no baseline', () => {
    const head = [server('inventory', 'inventory/elsewhere.lock.json'), server('billing', 'billing/mcp-contracts.lock.json'), server('search', 'search/mcp-contracts.lock.json')];
    const base = [server('inventory', 'inventory/mcp-contracts.lock.json'), server('billing', 'billing/mcp-contracts.lock.json'), server('orders', 'orders/mcp-contracts.lock.json')];
    const plan = planServers(head, base);
    expect(plan.map((p) => [p.name, p.head?.lockfile, p.baseLockfile, p.change])).toEqual([
      ['inventory', 'inventory/elsewhere.lock.json', 'inventory/mcp-contracts.lock.json', 'moved'],
      ['billing', 'billing/mcp-contracts.lock.json', 'billing/mcp-contracts.lock.json', undefined],
      ['search', 'search/mcp-contracts.lock.json', undefined, 'added'],
      ['orders', undefined, 'orders/mcp-contracts.lock.json', 'removed'],
    ]);
    expect(plan[0]!.note).toBe('inventory now keeps its lockfile at inventory/elsewhere.lock.json; the base\'s config puts it at inventory/mcp-contracts.lock.json, so that is the baseline this review compares with.');
    expect(plan[2]!.note).toContain('a new server, so every entry counts as new');
    expect(plan[3]!.note).toBe('The config no longer lists orders: every entry of its lockfile at the base (orders/mcp-contracts.lock.json) counts as removed.');
  });

  test('one server picked on either side; a base without a config compares each server at its head path', () => {
    const base = [server('orders', 'orders/mcp-contracts.lock.json')];
    expect(planServers([server('inventory', 'i.json')], base, 'orders')).toMatchObject([{ name: 'orders', change: 'removed' }]);
    expect(planServers([server('inventory', 'i.json')], base, 'nothing')).toEqual([]);
    expect(planServers([server('inventory', 'i.json')], undefined)).toEqual([{ name: 'inventory', head: server('inventory', 'i.json'), baseLockfile: 'i.json' }]);
  });
});

describe('approvals', () => {
  test('count only when the labeller may write; otherwise say whose label was ignored and why', () => {
    expect(judgeApproval({ label: 'ok', by: 'carol', permission: { permission: 'write', role: 'maintain' } })).toEqual({ approval: { label: 'ok', by: 'carol' } });
    expect(judgeApproval({ label: 'ok', by: 'root', permission: { permission: 'admin' } })).toEqual({ approval: { label: 'ok', by: 'root' } });
    expect(judgeApproval({ label: 'ok', by: 'mallory', permission: { permission: 'read', role: 'triage' } })).toEqual({
      ignored: 'The label "ok" was added by @mallory, who has triage permission on this repository: only an account with write, maintain or admin permission can approve, so the label is ignored. To approve, one of them removes it and adds it again.',
    });
    expect(judgeApproval({ label: 'ok', by: 'eve', permission: { error: 'HTTP 404' } })).toEqual({ ignored: 'The label "ok" was added by @eve, whose permission on this repository could not be checked (HTTP 404), so it does not approve.' });
    expect(judgeApproval({ label: 'ok' })).toMatchObject({ ignored: expect.stringContaining('who added it could not be found') });
  });
});

describe('the allow-list horizon', () => {
  const report = reportOf({ a: [delta('BREAKING', 'f1'), delta('BREAKING', 'f2'), delta('BREAKING', 'f3')] });
  const allow = [
    { fingerprint: 'f1', reason: 'clients migrated', expires: '2030-03-01' },
    { fingerprint: 'f2', reason: 'forever' },
    { fingerprint: 'f3', reason: 'far away', expires: '2031-01-01' },
    { fingerprint: 'f9', reason: 'no change matches', expires: '2040-01-01' },
  ];

  test('an entry without a date, or past the horizon, accepts nothing and is named with the rule', () => {
    const evaluation = evaluateAllowList([{ server: 's', report }], allow, '2030-01-01');
    expect(evaluation.accepted.map((a) => a.delta.fingerprint)).toEqual(['f1']);
    expect(evaluation.refused.map((r) => [r.entry.fingerprint, r.matched])).toEqual([['f2', true], ['f3', true], ['f9', false]]);
    const notes = allowListNotes(evaluation);
    expect(notes[0]).toBe('allow-list entry f2 ("forever") is refused: it accepts nothing, so the change it names counts against the gate. Why: it has no "expires" date; give it one at most 180 days ahead (2030-06-30 or earlier).');
    expect(notes[1]).toContain('it expires on 2031-01-01, more than 180 days ahead; pick 2030-06-30 or earlier');
    expect(notes[2]).toContain('f9 ("no change matches") is refused (it accepts nothing)');
    // The horizon is the workflow's to set.
    expect(evaluateAllowList([{ server: 's', report }], allow, '2030-01-01', 400).accepted.map((a) => a.delta.fingerprint)).toEqual(['f1', 'f3']);
  });

  test('expires must be a real day: the config names the entry', () => {
    const config = (expires: string) => JSON.stringify({ servers: { s: { command: 'node s.js' } }, allow: [{ fingerprint: 'abcd1234', reason: 'r', expires }] });
    expect(parseConfig(config('2028-02-29'), '/ws/c.json').allow[0]!.expires).toBe('2028-02-29');
    expect(() => parseConfig(config('2026-02-30'), '/ws/c.json')).toThrow('allow.0.expires: expires must be a real calendar date');
    expect(() => parseConfig(config('2026-13-01'), '/ws/c.json')).toThrow('allow.0.expires');
    expect(() => readInputs((n) => (n === 'allow-max-days' ? '0' : ''), '/ws')).toThrow('"allow-max-days"');
  });
});

describe('a review file is data, not a verdict', () => {
  const forged = (overrides: Partial<ServerReview> = {}): ServerReview =>
    serverReview({
      report: reportOf({ create_order: [delta('BREAKING', 'aaaa1111aaaa1111')] }),
      // What the forger claims: passing, approved by a maintainer.
      gate: { pass: true, verdict: 'approved', blocking: [], failures: [] },
      approval: { label: 'contract-change-approved', by: 'maintainer' },
      approveLabel: 'anything-goes',
      ...overrides,
    });

  test('the gate is recomputed, the approval comes from GitHub, the label name from this run', () => {
    const vouched = vouchReview(forged(), { runConclusion: 'success', approveLabel: 'contract-change-approved' });
    expect(vouched.gate).toMatchObject({ pass: false, verdict: 'blocked', blocking: [{ fingerprint: 'aaaa1111aaaa1111' }] });
    expect(vouched.approval).toBeUndefined();
    expect(vouched.approveLabel).toBe('contract-change-approved');
    const ignored = vouchReview(forged(), { runConclusion: 'success', approveLabel: 'ok', approvalIgnored: 'The label "ok" was added by @mallory…' });
    expect(ignored.approvalIgnored).toBe('The label "ok" was added by @mallory…');
    const approved = vouchReview(forged(), { runConclusion: 'success', approveLabel: 'ok', approval: { label: 'ok', by: 'carol' } });
    expect(approved).toMatchObject({ gate: { pass: true, verdict: 'approved' }, approval: { label: 'ok', by: 'carol' } });
  });

  test('what an approval covers comes from the comment\'s record, and the version check is recomputed from the versions', () => {
    const twoBreaks = reportOf({ create_order: [delta('BREAKING', 'aaaa1111aaaa1111'), delta('BREAKING', 'cccc3333cccc3333')] });
    const claims = forged({
      report: twoBreaks,
      approvalCoverage: { label: 'ok', by: 'carol', approvedFingerprints: ['aaaa1111aaaa1111', 'cccc3333cccc3333'], newSinceApproval: [] },
      release: { bump: 'none', previousVersion: '1.4.0', currentVersion: '1.5.0', check: 'ok', mode: 'fail' },
    });
    const record = { label: 'ok', by: 'carol', at: '', fingerprints: ['aaaa1111aaaa1111'] };
    const vouched = vouchReview(claims, { runConclusion: 'success', approveLabel: 'ok', approval: { label: 'ok', by: 'carol' }, approvalRecord: record });
    expect(vouched.approvalCoverage).toEqual({ label: 'ok', by: 'carol', approvedFingerprints: ['aaaa1111aaaa1111'], newSinceApproval: ['cccc3333cccc3333'] });
    expect(vouched.release).toMatchObject({ bump: 'major', check: 'too-small', requiredVersion: '2.0.0' });
    expect(vouched.gate.pass).toBe(false);
    expect(vouched.gate.failures).toHaveLength(2);
    // Without an approval, no coverage is shown, whatever the file says.
    expect(vouchReview(claims, { runConclusion: 'success', approveLabel: 'ok' }).approvalCoverage).toBeUndefined();
  });

  test('a passing review is shown as passing only when the run that wrote it succeeded', () => {
    const clean = forged({ report: reportOf({}) });
    expect(vouchReview(clean, { runConclusion: 'success', approveLabel: 'ok' }).gate).toMatchObject({ pass: true, verdict: 'clean' });
    const failed = vouchReview(clean, { runConclusion: 'failure', approveLabel: 'ok' });
    expect(failed.gate).toMatchObject({ pass: false, verdict: 'unknown' });
    expect(failed.reviewError).toContain('concluded "failure", not "success"');
    expect(vouchReview(clean, { approveLabel: 'ok' }).reviewError).toContain('GitHub did not say how the run that wrote this review file ended');
  });
});
