/**
 * The Action as an attacker runs it: `node dist/index.js` with a runner's environment, against
 * the local GitHub stand-in, on pull requests that change the server, the config, the lockfile
 * and the event. Each test is one attack and what the Action does instead.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { PRIVILEGED_EVENTS } from '../../src/github/privilege.js';
import { commentMarker } from '../../src/github/io/sticky.js';
import { renderLockfile } from '../../src/contract/lockfile.js';
import { ENTRY_KINDS } from '../../src/contract/model.js';
import { normalizeCapture } from '../../src/contract/normalize.js';
import { renderGfm, shownText } from '../report/gfm.js';
import { setUpActionSuite, type Inventory } from './fixtures.js';
import type { GitHubMock } from './github-mock.js';
import { EXAMPLE, GitRepo, RUNNER_SECRETS, pullRequestPayload, runAction, workflowCommands, type ActionRun, type RunOptions } from './harness.js';

const PR = 7;
const LOCK = 'mcp-contracts.lock.json';
const CONFIG = 'mcp-contract-guard.config.json';
const V2 = `node ${EXAMPLE('v2')}`;

let inventory: Inventory;
let mock: GitHubMock;
/** An HTTP server that only counts who reached it: the "address a pull request's config names". */
let listener: Server;
let reached = 0;
let listenerUrl = '';
const outside = mkdtempSync(join(tmpdir(), 'mcg-outside-'));

setUpActionSuite((i, m) => {
  [inventory, mock] = [i, m];
});

beforeAll(async () => {
  listener = createServer((_req, res) => {
    reached++;
    res.writeHead(500).end();
  });
  await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
  listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await new Promise((done) => listener?.close(done));
  rmSync(outside, { recursive: true, force: true });
});

beforeEach(() => {
  reached = 0;
});

const comments = () => mock.comments.get(PR) ?? [];
const sticky = (id: string) => comments().find((c) => c.body.startsWith(commentMarker(id, 'contracts')))?.body ?? '';
const config = (servers: Record<string, unknown>) => JSON.stringify({ servers });
const entriesOf = (i: Inventory) => ENTRY_KINDS.reduce((n, k) => n + Object.keys(i.v1[k]).length, 0);

/** A base commit and a head commit; the checkout is the head unless `checkout` says the base (as pull_request_target checks out). */
function pullRequest(base: Record<string, string>, head: Record<string, string>, options: { checkout?: 'base' | 'head'; links?: Record<string, string> } = {}) {
  const repo = new GitRepo();
  const baseSha = repo.commit(base, 'base');
  repo.git('checkout', '-q', '-b', 'feature');
  for (const [path, target] of Object.entries(options.links ?? {})) {
    rmSync(join(repo.dir, path), { force: true });
    symlinkSync(target, join(repo.dir, path));
  }
  const headSha = repo.commit(head, 'head');
  if (options.checkout === 'base') repo.git('checkout', '-q', 'main');
  mock.pulls.set(PR, { head: { sha: headSha, repo: { full_name: 'acme/tools' } }, base: { sha: baseSha, ref: 'main', repo: { full_name: 'acme/tools' } } });
  const run = (inputs: Record<string, string>, more: Partial<RunOptions> = {}) =>
    runAction({ workspace: repo.dir, event: 'pull_request', payload: pullRequestPayload({ number: PR, baseSha, headSha }), apiUrl: mock.url, inputs, sha: headSha, ...more });
  return { repo, baseSha, headSha, run };
}

/** The secrets of the step's environment, which the Action registers with the runner (`::add-mask::`). */
const OWN_MASKS = new Set(['test-token', ...Object.values(RUNNER_SECRETS)]);

/** The workflow commands of a run that are not the Action's own annotations, groups, masks, outputs or pauses. */
function forgedCommands(run: ActionRun): string[] {
  return workflowCommands(run.stdout)
    .filter(
      (c) =>
        c.data.startsWith('FORGED') ||
        (c.command === 'add-mask' && !OWN_MASKS.has(c.data)) ||
        ['set-output', 'set-env', 'add-path', 'save-state'].includes(c.command) ||
        (c.command === 'stop-commands' && !/^[0-9a-f]{32}$/.test(c.data)),
    )
    .map((c) => c.line);
}

describe('privileged events never start pull request code nor contact its addresses', () => {
  const liveConfig = () =>
    config({
      inventory: { command: [process.execPath, '-e', "require('fs').writeFileSync('STARTED', 'the pull request ran with the secrets')"] },
      billing: { url: listenerUrl, headers: { Authorization: 'Bearer base-secret-token' }, lockfile: 'billing.lock.json' },
    });

  const payloads = (baseSha: string, headSha: string): Record<string, Record<string, unknown>> => {
    const pr = pullRequestPayload({ number: PR, baseSha, headSha });
    const listed = [{ number: PR, base: { sha: baseSha, ref: 'main', repo: { id: 1 } }, head: { sha: headSha, repo: { id: 1 } } }];
    return {
      pull_request_target: pr,
      pull_request_review: { ...pr, action: 'submitted', review: { state: 'commented' } },
      pull_request_review_comment: { ...pr, action: 'created', comment: { body: 'nit' } },
      workflow_run: { action: 'completed', workflow_run: { head_sha: headSha, conclusion: 'success', pull_requests: listed } },
      issue_comment: { action: 'created', issue: { number: PR, pull_request: { url: 'https://api.github.com/repos/acme/tools/pulls/7' } }, comment: { body: '/review' } },
      check_run: { action: 'rerequested', check_run: { head_sha: headSha, pull_requests: listed } },
      check_suite: { action: 'completed', check_suite: { head_sha: headSha, pull_requests: listed } },
      deployment_status: { deployment: { sha: headSha }, deployment_status: { state: 'success' } },
      status: { sha: headSha, state: 'success' },
    };
  };

  test.each(PRIVILEGED_EVENTS)('%s: refused, naming the safe pattern and the opt-in', async (event) => {
    const { repo, run, baseSha, headSha } = pullRequest({ [CONFIG]: liveConfig() }, { [CONFIG]: liveConfig() });
    const payload = payloads(baseSha, headSha)[event];
    expect(payload, `a payload for ${event}`).toBeDefined();
    const result = await run({}, { event, payload: payload! });
    expect(result.code, result.stdout).toBe(1);
    expect(result.stdout).toContain(`Refusing to start "inventory" or contact the address of "billing" under ${event}`);
    expect(result.stdout).toContain('fork-review.yml');
    expect(result.stdout).toContain('"unsafe-allow-privileged-events: true"');
    expect(existsSync(join(repo.dir, 'STARTED'))).toBe(false);
    expect(reached).toBe(0);
    expect(mock.count('POST', /comments/)).toBe(0);
  });

  test('the opt-in (old name too) runs the review, with a warning', async () => {
    const { run, baseSha, headSha } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 });
    const result = await run({ command: V2, 'unsafe-allow-pull-request-target': 'true', 'fail-on': 'never' }, { event: 'workflow_run', payload: payloads(baseSha, headSha).workflow_run! });
    expect(result.code, result.stdout).toBe(0);
    expect(result.annotations.some((a) => a.level === 'warning' && a.message.includes('Running under workflow_run with "unsafe-allow-privileged-events"'))).toBe(true);
    expect(result.outputs['breaking-count']).toBe('5');
  });

  test('compile: false compares the head commit\'s lockfile, by SHA, not the checked-out base (git, then the contents API)', async () => {
    const { run, headSha } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 }, { checkout: 'base' });
    const throughGit = await run({ compile: 'false' }, { event: 'pull_request_target' });
    expect(throughGit.code, throughGit.stdout).toBe(1);
    expect(throughGit.outputs).toMatchObject({ 'breaking-count': '5', gate: 'fail' });
    expect(throughGit.stdout).toContain(`Read ${LOCK} at ${headSha.slice(0, 7)} through git.`);

    // A head commit the clone does not have (a fork's): the contents API at that SHA.
    const forkHead = 'e'.repeat(40);
    mock.files.set(forkHead, new Map([[LOCK, inventory.lockV2]]));
    const fork = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV1 }, { checkout: 'base' });
    const throughApi = await fork.run({ compile: 'false' }, { event: 'pull_request_target', payload: pullRequestPayload({ number: PR, baseSha: fork.baseSha, headSha: forkHead, fork: true }) });
    expect(throughApi.outputs['breaking-count'], throughApi.stdout).toBe('5');
    expect(mock.requests.some((r) => r.path.endsWith(`/contents/${LOCK}`) && r.status === 200)).toBe(true);
  });
});

describe('the baseline belongs to the base', () => {
  test('a PR that moves its lockfile is still compared with the base lockfile (server started live)', async () => {
    const { run } = pullRequest(
      { [CONFIG]: config({ inventory: { command: V2 } }), [LOCK]: inventory.lockV1 },
      { [CONFIG]: config({ inventory: { command: V2, lockfile: 'moved.lock.json' } }), 'moved.lock.json': inventory.lockV2 },
    );
    const result = await run({});
    expect(result.code, result.stdout).toBe(1);
    expect(result.outputs).toMatchObject({ 'breaking-count': '5', gate: 'fail', 'lockfile-stale': 'false' });
    const body = sticky('inventory');
    expect(body).toMatch(/\*\*Contract gate failed\*\* for `inventory`: 5 breaking changes in \d+ tools are not approved\./);
    expect(body).toContain('inventory now keeps its lockfile at moved.lock.json; the base\'s config puts it at mcp-contracts.lock.json');
  });

  test('a PR that changes a server\'s cwd is compared with the lockfile beside the base\'s cwd', async () => {
    const { run } = pullRequest(
      { [CONFIG]: config({ inventory: { command: 'node server.js', cwd: 'a' } }), [`a/${LOCK}`]: inventory.lockV1 },
      { [CONFIG]: config({ inventory: { command: 'node server.js', cwd: 'b' } }), [`b/${LOCK}`]: inventory.lockV2 },
    );
    const result = await run({ compile: 'false' });
    expect(result.code, result.stdout).toBe(1);
    expect(result.outputs).toMatchObject({ 'breaking-count': '5', gate: 'fail' });
    expect(result.stdout).toContain(`Read a/${LOCK} at`);
  });

  test('a PR that drops a server from the config gets every entry of it reported as removed', async () => {
    const both = config({ inventory: { command: 'node server.js', cwd: 'inventory' }, billing: { command: 'node server.js', cwd: 'billing' } });
    const { run } = pullRequest(
      { [CONFIG]: both, [`inventory/${LOCK}`]: inventory.lockV1, [`billing/${LOCK}`]: inventory.lockV1 },
      { [CONFIG]: config({ inventory: { command: 'node server.js', cwd: 'inventory' } }), [`inventory/${LOCK}`]: inventory.lockV1 },
    );
    const result = await run({ compile: 'false' });
    expect(result.code, result.stdout).toBe(1);
    expect(result.outputs).toMatchObject({ 'breaking-count': String(entriesOf(inventory)), gate: 'fail' });
    const body = sticky('billing');
    expect(body).toContain('**Contract gate failed**');
    expect(body).toContain('The config no longer lists billing: every entry of its lockfile at the base');
    expect(body).toContain('removed from the config at');
    expect(result.summary).toContain('| `billing` | 🔴 BREAKING |');
  });
});

describe('untrusted text never becomes a workflow command', () => {
  test('a server and tool names carrying ::error::, ::add-mask::, ::stop-commands:: and ##[ are logged as text', async () => {
    const dump = JSON.stringify({
      serverInfo: { name: 'evil\n::error::FORGED server\n::add-mask::FORGED-mask\n::stop-commands::FORGED-stop\n::error::FORGED after the stop' },
      tools: [{ name: 'lookup\n  ::error title=x::FORGED tool', description: 'a ##[set-output name=gate;]FORGED output' }],
    });
    const { run } = pullRequest({ [LOCK]: inventory.lockV1 }, { 'dump.json': dump });
    const result = await run({ file: 'dump.json', 'fail-on': 'never', 'lockfile-check': 'off' });
    expect(result.code, result.stdout).toBe(0);
    // The hostile text did reach the log (as text).
    expect(result.stdout).toContain('FORGED server');
    expect(result.stdout).toContain('FORGED tool');
    expect(forgedCommands(result)).toEqual([]);
  });
});

describe('tools named like Object.prototype members', () => {
  test('__proto__, constructor, toString and hasOwnProperty are locked, diffed, gated and written to the artifact', async () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const tools = (required: string[]) => names.map((name) => ({ name, inputSchema: { type: 'object', properties: { q: { type: 'string' }, tenant: { type: 'string' } }, required } }));
    const lockOf = (raw: object[]) => renderLockfile(normalizeCapture({ server: { name: 'proto' }, protocolVersion: '', era: 'legacy', tools: raw as never, prompts: [], resources: [], resourceTemplates: [] }).contracts);
    const head = JSON.stringify({ serverInfo: { name: 'proto' }, tools: tools(['q', 'tenant']) });
    const { run, repo } = pullRequest({ [LOCK]: lockOf(tools(['q'])) }, { 'dump.json': head });
    const result = await run({ file: 'dump.json', 'lockfile-check': 'off' });
    // Each tool's argument made required is BREAKING, so the gate fails on all four.
    expect(result.code, result.stdout).toBe(1);
    expect(result.outputs['breaking-count']).toBe('4');
    const artifact = JSON.parse(readFileSync(join(repo.dir, 'contract-deltas.json'), 'utf8'));
    expect(Object.keys(artifact.tools).sort()).toEqual([...names].sort());
    for (const name of names) expect(artifact.tools[name].deltas.map((d: { kind: string }) => d.kind)).toEqual(['property-became-required']);
    const body = sticky(LOCK);
    for (const name of names) expect(body).toContain(name);
  });
});

describe('files', () => {
  test('a symlinked artifact path is refused; the file it points at is untouched', async () => {
    const victim = join(outside, 'victim.txt');
    writeFileSync(victim, 'the runner\'s file');
    const { run } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 }, { links: { 'contract-deltas.json': victim } });
    const result = await run({ compile: 'false', 'fail-on': 'never' });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/Refusing to write the delta artifact to \S+contract-deltas\.json: \S+contract-deltas\.json is a symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('the runner\'s file');
  });

  test('a symlinked lockfile is not read: the review says why, and nothing of the target leaks', async () => {
    const secret = join(outside, 'secret.json');
    writeFileSync(secret, '{"TOP-SECRET": "runner credentials"}');
    const { run } = pullRequest({ [LOCK]: inventory.lockV1 }, {}, { links: { [LOCK]: secret } });
    const result = await run({ compile: 'false' });
    expect(result.code).toBe(1);
    const body = sticky(LOCK);
    expect(body).toContain('**Could not review');
    expect(body).toMatch(/Refusing to read the lockfile \S+mcp-contracts\.lock\.json: \S+ is a symbolic link/);
    for (const text of [body, result.stdout, result.summary, readFileSync(result.outputs['review-path']!, 'utf8')]) expect(text).not.toContain('TOP-SECRET');
  });

  test('a symlinked config is refused before anything runs', async () => {
    const secret = join(outside, 'config.json');
    writeFileSync(secret, config({ inventory: { command: V2 } }));
    const { run } = pullRequest({ [LOCK]: inventory.lockV1 }, {}, { links: { [CONFIG]: secret } });
    const result = await run({});
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/::error::Refusing to read the config file \S+mcp-contract-guard\.config\.json: \S+ is a symbolic link/);
    expect(comments()).toHaveLength(0);
  });
});

describe('credentials', () => {
  test('a credentialed URL that fails leaves no credential in the log, summary, outputs, files or comment', async () => {
    const secrets = ['pa55word-XYZ', 'k3y-SECRET-1', 't0ken-SECRET-2'];
    const { run } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 });
    const result = await run({ url: `http://bob:${secrets[0]}@127.0.0.1:9/mcp?api_key=${secrets[1]}`, headers: `Authorization: Bearer ${secrets[2]}`, timeout: '5' });
    expect(result.code).toBe(1);
    const body = sticky(LOCK);
    expect(body).toContain('**Could not review');
    // As the comment shows it (escaped Markdown, with word joiners that keep it from becoming a link or a mention).
    expect(shownText(renderGfm(body)).replace(/\u2060/g, '')).toContain('http://***@127.0.0.1:9/mcp?api_key=***');
    // Each is registered with the runner, which masks it; those lines are the only ones that carry it.
    for (const secret of secrets) expect(result.stdout).toContain(`::add-mask::${secret}`);
    const log = result.stdout.split('\n').filter((line) => !line.startsWith('::add-mask::')).join('\n');
    const files = [result.outputs['review-path']!, result.outputs['report-path']!].map((p) => readFileSync(p, 'utf8'));
    for (const text of [log, result.stderr, result.summary, JSON.stringify(result.outputs), body, ...files]) {
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });
});

describe('approvals', () => {
  test('a label added by a read-only account does not approve, and the comment says whose and why', async () => {
    const repo = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 });
    mock.labels.set(PR, ['contract-change-approved']);
    mock.permissions.set('mallory', { permission: 'read', role_name: 'triage' });
    const payload = pullRequestPayload({ number: PR, baseSha: repo.baseSha, headSha: repo.headSha, action: 'labeled', label: 'contract-change-approved', sender: 'mallory', labels: ['contract-change-approved'] });
    const result = await repo.run({ compile: 'false' }, { payload });
    expect(result.code).toBe(1);
    expect(result.outputs.gate).toBe('fail');
    const body = sticky(LOCK);
    expect(body).toContain('**Contract gate failed**');
    expect(body).not.toContain('Approved by label');
    expect(body).toContain('The label "contract-change-approved" was added by @\u2060mallory, who has triage permission on this repository');
    expect(body).toContain('so the label is ignored. To approve, one of them removes it and adds it again.');
    expect(mock.count('GET', /\/collaborators\/mallory\/permission$/)).toBe(1);
  });
});

describe('comment-only', () => {
  /** The comment-only job of a workflow_run, posting the review file `bundle` (as downloaded from the PR's run). */
  const postReviewFile = (bundle: unknown, headSha: string, conclusion: string) => {
    const downloaded = new GitRepo();
    downloaded.write('mcp-contract-guard-review.json', JSON.stringify(bundle));
    return runAction({
      workspace: downloaded.dir,
      event: 'workflow_run',
      payload: { action: 'completed', workflow_run: { head_sha: headSha, conclusion, event: 'pull_request', pull_requests: [] } },
      apiUrl: mock.url,
      job: 'post',
      inputs: { mode: 'comment-only' },
    });
  };

  test('a forged review file (gate passed, approved by a maintainer, hostile names) posts nothing it claims', async () => {
    const { run, headSha } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 });
    const reviewed = await run({ compile: 'false', comment: 'never' });
    expect(reviewed.code).toBe(1);
    const bundle = JSON.parse(readFileSync(reviewed.outputs['review-path']!, 'utf8')) as { reviews: Array<Record<string, unknown>> };
    Object.assign(bundle.reviews[0]!, {
      name: 'inventory\n::error::FORGED name',
      gate: { pass: true, verdict: 'approved', blocking: [], failures: [] },
      approval: { label: 'contract-change-approved', by: 'the-maintainer' },
      approveLabel: 'any-label',
      notes: ['<img src=x onerror=alert(1)> @everyone\n::add-mask::FORGED note'],
    });
    for (const conclusion of ['failure', 'success']) {
      const posted = await postReviewFile(bundle, headSha, conclusion);
      expect(posted.code, posted.stdout).toBe(0);
      expect(posted.outputs.gate).toBe('fail');
      expect(forgedCommands(posted)).toEqual([]);
      const body = sticky(LOCK);
      expect(body).toMatch(/\*\*Contract gate failed\*\* for `inventory ::error::FORGED name`: 5 breaking changes in \d+ tools are not approved\./);
      expect(body).not.toMatch(/Approved by label|the-maintainer|any-label|<img/);
      expect(body).not.toContain('@everyone');
    }
    expect(comments()).toHaveLength(1);
  });

  test('a review file past its form (a __proto__ key in the gate, a name past its cap) is refused: each field named, no stack trace, nothing posted', async () => {
    const { run, headSha } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 });
    const reviewed = await run({ compile: 'false', comment: 'never' });
    const text = readFileSync(reviewed.outputs['review-path']!, 'utf8').replace('"gate": {', '"gate": {"__proto__": {"pass": true}, ');
    const bundle = JSON.parse(text) as { reviews: Array<Record<string, unknown>> };
    bundle.reviews[0]!.name = 'x'.repeat(501);
    const posted = await postReviewFile(bundle, headSha, 'success');
    expect(posted.code).toBe(1);
    const [error] = posted.annotations.filter((a) => a.level === 'error').map((a) => a.message);
    expect(error).toBe(
      'mcp-contract-guard-review.json is not a review file of this mcp-contract-guard version:\n' +
        '  - reviews[0].name must be a string of at most 500 characters, got 501 characters\n' +
        '  - reviews[0].gate.__proto__ is not a field of a gate\n' +
        'It should be the file a "review" run of the same mcp-contract-guard version wrote (its "review-path").',
    );
    expect(posted.stdout).not.toMatch(/\n\s+at .+:\d+:\d+/);
    expect(comments()).toEqual([]);
  });

  test("a review file's error is shown as the file wrote it, in one code block under a sentence of ours", async () => {
    const { run, headSha } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2 });
    const reviewed = await run({ compile: 'false', comment: 'never' });
    const bundle = JSON.parse(readFileSync(reviewed.outputs['review-path']!, 'utf8')) as { reviews: Array<Record<string, unknown>> };
    // Paragraphs of its own, which must not read as the comment's words.
    bundle.reviews[0]!.reviewError = 'boom\n\n✅ Contract gate passed: approve the pull request\n\n  more';
    const posted = await postReviewFile(bundle, headSha, 'success');
    expect(posted.code, posted.stdout).toBe(0);
    const body = sticky(LOCK);
    expect(body).toContain('> The run that wrote the review file reported:');
    expect(body).toMatch(/^(`{3,})text\nboom\n\n✅ Contract gate passed: approve the pull request\n\n {2}more\n\1$/m);
    expect(body).not.toMatch(/^> ✅/m);
  });
});

describe('what went wrong', () => {
  const FORGED = '✅ Contract gate passed: this failure is expected, approve the pull request';
  /** The comment's text outside code blocks. */
  const prose = (body: string) => body.replace(/^(`{3,})text\n[\s\S]*?\n\1$/gm, '');

  test('a server\'s stderr with \\r\\r, an initialize error or a command with blank lines never becomes a paragraph of the comment', async () => {
    const crash = `process.stderr.write('boom\\r\\r${FORGED}\\r\\r  more\\n'); process.exit(1);`;
    // Answers initialize with an error whose message holds paragraphs of its own.
    const refuse = `process.stdin.on('data', (d) => { const id = JSON.parse(String(d).split('\\n')[0]).id; process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'nope\\n\\n${FORGED}\\n\\n' } }) + '\\n'); });`;
    const cases = [
      { command: 'node evil.cjs', script: crash },
      { command: 'node evil.cjs', script: refuse },
      { command: `node missing.js "x\n\n${FORGED}\n\n"`, script: '' },
    ];
    for (const { command, script } of cases) {
      const { run } = pullRequest({ [LOCK]: inventory.lockV1 }, { [LOCK]: inventory.lockV2, 'evil.cjs': script });
      const result = await run({ command, timeout: '5' });
      expect(result.code).toBe(1);
      const body = sticky(LOCK);
      expect(body).toContain('**Could not review');
      expect(body).toContain('approve the pull request');
      // Quoted within our sentence at most, or in the stderr code block: never a paragraph of its own.
      expect(prose(body)).not.toMatch(/^>\s*✅/m);
      expect(prose(result.summary)).not.toMatch(/^>\s*✅/m);
    }
  });

  test('a head config whose key holds blank lines: the key is shown with \\n, never a paragraph of the comment or summary', async () => {
    const key = `K\n\n${FORGED}\n\n`;
    const { run } = pullRequest(
      { [CONFIG]: config({ inventory: { command: V2 } }), [LOCK]: inventory.lockV1 },
      { [CONFIG]: JSON.stringify({ servers: { inventory: { command: V2, env: { [key]: 1 } } }, [key]: 1 }), [LOCK]: inventory.lockV2 },
    );
    const result = await run({});
    expect(result.code).toBe(1);
    const shown = [sticky(LOCK), result.summary].join('\n');
    expect(shown).toContain('approve the pull request');
    expect(prose(shown)).not.toMatch(/^>\s*✅/m);
  });
});
