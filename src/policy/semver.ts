/**
 * The release verdict: whether a release's version went up by as much as its contract changes
 * call for (`summary.semverBump`), by the version the server reports (`serverInfo.version`)
 * and by the release's git tag: either one too small is a missed bump, whatever the other
 * says. The Action (github/io/release-tags.ts finds the tags) and `changelog` both judge here.
 * Semantic versions are parsed here, by the grammar of semver.org (an optional leading `v`
 * allowed): ten lines do not justify a dependency. Anything else, and a missing version, is
 * `unknown`: reported, never a crash, never a failure.
 *
 * In 0.x the slots shift down by one, as npm's caret ranges and Cargo read them: `^0.3.1`
 * accepts 0.3.x only, so a breaking change needs 0.4.0 and a new feature 0.3.2.
 */
import type { CheckMode, ReleaseVerdict, SemverBump, VersionCheck } from '../protocol/index.js';

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
 * The release tag among a commit's tags: the highest that is a semantic version (`v1.2.0`,
 * `1.2.0`); a moving major tag (`v1`) or a name (`nightly`) is not one. `others` are the
 * tags that are not semantic versions, for a message that says they were not read.
 */
export function releaseTagOf(tags: readonly string[]): { tag?: string; others: string[] } {
  let best: { tag: string; version: SemVer } | undefined;
  const others: string[] = [];
  for (const tag of tags) {
    const version = parseSemver(tag);
    if (version === undefined) others.push(tag);
    else if (best === undefined || compareSemver(version, best.version) > 0) best = { tag, version };
  }
  return best === undefined ? { others } : { tag: best.tag, others };
}

/** One way of versioning a release compared (the server's own version, or the release's tag), and what it needs when too small. */
type Finding = { check: 'ok' | 'unknown'; sentence: string } | { check: 'too-small'; sentence: string; required: string };

/**
 * The release verdict of one review: `bump` is what the changes call for, `previous` the
 * version the base's lockfile records, `current` the head's (the live server's, or its
 * lockfile's), `tags` the previous release's tag and this release's (when it has one: a pull
 * request usually has none). `removed` is a server the head no longer has: there is no
 * version to check. Too small by either the server's version or the tag is too small.
 */
export function releaseVerdict(input: { bump: SemverBump; previous?: string; current?: string; tags?: { previous?: string; current?: string }; mode: CheckMode; removed?: boolean }): ReleaseVerdict {
  const { bump, previous, current, tags, mode } = input;
  const verdict: ReleaseVerdict = { bump, check: 'unknown', mode };
  if (previous !== undefined) verdict.previousVersion = previous;
  if (current !== undefined) verdict.currentVersion = current;
  if (tags?.current !== undefined) {
    if (tags.previous !== undefined) verdict.previousTag = tags.previous;
    verdict.currentTag = tags.current;
  }
  if (mode === 'off') return { ...verdict, check: 'off' };
  if (bump === 'none') return { ...verdict, check: 'ok', message: 'No contract change: any version will do.' };
  if (input.removed) return { ...verdict, message: 'The server was removed: there is no version to check.' };
  const server = serverFinding(bump, previous, current);
  const tag = tags?.current === undefined ? undefined : tagFinding(bump, tags.previous, tags.current, server.check !== 'unknown');
  const findings = [server, ...(tag ? [tag] : [])];
  // The comparisons first (the first one says what the changes need), then what could not be compared.
  const sentences = [...findings.filter((f) => f.check !== 'unknown'), ...findings.filter((f) => f.check === 'unknown')].map((f) => f.sentence);
  const check = findings.some((f) => f.check === 'too-small') ? 'too-small' : findings.some((f) => f.check === 'ok') ? 'ok' : 'unknown';
  if (server.check === 'too-small') verdict.requiredVersion = server.required;
  if (tag?.check === 'too-small') verdict.requiredTag = tag.required;
  return { ...verdict, check, message: sentences.join(' ') };
}

/** What the changes need, said in the slots of `previous` (0.x shifts them). */
function needsOf(bump: Exclude<SemverBump, 'none'>, previous: string | undefined): string {
  const was = previous === undefined ? undefined : parseSemver(previous);
  return (was !== undefined && was.major === 0 && was.prerelease.length === 0 ? NEEDS_IN_ZERO : NEEDS)[bump];
}

function serverFinding(bump: Exclude<SemverBump, 'none'>, previous: string | undefined, current: string | undefined): Finding {
  if (previous === undefined) return { check: 'unknown', sentence: "The base's lockfile does not record the server's version (a lockfile written before format 2, or no base lockfile), so the version is not checked." };
  if (current === undefined) return { check: 'unknown', sentence: 'The server does not report a version (serverInfo.version), so the version is not checked.' };
  const [was, now] = [parseSemver(previous), parseSemver(current)];
  if (!was || !now) return { check: 'unknown', sentence: `The version "${!was ? previous : current}" is not a semantic version (MAJOR.MINOR.PATCH), so the version is not checked.` };
  const needs = needsOf(bump, previous);
  if (RANK[releasedBump(was, now)] >= RANK[bump]) return { check: 'ok', sentence: `${needs}; ${previous} → ${current} is one.` };
  const needed = requiredVersion(was, bump)!;
  const says = compareSemver(now, was) < 0 ? `the server says ${current}, lower than the base's ${previous}` : compareSemver(now, was) === 0 ? `the server still says ${current}` : `the server says ${current} (the base's is ${previous})`;
  return { check: 'too-small', required: needed, sentence: `${needs}: version ${needed} or later, but ${says}.` };
}

/** The release's tag against the previous release's; `afterServer`: a sentence on the server's version comes first. */
function tagFinding(bump: Exclude<SemverBump, 'none'>, previous: string | undefined, current: string, afterServer: boolean): Finding {
  const now = parseSemver(current);
  if (!now) return { check: 'unknown', sentence: `The release tag "${current}" is not a semantic version (vMAJOR.MINOR.PATCH), so the release is not checked against its tag.` };
  if (previous === undefined) return { check: 'unknown', sentence: `There is no earlier release tag to compare ${current} with, so the tag is not checked.` };
  const was = parseSemver(previous);
  if (!was) return { check: 'unknown', sentence: `The previous release tag "${previous}" is not a semantic version (vMAJOR.MINOR.PATCH), so the tag ${current} is not checked.` };
  if (RANK[releasedBump(was, now)] >= RANK[bump]) {
    return { check: 'ok', sentence: afterServer ? `The release tag ${previous} → ${current} is one.` : `${needsOf(bump, previous)}; the release tag ${previous} → ${current} is one.` };
  }
  const needed = `${current.trim().startsWith('v') ? 'v' : ''}${requiredVersion(was, bump)!}`;
  const tooSmall = `${needed} or later, but the release is tagged ${current} (the previous release ${previous})`;
  return { check: 'too-small', required: needed, sentence: afterServer ? `The release tag is not one: ${tooSmall}.` : `${needsOf(bump, previous)}: a tag ${tooSmall}.` };
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

/** The gate's failure for a version that is too small, when `version-check` is fail. */
export function versionFailure(server: string, verdict: ReleaseVerdict | undefined): string | undefined {
  if (verdict?.mode !== 'fail' || verdict.check !== 'too-small') return undefined;
  const fixes = [
    ...(verdict.requiredVersion !== undefined ? [`set the version the server reports (serverInfo.version) to ${verdict.requiredVersion} or later and lock again`] : []),
    ...(verdict.requiredTag !== undefined ? [`tag the release ${verdict.requiredTag} or later`] : []),
  ];
  const fix = fixes.join(', and ');
  return `The version of ${server} does not say what its contract changes are. ${verdict.message} ${fix.charAt(0).toUpperCase()}${fix.slice(1)}; the approval label does not waive this ("version-check: warn" only reports it).`;
}
