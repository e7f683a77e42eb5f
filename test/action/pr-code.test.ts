/**
 * What a pull request's code can reach: the Action as `node dist/index.js`, with the
 * environment a runner gives it, reviewing a pull request whose server attacks the step while
 * it starts (test/fixtures/servers/pr-attacks.mjs): it forges the baseline, reads every
 * environment and file it can, publishes what it found, writes to the runner's command files
 * and leaves a daemon behind. Each test is one attack and what the Action does instead.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { renderApprovalRecord } from '../../src/github/approval/record.js';
import { commentMarker } from '../../src/github/io/sticky.js';
import { needingApproval } from '../../src/policy/coverage.js';
import { renderGfm, shownText } from '../report/gfm.js';
import { fixture, processesLeft } from '../helpers/processes.js';
import { setUpActionSuite, type Inventory } from './fixtures.js';
import type { GitHubMock } from './github-mock.js';
import { GitRepo, RUNNER_SECRETS, pullRequestPayload, runAction, type ActionRun, type RunOptions } from './harness.js';

const PR = 21;
const LOCK = 'mcp-contracts.lock.json';
const TOKEN = 'test-token';
const attacker = (attacks: string) => `node ${fixture('pr-attacks.mjs')} ${attacks}`;

let inventory: Inventory;
let mock: GitHubMock;
setUpActionSuite((i, m) => {
  [inventory, mock] = [i, m];
});

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
const comments = () => mock.comments.get(PR) ?? [];
const sticky = () => comments().find((c) => c.body.startsWith(commentMarker(LOCK, 'contracts')));

/**
 * A pull request: the base commits inventory v1's lockfile, the head v2's (a required argument
 * added: 5 breaking changes). `shallow`: the checkout is a depth-1 clone of the head, as
 * actions/checkout makes by default, so the base commit is only on GitHub (the contents API).
 */
function pullRequest(options: { shallow?: boolean; head?: Record<string, string> } = {}) {
  const repo = new GitRepo();
  const baseSha = repo.commit({ [LOCK]: inventory.lockV1 }, 'base');
  repo.git('checkout', '-q', '-b', 'feature');
  const headSha = repo.commit({ [LOCK]: inventory.lockV2, ...options.head }, 'head');
  let workspace = repo.dir;
  if (options.shallow) {
    workspace = `${repo.dir}-shallow`;
    git(repo.dir, 'clone', '-q', '--depth', '1', '--branch', 'feature', `file://${repo.dir}`, workspace);
    mock.files.set(baseSha, new Map([[LOCK, inventory.lockV1]]));
  }
  // What actions/checkout leaves behind with its default persist-credentials: true.
  const basic = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
  git(workspace, 'config', 'http.https://github.com/.extraheader', `AUTHORIZATION: basic ${basic}`);
  mock.pulls.set(PR, { head: { sha: headSha, repo: { full_name: 'acme/tools' } }, base: { sha: baseSha, ref: 'main', repo: { full_name: 'acme/tools' } } });
  // As on GitHub's ubuntu-24.04 runners, which refuse unprivileged user namespaces: the server
  // runs under the subreaper, in the runner's PID namespace, and can read what the runner's user can.
  const run = (inputs: Record<string, string>, more: Partial<RunOptions> = {}) =>
    runAction({ workspace, event: 'pull_request', payload: pullRequestPayload({ number: PR, baseSha, headSha }), apiUrl: mock.url, inputs, sha: headSha, ...more, env: { MCP_CONTRACT_GUARD_CONTAINMENT: 'subreaper', ...more.env } });
  return { repo, workspace, baseSha, headSha, run };
}

/** Everything the run wrote for people or later steps to read. */
function everythingPosted(run: ActionRun): Array<[string, string]> {
  const files = ['review-path', 'report-path', 'artifact-path', 'sarif-path'].flatMap((name) => {
    const path = run.outputs[name];
    return path !== undefined && path !== '' && existsSync(path) ? [[name, readFileSync(path, 'utf8')] as [string, string]] : [];
  });
  return [
    ['comments', comments().map((c) => c.body).join('\n')],
    ['summary', run.summary],
    ['annotations', JSON.stringify(run.annotations)],
    ['outputs', JSON.stringify(run.outputs)],
    ['stdout (masks aside)', run.stdout.split('\n').filter((line) => !line.startsWith('::add-mask::')).join('\n')],
    ...files,
  ];
}

describe('a server that forges the baseline while it starts', () => {
  test.each([
    ['a full clone: it replaces the base commit (refs/replace)', false],
    ['a shallow clone: it writes a loose object at the base SHA', true],
  ])('%s; the review still compares with the lockfile committed at the base', async (_, shallow) => {
    const { run, workspace, baseSha } = pullRequest({ shallow });
    const result = await run({ command: attacker('forge'), 'sarif-path': 'contracts.sarif' });
    // The forgery did happen: the clone now answers the head's lockfile for the base.
    const forged = git(workspace, 'show', `${baseSha}:${LOCK}`);
    expect(forged).toBe(inventory.lockV2.trim());
    expect(result.outputs, result.stdout).toMatchObject({ 'breaking-count': '5', gate: 'fail', 'max-severity': 'BREAKING' });
    expect(result.code).toBe(1);
    expect(sticky()?.body).toContain('**Contract gate failed**');
    // Read before the server started: through git in the full clone, from GitHub in the shallow one.
    expect(mock.count('GET', new RegExp(`/contents/${LOCK}$`))).toBe(shallow ? 1 : 0);
  });

  test.each([
    ['a full clone', false],
    ['a shallow clone', true],
  ])('compile: false in %s, after an earlier step of the job (npm ci, a build) forged the base commit: the base is read as committed', async (_, shallow) => {
    const { run, workspace, baseSha, headSha } = pullRequest({ shallow });
    // What the server above does, done before the step: a replace ref, and in a shallow clone a loose object at the base's name.
    git(workspace, 'update-ref', `refs/replace/${baseSha}`, headSha);
    if (shallow) {
      const content = execFileSync('git', ['cat-file', 'commit', headSha], { cwd: workspace });
      const loose = join(workspace, '.git/objects', baseSha.slice(0, 2), baseSha.slice(2));
      mkdirSync(dirname(loose), { recursive: true });
      writeFileSync(loose, deflateSync(Buffer.concat([Buffer.from(`commit ${content.length}\0`), content])));
    }
    expect(git(workspace, 'show', `${baseSha}:${LOCK}`)).toBe(inventory.lockV2.trim());
    const result = await run({ compile: 'false' });
    expect(result.outputs, result.stdout).toMatchObject({ 'breaking-count': '5', gate: 'fail' });
    if (shallow) {
      // The loose object is the base's only copy in the clone: it does not hash to its name.
      expect(result.annotations.some((a) => a.level === 'warning' && a.message.includes(`does not hold ${LOCK} at ${baseSha.slice(0, 7)} as committed`))).toBe(true);
      expect(mock.requests.some((r) => r.path.endsWith(`/contents/${LOCK}`) && r.status === 200)).toBe(true);
    } else {
      // Replacements are off: the clone's own base commit is read, and checked.
      expect(result.stdout).toContain(`Read ${LOCK} at ${baseSha.slice(0, 7)} through git.`);
      expect(mock.count('GET', /\/contents\//)).toBe(0);
    }
  });
});

describe('a server that rewrites the approval record with the token it found', () => {
  test('the record is read before the server starts: the change the approver did not see still fails the gate', async () => {
    const { run } = pullRequest();
    const label = 'contract-change-approved';
    const at = '2026-01-05T10:00:00Z';
    const breaking = needingApproval(inventory.report, 'BREAKING');
    mock.labels.set(PR, [label]);
    mock.events.set(PR, [{ event: 'labeled', label: { name: label }, actor: { login: 'carol' }, created_at: at }]);
    mock.permissions.set('carol', { permission: 'write' });
    // carol approved four of the five breaking changes; the fifth came with a later push.
    const record = renderApprovalRecord({ label, by: 'carol', at, fingerprints: breaking.slice(0, 4) });
    mock.addComment(PR, `${commentMarker(LOCK, 'contracts')}\n${record}\nThe review of an earlier commit.`);
    const result = await run({ command: attacker(`approve=${breaking.join('+')}`), 'lockfile-check': 'off' });
    // The forgery did happen: the comment's record lists all five while the server started.
    expect(mock.count('PATCH', /\/issues\/comments\//)).toBeGreaterThanOrEqual(2);
    expect(result.outputs, result.stdout).toMatchObject({ gate: 'fail' });
    expect(result.code).toBe(1);
    expect(sticky()?.body).toContain(breaking[4]);
  });
});

describe('what a server reads is never posted, and the command files stay the Action\'s', () => {
  test.each(['subreaper', 'pid-namespace'])('%s: tokens from the environments and .git/config, published in a tool description; lines appended to every command file', async (containment) => {
    const { run } = pullRequest();
    const inputs = { command: attacker('loot,command-files'), 'fail-on': 'never', 'lockfile-check': 'off', comment: 'always', 'sarif-path': 'contracts.sarif' };
    const result = await run(inputs, { env: { MCP_CONTRACT_GUARD_CONTAINMENT: containment } });
    // The server did publish what it found (its tool is in the comment), with every secret taken out.
    expect(sticky()?.body).toContain('What this server found');
    const basic = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    for (const [where, text] of everythingPosted(result)) {
      for (const secret of [TOKEN, ...Object.values(RUNNER_SECRETS), basic]) expect(text, `${secret} in ${where}`).not.toContain(secret);
    }
    // The command files hold what the Action wrote, and nothing of the server's.
    expect(result.commandFiles.GITHUB_OUTPUT).not.toContain('pwned');
    expect(result.outputs.pwned).toBeUndefined();
    expect(result.commandFiles.GITHUB_ENV).toBe('');
    expect(result.commandFiles.GITHUB_PATH).toBe('');
    expect(result.commandFiles.GITHUB_STATE).toBe('');
    expect(result.commandFiles.GITHUB_STEP_SUMMARY).not.toContain('pwned');
    // The step fails, naming the files the server wrote to, and the comment tells the reviewers.
    expect(result.code).toBe(1);
    expect(result.outputs.gate).toBe('fail');
    const failure = result.annotations.find((a) => a.level === 'error' && a.message.includes("wrote to the runner's command files"))?.message ?? '';
    for (const name of ['GITHUB_OUTPUT', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY']) expect(failure).toContain(name);
    expect(shownText(renderGfm(sticky()?.body ?? ''))).toContain("wrote to the runner's command files GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH, GITHUB_STATE, GITHUB_STEP_SUMMARY");
    // First, under the marker: whatever the changes, reviewers see it before anything else.
    expect(sticky()?.body.split('\n').slice(0, 4)).toContain('> [!CAUTION]');
    expect(result.summary.startsWith('## MCP contract review\n\n> [!CAUTION]\n> A server')).toBe(true);
  });
});

describe('a daemon that clears its environment and starts its own session', () => {
  test.each(['subreaper', 'pid-namespace'])('%s: it does not outlive the step', async (containment) => {
    const { run, workspace } = pullRequest();
    const pidFile = `${workspace}-${containment}-daemon.pid`;
    const result = await run({ command: attacker(`daemon=${pidFile}`), 'fail-on': 'never', 'lockfile-check': 'off' }, { env: { MCP_CONTRACT_GUARD_CONTAINMENT: containment } });
    expect(result.code, result.stdout).toBe(0);
    expect(readFileSync(pidFile, 'utf8')).toMatch(/^\d+$/);
    // Its command line names the pid file (the pid it wrote is its namespace's).
    expect(await processesLeft(pidFile)).toEqual([]);
  });
});

describe('the sticky comment', () => {
  test('a Bot-type account\'s comment carrying the marker is not the Action\'s: it is left alone and the Action writes its own', async () => {
    const { run } = pullRequest();
    const impostor = mock.addComment(PR, `${commentMarker(LOCK, 'contracts')}\n✅ Looks good to me, nothing to review.`, { login: 'helpful-app[bot]', type: 'Bot' });
    const result = await run({ compile: 'false' });
    expect(result.code).toBe(1);
    expect(impostor.body).toBe(`${commentMarker(LOCK, 'contracts')}\n✅ Looks good to me, nothing to review.`);
    const own = comments().find((c) => c !== impostor);
    expect(own?.user.login).toBe('github-actions[bot]');
    expect(own?.body).toContain('**Contract gate failed**');
    expect(comments()).toHaveLength(2);
  });
});
