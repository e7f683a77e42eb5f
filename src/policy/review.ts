/**
 * One server's review, decided: the gate at fail-on over the changes the allow list does not
 * accept, the approval label and what its record covers, a stale lockfile and the version
 * check beside it. The CLI (`check`, `diff`), the Action's review and the check of a review
 * file another job wrote (`mode: comment-only`) all decide here, from the facts each has, so
 * that none of them can say something else of the same changes.
 */
import type { Approval, CheckMode, DecidedReview, DiffReport, FailOn } from '../protocol/index.js';
import { covers, type ApprovalRecord } from './coverage.js';
import { decideGate, type GateDecision } from './gate.js';
import { releaseVerdict, versionFailure } from './semver.js';

/** What an allow-list entry says of the change it accepts. */
export interface Acceptance {
  reason: string;
  expires?: string;
}

export interface ReviewFacts {
  /** The server as messages name it. */
  server: string;
  /** Null when the review could not be made; `reviewError` then says why. */
  report: DiffReport | null;
  reviewError?: string;
  failOn: FailOn;
  /** The allow-list entry that accepts a change, by its fingerprint. */
  acceptedBy: (fingerprint: string) => Acceptance | undefined;
  /** How a lockfile that no longer matches its server counts, and the gate's sentence for it when it does not match. */
  lockfileCheck: CheckMode;
  staleMessage?: string;
  /** The config file whose allow list accepts changes, as messages name it. */
  allowFile?: string;
  /** The label that would approve, when the review is about a pull request. */
  approveLabel?: string;
  /** The approval label on the pull request, when it counts, and the record of the changes it covers (without one: every change). */
  approval?: Approval;
  approvalRecord?: ApprovalRecord;
  /** Why the label on the pull request does not approve. */
  approvalIgnored?: string;
  /** The version check: the versions and release tags compared, and how it counts. Absent: not made. */
  release?: { previous?: string; current?: string; tags?: { previous?: string; current?: string }; mode: CheckMode; removed?: boolean };
}

export interface ReviewDecision {
  review: DecidedReview;
  /** The gate's decision with each change located (collection, name, delta), for those who list them. */
  gate: GateDecision;
}

export function decideReview(facts: ReviewFacts): ReviewDecision {
  const { server, report, approval } = facts;
  const record = approval ? facts.approvalRecord : undefined;
  const release = report && facts.release ? releaseVerdict({ bump: report.summary.semverBump, ...facts.release }) : undefined;
  const failure = versionFailure(server, release);
  const gate = decideGate({
    server,
    report,
    failOn: facts.failOn,
    accepted: (fingerprint) => facts.acceptedBy(fingerprint) !== undefined,
    ...(approval ? { approval } : {}),
    ...(record ? { covers: covers(record) } : {}),
    ...(facts.approveLabel !== undefined ? { approveLabel: facts.approveLabel } : {}),
    ...(facts.allowFile !== undefined ? { allowFile: facts.allowFile } : {}),
    ...(facts.staleMessage !== undefined ? { staleMessage: facts.staleMessage } : {}),
    lockfileCheck: facts.lockfileCheck,
    ...(failure !== undefined ? { versionFailure: failure } : {}),
    ...(facts.reviewError !== undefined ? { reviewError: facts.reviewError } : {}),
  });
  const review: DecidedReview = {
    gate: {
      pass: gate.pass,
      verdict: gate.verdict,
      blocking: gate.blocking.map((d) => ({ entry: `${d.collection}.${d.name}`, severity: d.delta.severity, kind: d.delta.kind, field: d.delta.field, fingerprint: d.delta.fingerprint })),
      failures: gate.failures,
    },
    accepted: gate.accepted.map((d) => {
      const { reason, expires } = facts.acceptedBy(d.delta.fingerprint)!;
      return { entry: `${d.collection}.${d.name}`, severity: d.delta.severity, fingerprint: d.delta.fingerprint, reason, ...(expires ? { expires } : {}) };
    }),
  };
  if (release) review.release = release;
  if (approval && gate.verdict === 'approved') review.approval = approval;
  if (facts.approvalIgnored !== undefined && gate.verdict === 'blocked') review.approvalIgnored = facts.approvalIgnored;
  if (record && report) {
    review.approvalCoverage = { label: record.label, by: record.by, approvedFingerprints: record.fingerprints, newSinceApproval: gate.newSinceApproval.map((d) => d.delta.fingerprint) };
  }
  return { review, gate };
}
