import { z } from 'zod';
import { UserError } from '../../errors.js';
import { CHECK_MODES, FAIL_ON, HEAD_SOURCES, REVIEW_FILE_VERSION, REVIEW_VERDICTS, SEMVER_BUMPS, SEVERITIES, VERSION_CHECKS, type ReviewFile, type ServerReview } from '../../protocol/index.js';
import { validateArtifact } from '../../report/index.js';

/**
 * The review bundle: what a `pull_request` job hands to a `workflow_run` job that posts the
 * comment (`mode: comment-only`) without running any code of the PR. It travels as a workflow
 * artifact written by the PR's job, so the posting side treats it as untrusted input: every
 * field is checked here, every string is escaped when rendered, the PR number is checked
 * against the triggering run before anything is posted, and the gate and the approval it
 * claims are not believed (vouch.ts takes them from GitHub).
 */
export { REVIEW_FILE_VERSION as BUNDLE_VERSION, type ReviewFile as ReviewBundle };
const BUNDLE_VERSION = REVIEW_FILE_VERSION;
type ReviewBundle = ReviewFile;

const text = (max: number) => z.string().max(max);
const severity = z.enum(SEVERITIES);
/** A commit, as GitHub names it: the comment shows its first seven digits raw. */
const sha = z.string().regex(/^[0-9a-f]{40}$/, 'a 40-digit commit SHA');

const reviewSchema = z
  .object({
    id: text(500),
    name: text(500),
    job: text(200),
    lockfile: text(1_000),
    baseline: text(500).optional(),
    baselineRef: text(300).optional(),
    headSha: sha,
    headSource: z.enum(HEAD_SOURCES),
    report: z.unknown(),
    reviewError: text(20_000).optional(),
    stale: z.object({ message: text(5_000), command: text(5_000) }).optional(),
    lockfileCheck: z.enum(CHECK_MODES),
    failOn: z.enum(FAIL_ON),
    gate: z.object({
      pass: z.boolean(),
      verdict: z.enum(REVIEW_VERDICTS),
      blocking: z.array(z.object({ entry: text(1_000), severity, kind: text(200), field: text(2_000), fingerprint: text(200) })).max(10_000),
      failures: z.array(text(20_000)).max(100),
    }),
    approval: z.object({ label: text(200), by: text(100).optional() }).optional(),
    approvalIgnored: text(2_000).optional(),
    approveLabel: text(200).optional(),
    accepted: z.array(z.object({ entry: text(1_000), severity, fingerprint: text(200), reason: text(2_000), expires: text(20).optional() })).max(10_000),
    allowNotes: z.array(text(3_000)).max(1_000),
    reproduce: z.array(text(3_000)).max(20),
    notes: z.array(text(3_000)).max(100),
    alert: text(3_000).optional(),
    approvalCoverage: z
      .object({ label: text(200), by: text(100), approvedFingerprints: z.array(text(200)).max(10_000), newSinceApproval: z.array(text(200)).max(10_000) })
      .strict()
      .optional(),
    release: z
      .object({
        bump: z.enum(SEMVER_BUMPS),
        previousVersion: text(300).optional(),
        currentVersion: text(300).optional(),
        requiredVersion: text(300).optional(),
        previousTag: text(300).optional(),
        currentTag: text(300).optional(),
        requiredTag: text(300).optional(),
        check: z.enum(VERSION_CHECKS),
        mode: z.enum(CHECK_MODES),
        message: text(2_000).optional(),
      })
      .strict()
      .optional(),
    allowList: z.object({ file: text(1_000), fileExists: z.boolean(), expires: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date like 2026-12-31') }).strict().optional(),
    runUrl: text(1_000).optional(),
  })
  .strict();

const bundleSchema = z
  .object({
    version: z.literal(BUNDLE_VERSION),
    repository: text(200),
    pullRequest: z.number().int().positive().nullable(),
    headSha: sha,
    reviews: z.array(reviewSchema).max(100),
  })
  .strict();

export function renderBundle(bundle: ReviewBundle): string {
  return `${JSON.stringify(bundle, null, 2)}\n`;
}

export function parseBundle(source: string, label: string): ReviewBundle {
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch (error) {
    throw new UserError(`${label} is not valid JSON (${(error as Error).message}): it should be the review file a "review" run of mcp-contract-guard wrote (its "review-path").`);
  }
  const parsed = bundleSchema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 10).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new UserError(`${label} is not a review file of this mcp-contract-guard version:\n  ${problems.join('\n  ')}`);
  }
  const reviews = parsed.data.reviews.map((review) => {
    const report = review.report === null ? null : validateArtifact(review.report);
    return { ...review, report } as ServerReview;
  });
  return { ...parsed.data, reviews } as ReviewBundle;
}
