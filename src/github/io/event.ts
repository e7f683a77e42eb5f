import { shortSha } from '../text.js';

/** The subset of the workflow run the Action looks at (from `@actions/github`'s context). */
export interface RunContext {
  eventName: string;
  payload: Record<string, unknown>;
  /** GITHUB_SHA: for pull_request, the test merge commit; for push, the pushed commit. */
  sha: string;
  job: string;
  repo: { owner: string; repo: string };
}

export interface PullRequestInfo {
  number: number;
  baseSha: string;
  baseRef: string;
  headSha: string;
  /** The head lives in another repository: the token is read-only there. */
  fork: boolean;
  /** Labels as the event payload saw them (a re-run keeps the old payload: prefer the API). */
  labels: string[];
  /** Set when this very event added a label: who added which. */
  labeled?: { label: string; by: string };
}

/** What the review compares against. */
export interface Baseline {
  /** Anything `git show REF:path` and the contents API accept. */
  ref: string;
  /** For people: "the base of PR #12 (main @ abc1234)". */
  describe: string;
}

export interface EventPlan {
  eventName: string;
  pr?: PullRequestInfo;
  /** A comment on this pull request triggered the run: its details come from the API. */
  lookUpPullRequest?: number;
  /** Absent when the event has no natural base and no baseline-ref was given. */
  baseline?: Baseline;
  headSha: string;
  /** The release this run is about, when the event names one: a pushed tag, a published release's tag. */
  releaseTag?: string;
  /** Why there is no baseline, for the log. */
  noBaselineReason?: string;
  /**
   * The UTC day the event says the head was made or released: a push's head commit, a
   * release's publication, a pull request's last update. Absent when the event says none (the
   * run's own day is used then). Goes into the delta artifact, whose deprecation window counts from it.
   */
  releasedAt?: string;
}

const NULL_SHA = /^0{40}$/;

/**
 * Decide what the review compares: the PR's base commit, the `before` of a push, a merge
 * queue's base, or the `baseline-ref` input, which overrides them all (e.g. the last release
 * tag, for a deploy workflow).
 */
export function planEvent(context: RunContext, baselineRef?: string): EventPlan {
  const { eventName, payload } = context;
  const pr = pullRequestOf(payload) ?? pullRequestOfRun(eventName, payload);
  const plan: EventPlan = { eventName, headSha: pr?.headSha ?? headShaOf(eventName, payload) ?? context.sha };
  if (pr) plan.pr = pr;
  const releasedAt = releasedAtOf(eventName, payload);
  if (releasedAt !== undefined) plan.releasedAt = releasedAt;
  const releaseTag = releaseTagOfEvent(eventName, payload);
  if (releaseTag !== undefined) plan.releaseTag = releaseTag;
  const issue = obj(payload.issue);
  if (!pr && eventName === 'issue_comment' && issue?.pull_request !== undefined && typeof issue.number === 'number') plan.lookUpPullRequest = issue.number;
  if (baselineRef !== undefined) {
    plan.baseline = { ref: baselineRef, describe: `baseline-ref ${baselineRef}` };
    return plan;
  }
  if (pr) {
    plan.baseline = { ref: pr.baseSha, describe: `the base of PR #${pr.number} (${pr.baseRef} @ ${shortSha(pr.baseSha)})` };
    return plan;
  }
  if (eventName === 'push') {
    const before = str(payload.before);
    if (before && !NULL_SHA.test(before)) plan.baseline = { ref: before, describe: `the commit before this push (${shortSha(before)})` };
    else if (plan.releaseTag !== undefined) plan.noBaselineReason = `this push created the tag ${plan.releaseTag}, so it has no "before" commit; set "baseline-ref" to the previous release tag to compare with it`;
    else plan.noBaselineReason = 'this push created the branch, so it has no "before" commit';
    return plan;
  }
  if (eventName === 'merge_group') {
    const group = obj(payload.merge_group);
    const base = str(group?.base_sha);
    if (base) {
      plan.baseline = { ref: base, describe: `the merge queue's base (${shortSha(base)})` };
      return plan;
    }
  }
  plan.noBaselineReason = `a ${eventName} event has no base commit; set "baseline-ref" (e.g. your last release tag) to compare with one`;
  return plan;
}

function pullRequestOf(payload: Record<string, unknown>): PullRequestInfo | undefined {
  const pr = obj(payload.pull_request);
  if (!pr || typeof pr.number !== 'number') return undefined;
  const base = obj(pr.base);
  const head = obj(pr.head);
  const baseSha = str(base?.sha);
  const headSha = str(head?.sha);
  if (!baseSha || !headSha) return undefined;
  const baseRepo = str(obj(base?.repo)?.full_name);
  const headRepo = str(obj(head?.repo)?.full_name);
  const labels = Array.isArray(pr.labels) ? pr.labels.map((l) => str(obj(l)?.name)).filter((n): n is string => n !== undefined) : [];
  const info: PullRequestInfo = {
    number: pr.number,
    baseSha,
    baseRef: str(base?.ref) ?? 'base',
    headSha,
    // A deleted fork has no head repo: treat it as a fork (the token cannot write there either).
    fork: headRepo === undefined || (baseRepo !== undefined && headRepo !== baseRepo),
    labels,
  };
  const label = str(obj(payload.label)?.name);
  const sender = str(obj(payload.sender)?.login);
  if (payload.action === 'labeled' && label && sender) info.labeled = { label, by: sender };
  return info;
}

/**
 * The pull request of a workflow_run or check run, from its `pull_requests` (GitHub lists
 * only pull requests from branches of this repository there: a fork's run has none).
 */
function pullRequestOfRun(eventName: string, payload: Record<string, unknown>): PullRequestInfo | undefined {
  const run = obj(payload[eventName]);
  const first = obj(Array.isArray(run?.pull_requests) ? run.pull_requests[0] : undefined);
  if (!first || typeof first.number !== 'number') return undefined;
  const base = obj(first.base);
  const head = obj(first.head);
  const baseSha = str(base?.sha);
  const headSha = str(run?.head_sha) ?? str(head?.sha);
  if (!baseSha || !headSha) return undefined;
  const baseRepo = obj(base?.repo)?.id;
  const headRepo = obj(head?.repo)?.id;
  return { number: first.number, baseSha, baseRef: str(base?.ref) ?? 'base', headSha, fork: headRepo === undefined || headRepo !== baseRepo, labels: [] };
}

/** The tag a push of a tag (refs/tags/…) or a release event names. */
function releaseTagOfEvent(eventName: string, payload: Record<string, unknown>): string | undefined {
  if (eventName === 'release') return str(obj(payload.release)?.tag_name);
  const ref = eventName === 'push' ? str(payload.ref) : undefined;
  return ref?.startsWith('refs/tags/') ? ref.slice('refs/tags/'.length) || undefined : undefined;
}

/** The commit an event without a pull request is about (GITHUB_SHA is the default branch's for most of these). */
function headShaOf(eventName: string, payload: Record<string, unknown>): string | undefined {
  switch (eventName) {
    case 'workflow_run':
    case 'check_suite':
    case 'check_run':
      return str(obj(payload[eventName])?.head_sha);
    case 'deployment_status':
      return str(obj(payload.deployment)?.sha);
    case 'status':
      return str(payload.sha);
    default:
      return undefined;
  }
}

/** The day the event dates its head: when the pushed commit was made, the release published, the pull request last updated. */
function releasedAtOf(eventName: string, payload: Record<string, unknown>): string | undefined {
  const stamp =
    eventName === 'push'
      ? str(obj(payload.head_commit)?.timestamp)
      : eventName === 'release'
        ? (str(obj(payload.release)?.published_at) ?? str(obj(payload.release)?.created_at))
        : str(obj(payload.pull_request)?.updated_at) ?? str(obj(obj(payload[eventName])?.head_commit)?.timestamp);
  const time = stamp === undefined ? Number.NaN : Date.parse(stamp);
  return Number.isFinite(time) ? new Date(time).toISOString().slice(0, 10) : undefined;
}

function obj(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
