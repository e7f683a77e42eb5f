/**
 * `changelog` through the CLI as a process, on scratch git repositories whose lockfiles the
 * real `lock` command wrote (the example server v1/v2, the real-world inventory captures),
 * and `changelogSection` for what only hand-made versions show.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { changelogSection } from '../../src/report/changelog.js';
import { EXAMPLE, GitRepo, removeScratch } from '../action/harness.js';
import { delta, reportOf } from '../action/reports.js';
import { cli } from '../helpers/cli.js';
import { ROOT } from '../helpers/processes.js';

afterAll(() => removeScratch());

const REAL_WORLD = join(ROOT, 'test/fixtures/real-world');

async function lock(repo: GitRepo, args: string[]): Promise<void> {
  const result = await cli(['lock', '-q', ...args], { cwd: repo.dir });
  expect(result.code, result.stderr).toBe(0);
}

/** The example server: v1 released as v1.0.0, a docs-only release v1.0.1, v2 released as v2.0.0 (an annotated tag). */
async function exampleHistory(): Promise<GitRepo> {
  const repo = new GitRepo();
  await lock(repo, ['--command', `node ${EXAMPLE('v1')}`]);
  repo.commit({}, 'v1');
  repo.git('tag', 'v1.0.0');
  repo.commit({ 'README.md': 'docs' }, 'docs');
  repo.git('tag', 'v1.0.1');
  await lock(repo, ['--command', `node ${EXAMPLE('v2')}`]);
  repo.commit({}, 'v2');
  repo.git('tag', '-a', 'v2.0.0', '-m', 'Release 2.0.0');
  return repo;
}

interface Json {
  order: string;
  sections: Array<{ tags: string[]; subject?: string; semverBump: string; version?: string; previousVersion?: string; changes: Record<string, Array<{ name: string; rule: string }>> }>;
  notes: string[];
}

describe('changelog', () => {
  test('one section per release tag, newest first, grouped, with the semver verdict and the server version; a release without contract changes has none', async () => {
    const repo = await exampleHistory();
    const markdown = await cli(['changelog', '-q'], { cwd: repo.dir });
    expect(markdown.code, markdown.stderr).toBe(0);
    const text = markdown.stdout;
    expect(text).toContain('Newest first, up to `HEAD`.');
    expect(text.indexOf('## v2.0.0 (')).toBeGreaterThan(0);
    expect(text.indexOf('## v2.0.0 (')).toBeLessThan(text.indexOf('## v1.0.0 ('));
    expect(text).not.toContain('v1.0.1');
    expect(text).toContain('Semver: **major** · server `1.0.0` → `2.0.0`');
    // The first release has nothing before it: not "minor" for adding everything.
    expect(text).toContain('Semver: **initial** (the first version of the lockfile: every entry is new) · server `1.0.0`');
    const v2 = text.slice(text.indexOf('## v2.0.0'), text.indexOf('## v1.0.0'));
    const headings = [...v2.matchAll(/^### (\w+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(['Breaking', 'Changed', 'Added', 'Removed']);
    expect(v2).toContain('- tool `create_order`: arguments: new required property "currency".');
    expect(v2).toContain('### Removed\n\n- tool `delete_order`');
    expect(v2).toContain('### Added\n\n- tool `restock`');
    expect(v2).toContain('- resource `inventory://catalog` (RISKY): mimeType changed');

    const json = await cli(['changelog', '--format', 'json'], { cwd: repo.dir });
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as Json;
    expect(parsed.order).toBe('newest-first');
    expect(parsed.sections.map((s) => [s.tags, s.semverBump, s.previousVersion, s.version])).toEqual([
      [['v2.0.0'], 'major', '1.0.0', '2.0.0'],
      [['v1.0.0'], 'initial', undefined, '1.0.0'],
    ]);
    expect(parsed.sections[0]!.changes.removed.map((c) => c.name)).toEqual(['delete_order']);
    expect(parsed.sections[1]!.changes.added).toHaveLength(7);
    // Progress on stderr, never in the document.
    expect(json.stderr).toContain('› v2.0.0: major');
  });

  test('--from and --to pick the range; --lockfile another path', async () => {
    const repo = await exampleHistory();
    const since = JSON.parse((await cli(['changelog', '--format', 'json', '--from', 'v1.0.0'], { cwd: repo.dir })).stdout) as Json;
    expect(since.sections.map((s) => s.tags)).toEqual([['v2.0.0']]);
    const until = JSON.parse((await cli(['changelog', '--format', 'json', '--to', 'v1.0.1'], { cwd: repo.dir })).stdout) as Json;
    expect(until.sections.map((s) => s.tags)).toEqual([['v1.0.0']]);
    const none = await cli(['changelog', '--from', 'v2.0.0'], { cwd: repo.dir });
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('No contract changes in this range.');
  });

  test('from a subdirectory: --lockfile is relative to where it is run, as in every command', async () => {
    const repo = await exampleHistory();
    repo.write('docs/README.md', 'docs');
    const result = await cli(['changelog', '--format', 'json', '--lockfile', '../mcp-contracts.lock.json'], { cwd: join(repo.dir, 'docs') });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as Json).sections.map((s) => s.tags)).toEqual([['v2.0.0'], ['v1.0.0']]);
  });

  test('a lockfile moved with git mv keeps its history: the release that moved it lists only what changed', async () => {
    const repo = await exampleHistory();
    repo.git('mv', 'mcp-contracts.lock.json', 'contracts.lock.json');
    repo.commit({}, 'move the lockfile');
    repo.git('tag', 'v2.0.1');
    const result = await cli(['changelog', '--format', 'json', '--lockfile', 'contracts.lock.json'], { cwd: repo.dir });
    expect(result.code, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout) as Json;
    // Not a v2.0.1 that "adds" every tool: the move changed no contract.
    expect(parsed.sections.map((s) => [s.tags, s.semverBump])).toEqual([
      [['v2.0.0'], 'major'],
      [['v1.0.0'], 'initial'],
    ]);
    expect(parsed.notes).toEqual([expect.stringMatching(/^mcp-contracts\.lock\.json was moved to contracts\.lock\.json in [0-9a-f]{7}: the versions before that commit are read at mcp-contracts\.lock\.json\.$/)]);
    const since = JSON.parse((await cli(['changelog', '--format', 'json', '--lockfile', 'contracts.lock.json', '--from', 'v1.0.0'], { cwd: repo.dir })).stdout) as Json;
    expect(since.sections.map((s) => s.tags)).toEqual([['v2.0.0']]);
  });

  test('a lockfile missing at a release and committed again later: that release is left out and said, not "everything removed" then "everything added"', async () => {
    const repo = await exampleHistory();
    repo.git('rm', '-q', 'mcp-contracts.lock.json');
    repo.commit({}, 'drop the lockfile');
    repo.git('tag', 'v2.1.0');
    repo.git('checkout', '-q', 'v2.0.0', '--', 'mcp-contracts.lock.json');
    repo.commit({}, 'restore the lockfile');
    repo.git('tag', 'v2.2.0');
    const parsed = JSON.parse((await cli(['changelog', '--format', 'json', '--from', 'v2.0.0'], { cwd: repo.dir })).stdout) as Json;
    expect(parsed.sections).toEqual([]);
    expect(parsed.notes).toEqual(['mcp-contracts.lock.json is absent at v2.1.0 and committed again later: that version is left out, the next one is compared with the one before it.']);
    // Up to the release that deleted it, the lockfile is gone: everything it held is removed.
    const until = JSON.parse((await cli(['changelog', '--format', 'json', '--from', 'v2.0.0', '--to', 'v2.1.0'], { cwd: repo.dir })).stdout) as Json;
    expect(until.sections.map((s) => [s.tags, s.semverBump])).toEqual([[['v2.1.0'], 'major']]);
  });

  test('changes no tag holds yet: one section per commit that changed the lockfile, with its subject', async () => {
    const repo = new GitRepo();
    const py = 'servers/py/mcp-contracts.lock.json';
    repo.write('servers/py/README.md', 'The Python inventory server.');
    for (const [version, subject] of [
      ['1.0.0', 'First inventory'],
      ['1.1.0', 'Wider SKUs'],
      ['2.0.0', 'Reserve and ship'],
    ]) {
      await lock(repo, ['--file', join(REAL_WORLD, `inventory@${version}.json`), '--lockfile', py]);
      repo.commit({}, subject!);
      if (version === '1.0.0') repo.git('tag', 'py-1.0.0');
      repo.commit({ 'notes.txt': subject! }, `notes for ${subject}`);
    }
    const result = await cli(['changelog', '--format', 'json', '--lockfile', py], { cwd: repo.dir });
    expect(result.code, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout) as Json;
    expect(parsed.sections.map((s) => [s.tags, s.subject, s.semverBump])).toEqual([
      [[], 'Reserve and ship', 'major'],
      [[], 'Wider SKUs', 'major'],
      [['py-1.0.0'], undefined, 'initial'],
    ]);
    const markdown = (await cli(['changelog', '--lockfile', py], { cwd: repo.dir })).stdout;
    expect(markdown).toMatch(/^## `[0-9a-f]{7}` Reserve and ship \(\d{4}-\d{2}-\d{2}\)$/m);
    expect(markdown).toContain('- tool `find_items`: arguments: property "query" was renamed to "text" \\(same schema\\).'); // markdown text: GitHub shows the parentheses
  });

  test('each release tag is checked as the Action checks a release: a tag smaller than the changes call for is flagged whatever the server says; tags that are not versions are said once', async () => {
    const repo = new GitRepo();
    const release = async (capture: string, tags: string[]) => {
      await lock(repo, ['--file', join(REAL_WORLD, `inventory@${capture}.json`)]);
      repo.commit({}, `inventory ${capture}`);
      for (const tag of tags) repo.git('tag', tag);
    };
    await release('1.0.0', ['v1.0.0']);
    // BREAKING changes; the server says 1.0.0 → 2.0.0, the tag only v1.1.0 (beside the moving major tag v1).
    await release('2.0.0', ['v1.1.0', 'v1']);
    await release('1.1.0', ['nightly']);
    const result = await cli(['changelog', '--format', 'json'], { cwd: repo.dir });
    expect(result.code, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout) as Json & { sections: Array<{ versionNote?: string; previousTag?: string }> };
    expect(parsed.sections.map((s) => [s.tags, s.semverBump, s.previousTag])).toEqual([
      [['nightly'], 'major', 'v1.1.0'],
      [['v1', 'v1.1.0'], 'major', 'v1.0.0'],
      [['v1.0.0'], 'initial', undefined],
    ]);
    expect(parsed.sections[1]!.versionNote).toBe('BREAKING changes need a major release; 1.0.0 → 2.0.0 is one. The release tag is not one: v2.0.0 or later, but the release is tagged v1.1.0 (the previous release v1.0.0).');
    expect(parsed.sections[2]!.versionNote).toBeUndefined();
    expect(parsed.notes).toEqual(['The tag nightly is not a semantic version (vMAJOR.MINOR.PATCH): its release is not checked against the changes, and the next release tag is compared with the one before.']);
    const markdown = (await cli(['changelog'], { cwd: repo.dir })).stdout;
    expect(markdown).toContain('> [!WARNING]\n> BREAKING changes need a major release; 1.0.0 → 2.0.0 is one. The release tag is not one: v2.0.0 or later');
  });

  test('a version that cannot be trusted is left out, said once, and the next is compared with the one before it', async () => {
    const repo = await exampleHistory();
    // Someone edited the lockfile by hand: its digests no longer match.
    const edited = repo.read('mcp-contracts.lock.json')!.replace('"Create an order', '"Create one order');
    repo.commit({ 'mcp-contracts.lock.json': edited }, 'hand edit');
    await lock(repo, ['--command', `node ${EXAMPLE('v1')}`]);
    repo.commit({}, 'back to v1');
    const parsed = JSON.parse((await cli(['changelog', '--format', 'json', '--from', 'v2.0.0'], { cwd: repo.dir })).stdout) as Json;
    expect(parsed.sections.map((s) => s.subject)).toEqual(['back to v1']);
    expect(parsed.sections[0]!.semverBump).toBe('major');
    expect(parsed.notes).toHaveLength(1);
    expect(parsed.notes[0]).toMatch(/mcp-contracts\.lock\.json at [0-9a-f]{7}.*That version is left out/);
  });

  test('errors say what is wrong and what to do (exit 2)', async () => {
    const repo = await exampleHistory();
    const unknownRef = await cli(['changelog', '--from', 'v9.9.9'], { cwd: repo.dir });
    expect(unknownRef).toMatchObject({ code: 2, stdout: '' });
    expect(unknownRef.stderr).toBe('error: --from v9.9.9 is not a commit, tag or branch of this repository (fetch it first if it lives on a remote: git fetch --tags).\n');
    const option = await cli(['changelog', '--to=--output=/tmp/x'], { cwd: repo.dir });
    expect(option.stderr).toContain('--to names a commit, tag or branch; got "--output=/tmp/x".');
    // A range that runs backwards is refused, not printed as "no contract changes".
    const backwards = await cli(['changelog', '--from', 'v2.0.0', '--to', 'v1.0.0'], { cwd: repo.dir });
    expect(backwards).toMatchObject({ code: 2, stdout: '' });
    expect(backwards.stderr).toContain('--from v2.0.0 is not on the history of --to v1.0.0');
    const never = await cli(['changelog', '--lockfile', 'other.lock.json'], { cwd: repo.dir });
    expect(never.code).toBe(2);
    expect(never.stderr).toContain('other.lock.json was never committed on the history of HEAD');
    const nowhere = mkdtempSync(join(tmpdir(), 'mcg-no-git-'));
    const outside = await cli(['changelog'], { cwd: nowhere, env: { GIT_CEILING_DIRECTORIES: tmpdir() } });
    rmSync(nowhere, { recursive: true });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('is not inside a git repository');
    expect((await cli(['changelog', 'v1.0.0'], { cwd: repo.dir })).stderr).toContain('changelog takes no argument');
  });
});

describe('a changelog section', () => {
  test('flags a recorded version that went up by less than the changes call for', () => {
    const report = reportOf({ create_order: [delta('BREAKING', 'b1')], list_orders: [delta('SAFE', 's1', { kind: 'deprecation-added' })] });
    const section = changelogSection({ tags: ['v1.1.0'], commit: 'c'.repeat(40), date: '2030-01-01', previousVersion: '1.0.0', version: '1.1.0' }, report);
    expect(section.semverBump).toBe('major');
    expect(section.versionNote).toBe('BREAKING changes need a major release: version 2.0.0 or later, but the server says 1.1.0 (the base\'s is 1.0.0).');
    expect(section.changes.breaking.map((c) => c.fingerprint)).toEqual(['b1']);
    expect(section.changes.deprecated.map((c) => c.fingerprint)).toEqual(['s1']);
    expect(changelogSection({ tags: [], commit: 'c'.repeat(40), date: '2030-01-01', previousVersion: '1.0.0', version: '2.0.0' }, report).versionNote).toBeUndefined();
  });
});
