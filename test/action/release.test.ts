/**
 * Issue 11 through the Action (`node dist/index.js` against the local GitHub API stand-in):
 * the allow-list the comment offers works as pasted in the one-step setup, an approval covers
 * what was approved and nothing pushed later, and the release verdict (semver-bump,
 * version-check).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { readApprovalRecord, renderApprovalRecord } from '../../src/github/approval/record.js';
import { commentMarker } from '../../src/github/io/sticky.js';
import { renderLockfile } from '../../src/contract/lockfile.js';
import type { Contracts } from '../../src/contract/model.js';
import { setUpActionSuite, type Inventory } from './fixtures.js';
import type { GitHubMock } from './github-mock.js';
import { EXAMPLE, GitRepo, pullRequestPayload, runAction, type ActionRun } from './harness.js';

const PR = 11;
const LOCK = 'mcp-contracts.lock.json';
const CONFIG = 'mcp-contract-guard.config.json';
const V2 = `node ${EXAMPLE('v2')}`;
const LABEL = 'contract-change-approved';
const TODAY = { MCP_CONTRACT_GUARD_TODAY: '2030-01-01' };

let inventory: Inventory;
let mock: GitHubMock;

setUpActionSuite((i, m) => {
  [inventory, mock] = [i, m];
});

/** A lockfile of `contracts` changed by `edit` (a version, a tool less), digests and all. */
function lockOf(contracts: Contracts, edit: (c: Contracts) => void): string {
  const copy = structuredClone(contracts);
  edit(copy);
  return renderLockfile(copy);
}

/** A pull request whose commits the test adds one by one; each run is an event on its latest head. */
function pullRequest(base: Record<string, string>) {
  const repo = new GitRepo();
  const baseSha = repo.commit(base, 'base');
  let headSha = baseSha;
  return {
    repo,
    push(files: Record<string, string>) {
      headSha = repo.commit(files, 'push');
      mock.pulls.set(PR, { head: { sha: headSha } });
      return headSha;
    },
    run(inputs: Record<string, string>, event: { sender?: string; action?: string; label?: string } = {}, env: Record<string, string> = {}): Promise<ActionRun> {
      const payload = pullRequestPayload({ number: PR, baseSha, headSha, sender: event.sender ?? 'alice', action: event.action ?? 'synchronize', ...(event.label ? { label: event.label } : {}), labels: mock.labels.get(PR) ?? [] });
      return runAction({ workspace: repo.dir, event: 'pull_request', payload, apiUrl: mock.url, inputs, sha: headSha, env: { ...TODAY, ...env } });
    },
  };
}

/** The label, added by `by` at `at` (as GitHub's issue events tell it), with write permission. */
function addLabel(by: string, at: string): void {
  mock.labels.set(PR, [LABEL]);
  mock.events.set(PR, [...(mock.events.get(PR) ?? []), { event: 'labeled', label: { name: LABEL }, actor: { login: by }, created_at: at }]);
  mock.permissions.set(by, { permission: 'write', role_name: 'maintain' });
}

const sticky = () => (mock.comments.get(PR) ?? []).find((c) => c.user.type === 'Bot' && c.body.startsWith(commentMarker(LOCK, 'contracts')));
const reviewFile = (run: ActionRun) => JSON.parse(readFileSync(run.outputs['review-path']!, 'utf8')) as { reviews: Array<Record<string, unknown>> };

describe('the allow-list the comment offers', () => {
  test('pasted into the one-step setup (a config file with only "allow", beside the command input), passes the gate', async () => {
    const pr = pullRequest({ [LOCK]: inventory.lockV1 });
    pr.push({ [LOCK]: inventory.lockV2 });
    const failed = await pr.run({ command: V2 });
    expect(failed.code).toBe(1);
    expect(failed.outputs).toMatchObject({ gate: 'fail', 'semver-bump': 'major', 'version-check': 'ok' });
    expect(failed.stdout).toContain('inventory: the contract changes call for a major release (semver-bump major); version-check ok: BREAKING changes need a major release; 1.0.0 → 2.0.0 is one.');
    const body = sticky()!.body;
    expect(body).toContain('<summary>Allow-list entries for these changes (5)</summary>');
    const snippet = /Create `mcp-contract-guard\.config\.json` with:\n\n```json\n([\s\S]*?)\n```/.exec(body)![1]!;
    expect(snippet.match(/"expires":"2030-04-01"/g)).toHaveLength(5);

    pr.push({ [CONFIG]: snippet });
    const passed = await pr.run({ command: V2 });
    expect(passed.code, passed.stdout).toBe(0);
    expect(passed.outputs.gate).toBe('pass');
    expect(sticky()!.body).toContain('every change at or above `fail-on: BREAKING` is accepted by the allow-list');
    expect(sticky()!.body).toContain('<summary>Accepted by the allow-list (5)</summary>');
  });

  test('a config file with only "allow" and no server named anywhere: the error says what to give', async () => {
    const pr = pullRequest({ [LOCK]: inventory.lockV1 });
    pr.push({ [CONFIG]: JSON.stringify({ allow: [] }) });
    const result = await pr.run({});
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('The config file mcp-contract-guard.config.json lists no servers: it only holds an allow list, which applies when the input "command", "url" or "file" names the server.');
  });
});

describe('an approval covers what was approved', () => {
  // v1 without delete_order: one of the five BREAKING changes v2 makes.
  const firstBreak = () => lockOf(inventory.v1, (c) => delete c.tools.delete_order);

  test('a label, then a push with new BREAKING changes: the gate fails again, naming only the new ones; adding the label again approves them', async () => {
    const pr = pullRequest({ [LOCK]: inventory.lockV1 });
    pr.push({ [LOCK]: firstBreak() });
    expect((await pr.run({ compile: 'false' })).code).toBe(1);

    // The maintainer adds the label: that event's run records what it approves.
    addLabel('carol', '2030-01-01T10:00:00Z');
    const approved = await pr.run({ compile: 'false' }, { action: 'labeled', label: LABEL, sender: 'carol' });
    expect(approved.code, approved.stdout).toBe(0);
    const record = readApprovalRecord(sticky()!.body)!;
    expect(record).toMatchObject({ label: LABEL, by: 'carol', at: '2030-01-01T10:00:00Z' });
    expect(record.fingerprints).toHaveLength(1);
    expect(sticky()!.body).toContain('**Approved by label**');

    // Someone else pushes four more BREAKING changes.
    pr.push({ [LOCK]: inventory.lockV2 });
    const pushed = await pr.run({ compile: 'false' });
    expect(pushed.code).toBe(1);
    expect(pushed.outputs.gate).toBe('fail');
    expect(pushed.stdout).toContain('::error::The contracts of inventory have 4 changes at or above fail-on BREAKING that the label "contract-change-approved" added by @carol does not cover: they were pushed after it was added');
    expect(pushed.stdout).toContain('It still covers the 1 it approved.');
    const coverage = reviewFile(pushed).reviews[0]!.approvalCoverage as { approvedFingerprints: string[]; newSinceApproval: string[] };
    expect(coverage.approvedFingerprints).toEqual(record.fingerprints);
    expect(coverage.newSinceApproval).toHaveLength(4);
    expect(coverage.newSinceApproval).not.toContain(record.fingerprints[0]);
    // The record stays what it was: a later run cannot widen it.
    expect(readApprovalRecord(sticky()!.body)).toEqual(record);
    expect(sticky()!.body).toContain('**Contract gate failed**');

    const all = reviewFile(pushed).reviews[0]!.gate as { blocking: Array<{ fingerprint: string }> };

    // The maintainer adds the label again (a new label event): everything now present is approved.
    addLabel('carol', '2030-01-02T09:00:00Z');
    const again = await pr.run({ compile: 'false' }, { action: 'labeled', label: LABEL, sender: 'carol' });
    expect(again.code, again.stdout).toBe(0);
    expect(readApprovalRecord(sticky()!.body)).toMatchObject({ at: '2030-01-02T09:00:00Z', fingerprints: expect.arrayContaining(all.blocking.map((b) => b.fingerprint)) });
    expect((await pr.run({ compile: 'false' })).code).toBe(0);
  });

  test('a label no review recorded (the workflow does not run on "labeled") does not approve a later push, nor does a record in a person\'s comment', async () => {
    const pr = pullRequest({ [LOCK]: inventory.lockV1 });
    addLabel('carol', '2030-01-01T10:00:00Z');
    pr.push({ [LOCK]: inventory.lockV2 });
    // The oldest comment with the marker, and a record of every change: but a person wrote it.
    const every = Object.values(inventory.report.tools).flatMap((e) => e.deltas.map((d) => d.fingerprint));
    const forged = renderApprovalRecord({ label: LABEL, by: 'carol', at: '2030-01-01T10:00:00Z', fingerprints: every });
    mock.addComment(PR, `${commentMarker(LOCK, 'contracts')}\n${forged}\nApproved, trust me.`, { login: 'mallory', type: 'User' });
    const result = await pr.run({ compile: 'false' });
    expect(result.code).toBe(1);
    expect(mock.comments.get(PR)![0]!.body).toContain('trust me');
    expect(sticky()!.body).toContain('no review recorded them then; this run was started by @\u2060alice');
    expect(sticky()!.body).not.toContain('**Approved by label**');
  });

  test('pull requests from forks: comment-only keeps the record, and holds a later push to it', async () => {
    const pr = pullRequest({ [LOCK]: inventory.lockV1 });
    const h0 = pr.push({ [LOCK]: firstBreak() });
    addLabel('carol', '2030-01-01T10:00:00Z');
    // The fork's run of the label event (read-only token: no comment), then the workflow_run that posts it.
    const forkRun = await pr.run({ compile: 'false', comment: 'never' }, { action: 'labeled', label: LABEL, sender: 'carol' });
    expect(forkRun.code, forkRun.stdout).toBe(0);
    const post = (run: ActionRun, head: string, actor: string, conclusion: string) => {
      const downloaded = new GitRepo();
      downloaded.write('mcp-contract-guard-review.json', readFileSync(run.outputs['review-path']!, 'utf8'));
      const workflowRun = { head_sha: head, conclusion, event: 'pull_request', pull_requests: [], triggering_actor: { login: actor } };
      return runAction({ workspace: downloaded.dir, event: 'workflow_run', payload: { action: 'completed', workflow_run: workflowRun }, apiUrl: mock.url, job: 'post', inputs: { mode: 'comment-only' } });
    };
    const posted = await post(forkRun, h0, 'carol', 'success');
    expect(posted.code, posted.stdout).toBe(0);
    expect(posted.outputs.gate).toBe('pass');
    expect(readApprovalRecord(sticky()!.body)?.fingerprints).toHaveLength(1);

    const h1 = pr.push({ [LOCK]: inventory.lockV2 });
    const pushed = await pr.run({ compile: 'false', comment: 'never' }, { sender: 'mallory' });
    expect(pushed.code).toBe(1);
    expect(pushed.stdout).toContain('4 changes at or above fail-on BREAKING that the label "contract-change-approved" added by @carol does not cover');
    // Even if the fork's review file claimed otherwise, comment-only reads the record itself.
    const forged = JSON.parse(readFileSync(pushed.outputs['review-path']!, 'utf8')) as { reviews: Array<Record<string, unknown>> };
    forged.reviews[0]!.approvalCoverage = { label: LABEL, by: 'carol', approvedFingerprints: [], newSinceApproval: [] };
    const downloaded = new GitRepo();
    downloaded.write('mcp-contract-guard-review.json', JSON.stringify(forged));
    const reposted = await runAction({
      workspace: downloaded.dir,
      event: 'workflow_run',
      payload: { action: 'completed', workflow_run: { head_sha: h1, conclusion: 'success', event: 'pull_request', pull_requests: [], triggering_actor: { login: 'mallory' } } },
      apiUrl: mock.url,
      job: 'post',
      inputs: { mode: 'comment-only' },
    });
    expect(reposted.code, reposted.stdout).toBe(0);
    expect(reposted.outputs.gate).toBe('fail');
    expect(sticky()!.body).toContain('**Contract gate failed**');
    expect(readApprovalRecord(sticky()!.body)?.fingerprints).toHaveLength(1);
  });
});

describe('the release verdict', () => {
  /** v2's contracts with the version `version`, approved by label so that only the version check can fail. */
  async function approvedWithVersion(version: string, inputs: Record<string, string>) {
    const pr = pullRequest({ [LOCK]: inventory.lockV1 });
    pr.push({ [LOCK]: lockOf(inventory.v2, (c) => (c.server.version = version)) });
    addLabel('carol', '2030-01-01T10:00:00Z');
    return pr.run({ compile: 'false', ...inputs }, { action: 'labeled', label: LABEL, sender: 'carol' });
  }

  test('version-check fail: a BREAKING change without a major release fails the approved gate, saying which version is needed', async () => {
    const result = await approvedWithVersion('1.1.0', { 'version-check': 'fail' });
    expect(result.code).toBe(1);
    expect(result.outputs).toMatchObject({ gate: 'fail', 'semver-bump': 'major', 'version-check': 'too-small' });
    expect(result.stdout).toContain('::error::The version of inventory does not say what its contract changes are. BREAKING changes need a major release: version 2.0.0 or later, but the server says 1.1.0');
    const release = reviewFile(result).reviews[0]!.release;
    expect(release).toMatchObject({ bump: 'major', previousVersion: '1.0.0', currentVersion: '1.1.0', requiredVersion: '2.0.0', check: 'too-small', mode: 'fail' });
    // The contract review itself is approved: only the version fails, and the comment and the summary say the check fails.
    expect(sticky()!.body).toContain('**Approved by label** `contract-change-approved` (added by `@carol`): 5 breaking changes in 4 tools at or above `fail-on: BREAKING` are approved, but this check still fails.');
    expect(sticky()!.body).not.toContain('the gate passes');
    expect(result.summary).toContain('| ❌ fails (changes approved by label) |');
  });

  test('version-check fail with only SAFE changes: the comment leads with the failed check, never a ✅', async () => {
    const pr = pullRequest({ [LOCK]: inventory.lockV1 });
    pr.push({ [LOCK]: inventory.lockSafe });
    const result = await pr.run({ compile: 'false', 'version-check': 'fail' });
    expect(result.code, result.stdout).toBe(1);
    expect(result.outputs).toMatchObject({ gate: 'fail', 'version-check': 'too-small' });
    const body = sticky()!.body;
    expect(body).toContain(
      '> [!CAUTION]\n> **Contract check failed** for `inventory`, though no change reaches `fail-on: BREAKING` (1 safe change in 1 tool). They call for a **minor** release: **version `1.1.0` or later**, but the server says `1.0.0`. The version check fails until then.',
    );
    expect(body).not.toContain('✅');
  });

  test('version-check warn (the default): reported as a warning, the gate passes', async () => {
    const result = await approvedWithVersion('1.1.0', {});
    expect(result.code, result.stdout).toBe(0);
    expect(result.outputs).toMatchObject({ gate: 'pass', 'semver-bump': 'major', 'version-check': 'too-small' });
    expect(result.annotations.find((a) => a.level === 'warning' && a.properties.includes('Version too small'))?.message).toBe(
      'BREAKING changes need a major release: version 2.0.0 or later, but the server says 1.1.0 (the base\'s is 1.0.0).',
    );
  });

  /** A repository with a release per commit: each (files, tag) committed and tagged; the last commit's sha. */
  function releases(...steps: Array<[Record<string, string>, string]>): { repo: GitRepo; head: string } {
    const repo = new GitRepo();
    let head = '';
    for (const [files, tag] of steps) {
      head = repo.commit(files, tag);
      repo.git('tag', tag);
    }
    return { repo, head };
  }
  const withVersion = (version: string) => lockOf(inventory.v2, (c) => (c.server.version = version));

  test('a release workflow (a pushed tag, baseline-ref the previous one): a tag smaller than the changes call for fails, whatever the server reports', async () => {
    // Five BREAKING changes; the server says 1.0.0 → 2.0.0, the tags v1.0.0 → v1.1.0.
    const { repo, head } = releases([{ [LOCK]: inventory.lockV1 }, 'v1.0.0'], [{ [LOCK]: withVersion('2.0.0') }, 'v1.1.0']);
    const tagged = (tag: string) =>
      runAction({ workspace: repo.dir, event: 'push', payload: { ref: `refs/tags/${tag}`, before: '0'.repeat(40), after: head }, sha: head, apiUrl: mock.url, inputs: { compile: 'false', 'baseline-ref': 'v1.0.0', 'fail-on': 'never', 'version-check': 'fail' } });
    const missed = await tagged('v1.1.0');
    expect(missed.code).toBe(1);
    expect(missed.outputs).toMatchObject({ gate: 'fail', 'semver-bump': 'major', 'version-check': 'too-small' });
    expect(missed.stdout).toContain(
      '::error::The version of inventory does not say what its contract changes are. BREAKING changes need a major release; 1.0.0 → 2.0.0 is one. The release tag is not one: v2.0.0 or later, but the release is tagged v1.1.0 (the previous release v1.0.0). Tag the release v2.0.0 or later;',
    );
    expect(reviewFile(missed).reviews[0]!.release).toMatchObject({ previousVersion: '1.0.0', currentVersion: '2.0.0', previousTag: 'v1.0.0', currentTag: 'v1.1.0', requiredTag: 'v2.0.0', check: 'too-small' });
    expect(missed.summary).toContain('v2.0.0');

    repo.git('tag', 'v2.0.0');
    const released = await tagged('v2.0.0');
    expect(released.code, released.stdout).toBe(0);
    expect(released.outputs['version-check']).toBe('ok');
    expect(released.stdout).toContain('version-check ok: BREAKING changes need a major release; 1.0.0 → 2.0.0 is one. The release tag v1.0.0 → v2.0.0 is one.');
  });

  test('without a tag in the event, the tags of the head and base commits are compared; a release tag that is not a version is said, not guessed', async () => {
    // A push to main whose head commit is tagged v1.0.1 (beside the moving major tag v1), the commit before it v1.0.0.
    const { repo, head } = releases([{ [LOCK]: inventory.lockV1 }, 'v1.0.0'], [{ [LOCK]: withVersion('2.0.0') }, 'v1.0.1']);
    repo.git('tag', 'v1');
    const before = repo.git('rev-parse', 'v1.0.0');
    const pushed = await runAction({ workspace: repo.dir, event: 'push', payload: { ref: 'refs/heads/main', before, after: head }, sha: head, apiUrl: mock.url, inputs: { compile: 'false', 'fail-on': 'never' } });
    expect(pushed.code, pushed.stdout).toBe(0);
    expect(pushed.outputs['version-check']).toBe('too-small');
    expect(pushed.annotations.find((a) => a.level === 'warning' && a.properties.includes('Version too small'))?.message).toContain('The release tag is not one: v2.0.0 or later, but the release is tagged v1.0.1 (the previous release v1.0.0).');

    const published = await runAction({
      workspace: repo.dir,
      event: 'release',
      payload: { action: 'published', release: { tag_name: 'release-2030-01' } },
      sha: head,
      apiUrl: mock.url,
      inputs: { compile: 'false', 'baseline-ref': 'v1.0.0', 'fail-on': 'never', 'version-check': 'fail' },
    });
    expect(published.code, published.stdout).toBe(0);
    expect(published.stdout).toContain('The release tag "release-2030-01" is not a semantic version (vMAJOR.MINOR.PATCH), so the release is not checked against its tag.');
  });

  test('a pull request whose head is tagged: the comment names the tag the changes need', async () => {
    const pr = pullRequest({ [LOCK]: inventory.lockV1 });
    pr.repo.git('tag', 'v1.0.0');
    pr.push({ [LOCK]: withVersion('2.0.0') });
    pr.repo.git('tag', 'v1.1.0');
    const result = await pr.run({ compile: 'false', 'fail-on': 'never' });
    expect(result.code, result.stdout).toBe(0);
    expect(sticky()!.body).toContain('They call for a **major** release: **a tag `v2.0.0` or later**, but the release is tagged `v1.1.0`.');
  });

  test('a version that is not semantic is unknown, never a failure; off is off', async () => {
    const unknown = await approvedWithVersion('nightly-2030', { 'version-check': 'fail' });
    expect(unknown.code, unknown.stdout).toBe(0);
    expect(unknown.outputs['version-check']).toBe('unknown');
    expect(unknown.stdout).toContain('The version "nightly-2030" is not a semantic version');
    const off = await approvedWithVersion('1.1.0', { 'version-check': 'off' });
    expect(off.code).toBe(0);
    expect(off.outputs).toMatchObject({ 'semver-bump': 'major', 'version-check': 'off' });
  });
});
