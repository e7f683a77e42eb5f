/**
 * The release tags the version check compares beside the server's version (policy/semver.ts):
 * this run's release, the tag its event names (a pushed tag, a published release) or else a
 * tag at the head commit; and the previous release, a tag at the baseline commit (a
 * baseline-ref that is itself a release tag, such as the last release in a release workflow,
 * counts even when a shallow checkout lacks it). A commit's release tag is its highest tag that
 * is a semantic version: a moving major tag (v1) or a name (nightly) beside it is not one. The
 * tag an event names is the release whatever it says: one that is not a version is reported.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseSemver, releaseTagOf } from '../../policy/semver.js';
import type { EventPlan } from './event.js';

const run = promisify(execFile);

export interface ReleaseTags {
  previous?: string;
  current?: string;
}

export async function releaseTagsOf(plan: EventPlan, repoRoot: string): Promise<ReleaseTags> {
  const current = plan.releaseTag ?? releaseTagOf(await tagsAt(plan.headSha, repoRoot)).tag;
  if (current === undefined) return {};
  const baseline = plan.baseline?.ref;
  const previous = baseline === undefined ? undefined : (releaseTagOf(await tagsAt(baseline, repoRoot)).tag ?? (parseSemver(baseline) ? baseline : undefined));
  return { current, ...(previous !== undefined ? { previous } : {}) };
}

/** The tags that point at `ref` in the checkout; none when git does not know the commit (a shallow clone). */
async function tagsAt(ref: string, repoRoot: string): Promise<string[]> {
  try {
    const { stdout } = await run('git', ['tag', `--points-at=${ref}`], { cwd: repoRoot, maxBuffer: 1024 * 1024, encoding: 'utf8' });
    return stdout.split('\n').filter((tag) => tag !== '');
  } catch {
    return [];
  }
}
