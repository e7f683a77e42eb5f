import { shortSha } from './markdown.js';

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
  /** Absent when the event has no natural base and no baseline-ref was given. */
  baseline?: Baseline;
  headSha: string;
  /** Why there is no baseline, for the log. */
  noBaselineReason?: string;
}

const NULL_SHA = /^0{40}$/;

/**
 * Decide what the review compares: the PR's base commit, the `before` of a push, a merge
 * queue's base, or the `baseline-ref` input, which overrides them all (e.g. the last release
 * tag, for a deploy workflow).
 */
export function planEvent(context: RunContext, baselineRef?: string): EventPlan {
  const { eventName, payload } = context;
  const pr = pullRequestOf(payload);
  const plan: EventPlan = { eventName, headSha: pr?.headSha ?? context.sha };
  if (pr) plan.pr = pr;
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

function obj(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Events whose workflow runs with the base repository's secrets and a write token. */
export function isPrivilegedPullRequestEvent(eventName: string): boolean {
  return eventName === 'pull_request_target';
}
