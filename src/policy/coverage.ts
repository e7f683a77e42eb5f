/**
 * What an approval covers. The label approves the changes present when it was added, not
 * whatever later pushes bring. The first review of an event the approver caused after adding
 * the label (adding it is such an event: run the workflow on `labeled`) records the changes it
 * sees; every later review, the approver's own pushes included, is held to that record, and
 * changes outside it are new since the approval: they block the gate again until the label is
 * added anew (a new label event, so a new record).
 *
 * A record names the label event it belongs to (the label, who added it, and when, as GitHub's
 * issue events say), so neither another label the approver adds later nor an old record after
 * the label was removed and added again can stand in for it. The record is kept where only
 * this Action writes (the sticky comment, see github/approval/record.ts); this module only
 * decides, from the record found there.
 */
import { meetsThreshold, type Approval, type DiffReport, type FailOn } from '../protocol/index.js';
import { deltasOf } from './deltas.js';

/** The changes an approval covers: its label event, and the fingerprints present then. */
export interface ApprovalRecord {
  label: string;
  by: string;
  /** When the label was added (GitHub's timestamp); '' when GitHub did not say. */
  at: string;
  fingerprints: string[];
}

/** Most fingerprints a record keeps; beyond it, changes are not covered (the gate fails closed). */
export const MAX_RECORDED = 1_000;

export interface CoverageFacts {
  /** The approval that counts (the label is on the PR and whoever added it may write). */
  approval: Approval & { by: string };
  /** When that label was added; '' when unknown. */
  labeledAt: string;
  /** The account whose action started this run (the event's sender). */
  triggeredBy?: string;
  /** The record found in this Action's own comment, if any. */
  record?: ApprovalRecord;
  /** The fingerprints of this review that need approval (`needingApproval`); null when the review could not be made. */
  present: string[] | null;
}

export type Coverage =
  /** `record.fingerprints` are the changes it covers; `recordedNow`: this run made the record. */
  | { record: ApprovalRecord; recordedNow: boolean }
  | { ignored: string };

const sameLogin = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const key = (fingerprint: string) => fingerprint.trim().toLowerCase();

export function approvalCoverage(facts: CoverageFacts): Coverage {
  const { approval, labeledAt, triggeredBy, record, present } = facts;
  if (record && record.label === approval.label && sameLogin(record.by, approval.by) && record.at === labeledAt) return { record, recordedNow: false };
  // A review that could not be made has nothing to record.
  if (present !== null && triggeredBy !== undefined && sameLogin(triggeredBy, approval.by)) {
    const fingerprints = [...new Set(present.map(key))].sort().slice(0, MAX_RECORDED);
    return { record: { label: approval.label, by: approval.by, at: labeledAt, fingerprints }, recordedNow: true };
  }
  const who = triggeredBy === undefined ? '' : `; this run was started by @${triggeredBy}`;
  return {
    ignored:
      `The label "${approval.label}" approves the changes present when @${approval.by} added it, but no review recorded them then${who}. ` +
      'Remove the label and add it again to approve the changes as they are now (the workflow must run on the "labeled" event, with a token that may comment: the record is kept in the comment).',
  };
}

/** Whether a record covers a change. */
export function covers(record: ApprovalRecord): (fingerprint: string) => boolean {
  const covered = new Set(record.fingerprints.map(key));
  return (fingerprint) => covered.has(key(fingerprint));
}

/** The changes an approval is about: every one at or above the gate's threshold (allow-listed ones too: an entry may expire). */
export function needingApproval(report: DiffReport, failOn: FailOn): string[] {
  if (failOn === 'never') return [];
  return deltasOf(report)
    .filter((d) => meetsThreshold(d.delta.severity, failOn))
    .map((d) => d.delta.fingerprint);
}
