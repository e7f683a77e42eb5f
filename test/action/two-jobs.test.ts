/**
 * The strongest setup, examples/workflows/isolated-review.yml, run end to end as its workflow
 * says: the Action's steps of its two jobs, with their `with:` inputs and their tokens, each in
 * a checkout of its own, the capture passed between them as the artifact would be, against the
 * local GitHub stand-in. The pull request's server attacks the capture job (it reads what it
 * can, publishes it, writes to the runner's files, leaves a daemon); the review job runs no code
 * of the pull request and reads the capture as hostile data.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, test } from 'vitest';
import { renderLockfile } from '../../src/contract/lockfile.js';
import { commentMarker } from '../../src/github/io/sticky.js';
import { fixture, processesLeft } from '../helpers/processes.js';
import { setUpActionSuite, type Inventory } from './fixtures.js';
import type { GitHubMock } from './github-mock.js';
import { GitRepo, ROOT, RUNNER_SECRETS, pullRequestPayload, runAction } from './harness.js';

const PR = 31;
const LOCK = 'mcp-contracts.lock.json';
const ACTION = 'mcp-contract-guard/mcp-contract-guard@v1';

interface Step {
  uses?: string;
  run?: string;
  id?: string;
  if?: string;
  with?: Record<string, string>;
}
interface Job {
  needs?: string;
  if?: string;
  permissions?: Record<string, string>;
  steps: Step[];
}

const workflow = load(readFileSync(join(ROOT, 'examples/workflows/isolated-review.yml'), 'utf8')) as { permissions: unknown; jobs: Record<string, Job> };
const actionStep = (job: Job) => job.steps.find((step) => step.uses === ACTION)!;

let inventory: Inventory;
let mock: GitHubMock;
setUpActionSuite((i, m) => {
  [inventory, mock] = [i, m];
});

/** The review error of the first server, as the run's review file records it. */
const reviewError = (run: { outputs: Record<string, string> }) => (JSON.parse(readFileSync(run.outputs['review-path']!, 'utf8')) as { reviews: Array<{ reviewError?: string }> }).reviews[0]?.reviewError ?? '';

describe('examples/workflows/isolated-review.yml', () => {
  test('says what makes it strong: the capture job may do nothing, the review job runs nothing of the pull request, no checkout keeps a token', () => {
    const { capture, review } = workflow.jobs as { capture: Job; review: Job };
    expect(workflow.permissions).toEqual({});
    expect(capture.permissions).toEqual({});
    expect(actionStep(capture).with).toMatchObject({ mode: 'capture' });
    expect(review.needs).toBe('capture');
    expect(review.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    // Nothing of the pull request is installed, built or run in the review job.
    expect(review.steps.filter((step) => step.run !== undefined)).toEqual([]);
    expect(actionStep(review).with?.['capture-file']).toBeDefined();
    for (const job of [capture, review]) {
      for (const step of job.steps.filter((s) => s.uses?.startsWith('actions/checkout'))) expect(step.with?.['persist-credentials']).toBe(false);
    }
  });

  test('runs end to end: the capture job captures what the server exposes and undoes what it wrote; the review job gates and comments', async () => {
    // The pull request: v1's lockfile at the base; at the head, a server (dist/server.js, what
    // the workflow starts) that serves v2 after its attacks, and v2's lockfile.
    const repo = new GitRepo();
    const baseSha = repo.commit({ [LOCK]: inventory.lockV1 }, 'base');
    repo.git('checkout', '-q', '-b', 'feature');
    const daemon = `${repo.dir}-daemon.pid`;
    const server = `process.argv[2] = ${JSON.stringify(`loot,command-files,daemon=${daemon}`)};\nawait import(${JSON.stringify(fixture('pr-attacks.mjs'))});\n`;
    const headSha = repo.commit({ [LOCK]: inventory.lockV2, 'dist/server.js': server, 'package.json': '{"type":"module"}' }, 'head');
    mock.pulls.set(PR, { head: { sha: headSha, repo: { full_name: 'acme/tools' } }, base: { sha: baseSha, ref: 'main', repo: { full_name: 'acme/tools' } } });
    mock.files.set(baseSha, new Map([[LOCK, inventory.lockV1]]));
    const payload = pullRequestPayload({ number: PR, baseSha, headSha });
    /** A job's checkout: a depth-1 clone of the head, as actions/checkout makes it. */
    const checkout = (job: string) => {
      const dir = `${repo.dir}-${job}`;
      repo.git('clone', '-q', '--depth', '1', '--branch', 'feature', `file://${repo.dir}`, dir);
      return dir;
    };
    const { capture, review } = workflow.jobs as { capture: Job; review: Job };

    // Job 1, "permissions: {}": its token may do nothing (the stand-in refuses it everything).
    const captureDir = checkout('capture');
    const captured = await runAction({ workspace: captureDir, event: 'pull_request', payload, apiUrl: mock.url, sha: headSha, inputs: { ...actionStep(capture).with, 'github-token': 'a-token-with-no-permission' } });
    expect(mock.requests.filter((r) => r.status !== 401)).toEqual([]);
    // The server wrote to the runner's files: undone, and the step fails saying so (the upload still runs: !cancelled()).
    expect(captured.code, captured.stdout).toBe(1);
    expect(captured.commandFiles.GITHUB_ENV).toBe('');
    expect(captured.stdout).toContain("wrote to the runner's command files");
    const capturePath = captured.outputs['capture-path']!;
    const captureText = readFileSync(capturePath, 'utf8');
    // What the server could reach here is worth nothing: no token that matters, no secret.
    for (const secret of ['test-token', ...Object.values(RUNNER_SECRETS)]) expect(captureText).not.toContain(secret);
    expect(await processesLeft(daemon)).toEqual([]);

    // The artifact, downloaded where the review job's step says.
    const reviewDir = checkout('review');
    const download = review.steps.find((step) => step.uses?.startsWith('actions/download-artifact'))!;
    mkdirSync(join(reviewDir, download.with!.path!), { recursive: true });
    copyFileSync(capturePath, join(reviewDir, download.with!.path!, 'mcp-contract-guard-capture.json'));

    // Job 2: a token that may comment; nothing of the pull request runs (the server would leave its mark).
    mock.requests.length = 0;
    const reviewed = await runAction({ workspace: reviewDir, event: 'pull_request', payload, apiUrl: mock.url, sha: headSha, inputs: { ...actionStep(review).with } });
    expect(reviewed.stdout).toContain('no server is started here');
    expect(reviewed.stdout).not.toContain('› starting');
    expect(reviewed.outputs, reviewed.stdout).toMatchObject({ 'breaking-count': '5', gate: 'fail', 'max-severity': 'BREAKING' });
    expect(reviewed.code).toBe(1);
    const comment = (mock.comments.get(PR) ?? []).find((c) => c.body.startsWith(commentMarker(LOCK, 'contracts')))!.body;
    expect(comment).toContain('**Contract gate failed**');
    expect(comment).toContain('GITHUB\\_OUTPUT');
    expect(comment).toContain('What this server found');
    // Read first and by SHA: the base came from GitHub (the clone is shallow).
    expect(mock.count('GET', new RegExp(`/contents/${LOCK}$`))).toBe(1);
  });

  test('mode: capture starts nothing under an event that carries secrets', async () => {
    const repo = new GitRepo();
    const baseSha = repo.commit({ [LOCK]: inventory.lockV1 }, 'base');
    repo.git('checkout', '-q', '-b', 'feature');
    const headSha = repo.commit({ [LOCK]: inventory.lockV2, 'server.cjs': "require('fs').writeFileSync('STARTED', 'with the secrets')" }, 'head');
    const result = await runAction({ workspace: repo.dir, event: 'pull_request_target', payload: pullRequestPayload({ number: PR, baseSha, headSha }), apiUrl: mock.url, sha: headSha, inputs: { mode: 'capture', command: 'node server.cjs' } });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Refusing to start');
    expect(repo.read('STARTED')).toBeUndefined();
  });

  test('the capture file is hostile data: another commit, a digest that does not match, a server it does not hold', async () => {
    const repo = new GitRepo();
    const baseSha = repo.commit({ [LOCK]: inventory.lockV1 }, 'base');
    repo.git('checkout', '-q', '-b', 'feature');
    const headSha = repo.commit({ [LOCK]: inventory.lockV2 }, 'head');
    mock.pulls.set(PR, { head: { sha: headSha, repo: { full_name: 'acme/tools' } }, base: { sha: baseSha, ref: 'main', repo: { full_name: 'acme/tools' } } });
    const file = (servers: Record<string, unknown>, sha = headSha) => JSON.stringify({ version: 1, kind: 'mcp-contract-guard-capture', repository: 'acme/tools', headSha: sha, tampered: [], servers });
    const review = (text: string) => {
      writeFileSync(join(repo.dir, 'capture.json'), text);
      return runAction({ workspace: repo.dir, event: 'pull_request', payload: pullRequestPayload({ number: PR, baseSha, headSha }), apiUrl: mock.url, sha: headSha, inputs: { command: 'node dist/server.js', 'capture-file': 'capture.json', comment: 'never' } });
    };

    const otherCommit = await review(file({ [LOCK]: { lockfile: inventory.lockV2, notes: [], warnings: [] } }, 'f'.repeat(40)));
    expect(otherCommit.code).toBe(1);
    expect(otherCommit.stdout).toContain(`is of commit fffffff, but this run reviews ${headSha.slice(0, 7)}`);

    // v1's contracts under v2's digests: the file was edited after it was written.
    const forged = JSON.parse(inventory.lockV2) as Record<string, unknown>;
    const edited = { ...(JSON.parse(inventory.lockV1) as Record<string, unknown>), digest: forged.digest };
    const tampered = await review(file({ [LOCK]: { lockfile: JSON.stringify(edited), notes: [], warnings: [] } }));
    expect(tampered.code).toBe(1);
    expect(tampered.outputs.gate).toBe('fail');
    expect(reviewError(tampered)).toContain('The capture of "mcp-contracts.lock.json" in capture.json');
    expect(reviewError(tampered)).toMatch(/digest/i);

    // A server named "__proto__" is a name like any other: not this one.
    const named = JSON.parse(`{"__proto__": ${JSON.stringify({ lockfile: renderLockfile(inventory.v2), notes: [], warnings: [] })}}`) as Record<string, unknown>;
    const missing = await review(file(named));
    expect(missing.code).toBe(1);
    expect(reviewError(missing)).toContain('holds no capture of "mcp-contracts.lock.json"');

    // Refused whole, each problem named with its place, never a stack trace.
    const malformed = await review(file({ [LOCK]: { lockfile: inventory.lockV2, notes: ['x'.repeat(5_000)], warnings: [], contracts: {} } }));
    expect(malformed.code).toBe(1);
    expect(malformed.stdout).toContain('capture.json is not a capture file of this mcp-contract-guard version:');
    expect(malformed.stdout).toContain(`servers["${LOCK}"].contracts is not a field of a captured server`);
    expect(malformed.stdout).toContain(`servers["${LOCK}"].notes[0] must be a string of at most 3,000 characters, got 5,000 characters`);
    expect(malformed.stdout).toContain('It should be the file a "mode: capture" run of the same mcp-contract-guard version wrote (its "capture-path").');
    expect(malformed.stdout).not.toMatch(/\n\s+at /);
  });
});
