/**
 * The commands the product prints work as printed, for someone who has only the published
 * package: the Action's "Fix it with …" line and its "Reproduce locally" block, taken from a
 * comment the real Action (`node dist/index.js`) wrote on a pull request, run in that pull
 * request's repository with `npx mcp-contract-guard@<version>` resolved by npm to the packed
 * tarball; the lock command the CLI itself advises when a lockfile is missing or stale; and the
 * deploy workflow's proxy check.
 */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { GitHubMock } from '../action/github-mock.js';
import { pullRequestPayload, removeScratch as removeActionScratch, runAction } from '../action/harness.js';
import { commitAll, removeScratch, ROOT, scratch, shell, strangerEnv } from './environment.js';

const PR = 12;
const LOCK = 'mcp-contracts.lock.json';
const example = (file: string) => readFileSync(join(ROOT, 'examples/inventory', file), 'utf8');

let mock: GitHubMock;
beforeAll(async () => {
  mock = await new GitHubMock().start();
});
afterAll(async () => {
  await mock.stop();
  removeActionScratch();
  removeScratch();
});

/**
 * A server's repository: the bundled example as `server.mjs` (v1 at the base commit, where the
 * lockfile was made; v2 at the head, whose lockfile nobody updated), its dependencies linked.
 */
function pullRequestRepository(): { dir: string; baseSha: string; headSha: string } {
  const dir = scratch('printed-repo-');
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, '.gitignore'), 'node_modules\n');
  writeFileSync(join(dir, 'serve.mjs'), example('serve.mjs'));
  writeFileSync(join(dir, 'server.mjs'), example('v1.mjs'));
  writeFileSync(join(dir, LOCK), example(LOCK));
  const baseSha = commitAll(dir, 'base');
  writeFileSync(join(dir, 'server.mjs'), example('v2.mjs'));
  const headSha = commitAll(dir, 'head: v2, the lockfile left as it was');
  return { dir, baseSha, headSha };
}

/** The "Fix it with `…`" command and the lines of the "Reproduce locally" block of a comment. */
function printedCommands(body: string): { fix: string; reproduce: string[] } {
  const fix = /Fix it with `([^`]+)`/.exec(body)?.[1];
  const block = /<summary>Reproduce locally<\/summary>\s*```sh\n([\s\S]*?)\n```/.exec(body)?.[1];
  expect(fix, body).toBeDefined();
  expect(block, body).toBeDefined();
  return { fix: fix as string, reproduce: (block as string).split('\n') };
}

describe('the commands a pull-request comment prints', () => {
  it('run as printed against the published package: the reproduction finds the same changes, and the fix makes the lockfile current', async () => {
    const version = inject('version');
    const repo = pullRequestRepository();
    mock.pulls.set(PR, { head: { sha: repo.headSha } });
    const action = await runAction({
      workspace: repo.dir,
      event: 'pull_request',
      payload: pullRequestPayload({ number: PR, baseSha: repo.baseSha, headSha: repo.headSha }),
      apiUrl: mock.url,
      inputs: { command: 'node server.mjs' },
      sha: repo.headSha,
    });
    expect(action.code, action.stdout).toBe(1);
    expect(action.outputs).toMatchObject({ gate: 'fail', 'lockfile-stale': 'true', 'max-severity': 'BREAKING' });
    const comment = mock.comments.get(PR)?.at(-1)?.body ?? '';
    const { fix, reproduce } = printedCommands(comment);

    // Every command names the exact version the Action ran, which is the tarball's.
    const cli = `npx mcp-contract-guard@${version} `;
    expect(fix.startsWith(cli), fix).toBe(true);
    const cliLines = reproduce.filter((line) => line.startsWith('npx '));
    expect(cliLines.length).toBeGreaterThanOrEqual(3);
    for (const line of cliLines) expect(line.startsWith(cli), line).toBe(true);

    // The reproduction, one line at a time as typed at a prompt: the base's lockfile, the head
    // locked aside, their diff (BREAKING changes: exit 1, as the gate failed), and the check
    // of the server against its committed lockfile (stale: exit 1).
    const results = [];
    for (const line of reproduce) results.push({ line, ...(await shell(line, repo.dir)) });
    const [show, lock, diff, check] = results;
    expect(results.map((r) => r.line)).toEqual([
      `git show ${repo.baseSha}:${LOCK} > /tmp/base.lock.json`,
      `${cli}lock --command 'node server.mjs' --isolate-env --lockfile /tmp/head.lock.json`,
      `${cli}diff /tmp/base.lock.json /tmp/head.lock.json --fail-on BREAKING`,
      `${cli}check --command 'node server.mjs' --isolate-env`,
    ]);
    expect(show?.code, show?.stderr).toBe(0);
    expect(lock?.code, lock?.stderr).toBe(0);
    expect(diff?.code, diff?.stderr).toBe(1);
    expect(check?.code, check?.stderr).toBe(1);
    // The same changes the Action counted, and the way out.
    expect(diff?.stdout).toContain(`${action.outputs['breaking-count']} BREAKING`);
    expect(check?.stdout).toContain(`${action.outputs['breaking-count']} BREAKING`);
    expect(check?.stdout + (check?.stderr ?? '')).toContain(`update the lockfile: ${cli}lock --command 'node server.mjs' --isolate-env`);

    // The fix, as printed: then the lockfile is current and the check passes.
    const fixed = await shell(fix, repo.dir);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(readFileSync(join(repo.dir, LOCK), 'utf8')).toBe(readFileSync('/tmp/head.lock.json', 'utf8'));
    const rechecked = await shell(check?.line as string, repo.dir);
    expect(rechecked.code, rechecked.stderr + rechecked.stdout).toBe(0);
  });
});

describe('the advice the CLI prints', () => {
  it('the lock command that a missing, then a stale lockfile calls for, pasted as printed in a project without the package, makes the next check pass', async () => {
    const check = `npx mcp-contract-guard@${inject('version')} check --command 'node server.mjs'`;
    /** The rest of the line that `lead` starts, in what `run` printed. */
    const advice = (run: { stdout: string; stderr: string }, lead: string) => {
      const text = run.stdout + run.stderr;
      expect(text).toContain(lead);
      return text.slice(text.indexOf(lead) + lead.length).split('\n')[0] as string;
    };
    // The example server, its dependencies linked; no package.json, so npx installs the package.
    const dir = scratch('printed-advice-');
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'serve.mjs'), example('serve.mjs'));
    writeFileSync(join(dir, 'server.mjs'), example('v1.mjs'));

    const missing = await shell(check, dir);
    expect(missing.code, missing.stderr).toBe(2);
    const create = advice(missing, 'Create it with: ');
    expect(create).toBe(`npx mcp-contract-guard@${inject('version')} lock --command 'node server.mjs'`);
    const created = await shell(create, dir);
    expect(created.code, created.stderr).toBe(0);
    // The lockfile the example commits for v1: the published engine wrote what this one does.
    expect(readFileSync(join(dir, LOCK), 'utf8')).toBe(example(LOCK));
    expect((await shell(check, dir)).code).toBe(0);

    writeFileSync(join(dir, 'server.mjs'), example('v2.mjs'));
    const stale = await shell(check, dir);
    expect(stale.code, stale.stderr).toBe(1);
    const update = advice(stale, 'If these changes are intended, update the lockfile: ');
    expect(update).toBe(create);
    const updated = await shell(update, dir);
    expect(updated.code, updated.stderr).toBe(0);
    expect(readFileSync(join(dir, LOCK), 'utf8')).not.toBe(example(LOCK));
    const current = await shell(check, dir);
    expect(current.code, current.stderr + current.stdout).toBe(0);
  });
});

describe('the deploy workflow', () => {
  it("its proxy check runs as printed: the pinned package starts the server with the release's artifact and exits 0", async () => {
    const workflow = readFileSync(join(ROOT, 'examples/workflows/deploy.yml'), 'utf8');
    const line = /^\s*- run: (npx .*mcp-contract-guard@\S+ proxy .*)$/m.exec(workflow)?.[1];
    expect(line, 'deploy.yml runs the proxy through npx').toBeDefined();
    expect(line).toContain(`mcp-contract-guard@${inject('version')} `);

    // The release job's checkout after its build: dist/server.js and the artifact beside it.
    const dir = scratch('printed-deploy-');
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const dist = join(dir, 'dist');
    await shell(`mkdir -p dist && cp ${JSON.stringify(join(ROOT, 'examples/inventory/serve.mjs'))} dist/serve.mjs && cp ${JSON.stringify(join(ROOT, 'examples/inventory/v2.mjs'))} dist/server.js`, dir);
    writeFileSync(join(dist, 'package.json'), '{ "type": "module" }\n');
    const artifact = await shell(`npx mcp-contract-guard@${inject('version')} check --command 'node dist/server.js' --lockfile ${JSON.stringify(join(ROOT, 'examples/inventory', LOCK))} --artifact dist/contract-deltas.json`, dir);
    expect(artifact.code, artifact.stderr).toBe(1);

    const run = await shell(line as string, dir, strangerEnv());
    expect(run.code, run.stderr).toBe(0);
    // A corrupt artifact fails the release there, as the workflow's comment says.
    writeFileSync(join(dist, 'contract-deltas.json'), '{"version": 1,');
    const corrupt = await shell(line as string, dir);
    expect(corrupt.code).toBe(2);
    expect(corrupt.stderr).toContain('contract-deltas.json');
  });
});
