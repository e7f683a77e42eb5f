/** The release verdict: semantic versions, the bump a version change makes, and the version check's rules (0.x included). */
import { describe, expect, test } from 'vitest';
import {
  compareSemver,
  formatSemver,
  largestBump,
  overallVersionCheck,
  parseSemver,
  releaseTagOf,
  releaseVerdict,
  releasedBump,
  requiredVersion,
  versionFailure,
  type SemVer,
} from '../../src/policy/semver.js';

const v = (text: string): SemVer => {
  const parsed = parseSemver(text);
  if (!parsed) throw new Error(`not semver: ${text}`);
  return parsed;
};

describe('parsing', () => {
  test('MAJOR.MINOR.PATCH with an optional pre-release and build metadata (dropped), and a leading v', () => {
    expect(parseSemver('1.2.3')).toEqual({ major: 1, minor: 2, patch: 3, prerelease: [] });
    expect(parseSemver('v2.0.0-rc.1+build.5')).toEqual({ major: 2, minor: 0, patch: 0, prerelease: ['rc', '1'] });
    expect(parseSemver('0.0.1-alpha-1.x')).toEqual({ major: 0, minor: 0, patch: 1, prerelease: ['alpha-1', 'x'] });
    expect(formatSemver(v('v2.0.0-rc.1+build.5'))).toBe('2.0.0-rc.1');
  });

  test('anything else is not a version: never a throw', () => {
    for (const text of ['', '1.2', '1.2.3.4', '01.2.3', '1.02.3', '1.2.3-01', '1.2.3-', '1.2.3+', 'latest', '2026.07.04', 'v', ' ', '1.2.3 beta', '9007199254740993.0.0', 'x'.repeat(300)]) {
      expect(parseSemver(text), text).toBeUndefined();
    }
    // Calendar versions that happen to be semver are versions (2026.7.4 is fine).
    expect(parseSemver('2026.7.4')).toEqual({ major: 2026, minor: 7, patch: 4, prerelease: [] });
  });

  test('precedence is semver.org\'s', () => {
    const ordered = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.1.0', '2.0.0'];
    for (let i = 0; i + 1 < ordered.length; i++) {
      expect(compareSemver(v(ordered[i]!), v(ordered[i + 1]!)), `${ordered[i]} < ${ordered[i + 1]}`).toBe(-1);
      expect(compareSemver(v(ordered[i + 1]!), v(ordered[i]!))).toBe(1);
    }
    expect(compareSemver(v('1.0.0+a'), v('1.0.0+b'))).toBe(0);
  });
});

describe('the bump a version change makes, and the smallest version a bump needs', () => {
  test.each([
    ['1.4.2', '2.0.0', 'major'],
    ['1.4.2', '1.5.0', 'minor'],
    ['1.4.2', '1.4.3', 'patch'],
    ['1.4.2', '1.4.2', 'none'],
    ['1.4.2', '1.4.1', 'none'],
    ['1.4.2', '2.0.0-beta.1', 'major'],
    // 0.x: the slots shift down by one.
    ['0.3.1', '0.4.0', 'major'],
    ['0.3.1', '0.3.2', 'minor'],
    ['0.3.1', '1.0.0', 'major'],
    ['0.0.3', '0.0.4', 'minor'],
    // A pre-release promises nothing.
    ['2.0.0-beta.1', '2.0.0-beta.2', 'major'],
    ['2.0.0-beta.1', '2.0.0', 'major'],
    ['2.0.0-beta.1', '2.0.0-alpha', 'none'],
  ])('%s → %s is %s', (from, to, bump) => {
    expect(releasedBump(v(from), v(to))).toBe(bump);
  });

  test.each([
    ['1.4.2', 'major', '2.0.0'],
    ['1.4.2', 'minor', '1.5.0'],
    ['1.4.2', 'patch', '1.4.3'],
    ['0.3.1', 'major', '0.4.0'],
    ['0.3.1', 'minor', '0.3.2'],
    ['0.3.1', 'patch', '0.3.2'],
    ['0.0.3', 'major', '0.1.0'],
    ['2.0.0-rc.1', 'major', '2.0.0'],
  ] as const)('after %s, a %s release is at least %s', (from, bump, needed) => {
    const required = requiredVersion(v(from), bump);
    expect(required).toBe(needed);
    // The version it names is enough, and is the smallest release of that kind.
    expect(releasedBump(v(from), v(required!))).not.toBe('none');
  });
});

describe('the version check', () => {
  test('a break without a major release is too small, and the message says which version is needed', () => {
    expect(releaseVerdict({ bump: 'major', previous: '1.4.0', current: '1.5.0', mode: 'warn' })).toEqual({
      bump: 'major',
      previousVersion: '1.4.0',
      currentVersion: '1.5.0',
      requiredVersion: '2.0.0',
      check: 'too-small',
      mode: 'warn',
      message: 'BREAKING changes need a major release: version 2.0.0 or later, but the server says 1.5.0 (the base\'s is 1.4.0).',
    });
    expect(releaseVerdict({ bump: 'major', previous: '1.4.0', current: '1.4.0', mode: 'fail' }).message).toBe('BREAKING changes need a major release: version 2.0.0 or later, but the server still says 1.4.0.');
    expect(releaseVerdict({ bump: 'minor', previous: '1.4.0', current: '1.3.9', mode: 'fail' }).message).toContain('the server says 1.3.9, lower than the base\'s 1.4.0');
    expect(releaseVerdict({ bump: 'major', previous: '1.4.0', current: '2.0.0', mode: 'fail' })).toMatchObject({ check: 'ok', message: 'BREAKING changes need a major release; 1.4.0 → 2.0.0 is one.' });
  });

  test('in 0.x a break needs a new minor version, a feature a new patch', () => {
    expect(releaseVerdict({ bump: 'major', previous: '0.3.1', current: '0.3.2', mode: 'warn' })).toMatchObject({
      check: 'too-small',
      requiredVersion: '0.4.0',
      message: 'BREAKING changes need a new minor version in 0.x: version 0.4.0 or later, but the server says 0.3.2 (the base\'s is 0.3.1).',
    });
    expect(releaseVerdict({ bump: 'major', previous: '0.3.1', current: '0.4.0', mode: 'warn' }).check).toBe('ok');
    expect(releaseVerdict({ bump: 'minor', previous: '0.3.1', current: '0.3.2', mode: 'warn' }).check).toBe('ok');
    expect(releaseVerdict({ bump: 'minor', previous: '0.3.1', current: '0.3.1', mode: 'warn' })).toMatchObject({ check: 'too-small', requiredVersion: '0.3.2' });
  });

  test('missing or non-semantic versions are unknown; no change is always ok; off is off', () => {
    expect(releaseVerdict({ bump: 'major', current: '2.0.0', mode: 'fail' })).toMatchObject({ check: 'unknown', message: expect.stringContaining("base's lockfile does not record the server's version") });
    expect(releaseVerdict({ bump: 'major', previous: '1.0.0', mode: 'fail' })).toMatchObject({ check: 'unknown', message: expect.stringContaining('does not report a version') });
    expect(releaseVerdict({ bump: 'major', previous: '1.0.0', current: 'nightly', mode: 'fail' })).toMatchObject({ check: 'unknown', message: 'The version "nightly" is not a semantic version (MAJOR.MINOR.PATCH), so the version is not checked.' });
    expect(releaseVerdict({ bump: 'major', previous: '1.0.0', mode: 'fail', removed: true })).toMatchObject({ check: 'unknown', message: expect.stringContaining('removed') });
    expect(releaseVerdict({ bump: 'none', previous: '1.0.0', current: '1.0.0', mode: 'fail' })).toMatchObject({ check: 'ok' });
    expect(releaseVerdict({ bump: 'major', previous: '1.0.0', current: '1.0.0', mode: 'off' })).toEqual({ bump: 'major', previousVersion: '1.0.0', currentVersion: '1.0.0', check: 'off', mode: 'off' });
  });

  test('only a too-small version under "fail" fails the gate', () => {
    const tooSmall = releaseVerdict({ bump: 'major', previous: '1.4.0', current: '1.5.0', mode: 'fail' });
    expect(versionFailure('inventory', tooSmall)).toBe(
      'The version of inventory does not say what its contract changes are. BREAKING changes need a major release: version 2.0.0 or later, but the server says 1.5.0 (the base\'s is 1.4.0). ' +
        'Set the version the server reports (serverInfo.version) to 2.0.0 or later and lock again; the approval label does not waive this ("version-check: warn" only reports it).',
    );
    expect(versionFailure('inventory', { ...tooSmall, mode: 'warn' })).toBeUndefined();
    expect(versionFailure('inventory', releaseVerdict({ bump: 'major', previous: '1.4.0', current: 'x', mode: 'fail' }))).toBeUndefined();
    expect(versionFailure('inventory', undefined)).toBeUndefined();
  });

  test('the release tag is checked too: a tag bump smaller than the changes call for is too small, whatever the server says', () => {
    // Nine BREAKING changes, the server 1.0.0 → 2.0.0, but the release tagged v1.1.0 after v1.0.0.
    const verdict = releaseVerdict({ bump: 'major', previous: '1.0.0', current: '2.0.0', tags: { previous: 'v1.0.0', current: 'v1.1.0' }, mode: 'fail' });
    expect(verdict).toEqual({
      bump: 'major',
      previousVersion: '1.0.0',
      currentVersion: '2.0.0',
      previousTag: 'v1.0.0',
      currentTag: 'v1.1.0',
      requiredTag: 'v2.0.0',
      check: 'too-small',
      mode: 'fail',
      message: 'BREAKING changes need a major release; 1.0.0 → 2.0.0 is one. The release tag is not one: v2.0.0 or later, but the release is tagged v1.1.0 (the previous release v1.0.0).',
    });
    expect(versionFailure('inventory', verdict)).toBe(
      `The version of inventory does not say what its contract changes are. ${verdict.message} Tag the release v2.0.0 or later; the approval label does not waive this ("version-check: warn" only reports it).`,
    );
    // Both too small: both named, both fixes asked.
    const both = releaseVerdict({ bump: 'minor', previous: '1.4.0', current: '1.4.0', tags: { previous: '1.4.0', current: '1.4.1' }, mode: 'fail' });
    expect(both).toMatchObject({ check: 'too-small', requiredVersion: '1.5.0', requiredTag: '1.5.0' });
    expect(versionFailure('inventory', both)).toContain('Set the version the server reports (serverInfo.version) to 1.5.0 or later and lock again, and tag the release 1.5.0 or later;');
    // The tag alone can say so when the server reports no version; in 0.x the slots shift as for versions.
    expect(releaseVerdict({ bump: 'major', previous: '1.0.0', tags: { previous: 'v0.3.1', current: 'v0.4.0' }, mode: 'fail' })).toMatchObject({
      check: 'ok',
      message: 'BREAKING changes need a new minor version in 0.x; the release tag v0.3.1 → v0.4.0 is one. The server does not report a version (serverInfo.version), so the version is not checked.',
    });
    expect(releaseVerdict({ bump: 'major', tags: { previous: 'v0.3.1', current: 'v0.3.2' }, mode: 'warn' })).toMatchObject({ check: 'too-small', requiredTag: 'v0.4.0' });
    // No release tag (a pull request): the server's version alone, as before.
    expect(releaseVerdict({ bump: 'major', previous: '1.0.0', current: '2.0.0', tags: {}, mode: 'fail' })).toEqual(releaseVerdict({ bump: 'major', previous: '1.0.0', current: '2.0.0', mode: 'fail' }));
  });

  test('a release tag that is not a semantic version, or nothing to compare it with, is said and not checked', () => {
    expect(releaseVerdict({ bump: 'major', previous: '1.0.0', current: '2.0.0', tags: { previous: 'v1.0.0', current: 'release-2' }, mode: 'fail' })).toMatchObject({
      check: 'ok',
      message: 'BREAKING changes need a major release; 1.0.0 → 2.0.0 is one. The release tag "release-2" is not a semantic version (vMAJOR.MINOR.PATCH), so the release is not checked against its tag.',
    });
    expect(releaseVerdict({ bump: 'major', tags: { current: 'v2.0.0' }, mode: 'fail' })).toMatchObject({
      check: 'unknown',
      message: expect.stringContaining('There is no earlier release tag to compare v2.0.0 with, so the tag is not checked.'),
    });
    expect(releaseVerdict({ bump: 'major', tags: { previous: 'latest', current: 'v2.0.0' }, mode: 'fail' }).message).toContain('The previous release tag "latest" is not a semantic version');
  });

  test('a commit\'s release tag: its highest semantic version, not a moving major tag or a name beside it', () => {
    expect(releaseTagOf(['v1', 'v1.2.0', 'latest', 'v1.2.0-rc.1'])).toEqual({ tag: 'v1.2.0', others: ['v1', 'latest'] });
    expect(releaseTagOf(['2.0.0', 'v10.0.0'])).toEqual({ tag: 'v10.0.0', others: [] });
    expect(releaseTagOf(['nightly'])).toEqual({ others: ['nightly'] });
    expect(releaseTagOf([])).toEqual({ others: [] });
  });

  test('over several servers: the largest bump, the check that needs attention first', () => {
    expect(largestBump([])).toBe('none');
    expect(largestBump(['patch', 'major', 'minor'])).toBe('major');
    expect(overallVersionCheck(['ok', 'too-small', 'unknown'])).toBe('too-small');
    expect(overallVersionCheck(['ok', 'unknown'])).toBe('unknown');
    expect(overallVersionCheck(['ok', 'off'])).toBe('ok');
    expect(overallVersionCheck(['off'])).toBe('off');
    expect(overallVersionCheck([])).toBe('unknown');
  });
});
