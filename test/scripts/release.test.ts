/**
 * The release's decisions, run as the release workflow runs them (scripts/release.mjs as a
 * process, on a copy of this checkout): which tags release, what stops a release and how it
 * says so, the notes it takes from CHANGELOG.md, the major tag it moves; and the version named
 * the same everywhere (scripts/version.mjs), checked on this checkout and rewritten on a bump.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { ROOT } from '../helpers/processes.js';

const scratchDirs: string[] = [];
afterEach(() => {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the files the release reads: package.json, its lockfile, src/version.ts, the docs. */
function checkout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcg-release-script-'));
  scratchDirs.push(dir);
  for (const path of ['package.json', 'package-lock.json', 'CHANGELOG.md', 'README.md', 'SECURITY.md', 'src/version.ts', 'docs', 'examples']) {
    cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  }
  return dir;
}

function release(tag: string, root: string, env: Record<string, string> = {}) {
  const outputs = join(root, 'github-output');
  writeFileSync(outputs, '');
  const notes = join(root, 'notes.md');
  const result = spawnSync(process.execPath, ['scripts/release.mjs', tag, '--root', root, '--notes', notes], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', GITHUB_OUTPUT: outputs, ...env },
  });
  const read = (file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  };
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, outputs: read(outputs) ?? '', notes: read(notes) };
}

function versionScript(root: string, ...flags: string[]) {
  const result = spawnSync(process.execPath, ['scripts/version.mjs', '--root', root, ...flags], { cwd: ROOT, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the release script', () => {
  it("releases the tag of package.json's version: notes from its CHANGELOG.md section, the major tag to move", () => {
    const root = checkout();
    const result = release(`v${VERSION}`, root);
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toBe(`release=true\nversion=${VERSION}\nmajor-tag=v${VERSION.split('.')[0]}\n`);
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
    const section = changelog.slice(changelog.indexOf(`## ${VERSION}\n`) + `## ${VERSION}\n`.length).split(/^## /m)[0]!.trim();
    expect(section.length).toBeGreaterThan(100);
    expect(result.notes).toBe(`${section}\n`);
  });

  it.each([
    ['1.0.0', 'no leading v'],
    ['v1.0', 'two numbers'],
    ['v1.0.0.1', 'four numbers'],
    ['v01.0.0', 'a leading zero'],
    ['v1.0.0-rc.1', 'a pre-release'],
    ['release-1.0.0', 'another prefix'],
    ['v1.0.0\nv2.0.0', 'a line break'],
  ])('stops on a tag that is not vX.Y.Z (%j: %s), in one paragraph that says what a release tag is', (tag) => {
    const result = release(tag, checkout());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Release stopped: the tag ".*" is not a release tag: a release is tagged vMAJOR\.MINOR\.PATCH/s);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.outputs).toBe('release=false\n');
    expect(result.notes).toBeUndefined();
  });

  it('stops on a tag that disagrees with package.json, naming both and the command that fixes it', () => {
    const result = release('v9.9.9', checkout());
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `Release stopped: the tag v9.9.9 says 9.9.9, but package.json at that commit says ${VERSION}. Run \`npm version 9.9.9\` (it updates every place that names the version), push that commit, and tag it v9.9.9; or tag this commit v${VERSION}.\n`,
    );
  });

  it('stops when a pin in the docs or the CHANGELOG.md section is missing, listing each place', () => {
    const root = checkout();
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    writeFileSync(join(root, 'README.md'), readme.replace(`mcp-contract-guard@${VERSION} lock`, 'mcp-contract-guard@0.9.0 lock'));
    writeFileSync(join(root, 'CHANGELOG.md'), '# Changelog\n\n## Unreleased\n');
    const result = release(`v${VERSION}`, root);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`README\\.md:\\d+: mcp-contract-guard@0\\.9\\.0, expected mcp-contract-guard@${VERSION.replace(/\./g, '\\.')}`));
    expect(result.stderr).toContain(`CHANGELOG.md: no section, expected a "## ${VERSION}" section with the release's notes`);
  });

  it('on GitHub, the reason is an error annotation on the run', () => {
    const result = release('v1.0', checkout(), { GITHUB_ACTIONS: 'true' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^::error title=Release stopped::the tag "v1\.0" is not a release tag: [^\n]*\n$/);
  });

  it('a bare major tag (the one a release moves) is not a release, and not an error', () => {
    const result = release('v1', checkout());
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toBe('release=false\n');
    expect(result.stdout).toContain('v1 is the major tag a release moves, not a release');
  });
});

describe('the version, named the same everywhere', () => {
  it('this checkout agrees: package.json, package-lock.json, src/version.ts, the pins of the README, docs/ and examples/, CHANGELOG.md', () => {
    const result = versionScript(ROOT);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version).toBe(VERSION);
  });

  it('a bump rewrites every pin (the npm version hook), and the release of the new tag then goes through', () => {
    const root = checkout();
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ ...pkg, version: '2.1.0' }, null, 2));
    // The made-up release's notes, in place of whatever waits under Unreleased in this checkout.
    const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
    writeFileSync(join(root, 'CHANGELOG.md'), changelog.replace(/## Unreleased\n[\s\S]*?\n(?=## )/, '## Unreleased\n\n## 2.1.0 - 2027-01-15\n\n- A change.\n\n'));
    expect(versionScript(root).code).toBe(1);
    const written = versionScript(root, '--write');
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toMatch(/^Set version 2\.1\.0 in package-lock\.json, src\/version\.ts, README\.md, .*docs\/proxy\.md.*examples\/workflows\/deploy\.yml/);
    expect(readFileSync(join(root, 'src/version.ts'), 'utf8')).toContain("export const VERSION = '2.1.0';");
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('npx mcp-contract-guard@2.1.0 lock');
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('uses: mcp-contract-guard/mcp-contract-guard@v2');
    expect(readFileSync(join(root, 'docs/action.md'), 'utf8')).toContain('mcp-contract-guard/mcp-contract-guard@v2.1.0');
    // History is never rewritten.
    expect(readFileSync(join(root, 'CHANGELOG.md'), 'utf8')).toContain('(`npx mcp-contract-guard@1.0.0`)');
    const result = release('v2.1.0', root);
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toContain('major-tag=v2\n');
    expect(result.notes).toBe('- A change.\n');
  });
});
