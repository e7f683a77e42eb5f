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
import { covers, type ApprovalRecord } from '../policy/coverage.js';
import { decideGate, type Approval } from '../policy/gate.js';
import { releaseVerdict, versionFailure } from '../policy/semver.js';
import { reviewCoverage, reviewGate, type ServerReview } from './review.js';

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
  const review = file.reviewError === undefined ? file : { ...file, reviewError: asReportedByFile(file.reviewError) };
  const accepted = new Set(review.accepted.map((a) => a.fingerprint.trim().toLowerCase()));
  const record = vouch.approval ? vouch.approvalRecord : undefined;
  const release =
    review.release && review.report
      ? releaseVerdict({
          bump: review.report.summary.semverBump,
          ...(review.release.previousVersion !== undefined ? { previous: review.release.previousVersion } : {}),
          ...(review.release.currentVersion !== undefined ? { current: review.release.currentVersion } : {}),
          tags: { ...(review.release.previousTag !== undefined ? { previous: review.release.previousTag } : {}), ...(review.release.currentTag !== undefined ? { current: review.release.currentTag } : {}) },
          mode: review.release.mode,
          removed: review.headSource === 'removed',
        })
      : undefined;
  const failure = versionFailure(review.name, release);
  const decision = decideGate({
    server: review.name,
    report: review.report,
    failOn: review.failOn,
    accepted: (fingerprint) => accepted.has(fingerprint.trim().toLowerCase()),
    ...(vouch.approval ? { approval: vouch.approval } : {}),
    ...(record ? { covers: covers(record) } : {}),
    approveLabel: vouch.approveLabel,
    ...(review.stale ? { staleMessage: review.stale.message } : {}),
    lockfileCheck: review.lockfileCheck,
    ...(failure !== undefined ? { versionFailure: failure } : {}),
    ...(review.reviewError !== undefined ? { reviewError: review.reviewError } : {}),
  });
  const vouched: ServerReview = { ...review, approveLabel: vouch.approveLabel, gate: reviewGate(decision) };
  delete vouched.approval;
  delete vouched.approvalIgnored;
  delete vouched.approvalCoverage;
  delete vouched.release;
  if (release) vouched.release = release;
  if (record && review.report) vouched.approvalCoverage = reviewCoverage(record, decision);
  if (decision.verdict === 'approved' && vouch.approval) vouched.approval = vouch.approval;
  if (vouch.approvalIgnored !== undefined && decision.verdict === 'blocked') vouched.approvalIgnored = vouch.approvalIgnored;
  if (decision.pass && vouch.runConclusion !== 'success') {
    const how =
      vouch.runConclusion === undefined
        ? 'GitHub did not say how the run that wrote this review file ended (this run was not triggered by its workflow_run event)'
        : `The run that wrote this review file concluded "${vouch.runConclusion}", not "success"`;
    const reviewError = `${how}, so this comment does not show the review as passing. That run's log says what failed; the changes below are as the review file lists them.`;
    return { ...vouched, reviewError, gate: reviewGate(decideGate({ server: review.name, report: null, failOn: review.failOn, accepted: () => false, lockfileCheck: review.lockfileCheck, reviewError })) };
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
