/**
 * The Action with `usage`: `node dist/index.js` on a pull request whose head removes a tool
 * nobody called and breaks one that is called, against the local API stand-in. It comments and
 * gates as the CLI does (only the called one blocks, each break with the usage it rests on). The
 * summary is evidence the pull request must not be able to bring or edit: one the pull request
 * commits is refused, and one committed at the base is read as the base has it. Over https,
 * `usage-headers` go only to the URL's own origin and never into what the Action writes.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UsageSummaryBuilder, renderUsageSummary } from '../../src/protocol/index.js';
import { cli } from '../helpers/cli.js';
import { toolRecord } from '../helpers/usage.js';
import { setUpActionSuite } from './fixtures.js';
import type { GitHubMock } from './github-mock.js';
import { GitRepo, ROOT, pullRequestPayload, runAction } from './harness.js';

const PR = 24;
const LOCK = 'mcp-contracts.lock.json';
const TODAY = '2026-03-30';
let mock: GitHubMock;
let lockV1: string;
let lockV2: string;

setUpActionSuite((_, m) => {
  mock = m;
});

beforeAll(async () => {
  const dir = join(ROOT, '.tmp');
  mkdirSync(dir, { recursive: true });
  const lock = async (version: 'v1' | 'v2') => {
    const path = join(dir, `usage-action-${process.pid}-${version}.lock.json`);
    const result = await cli(['lock', '--file', `test/fixtures/usage/shop-${version}.json`, '--lockfile', path, '--quiet']);
    expect(result.code, result.stderr).toBe(0);
    return readFileSync(path, 'utf8');
  };
  [lockV1, lockV2] = await Promise.all([lock('v1'), lock('v2')]);
}, 60_000);

/** What `usage summarize` writes for 30 days of the shop: 40 calls of search, 10 of add_to_cart, none of legacy_report. */
function usageSummary(calls = { search: 40, add_to_cart: 10, legacy_report: 0 }): string {
  const builder = new UsageSummaryBuilder();
  for (let i = 29; i >= 0; i--) {
    const day = new Date(Date.parse(`${TODAY}T00:00:00Z`) - i * 86_400_000).toISOString().slice(0, 10);
    builder.add({ type: 'day', day, server: { name: 'shop' }, listed: ['search', 'legacy_report', 'add_to_cart'], overflowTools: 0, overflowCalls: 0 });
  }
  for (const [tool, n] of Object.entries(calls)) {
    if (n === 0) continue;
    builder.add(toolRecord(TODAY, { name: 'shop' }, tool, n));
  }
  return renderUsageSummary(builder.summary());
}

function pullRequest(base: Record<string, string>, head: Record<string, string>) {
  const repo = new GitRepo();
  const baseSha = repo.commit(base, 'base');
  const headSha = repo.commit(head, 'head');
  mock.pulls.set(PR, { head: { sha: headSha } });
  const payload = pullRequestPayload({ number: PR, baseSha, headSha });
  const run = (inputs: Record<string, string>, env: Record<string, string> = {}) =>
    runAction({ workspace: repo.dir, event: 'pull_request', payload, apiUrl: mock.url, inputs: { file: LOCK, ...inputs }, sha: headSha, env: { MCP_CONTRACT_GUARD_TODAY: TODAY, ...env } });
  return { repo, run };
}

const comment = () => (mock.comments.get(PR) ?? []).at(-1)?.body ?? '';

describe('the Action with usage', () => {
  test('comments with the usage each break rests on, and gates only the break in the tool that was called', async () => {
    const { repo, run } = pullRequest({ [LOCK]: lockV1 }, { [LOCK]: lockV2 });
    // Downloaded by an earlier step: in the workspace, not in git.
    repo.write('usage.json', usageSummary());
    const result = await run({ usage: 'usage.json' });
    expect(result.code).toBe(1);
    const body = comment();
    expect(body).toContain('Judged with recorded usage: 50 calls of `shop` from 2026-03-01 to 2026-03-30 (30 days); 1 BREAKING change that no call used is RISKY.');
    expect(body).toContain('| | Tool | What changes for callers | Usage |');
    expect(body).toMatch(/\| 🔴 \| `add_to_cart` \| [^|]+\| breaks 20% of calls \|/);
    expect(body).toMatch(/\| 🟠 \| `legacy_report` \| [^|]+\| breaks nobody \(unused for 30 days\) \|/);
    expect(body).toContain('RISKY by usage (the rule says BREAKING): unused for 30 days: 0 of 50 calls were of `legacy_report`');
    expect(body).toMatch(/\*\*Contract gate failed\*\* for `[^`]+`: 1 breaking change/);
    expect(body).toContain("# the usage summary the review read, as the workflow's earlier step got usage.json, saved to /tmp/usage.json");
    expect(result.outputs).toMatchObject({ 'breaking-count': '1', gate: 'fail' });
    expect(result.stdout).toContain('::error::The contracts of');
    expect(result.stdout).toMatch(/have 1 change at or above fail-on BREAKING/);
    const artifact = JSON.parse(readFileSync(result.outputs['artifact-path']!, 'utf8'));
    expect(artifact.tools.legacy_report.deltas[0]).toMatchObject({ severity: 'RISKY', usage: { downgraded: true, affected: 0 } });
    expect(artifact.usage).toMatchObject({ applied: true, server: 'shop', unusedDays: 30 });

    // Without usage, both break.
    const plain = await run({});
    expect(plain.outputs).toMatchObject({ 'breaking-count': '2', gate: 'fail' });
  });

  test('a summary the pull request commits is refused; one committed at the base is read as the base has it', async () => {
    const forged = usageSummary({ search: 40, add_to_cart: 0, legacy_report: 0 });
    const brought = pullRequest({ [LOCK]: lockV1 }, { [LOCK]: lockV2, 'usage.json': forged });
    const refused = await brought.run({ usage: 'usage.json' });
    expect(refused.outputs).toMatchObject({ 'breaking-count': '2', gate: 'fail' });
    expect(refused.stdout).toContain('usage.json is committed by this pull request, not by its base');
    expect(comment()).toContain('The usage summary usage.json was not used, so no break is downgraded by usage');

    // The base has the true summary; the pull request edits it to claim add_to_cart unused.
    const edited = pullRequest({ [LOCK]: lockV1, 'usage.json': usageSummary() }, { [LOCK]: lockV2, 'usage.json': forged });
    const judged = await edited.run({ usage: 'usage.json' });
    expect(judged.outputs).toMatchObject({ 'breaking-count': '1', gate: 'fail' });
    expect(comment()).toMatch(/`add_to_cart` \| [^|]+\| breaks 20% of calls \|/);
    // "Reproduce locally" judges with the same summary, taken from the base as the review took it.
    expect(comment()).toMatch(/git show '?[0-9a-f]{40}:usage\.json'? > \/tmp\/usage\.json\nnpx mcp-contract-guard@[^ ]+ diff \S+ \S+ --fail-on BREAKING --usage \/tmp\/usage\.json/);
  });

  test('a summary cut short, of a newer version or with counts past 2^53 downgrades nothing: the review goes on and says why', async () => {
    const good = usageSummary();
    const broken = {
      // Why is JSON.parse's own word, which differs between Node versions: where the text stops making sense.
      'cut short': [good.slice(0, good.length / 2), 'is not valid JSON ('],
      newer: [good.replace('"version": 1', '"version": 7'), 'has version 7'],
      'past 2^53': [good.replace('"calls": 50', '"calls": 1e300'), 'calls must be a whole number from 0 to 2^53'],
    };
    for (const [what, [text, why]] of Object.entries(broken)) {
      const { repo, run } = pullRequest({ [LOCK]: lockV1 }, { [LOCK]: lockV2 });
      repo.write('usage.json', text);
      const result = await run({ usage: 'usage.json' });
      expect(result.outputs, what).toMatchObject({ 'breaking-count': '2', gate: 'fail' });
      expect(result.stdout, what).toContain(`::warning::The usage summary usage.json was not used, so no break is downgraded by usage: it is not a usage summary this version can read (${why}`);
      expect(comment(), what).toContain('The usage summary usage.json was not used, so no break is downgraded by usage');
    }
  });

  describe('over https', () => {
    let server: Server;
    let port: number;
    const seen: Array<{ host: string; path: string; token: string | undefined }> = [];
    beforeAll(async () => {
      const tls = (name: string) => readFileSync(join(ROOT, 'test/fixtures/tls', name));
      server = createServer({ key: tls('server.key'), cert: tls('server.pem') }, (req, res) => {
        seen.push({ host: req.headers.host ?? '', path: req.url ?? '', token: req.headers['x-usage-token'] as string | undefined });
        // From 127.0.0.1, the summary has moved to another origin (localhost): the token must not follow.
        if (req.headers.host?.startsWith('127.0.0.1')) res.writeHead(302, { location: `https://localhost:${port}/moved/usage.json` }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end(usageSummary());
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((done) => server.close(() => done())));

    test('usage-headers go to the URL\'s own origin only, and never into the comment or the log', async () => {
      const { run } = pullRequest({ [LOCK]: lockV1 }, { [LOCK]: lockV2 });
      const secret = 'usage-secret-4f1e9c2a7b';
      const result = await run({ usage: `https://127.0.0.1:${port}/usage.json`, 'usage-headers': `X-Usage-Token: ${secret}` }, { NODE_EXTRA_CA_CERTS: join(ROOT, 'test/fixtures/tls/ca.pem') });
      expect(result.outputs).toMatchObject({ 'breaking-count': '1', gate: 'fail' });
      expect(seen).toEqual([
        { host: `127.0.0.1:${port}`, path: '/usage.json', token: secret },
        { host: `localhost:${port}`, path: '/moved/usage.json', token: undefined },
      ]);
      // Registered with the runner as a secret (the runner masks it), and written nowhere else.
      expect(result.stdout).toContain(`::add-mask::${secret}`);
      const stdout = result.stdout.replace(`::add-mask::${secret}`, '');
      for (const text of [comment(), stdout, result.stderr, result.summary]) expect(text).not.toContain(secret);
    });

    test('an http:// URL is refused as an input', async () => {
      const { run } = pullRequest({ [LOCK]: lockV1 }, { [LOCK]: lockV2 });
      const result = await run({ usage: `http://127.0.0.1:${port}/usage.json` });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('::error::The input "usage" takes a path in the workspace or an https:// URL');
    });
  });
});
