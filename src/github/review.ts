import type { DiffReport } from '../protocol/index.js';
import type { CheckMode, FailOn } from '../policy/checks.js';
import type { DecidedReview } from '../policy/review.js';

/**
 * Everything the comment, the job summary and the outputs say about one server, as plain data.
 * It is also what the review bundle carries from a `pull_request` job to a `workflow_run` job
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
  /** "the server" (compiled live), "the lockfile" (compile: false), a dump file, or removed (the head's config dropped the server). */
  headSource: 'server' | 'lockfile' | 'file' | 'removed';
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

/** True when the comment has something to say beyond "no changes". */
export function hasSomethingToSay(review: ServerReview): boolean {
  return review.report === null || review.report.summary.maxSeverity !== null || review.stale !== undefined || review.reviewError !== undefined;
}
