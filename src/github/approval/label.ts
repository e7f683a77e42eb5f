/**
 * The approval label, read from GitHub: whether it is on the pull request, whether it counts
 * (who added it, with which permission), and what it covers (the record in this Action's own
 * sticky comment). The rules are policy/approval.ts and policy/coverage.ts; this is the I/O.
 */
import { commentMarker, log, type GitHubApi, type PullRequestInfo } from '../io/index.js';
import { readApprovalRecord } from './record.js';
import { plural } from '../text.js';
import type { Approval, ServerReview } from '../../protocol/index.js';
import { errorMessage } from '../../errors.js';
import { judgeApproval } from '../../policy/approval.js';
import { approvalCoverage, type ApprovalRecord, type Coverage } from '../../policy/coverage.js';

/** The approval label on the pull request: the approval when it counts, when it was added, or why it does not count. */
export interface LabelState {
  approval?: Approval;
  /** When the label was added, as GitHub's issue events say; '' when they did not. */
  labeledAt?: string;
  ignored?: string;
}

/**
 * Whether the pull request carries the approval label and that label counts: who added it
 * (this very event, else the issue's events) must have write, maintain or admin permission.
 * Labels are read live: a re-run keeps the old payload.
 */
export async function approvalOf(pr: Pick<PullRequestInfo, 'number' | 'labels' | 'labeled'>, label: string, api: GitHubApi | undefined): Promise<LabelState> {
  let labels = pr.labels;
  if (api) {
    try {
      labels = await api.labels(pr.number);
    } catch (error) {
      log.info(`Could not read the labels of PR #${pr.number} (${errorMessage(error)}); using those of the event.`);
    }
  }
  if (!labels.includes(label)) return {};
  const event = await api?.labeled(pr.number, label).catch(() => undefined);
  const by = pr.labeled?.label === label ? pr.labeled.by : event?.by;
  const permission = by === undefined ? undefined : api ? await api.permission(by).catch((error: unknown) => ({ error: errorMessage(error) })) : { error: 'there is no github-token to ask GitHub' };
  const judgement = judgeApproval({ label, ...(by !== undefined ? { by } : {}), ...(permission ? { permission } : {}) });
  if (!('approval' in judgement)) return { ignored: judgement.ignored };
  return { approval: judgement.approval, labeledAt: event !== undefined && by !== undefined && event.by.toLowerCase() === by.toLowerCase() ? (event.at ?? '') : '' };
}

/**
 * The record of what the approval covers, per server, from this Action's own sticky comment:
 * read before any code of the pull request runs (it could hold the token that may edit the
 * comment). Undefined where no label approves, there is no record, or it could not be read.
 */
export async function approvalRecordsOf(servers: Array<{ id: string; job: string }>, label: LabelState, issue: number, api: GitHubApi | undefined): Promise<Array<ApprovalRecord | undefined>> {
  const { approval } = label;
  if (!approval?.by || !api) return servers.map(() => undefined);
  const records: Array<ApprovalRecord | undefined> = [];
  for (const { id, job } of servers) {
    try {
      const sticky = await api.findStickyComment(issue, commentMarker(id, job));
      records.push(sticky?.body ? readApprovalRecord(sticky.body) : undefined);
    } catch (error) {
      log.info(`Could not read the comment that records what the label "${approval.label}" approves (${errorMessage(error)}).`);
      records.push(undefined);
    }
  }
  return records;
}

/**
 * What the approval covers, per server: the record read from this Action's own sticky comment
 * (`records`, in the order of `servers`), or a new one when the approver caused this run
 * (policy/coverage.ts). Undefined where no label approves.
 */
export function coveragesOf(
  servers: Array<{ id: string; present: string[] | null }>,
  label: LabelState,
  triggeredBy: string | undefined,
  records: ReadonlyArray<ApprovalRecord | undefined>,
): Array<Coverage | undefined> {
  const { approval } = label;
  if (!approval?.by) return servers.map(() => undefined);
  return servers.map(({ id, present }, i) => {
    const record = records[i];
    const coverage = approvalCoverage({
      approval: { ...approval, by: approval.by! },
      labeledAt: label.labeledAt ?? '',
      ...(triggeredBy !== undefined ? { triggeredBy } : {}),
      ...(record ? { record } : {}),
      present,
    });
    if ('record' in coverage && coverage.recordedNow) log.info(`${id}: the label "${approval.label}" added by @${approval.by} approves ${plural(coverage.record.fingerprints.length, 'change')} as of this run; recorded in the comment.`);
    return coverage;
  });
}

/** The records to keep in each server's comment: what its approval covers, found or made by this run. */
export function recordsOf(reviews: ServerReview[], coverages: Array<Coverage | undefined>): Map<string, ApprovalRecord> {
  const records = new Map<string, ApprovalRecord>();
  reviews.forEach((review, i) => {
    const coverage = coverages[i];
    if (coverage && 'record' in coverage) records.set(review.id, coverage.record);
  });
  return records;
}

/** Who caused the event that started this run (a pull_request event's `sender`; a re-run keeps it). */
export function senderOf(payload: Record<string, unknown>): string | undefined {
  const login = (payload.sender as { login?: unknown } | undefined)?.login;
  return typeof login === 'string' && login !== '' ? login : undefined;
}
