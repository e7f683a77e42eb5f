/**
 * `mode: comment-only` posts a review computed by another run, from the review file that run
 * uploaded. Under pull_request, a fork runs its own copy of the workflow, so the file can say
 * anything: it is data to show (escaped), never a verdict to repeat. What it must not decide
 * is taken from GitHub instead: the approval from the live labels and the permission of who
 * added the label (with this run's own `approve-label`), what that approval covers from the
 * record in this Action's own comment, the gate and the version check recomputed from the
 * changes and versions the file lists, and shown as passing only when the run that wrote the
 * file succeeded.
 */
import type { ApprovalRecord } from '../policy/coverage.js';
import { decideReview, type ReviewFacts } from '../policy/review.js';
import type { Approval, ServerReview } from '../protocol/index.js';

export interface Vouch {
  /** The conclusion of the run that wrote the file, as GitHub's event says (undefined: not a workflow_run). */
  runConclusion?: string;
  /** This run's approval label (the file's is ignored). */
  approveLabel: string;
  /** The live approval, when the label is on the pull request and its adder may write. */
  approval?: Approval;
  /** Why the label on the pull request does not approve. */
  approvalIgnored?: string;
  /** What the approval covers: the record of this Action's own comment (the file's claim is ignored). */
  approvalRecord?: ApprovalRecord;
}

export function vouchReview(file: ServerReview, vouch: Vouch): ServerReview {
  // What the file may not decide is dropped, then decided again; its accepted changes stay as it lists them.
  const { approval: _approval, approvalIgnored: _ignored, approvalCoverage: _coverage, release: claimed, ...review } = file;
  if (review.reviewError !== undefined) review.reviewError = asReportedByFile(review.reviewError);
  const accepted = new Map(review.accepted.map((a) => [a.fingerprint.trim().toLowerCase(), a]));
  const facts: ReviewFacts = {
    server: review.name,
    report: review.report,
    failOn: review.failOn,
    acceptedBy: (fingerprint) => accepted.get(fingerprint.trim().toLowerCase()),
    approveLabel: vouch.approveLabel,
    ...(vouch.approval ? { approval: vouch.approval } : {}),
    ...(vouch.approvalRecord ? { approvalRecord: vouch.approvalRecord } : {}),
    ...(vouch.approvalIgnored !== undefined ? { approvalIgnored: vouch.approvalIgnored } : {}),
    ...(review.stale ? { staleMessage: review.stale.message } : {}),
    lockfileCheck: review.lockfileCheck,
    ...(review.reviewError !== undefined ? { reviewError: review.reviewError } : {}),
    ...(claimed
      ? {
          release: {
            ...(claimed.previousVersion !== undefined ? { previous: claimed.previousVersion } : {}),
            ...(claimed.currentVersion !== undefined ? { current: claimed.currentVersion } : {}),
            tags: { ...(claimed.previousTag !== undefined ? { previous: claimed.previousTag } : {}), ...(claimed.currentTag !== undefined ? { current: claimed.currentTag } : {}) },
            mode: claimed.mode,
            removed: review.headSource === 'removed',
          },
        }
      : {}),
  };
  const { review: decided } = decideReview(facts);
  const vouched: ServerReview = { ...review, approveLabel: vouch.approveLabel, ...decided, accepted: review.accepted };
  if (decided.gate.pass && vouch.runConclusion !== 'success') {
    const how =
      vouch.runConclusion === undefined
        ? 'GitHub did not say how the run that wrote this review file ended (this run was not triggered by its workflow_run event)'
        : `The run that wrote this review file concluded "${vouch.runConclusion}", not "success"`;
    const reviewError = `${how}, so this comment does not show the review as passing. That run's log says what failed; the changes below are as the review file lists them.`;
    return { ...vouched, reviewError, gate: decideReview({ ...facts, report: null, reviewError }).review.gate };
  }
  return vouched;
}

/**
 * The error a review file reports, under a sentence of ours: its text is the fork's, so it is
 * shown as the file wrote it (one code block, every line indented), never as paragraphs that
 * would read as this comment's own words.
 */
function asReportedByFile(error: string): string {
  return `The run that wrote the review file reported:\n${error
    .split(/\r\n|\r|\n/)
    .map((line) => `    ${line}`)
    .join('\n')}`;
}
