/**
 * The review file (its types in review.ts): its one reader, with caps, and its writer. A pull
 * request's job writes it, running the PR's code, so the reader takes it as hostile: its size
 * and nesting are capped before parsing; every object must hold exactly the fields this version
 * writes (an unknown one, `__proto__` included, is refused, so the rest hold no name but ours);
 * every string and list is capped, commit SHAs, dates and vocabularies checked; each review's
 * report is read by the strict report reader, which keeps its names in null-prototype records.
 * Problems are collected, at most 20, into one `ReviewFileError` naming where and why. The
 * reader checks the form only: what the file claims (the gate, the approval) is decided again
 * by whoever posts it (github/vouch.ts).
 */
import { canonicalJson, isJsonObject } from './json.js';
import { Reader, formChecks, type Check } from './form.js';
import { ReportFormatError, describe, kindOf, parseWithin, readReport } from './read.js';
import { SEMVER_BUMPS, SEVERITIES, type DiffReport } from './report.js';
import { CHECK_MODES, FAIL_ON, HEAD_SOURCES, REVIEW_FILE_VERSION, REVIEW_VERDICTS, VERSION_CHECKS, type ReviewFile } from './review.js';
import { isDay } from './usage.js';

/** Plain numbers, which a bundler can leave out of a bundle that reads no review file (the runtime's); the tests hold them to what they stand for. */
export const REVIEW_FILE_CAPS = {
  /** The longest text read, 64 MiB: the Action reads no larger file (github/io/paths.ts). */
  length: 67_108_864,
  /** The deepest nesting: a report's own limit (`DEFAULT_READ_LIMITS.maxDepth`, 64), inside the file, its list of reviews and a review. */
  depth: 67,
  reviews: 100,
} as const;

/** The text is not a review file of this version; `problems` says where and why. */
export class ReviewFileError extends Error {
  override readonly name = 'ReviewFileError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/** The file as written: canonical JSON (sorted keys, 2-space indent, newline). */
export function renderReviewFile(file: ReviewFile): string {
  return canonicalJson(file, true);
}

/**
 * Parse review file text within the caps, then read it (see the module comment). `isKnownKind`
 * (the rules know their ids; this format does not) is handed to the report reader.
 */
export function readReviewFileText(text: string, isKnownKind?: (kind: string) => boolean): ReviewFile {
  const limits = { maxLength: REVIEW_FILE_CAPS.length, maxDepth: REVIEW_FILE_CAPS.depth };
  return readReviewFile(parseWithin(text, limits, (problem) => new ReviewFileError([`it ${problem}`])), isKnownKind);
}

/** Read parsed data as a review file. Throws `ReviewFileError`. */
export function readReviewFile(data: unknown, isKnownKind?: (kind: string) => boolean): ReviewFile {
  if (!isJsonObject(data)) throw new ReviewFileError([`it must be a JSON object (a review file), got ${kindOf(data)}`]);
  if (data.version !== REVIEW_FILE_VERSION) {
    throw new ReviewFileError([`it has version ${describe(data.version)}; this mcp-contract-guard reads version ${REVIEW_FILE_VERSION} (write and read it with the same version)`]);
  }
  const reader = new ReviewReader(isKnownKind);
  reviewFileForm()(data, '', reader);
  if (reader.problems.length > 0) throw new ReviewFileError(reader.problems);
  const file = data as unknown as ReviewFile;
  return { ...file, reviews: file.reviews.map((review) => ({ ...review, report: review.report === null ? null : (reader.reports.get(review.report) as DiffReport) })) };
}

/** Collects the problems, and each review's report as the report reader read it. */
class ReviewReader extends Reader {
  /** Each review's report as the report reader read it, by the parsed object it was read from. */
  readonly reports = new Map<object, DiffReport>();

  constructor(readonly isKnownKind: ((kind: string) => boolean) | undefined) {
    super();
  }
}

const day: Check = (value, at, reader) => {
  if (!isDay(value)) reader.problem(at, `must be a day like 2026-12-31, got ${describe(value)}`);
};

const pullRequest: Check = (value, at, reader) => {
  if (value !== null && !(Number.isSafeInteger(value) && (value as number) > 0)) reader.problem(at, `must be a pull request's number or null, got ${describe(value)}`);
};

/** Null (no review could be made) or a report exactly as this version writes it. */
const report: Check<ReviewReader> = (value, at, reader) => {
  if (value === null) return;
  try {
    reader.reports.set(value as object, readReport(value, 'strict', reader.isKnownKind));
  } catch (error) {
    if (!(error instanceof ReportFormatError)) throw error;
    for (const problem of error.problems) reader.problem(`${at}:`, problem);
  }
};

/**
 * The form of a review file, as checks. Built when a file is read rather than when the module
 * loads: a bundle that reads none (the runtime's) then leaves all of it out.
 */
function reviewFileForm(): Check<ReviewReader> {
  const { list, matching, object, oneOf, optional, text } = formChecks();
  const boolean = oneOf([true, false]);
  const severity = oneOf(SEVERITIES);
  /** A commit, as GitHub names it: the comment shows its first seven digits raw. */
  const sha = matching(/^[0-9a-f]{40}$/, 'a commit SHA (40 hex digits)');
  const review = object('a review', {
    id: text(500),
    name: text(500),
    job: text(200),
    lockfile: text(1_000),
    baseline: optional(text(500)),
    baselineRef: optional(text(300)),
    headSha: sha,
    headSource: oneOf(HEAD_SOURCES),
    report,
    reviewError: optional(text(20_000)),
    stale: optional(object('{ message, command }', { message: text(5_000), command: text(5_000) })),
    lockfileCheck: oneOf(CHECK_MODES),
    failOn: oneOf(FAIL_ON),
    gate: object('a gate', {
      pass: boolean,
      verdict: oneOf(REVIEW_VERDICTS),
      blocking: list(object('a blocking change', { entry: text(1_000), severity, kind: text(200), field: text(2_000), fingerprint: text(200) }), 10_000),
      failures: list(text(20_000), 100),
    }),
    approval: optional(object('an approval', { label: text(200), by: optional(text(100)) })),
    approvalIgnored: optional(text(2_000)),
    approveLabel: optional(text(200)),
    accepted: list(object('an accepted change', { entry: text(1_000), severity, fingerprint: text(200), reason: text(2_000), expires: optional(text(20)) }), 10_000),
    allowNotes: list(text(3_000), 1_000),
    reproduce: list(text(3_000), 20),
    notes: list(text(3_000), 100),
    alert: optional(text(3_000)),
    approvalCoverage: optional(
      object('an approval coverage', { label: text(200), by: text(100), approvedFingerprints: list(text(200), 10_000), newSinceApproval: list(text(200), 10_000) }),
    ),
    release: optional(
      object('a release verdict', {
        bump: oneOf(SEMVER_BUMPS),
        previousVersion: optional(text(300)),
        currentVersion: optional(text(300)),
        requiredVersion: optional(text(300)),
        previousTag: optional(text(300)),
        currentTag: optional(text(300)),
        requiredTag: optional(text(300)),
        check: oneOf(VERSION_CHECKS),
        mode: oneOf(CHECK_MODES),
        message: optional(text(2_000)),
      }),
    ),
    allowList: optional(
      object('an allow-list target', {
        file: text(1_000),
        fileExists: boolean,
        expires: day,
      }),
    ),
    runUrl: optional(text(1_000)),
  });
  return object('a review file', {
    version: oneOf([REVIEW_FILE_VERSION]),
    repository: text(200),
    pullRequest,
    headSha: sha,
    reviews: list(review, REVIEW_FILE_CAPS.reviews),
  });
}
