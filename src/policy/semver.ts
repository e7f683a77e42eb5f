/**
 * The release verdict: whether the version a server reports (`serverInfo.version`) went up by
 * as much as its contract changes call for (`summary.semverBump`). Semantic versions are
 * parsed here, by the grammar of semver.org (an optional leading `v` allowed): ten lines do
 * not justify a dependency. Anything else, and a missing version, is `unknown`: reported,
 * never a crash, never a failure.
 *
 * In 0.x the slots shift down by one, as npm's caret ranges and Cargo read them: `^0.3.1`
 * accepts 0.3.x only, so a breaking change needs 0.4.0 and a new feature 0.3.2.
 */
import type { SemverBump } from '../protocol/index.js';

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  /** Dot-separated identifiers after `-`; empty for a release. Build metadata is dropped. */
  prerelease: string[];
}

const IDENT = '(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)';
const SEMVER = new RegExp(`^v?(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?$`);

/** `MAJOR.MINOR.PATCH[-pre][+build]`, or undefined when `text` is not one (or its numbers are too large to be exact). */
export function parseSemver(text: string): SemVer | undefined {
  if (text.length > 256) return undefined;
  const match = SEMVER.exec(text.trim());
  if (!match) return undefined;
  const [major, minor, patch] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  if (![major, minor, patch].every(Number.isSafeInteger)) return undefined;
  return { major, minor, patch, prerelease: match[4] === undefined ? [] : match[4].split('.') };
}

/** Precedence as semver.org defines it: negative when `a` comes before `b`. */
export function compareSemver(a: SemVer, b: SemVer): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return Math.sign(core);
  // A pre-release comes before its release.
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return Math.sign(b.prerelease.length - a.prerelease.length);
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const order = compareIdentifiers(a.prerelease[i]!, b.prerelease[i]!);
    if (order !== 0) return order;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

function compareIdentifiers(a: string, b: string): number {
  const numeric = (s: string) => /^\d+$/.test(s);
  if (numeric(a) && numeric(b)) return Math.sign(Number(a) - Number(b)) || Math.sign(a.length - b.length);
  // Numeric identifiers come before alphanumeric ones; those compare as ASCII.
  if (numeric(a) !== numeric(b)) return numeric(a) ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function formatSemver(v: SemVer): string {
  return `${v.major}.${v.minor}.${v.patch}${v.prerelease.length > 0 ? `-${v.prerelease.join('.')}` : ''}`;
}

const RANK: Readonly<Record<SemverBump, number>> = { none: 0, patch: 1, minor: 2, major: 3 };

/**
 * How big a release going from `previous` to `current` is, in the slots of `previous` (in
 * 0.x, a new minor is a major release and a new patch a minor one). A pre-release promises
 * nothing, so any later version may change anything after it. A version that did not go up is
 * `none`.
 */
export function releasedBump(previous: SemVer, current: SemVer): SemverBump {
  if (compareSemver(current, previous) <= 0) return 'none';
  if (previous.prerelease.length > 0 || current.major !== previous.major) return 'major';
  if (previous.major === 0) return current.minor !== previous.minor ? 'major' : current.patch !== previous.patch ? 'minor' : 'none';
  return current.minor !== previous.minor ? 'minor' : current.patch !== previous.patch ? 'patch' : 'none';
}

/** The smallest release after `previous` that says `bump` (undefined for `none`). */
export function requiredVersion(previous: SemVer, bump: SemverBump): string | undefined {
  if (bump === 'none') return undefined;
  const { major, minor, patch } = previous;
  // The release of a pre-release is the smallest version after it that may change anything.
  if (previous.prerelease.length > 0) return `${major}.${minor}.${patch}`;
  if (bump === 'major') return major === 0 ? `0.${minor + 1}.0` : `${major + 1}.0.0`;
  if (bump === 'minor') return major === 0 ? `0.${minor}.${patch + 1}` : `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

export type VersionCheckMode = 'fail' | 'warn' | 'off';
export type VersionCheck = 'ok' | 'too-small' | 'unknown' | 'off';

/** What `version-check` found for one server (the shape of `ServerReview.release`). */
export interface ReleaseVerdict {
  bump: SemverBump;
  previousVersion?: string;
  currentVersion?: string;
  requiredVersion?: string;
  check: VersionCheck;
  mode: VersionCheckMode;
  message?: string;
}

const NEEDS: Readonly<Record<Exclude<SemverBump, 'none'>, string>> = {
  major: 'BREAKING changes need a major release',
  minor: 'RISKY or SAFE changes (new or changed behaviour) need a minor release',
  patch: 'COSMETIC changes need a patch release',
};
const NEEDS_IN_ZERO: Readonly<Record<Exclude<SemverBump, 'none'>, string>> = {
  major: 'BREAKING changes need a new minor version in 0.x',
  minor: 'RISKY or SAFE changes (new or changed behaviour) need a new patch version in 0.x',
  patch: 'COSMETIC changes need a patch release',
};

/**
 * The release verdict of one review: `bump` is what the changes call for, `previous` the
 * version the base's lockfile records, `current` the head's (the live server's, or its
 * lockfile's). `removed` is a server the head no longer has: there is no version to check.
 */
export function releaseVerdict(input: { bump: SemverBump; previous?: string; current?: string; mode: VersionCheckMode; removed?: boolean }): ReleaseVerdict {
  const { bump, previous, current, mode } = input;
  const verdict: ReleaseVerdict = { bump, check: 'unknown', mode };
  if (previous !== undefined) verdict.previousVersion = previous;
  if (current !== undefined) verdict.currentVersion = current;
  if (mode === 'off') return { ...verdict, check: 'off' };
  if (bump === 'none') return { ...verdict, check: 'ok', message: 'No contract change: any version will do.' };
  if (input.removed) return { ...verdict, message: 'The server was removed: there is no version to check.' };
  if (previous === undefined) return { ...verdict, message: "The base's lockfile does not record the server's version (a lockfile written before format 2, or no base lockfile), so the version is not checked." };
  if (current === undefined) return { ...verdict, message: 'The server does not report a version (serverInfo.version), so the version is not checked.' };
  const [was, now] = [parseSemver(previous), parseSemver(current)];
  if (!was || !now) {
    const odd = !was ? previous : current;
    return { ...verdict, message: `The version "${odd}" is not a semantic version (MAJOR.MINOR.PATCH), so the version is not checked.` };
  }
  const needed = requiredVersion(was, bump)!;
  const needs = (was.major === 0 && was.prerelease.length === 0 ? NEEDS_IN_ZERO : NEEDS)[bump];
  if (RANK[releasedBump(was, now)] >= RANK[bump]) {
    return { ...verdict, check: 'ok', message: `${needs}; ${previous} → ${current} is one.` };
  }
  const says = compareSemver(now, was) < 0 ? `the server says ${current}, lower than the base's ${previous}` : compareSemver(now, was) === 0 ? `the server still says ${current}` : `the server says ${current} (the base's is ${previous})`;
  return { ...verdict, check: 'too-small', requiredVersion: needed, message: `${needs}: version ${needed} or later, but ${says}.` };
}

const BUMPS: readonly SemverBump[] = ['none', 'patch', 'minor', 'major'];

/** The largest of several bumps (several servers in one run); `none` for none. */
export function largestBump(bumps: SemverBump[]): SemverBump {
  return BUMPS[Math.max(0, ...bumps.map((b) => RANK[b]))]!;
}

/** One verdict over several servers: the worst that needs attention first (`off` only when every check is off; `unknown` when none ran). */
export function overallVersionCheck(checks: VersionCheck[]): VersionCheck {
  if (checks.includes('too-small')) return 'too-small';
  if (checks.length === 0 || checks.includes('unknown')) return 'unknown';
  return checks.every((c) => c === 'off') ? 'off' : 'ok';
}

/** The gate's failure for a version that is too small, when `version-check` is fail (no label waives it). */
export function versionFailure(server: string, verdict: ReleaseVerdict | undefined): string | undefined {
  if (verdict?.mode !== 'fail' || verdict.check !== 'too-small') return undefined;
  return `The version of ${server} does not say what its contract changes are. ${verdict.message} Set the version the server reports (serverInfo.version) to ${verdict.requiredVersion} or later and lock again; the approval label does not waive this ("version-check: warn" only reports it).`;
}
