import type { DiffReport, SemverBump, Severity } from '../protocol/index.js';
import type { ApprovalRecord } from '../policy/coverage.js';
import type { Approval, GateDecision, ReviewVerdict } from '../policy/gate.js';
import type { FailOn, LockfileCheck } from './inputs.js';

/**
 * Everything the comment, the job summary and the outputs say about one server, as plain data.
 * It is also what the review bundle carries from a `pull_request` job to a `workflow_run` job
 * (`mode: comment-only`), so it holds no functions and no absolute paths.
 */
export interface ServerReview {
  /** Stable identity in the sticky comment's marker: config name, `name` input, or lockfile path. */
  id: string;
  /** What people read: the config name, or the name the server gives itself (untrusted). */
  name: string;
  /** The workflow job (GITHUB_JOB) of the review: the other half of the marker. */
  job: string;
  /** The head lockfile, relative to the repository root. */
  lockfile: string;
  /** What the review compared against, for people; absent when there was no base. */
  baseline?: string;
  /** The full ref or sha of the base, for the reproduce commands. */
  baselineRef?: string;
  headSha: string;
  /** "the server" (compiled live), "the lockfile" (compile: false), a dump file, or removed (the head's config dropped the server). */
  headSource: 'server' | 'lockfile' | 'file' | 'removed';
  /** Null when the review could not be made (the head did not compile, the base was unreadable). */
  report: DiffReport | null;
  /** Why, in plain words (a CompileError's diagnosis, never a stack trace). */
  reviewError?: string;
  /** The freshness failure: head lockfile vs live head, and the one command that fixes it. */
  stale?: { message: string; command: string };
  lockfileCheck: LockfileCheck;
  failOn: FailOn;
  gate: { pass: boolean; verdict: ReviewVerdict; blocking: Array<{ entry: string; severity: Severity; kind: string; field: string; fingerprint: string }>; failures: string[] };
  approval?: Approval;
  /** Why the approval label on the pull request does not approve (who added it, and why that does not count). */
  approvalIgnored?: string;
  /** The label that would approve (only on PR runs). */
  approveLabel?: string;
  /** Deltas the allow-list accepted, with the entry that did. */
  accepted: Array<{ entry: string; severity: Severity; fingerprint: string; reason: string; expires?: string }>;
  /** Expired or unused allow-list entries. */
  allowNotes: string[];
  /** Shell commands that reproduce this review on a laptop. */
  reproduce: string[];
  /** Other things worth saying (base lockfile missing, capture healed, lint warnings…). */
  notes: string[];
  /** What reviewers must see first, whatever the changes (a server that wrote to the runner's command files). */
  alert?: string;
  /**
   * What the approval label covers (issue 11): the changes present when it was added. Blocking
   * changes added by later pushes are not approved: they are listed here by fingerprint and fail
   * the gate again. Absent when no label approves (see `approvalIgnored` for why one does not).
   */
  approvalCoverage?: { label: string; by: string; approvedFingerprints: string[]; newSinceApproval: string[] };
  /**
   * Where the comment's allow-list snippet goes (the config file from the repository root, and
   * whether the head has one) and the `expires` date it offers, within the horizon so that the
   * snippet passes as pasted (github/allow-snippet.ts renders it).
   */
  allowList?: { file: string; fileExists: boolean; expires: string };
  /**
   * The release verdict (issue 11): the semantic-version bump the changes call for, the
   * server's version on both sides (serverInfo.version) and the release tags (when the run is
   * about a tagged release), the smallest version or tag that would say so, and what the
   * `version-check` input made of it.
   */
  release?: {
    bump: SemverBump;
    previousVersion?: string;
    currentVersion?: string;
    /** The smallest version the head should carry, when its own is not enough. */
    requiredVersion?: string;
    /** The previous release's tag and this release's. */
    previousTag?: string;
    currentTag?: string;
    /** The smallest tag this release should carry, when its own is not enough. */
    requiredTag?: string;
    check: 'ok' | 'too-small' | 'unknown' | 'off';
    /** How the check counts: 'fail' fails the gate, 'warn' only reports. */
    mode: 'fail' | 'warn' | 'off';
    /** One sentence for people, e.g. "BREAKING changes need 2.0.0; the server still says 1.4.0." */
    message?: string;
  };
  /** The workflow run, for the links of the comment: `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID`. */
  runUrl?: string;
}

/** The gate's decision as the review carries it: plain data, each blocking change by its entry. */
export function reviewGate(decision: GateDecision): ServerReview['gate'] {
  return {
    pass: decision.pass,
    verdict: decision.verdict,
    blocking: decision.blocking.map((d) => ({ entry: `${d.collection}.${d.name}`, severity: d.delta.severity, kind: d.delta.kind, field: d.delta.field, fingerprint: d.delta.fingerprint })),
    failures: decision.failures,
  };
}

/** What an approval covers, as the review carries it: the recorded changes, and the blocking ones outside them. */
export function reviewCoverage(record: ApprovalRecord, decision: GateDecision): NonNullable<ServerReview['approvalCoverage']> {
  return { label: record.label, by: record.by, approvedFingerprints: record.fingerprints, newSinceApproval: decision.newSinceApproval.map((d) => d.delta.fingerprint) };
}

/** True when the comment has something to say beyond "no changes". */
export function hasSomethingToSay(review: ServerReview): boolean {
  return review.report === null || review.report.summary.maxSeverity !== null || review.stale !== undefined || review.reviewError !== undefined;
}
