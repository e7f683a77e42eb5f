/**
 * A review as it crosses from one job to another: the per-server review the Action computes
 * (what the comment, the job summary and the outputs say) and the review file that carries it
 * from a `pull_request` job to the `workflow_run` job that posts it (`mode: comment-only`), and
 * the vocabularies both are written in: the gate's thresholds and verdicts, how a check beside
 * the review counts, where the head's contracts came from, the version check's findings. The
 * policy decides with these words, the Action and the CLI parse their inputs into them, and
 * review-file.ts reads them back; each is defined here once. (Loaded by the CLI's `--help`
 * through policy/checks.ts: it imports types only.)
 */
import type { DiffReport, SEVERITIES, SemverBump, Severity } from './report.js';

/**
 * The threshold of the gate (`fail-on`): a severity, or `never` to only report. Spelled out
 * (the type holds it to SEVERITIES) rather than spread from them, which a bundler would keep
 * in a bundle that never reads it (the runtime's).
 */
export const FAIL_ON = ['BREAKING', 'RISKY', 'SAFE', 'COSMETIC', 'never'] as const satisfies readonly [...typeof SEVERITIES, 'never'];
export type FailOn = (typeof FAIL_ON)[number];

/** How a check beside the contract review counts (a stale lockfile, a too-small version): it fails the run, it is only reported, or it is not made. */
export const CHECK_MODES = ['fail', 'warn', 'off'] as const;
export type CheckMode = (typeof CHECK_MODES)[number];

/**
 * Where the review stands:
 * - `clean`: no delta at all; `below-threshold`: deltas, none at or above `fail-on`;
 * - `accepted`: the ones at or above were all accepted by the allow-list;
 * - `approved`: some were not, but the PR carries the approval label;
 * - `blocked`: the gate fails on them; `not-gated`: `fail-on: never`;
 * - `unknown`: the review could not be made (the head did not compile, the base was unreadable).
 */
export const REVIEW_VERDICTS = ['clean', 'below-threshold', 'accepted', 'approved', 'blocked', 'not-gated', 'unknown'] as const;
export type ReviewVerdict = (typeof REVIEW_VERDICTS)[number];

/** Where the head's contracts came from: the server (compiled live), its lockfile (compile: false), a dump file, or nowhere (the head's config dropped the server). */
export const HEAD_SOURCES = ['server', 'lockfile', 'file', 'removed'] as const;
export type HeadSource = (typeof HEAD_SOURCES)[number];

/** What the version check found: the version says at least what the changes call for, it is too small, it could not tell, or it was not asked. */
export const VERSION_CHECKS = ['ok', 'too-small', 'unknown', 'off'] as const;
export type VersionCheck = (typeof VERSION_CHECKS)[number];

export interface Approval {
  label: string;
  /** Who added the label, when known. */
  by?: string;
}

/** The gate's decision as plain data (a review file carries it): each blocking change by its entry. */
export interface ReviewGate {
  pass: boolean;
  verdict: ReviewVerdict;
  blocking: Array<{ entry: string; severity: Severity; kind: string; field: string; fingerprint: string }>;
  failures: string[];
}

/** A change the allow list accepted, with the entry's reason and date. */
export interface AcceptedChange {
  entry: string;
  severity: Severity;
  fingerprint: string;
  reason: string;
  expires?: string;
}

/**
 * What the approval label covers (issue 11): the changes present when it was added. Blocking
 * changes added by later pushes are not approved: they are listed by fingerprint and fail the
 * gate again.
 */
export interface ApprovalCoverage {
  label: string;
  by: string;
  approvedFingerprints: string[];
  newSinceApproval: string[];
}

/** What `version-check` found for one server (the shape of `ServerReview.release`). */
export interface ReleaseVerdict {
  bump: SemverBump;
  previousVersion?: string;
  currentVersion?: string;
  /** The smallest version the server should report, when its own is too small. */
  requiredVersion?: string;
  /** The release tags compared (the previous release's and this one's), when this release has one. */
  previousTag?: string;
  currentTag?: string;
  /** The smallest tag this release should carry, when its own is too small. */
  requiredTag?: string;
  check: VersionCheck;
  mode: CheckMode;
  message?: string;
}

/** What a review says of one server, as plain data: the part of a review every shell shows (policy/review.ts decides it). */
export interface DecidedReview {
  gate: ReviewGate;
  accepted: AcceptedChange[];
  /** The release verdict, when the version check was asked for and there is a report. */
  release?: ReleaseVerdict;
  /** The approval, when it is what lets the gate pass. */
  approval?: Approval;
  /** Why the label does not approve, when the gate is blocked. */
  approvalIgnored?: string;
  /** What the approval covers, when one approves a review that was made. */
  approvalCoverage?: ApprovalCoverage;
}

/**
 * Everything the comment, the job summary and the outputs say about one server, as plain data.
 * It is also what the review file carries from a `pull_request` job to a `workflow_run` job
 * (`mode: comment-only`), so it holds no functions and no absolute paths. What it decides (the
 * gate, the accepted changes, the release verdict, the approval) is policy/review.ts's
 * `decideReview`, the same for the CLI, this run and a review file's check.
 */
export interface ServerReview extends DecidedReview {
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
  headSource: HeadSource;
  /** Null when the review could not be made (the head did not compile, the base was unreadable). */
  report: DiffReport | null;
  /** Why, in plain words (a CompileError's diagnosis, never a stack trace). */
  reviewError?: string;
  /** The freshness failure: head lockfile vs live head, and the one command that fixes it. */
  stale?: { message: string; command: string };
  lockfileCheck: CheckMode;
  failOn: FailOn;
  /** The label that would approve (only on PR runs). */
  approveLabel?: string;
  /** Expired or unused allow-list entries. */
  allowNotes: string[];
  /** Shell commands that reproduce this review on a laptop. */
  reproduce: string[];
  /** Other things worth saying (base lockfile missing, capture healed, lint warnings…). */
  notes: string[];
  /** What reviewers must see first, whatever the changes (a server that wrote to the runner's command files). */
  alert?: string;
  /**
   * Where the comment's allow-list snippet goes (the config file from the repository root, and
   * whether the head has one) and the `expires` date it offers, within the horizon so that the
   * snippet passes as pasted (github/render/allow-snippet.ts renders it).
   */
  allowList?: { file: string; fileExists: boolean; expires: string };
  /** The workflow run, for the links of the comment: `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID`. */
  runUrl?: string;
}

export const REVIEW_FILE_VERSION = 1;

/**
 * The review file: the reviews of one run, the repository and pull request they are about and
 * the commit reviewed. The PR's job writes it, so the posting side believes none of it blindly
 * (see review-file.ts and github/comment-only.ts).
 */
export interface ReviewFile {
  version: typeof REVIEW_FILE_VERSION;
  repository: string;
  pullRequest: number | null;
  headSha: string;
  reviews: ServerReview[];
}
