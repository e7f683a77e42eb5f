/**
 * The sticky comment over the life of a pull request, through the bundled Action
 * (`node dist/index.js`) against the local GitHub API stand-in: it links the run, a push that
 * cannot be reviewed replaces it with why (instead of leaving an older commit's verdict
 * standing), and the next good push puts the review back.
 */
import { describe, expect, test } from 'vitest';
import { commentMarker } from '../../src/github/io/sticky.js';
import { setUpActionSuite, type Inventory } from './fixtures.js';
import type { GitHubMock } from './github-mock.js';
import { EXAMPLE, GitRepo, pullRequestPayload, runAction } from './harness.js';

const PR = 7;
const LOCK = 'mcp-contracts.lock.json';
const CONFIG = 'mcp-contract-guard.config.json';
const V2 = `node ${EXAMPLE('v2')}`;
const RUN = 'https://github.com/acme/tools/actions/runs/1';

let inventory: Inventory;
let mock: GitHubMock;

setUpActionSuite((i, m) => {
  [inventory, mock] = [i, m];
});

/** A pull request whose head moves on with each `push`; `run` reviews the current head. */
function pullRequest(base: Record<string, string>) {
  const repo = new GitRepo();
  const baseSha = repo.commit(base, 'base');
  let headSha = baseSha;
  return {
    push(files: Record<string, string>, remove: string[] = []) {
      for (const path of remove) repo.git('rm', '-q', path);
      headSha = repo.commit(files, 'push');
      mock.pulls.set(PR, { head: { sha: headSha } });
      return headSha;
    },
    run(inputs: Record<string, string>) {
      return runAction({ workspace: repo.dir, event: 'pull_request', payload: pullRequestPayload({ number: PR, baseSha, headSha }), apiUrl: mock.url, inputs, sha: headSha });
    },
  };
}

const sticky = () => (mock.comments.get(PR) ?? []).filter((c) => c.body.startsWith(commentMarker('inventory', 'contracts')));

describe('the sticky comment over the life of a pull request', () => {
  test('links the run; a push that cannot be reviewed replaces the review with why; the next good push restores it', async () => {
    const pr = pullRequest({ [LOCK]: inventory.lockV1 });
    const config = JSON.stringify({ servers: { inventory: { command: V2 } } });
    pr.push({ [LOCK]: inventory.lockV2, [CONFIG]: config });

    const reviewed = await pr.run({});
    expect(reviewed.code, reviewed.stdout).toBe(1);
    expect(sticky()).toHaveLength(1);
    const comment = sticky()[0]!;
    expect(comment.body).toContain('**Contract gate failed** for `inventory`');
    expect(comment.body).toContain(`[workflow run](${RUN}): its job summary has the full report`);

    // A malformed config is pushed: the run cannot review anything.
    const broken = pr.push({ [CONFIG]: '{ "servers": { "inventory": ' });
    const failed = await pr.run({});
    expect(failed.code).toBe(1);
    expect(sticky()).toHaveLength(1);
    expect(mock.count('POST', /\/comments$/)).toBe(1);
    expect(comment.body.startsWith(`${commentMarker('inventory', 'contracts')}\n`)).toBe(true);
    expect(comment.body).toContain(`**Could not review the contracts at \`${broken.slice(0, 7)}\`**, so this check fails.`);
    expect(comment.body).toContain(CONFIG);
    expect(comment.body).toContain(`Fix what it says (the log of the [workflow run](${RUN}) has the details) and push again`);
    expect(comment.body).not.toContain('Contract gate failed');
    expect(comment.body).not.toMatch(/\n\s+at .+:\d+:\d+/);
    expect(comment.body).not.toContain('full report');
    // The job summary says it as text that wraps, not in a code block whose long line is cut.
    expect(failed.summary).toContain(`> The review could not run:\n\n> The config file ${CONFIG} is not valid JSON`);
    expect(failed.summary).not.toContain('```');

    // The same failure again: nothing to send.
    const patches = mock.count('PATCH', /\/issues\/comments\/\d+$/);
    await pr.run({});
    expect(mock.count('PATCH', /\/issues\/comments\/\d+$/)).toBe(patches);

    // The config is fixed: the review is back, in the same comment.
    pr.push({ [CONFIG]: config });
    const restored = await pr.run({});
    expect(restored.code).toBe(1);
    expect(sticky()).toHaveLength(1);
    expect(mock.count('POST', /\/comments$/)).toBe(1);
    expect(comment.body).toContain('**Contract gate failed** for `inventory`');
    expect(comment.body).not.toContain('Could not review');
  });

  test('a failing run creates no comment where there was none, and leaves other jobs\' and people\'s comments alone', async () => {
    const pr = pullRequest({ [LOCK]: inventory.lockV1 });
    const other = mock.addComment(PR, `${commentMarker('inventory', 'nightly')}\nthe nightly job's review`);
    const spoof = mock.addComment(PR, `${commentMarker('inventory', 'contracts')}\nfake review`, { login: 'mallory', type: 'User' });
    pr.push({ [LOCK]: inventory.lockV2, [CONFIG]: '[' });
    const failed = await pr.run({});
    expect(failed.code).toBe(1);
    expect(mock.count('POST', /\/comments$/)).toBe(0);
    expect(mock.count('PATCH', /\/issues\/comments\/\d+$/)).toBe(0);
    expect(other.body).toBe(`${commentMarker('inventory', 'nightly')}\nthe nightly job's review`);
    expect(spoof.body).toBe(`${commentMarker('inventory', 'contracts')}\nfake review`);
  });
});
