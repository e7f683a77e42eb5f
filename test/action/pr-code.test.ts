/**
 * What a pull request's code can reach: the Action as `node dist/index.js`, with the
 * environment a runner gives it, reviewing a pull request whose server attacks the step while
 * it starts (test/fixtures/servers/pr-attacks.mjs): it forges the baseline, reads every
 * environment and file it can, publishes what it found, writes to the runner's command files
 * and leaves a daemon behind. Each test is one attack and what the Action does instead.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { commentMarker } from '../../src/github/sticky.js';
import { renderGfm, shownText } from '../report/gfm.js';
import { fixture } from '../helpers/processes.js';
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
  const run = (inputs: Record<string, string>, more: Partial<RunOptions> = {}) =>
    runAction({ workspace, event: 'pull_request', payload: pullRequestPayload({ number: PR, baseSha, headSha }), apiUrl: mock.url, inputs, sha: headSha, ...more });
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

describe('what a server reads is never posted, and the command files stay the Action\'s', () => {
  test('tokens from the environments and .git/config, published in a tool description; lines appended to every command file', async () => {
    const { run } = pullRequest();
    const result = await run({ command: attacker('loot,command-files'), 'fail-on': 'never', 'lockfile-check': 'off', comment: 'always', 'sarif-path': 'contracts.sarif' });
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
