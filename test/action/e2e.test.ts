/**
 * The Action end to end: `npm run build:action`, then `node dist/index.js` as a runner starts it,
 * in a scratch git repository (base commit: the v1 lockfile; head: v2), against a local server
 * speaking the GitHub REST endpoints it uses.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { renderArtifact } from '../../src/report/index.js';
import { commentMarker } from '../../src/github/io/sticky.js';
import { setUpActionSuite, type Inventory } from './fixtures.js';
import type { GitHubMock } from './github-mock.js';
import { EXAMPLE, GitRepo, pullRequestPayload, runAction, type RunOptions } from './harness.js';
import { VERSION } from '../../src/version.js';

const PR = 7;
const LOCK = 'mcp-contracts.lock.json';
const V1 = `node ${EXAMPLE('v1')}`;
const V2 = `node ${EXAMPLE('v2')}`;

let inventory: Inventory;
let mock: GitHubMock;

// dist/ was rebuilt from the current sources by the global setup.
setUpActionSuite((i, m) => {
  [inventory, mock] = [i, m];
});

/** A repository whose base commit has `base` and whose checked-out head has `head`. */
function pullRequest(base: Record<string, string>, head: Record<string, string>, extra: Partial<Parameters<typeof pullRequestPayload>[0]> = {}) {
  const repo = new GitRepo();
  const baseSha = repo.commit(base, 'base');
  const headSha = repo.commit(head, 'head');
  mock.pulls.set(PR, { head: { sha: headSha } });
  const payload = pullRequestPayload({ number: PR, baseSha, headSha, ...extra });
  const run = (inputs: Record<string, string>, more: Partial<RunOptions> = {}) =>
    runAction({ workspace: repo.dir, event: 'pull_request', payload, apiUrl: mock.url, inputs, sha: headSha, ...more });
  return { repo, baseSha, headSha, payload, run };
}

const comments = () => mock.comments.get(PR) ?? [];
const sticky = (id = LOCK, job = 'contracts') => comments().filter((c) => c.body.startsWith(commentMarker(id, job)));

describe('the sticky comment', () => {
  test('is created once, updated in place (found across pages), not re-sent when unchanged, and approved by label', async () => {
    const { run, repo, baseSha, headSha } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 });
    // Five unrelated comments, with the page size at 2: the sticky one ends up on page 4.
    mock.maxPageSize = 2;
    for (let i = 0; i < 4; i++) mock.addComment(PR, `LGTM ${i}`, { login: 'bob', type: 'User' });
    // Someone pasting the marker into their own comment must not get it rewritten by the bot.
    const spoof = mock.addComment(PR, `${commentMarker(LOCK, 'contracts')}\nfake report`, { login: 'mallory', type: 'User' });

    const first = await run({ command: V2, 'sarif-path': 'contracts.sarif' });
    expect(first.code).toBe(1);
    expect(mock.count('POST', /\/comments$/)).toBe(1);
    expect(sticky().filter((c) => c.user.type === 'Bot')).toHaveLength(1);
    const created = sticky().find((c) => c.user.type === 'Bot')!;
    expect(created.body).toMatch(/\*\*Contract gate failed\*\* for `inventory`: 5 breaking changes in \d+ tools are not approved\./);
    expect(created.body).toContain('add the label `contract-change-approved`');
    expect(created.body).toContain('#### What breaks for callers');
    expect(created.body).toContain('**How to fix**');
    expect(created.body).toContain('[workflow run](https://github.com/acme/tools/actions/runs/1)');
    expect(created.body).toContain('Reproduce locally');
    expect(first.stdout).toContain('::error::The contracts of inventory have 5 changes at or above fail-on BREAKING');
    expect(first.stdout).toContain('add the label "contract-change-approved"');

    // The outputs, the files and the summary of the first run.
    expect(first.outputs).toMatchObject({
      'max-severity': 'BREAKING',
      'breaking-count': '5',
      'risky-count': '2',
      'safe-count': '3',
      'cosmetic-count': '1',
      changed: 'true',
      'lockfile-stale': 'false',
      gate: 'fail',
      'artifact-path': `${repo.dir}/contract-deltas.json`,
    });
    // Dated as the event dates the head (the pull request's last update), with the server's version.
    expect(readFileSync(first.outputs['artifact-path']!, 'utf8')).toBe(renderArtifact({ ...inventory.report, release: { version: '2.0.0', date: '2030-03-04' } }));
    expect(readFileSync(first.outputs['report-path']!, 'utf8')).toContain('<summary>🔴 5 BREAKING changes</summary>');
    expect(existsSync(first.outputs['review-path']!)).toBe(true);
    const sarif = JSON.parse(readFileSync(first.outputs['sarif-path']!, 'utf8')) as { version: string; runs: Array<{ results: unknown[] }> };
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0]!.results).toHaveLength(11);
    expect(first.summary).toContain('| `inventory` | 🔴 BREAKING | 5 | 2 | 3 | 1 | fresh | ❌ fails |');
    expect(first.summary).toContain('#### What breaks for callers');
    // Annotations: on the entry's line of the head lockfile, worst first, at most 10 per level.
    const errors = first.annotations.filter((a) => a.level === 'error' && a.properties.includes('file='));
    expect(errors[0]!.properties).toContain('title=BREAKING change to tool list_orders (inventory)');
    const line = inventory.lockV2.split('\n').findIndex((l) => l === '    "list_orders": {') + 1;
    expect(errors[0]!.properties).toContain(`file=${LOCK},line=${line}`);
    expect(first.annotations.filter((a) => a.level === 'notice').length).toBeLessThanOrEqual(10);

    // A reviewer adds the approval label (the labeled event runs the review): same comment, now saying who approved; the gate passes.
    mock.labels.set(PR, ['contract-change-approved']);
    mock.events.set(PR, [{ event: 'labeled', label: { name: 'contract-change-approved' }, actor: { login: 'carol' } }]);
    mock.permissions.set('carol', { permission: 'write', role_name: 'maintain' });
    const labeled = pullRequestPayload({ number: PR, baseSha, headSha, action: 'labeled', label: 'contract-change-approved', sender: 'carol', labels: ['contract-change-approved'] });
    const second = await run({ command: V2, 'sarif-path': 'contracts.sarif' }, { payload: labeled });
    expect(second.code).toBe(0);
    expect(mock.count('POST', /\/comments$/)).toBe(1);
    expect(mock.count('PATCH', /\/issues\/comments\/\d+$/)).toBe(1);
    expect(created.body).toContain('**Approved by label** `contract-change-approved` (added by `@carol`)');
    expect(second.outputs.gate).toBe('pass');

    // Nothing changed (a later event by someone else, held to what the label approved): nothing is sent.
    const third = await run({ command: V2, 'sarif-path': 'contracts.sarif' });
    expect(third.code).toBe(0);
    expect(mock.count('POST', /\/comments$/)).toBe(1);
    expect(mock.count('PATCH', /\/issues\/comments\/\d+$/)).toBe(1);
    expect(third.stdout).toContain('the comment already says this');
    expect(spoof.body).toBe(`${commentMarker(LOCK, 'contracts')}\nfake report`);
  });

  test('says "none" after a later push reverts the changes, and is never created on a PR that never had any', async () => {
    const { run } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV1 });
    const quiet = await run({ command: V1 });
    expect(quiet.code).toBe(0);
    expect(quiet.outputs).toMatchObject({ changed: 'false', 'max-severity': 'none', gate: 'pass' });
    expect(mock.count('POST', /\/comments$/)).toBe(0);
    expect(quiet.stdout).toContain('no contract changes, and no earlier comment to update');

    // The same PR, where an earlier push had changed the contracts and got a comment.
    const earlier = mock.addComment(PR, `${commentMarker(LOCK, 'contracts')}\n\n> [!CAUTION]\n> **Contract gate failed**: …`);
    const reverted = await run({ command: V1 });
    expect(reverted.code).toBe(0);
    expect(mock.count('POST', /\/comments$/)).toBe(0);
    expect(earlier.body).toContain('### MCP contract changes in `inventory`: none');
    expect(earlier.body).toContain('An earlier push to this pull request changed them; those changes are gone.');
  });

  test('two servers, and two jobs, keep a comment each', async () => {
    const config = JSON.stringify({
      servers: {
        inventory: { command: V2, cwd: 'inventory' },
        billing: { command: V2, cwd: 'billing' },
      },
    });
    const files = (lock: string) => ({ 'mcp-contract-guard.config.json': config, [`inventory/${LOCK}`]: lock, [`billing/${LOCK}`]: lock });
    const { run, repo } = pullRequest(files(inventory.lockV1), files(inventory.lockV2));
    const first = await run({ 'fail-on': 'never' });
    expect(first.code).toBe(0);
    expect(sticky('inventory')).toHaveLength(1);
    expect(sticky('billing')).toHaveLength(1);
    expect(first.outputs['artifact-path']!.split('\n')).toEqual([`${repo.dir}/contract-deltas.inventory.json`, `${repo.dir}/contract-deltas.billing.json`]);
    expect(first.outputs['breaking-count']).toBe('10');

    await run({ 'fail-on': 'never' });
    expect(comments()).toHaveLength(2);
    await run({ 'fail-on': 'never' }, { job: 'nightly' });
    expect(comments()).toHaveLength(4);
    expect(sticky('inventory', 'nightly')).toHaveLength(1);
  });
});

describe('the gate', () => {
  test('the exit status follows fail-on for every threshold (push events, compile: false, base through the contents API)', async () => {
    const repo = new GitRepo();
    const base = repo.commit({ [LOCK]: inventory.lockV1 }, 'base');
    // A base commit this shallow clone does not have: the lockfile comes from the contents API.
    const missing = 'b'.repeat(40);
    const expected: Array<[string, string, Record<string, number>]> = [
      ['all severities', inventory.lockV2, { BREAKING: 1, RISKY: 1, SAFE: 1, COSMETIC: 1, never: 0 }],
      ['SAFE only', inventory.lockSafe, { BREAKING: 0, RISKY: 0, SAFE: 1, COSMETIC: 1, never: 0 }],
      ['no change', inventory.lockV1, { BREAKING: 0, RISKY: 0, SAFE: 0, COSMETIC: 0, never: 0 }],
    ];
    const seen: string[] = [];
    for (const [label, lock, byThreshold] of expected) {
      const head = repo.commit({ [LOCK]: lock }, label);
      const before = label === 'SAFE only' ? missing : base;
      mock.files.set(missing, new Map([[LOCK, inventory.lockV1]]));
      for (const [failOn, code] of Object.entries(byThreshold)) {
        const result = await runAction({ workspace: repo.dir, event: 'push', payload: { before, after: head, ref: 'refs/heads/main' }, sha: head, apiUrl: mock.url, inputs: { compile: 'false', 'fail-on': failOn } });
        seen.push(`${label} / fail-on ${failOn}: exit ${result.code}, gate ${result.outputs.gate}`);
        expect.soft(result.code, `${label}, fail-on ${failOn}\n${result.stdout}`).toBe(code);
        expect.soft(result.outputs.gate).toBe(code === 0 ? 'pass' : 'fail');
      }
    }
    expect(seen).toHaveLength(15);
    expect(mock.count('GET', new RegExp(`/contents/${LOCK}$`))).toBe(5);
    expect(mock.count('POST', /comments/)).toBe(0);
  });

  test('baseline-ref (a release tag) overrides the base; paths follow working-directory', async () => {
    const repo = new GitRepo();
    const lock = `packages/inventory/${LOCK}`;
    repo.commit({ [lock]: inventory.lockV1 }, 'release');
    repo.git('tag', 'v1.0.0');
    const middle = repo.commit({ [lock]: inventory.lockSafe }, 'a later commit');
    const head = repo.commit({ [lock]: inventory.lockV2 }, 'head');
    const result = await runAction({
      workspace: repo.dir,
      event: 'push',
      payload: { before: middle, after: head },
      sha: head,
      apiUrl: mock.url,
      inputs: { compile: 'false', 'baseline-ref': 'v1.0.0', 'working-directory': 'packages/inventory', 'fail-on': 'never' },
    });
    expect(result.code, result.stdout).toBe(0);
    // Against "before" (v1 plus a ping tool) the removed ping would be a sixth BREAKING change.
    expect(result.outputs).toMatchObject({ 'max-severity': 'BREAKING', 'breaking-count': '5', 'artifact-path': `${repo.dir}/packages/inventory/contract-deltas.json` });
    expect(result.stdout).toContain(`Read ${lock} at v1.0.0 through git.`);
    expect(result.annotations.find((a) => a.level === 'error')!.properties).toContain(`file=${lock},`);
    expect(result.summary).toContain('cd packages/inventory\ngit show v1.0.0:packages/inventory/mcp-contracts.lock.json > /tmp/base.lock.json');
  });

  test('an allow-listed change passes until its expiry date and fails after it; unused and expired entries are reported', async () => {
    const breaking = Object.values(inventory.report.tools).flatMap((e) => e.deltas).filter((d) => d.severity === 'BREAKING');
    const config = (expires: string) =>
      JSON.stringify({
        servers: { inventory: { command: V2 } },
        allow: [
          ...breaking.map((d) => ({ fingerprint: d.fingerprint, reason: `accepted: ${d.kind} <b>@everyone</b>`, expires })),
          { fingerprint: 'ffffffffffffffff', reason: 'a change merged long ago' },
        ],
      });
    const { run } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2, 'mcp-contract-guard.config.json': config('2030-06-30') });

    const valid = await run({}, { env: { MCP_CONTRACT_GUARD_TODAY: '2030-06-30' } });
    expect(valid.code, valid.stdout).toBe(0);
    const body = sticky('inventory')[0]!.body;
    expect(body).toContain('**Contract gate passed**: every change at or above `fail-on: BREAKING` is accepted by the allow-list');
    expect(body).toContain('<summary>Accepted by the allow-list (5)</summary>');
    // The reason comes from the PR: escaped, no HTML, no mention.
    expect(body).toContain('&lt;b&gt;@\u2060everyone&lt;/b&gt;');
    expect(body).not.toContain('<b>');
    expect(body).toContain('ffffffffffffffff');
    expect(valid.stdout).toMatch(/::notice title=mcp-contract-guard allow-list::allow-list entry ffffffffffffffff/);
    // Accepted deltas are still reported.
    expect(valid.outputs['breaking-count']).toBe('5');

    const expired = await run({}, { env: { MCP_CONTRACT_GUARD_TODAY: '2030-07-01' } });
    expect(expired.code).toBe(1);
    expect(expired.stdout).toContain('expired on 2030-06-30');
    expect(sticky('inventory')).toHaveLength(1);
    expect(sticky('inventory')[0]!.body).toContain('**Contract gate failed**');
  });

  test("the base config's rules re-level the changes; a pull request's own rules apply only once merged", async () => {
    const breakingKinds = [...new Set(Object.values(inventory.report.tools).flatMap((e) => e.deltas).filter((d) => d.severity === 'BREAKING').map((d) => d.kind))];
    const relevel = Object.fromEntries(breakingKinds.map((kind) => [kind, 'RISKY']));
    const config = (command: string, rules?: Record<string, string>) => JSON.stringify({ servers: { inventory: { command } }, ...(rules ? { rules } : {}) });
    const CONFIG = 'mcp-contract-guard.config.json';

    // The base re-levels every BREAKING kind of this change to RISKY: fail-on BREAKING passes.
    const trusted = pullRequest({ [LOCK]: inventory.lockV1, [CONFIG]: config(V1, relevel) }, { [LOCK]: inventory.lockV2, [CONFIG]: config(V2, relevel) });
    const passed = await trusted.run({});
    expect(passed.code, passed.stdout).toBe(0);
    expect(passed.outputs).toMatchObject({ gate: 'pass', 'max-severity': 'RISKY', 'breaking-count': '0' });
    expect(sticky('inventory')[0]!.body).toContain('RISKY by configuration');

    // The same rules added by the pull request itself: the base's (none) judge it.
    mock.reset();
    const own = pullRequest({ [LOCK]: inventory.lockV1, [CONFIG]: config(V1) }, { [LOCK]: inventory.lockV2, [CONFIG]: config(V2, relevel) });
    const blocked = await own.run({});
    expect(blocked.code, blocked.stdout).toBe(1);
    expect(blocked.outputs).toMatchObject({ gate: 'fail', 'max-severity': 'BREAKING' });
    const body = sticky('inventory')[0]!.body;
    expect(body).toContain('**Contract gate failed**');
    expect(body).toContain('This pull request changes the \"rules\" of the config: a pull request is judged by the rules of its base, so its own apply once it is merged.');
    expect(body).not.toContain('by configuration');
  });

  test('a stale head lockfile fails with the one command that fixes it, even with the approval label', async () => {
    const { run } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV1 }, { labels: ['contract-change-approved'], action: 'labeled', label: 'contract-change-approved', sender: 'carol' });
    mock.labels.set(PR, ['contract-change-approved']);
    mock.events.set(PR, [{ event: 'labeled', label: { name: 'contract-change-approved' }, actor: { login: 'carol' } }]);
    mock.permissions.set('carol', { permission: 'admin' });
    const stale = await run({ command: V2 });
    expect(stale.code).toBe(1);
    expect(stale.outputs['lockfile-stale']).toBe('true');
    expect(stale.stdout).toContain(`mcp-contracts.lock.json does not match the server at this commit (9 entries differ). Fix it with \`npx mcp-contract-guard@${VERSION} lock --command 'node ${EXAMPLE('v2')}' --isolate-env\``);
    expect(sticky()[0]!.body).toContain('**Stale lockfile**');
    // The review itself is approved by the label; only freshness fails.
    expect(sticky()[0]!.body).toContain('**Approved by label**');

    const warned = await run({ command: V2, 'lockfile-check': 'warn' });
    expect(warned.code).toBe(0);
    expect(warned.outputs['lockfile-stale']).toBe('true');
  });
});

describe('when things go wrong', () => {
  test('a 403 on commenting (fork PR) keeps the summary, warns once with the two-workflow pattern, exits 0; comment-only then posts it', async () => {
    const { run, headSha } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 }, { fork: true });
    mock.fail('POST', /\/comments$/, 403, 10);
    const forked = await run({ command: V2, 'fail-on': 'never' });
    expect(forked.code).toBe(0);
    const warnings = forked.annotations.filter((a) => a.level === 'warning' && a.message.startsWith('Could not comment'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain('workflow_run');
    expect(warnings[0]!.message).toContain('mode: comment-only');
    expect(forked.summary).toContain('| `inventory` | 🔴 BREAKING |');
    expect(forked.summary).toContain("Could not comment on PR \\#7");
    expect(comments()).toHaveLength(0);

    // The workflow_run side: no PR code, just the review file (downloaded into its workspace), and a token that may comment.
    mock.clearFailures();
    const downloaded = new GitRepo();
    downloaded.write('mcp-contract-guard-review.json', readFileSync(forked.outputs['review-path']!, 'utf8'));
    const commentOnly = (prHead: string) => {
      mock.pulls.set(PR, { head: { sha: prHead } });
      return runAction({
        workspace: downloaded.dir,
        event: 'workflow_run',
        payload: { action: 'completed', workflow_run: { head_sha: headSha, event: 'pull_request', conclusion: 'success', pull_requests: [] } },
        apiUrl: mock.url,
        job: 'post',
        inputs: { mode: 'comment-only' },
      });
    };
    const moved = await commentOnly('c'.repeat(40));
    expect(moved.code).toBe(0);
    expect(moved.stdout).toContain('has moved on');
    expect(comments()).toHaveLength(0);

    const posted = await commentOnly(headSha);
    expect(posted.code, posted.stdout).toBe(0);
    // The marker names the job that computed the review, so later runs of it find the comment.
    expect(sticky(LOCK, 'contracts'), posted.stdout).toHaveLength(1);
    expect(sticky(LOCK, 'contracts')[0]!.body).toContain('<summary>🔴 5 BREAKING changes</summary>');
  });

  test('5xx answers are retried, and a POST that landed despite its error is not repeated', async () => {
    const { run } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 });
    mock.fail('GET', /\/issues\/7\/comments$/, 502, 2);
    mock.fail('POST', /\/issues\/7\/comments$/, 502, 1, true);
    const result = await run({ command: V2, 'fail-on': 'never' });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain('GitHub answered 502 to GET');
    expect(result.stdout).toContain('checking whether it landed');
    expect(mock.requests.filter((r) => r.method === 'GET' && /comments$/.test(r.path)).map((r) => r.status)).toEqual([502, 502, 200, 200]);
    expect(comments()).toHaveLength(1);
  });

  test('a server that does not start: the diagnosis in plain words in the comment and summary, no stack trace', async () => {
    const { run } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 });
    const result = await run({ command: 'node dist/server.js' });
    expect(result.code).toBe(1);
    const body = sticky()[0]!.body;
    expect(body).toContain('**Could not review');
    expect(body).toContain('dist/server.js');
    // What went wrong and what to do read as text, which wraps: a code block's long lines are cut at the comment's edge.
    expect(body).toContain('\n\n> Could not capture the contracts of node dist/server.js. The command points at "dist/server.js", which does not exist');
    expect(body).toContain('\n\n> What to do: Build the server before capturing it: run its build step');
    expect(body).not.toContain('```');
    expect(body).not.toMatch(/\n\s+at .+:\d+:\d+/);
    expect(result.summary).toContain('⚠️ not compiled');
    expect(result.stdout).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });

  test('pull_request_target does not run PR code unless the unsafe input says so', async () => {
    const { run } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 });
    const refused = await run({ command: V2 }, { event: 'pull_request_target' });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('Refusing to start "mcp-contracts.lock.json" under pull_request_target');
    expect(refused.stdout).toContain('unsafe-allow-privileged-events: true');
    expect(refused.summary).toContain('Refusing to start');
    expect(mock.requests).toHaveLength(0);
  });
});
