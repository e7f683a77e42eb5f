/**
 * Posting the sticky comments: one per server and job, created once, updated in place, and
 * replaced by why a commit could not be reviewed when a run fails before its review. Never
 * fails the step: what could not be posted becomes a warning, and the report stays in the
 * job summary.
 */
import {
  commentMarker,
  DEFAULT_RETRY,
  isPermissionError,
  isTransient,
  log,
  planComment,
  planEvent,
  redactor,
  retryPolicy,
  type ActionInputs,
  type GitHubApi,
  type RunContext,
} from './io/index.js';
import { renderApprovalRecord, withApprovalRecord } from './approval/index.js';
import type { ApprovalRecord } from '../policy/coverage.js';
import { COMMENT_LIMIT, renderComment, renderFailedReview, renderQuietComment } from './render/index.js';
import type { ServerReview } from '../protocol/index.js';
import { errorMessage } from '../errors.js';

const FORK_HELP =
  'To comment on pull requests from forks, split the job in two: this workflow (on pull_request) uploads the review file ' +
  '("review-path" output) as an artifact, and a second workflow on workflow_run downloads it and runs this Action with ' +
  '"mode: comment-only", which posts the comment without running any code of the pull request ' +
  '(examples/workflows/fork-review.yml and fork-comment.yml). The report is in this job\'s summary.';

/** True when the comment has something to say beyond "no changes". */
function hasSomethingToSay(review: ServerReview): boolean {
  return review.report === null || review.report.summary.maxSeverity !== null || review.stale !== undefined || review.reviewError !== undefined;
}

/**
 * Create or update each server's sticky comment. Never fails the step: a token that may not
 * comment (a fork's, a read-only one) gets one warning explaining the two-workflow pattern,
 * and anything else a warning of its own. Returns those warnings.
 */
export async function postComments(
  api: GitHubApi,
  issue: number,
  reviews: ServerReview[],
  inputs: Pick<ActionInputs, 'comment' | 'mode'>,
  records: Map<string, ApprovalRecord>,
): Promise<string[]> {
  const warnings: string[] = [];
  for (const review of reviews) {
    const marker = commentMarker(review.id, review.job);
    try {
      const existing = await api.findStickyComment(issue, marker);
      // What the approval covers rides along as the comment's second line (approval/record.ts).
      const record = records.get(review.id);
      const room = COMMENT_LIMIT - (record ? renderApprovalRecord(record).length + 1 : 0);
      const body = withApprovalRecord(redactor.redact(renderComment(review, room)), record);
      const quietBody = withApprovalRecord(redactor.redact(renderQuietComment(review)), record);
      const plan = planComment({ mode: inputs.comment, existing, changed: hasSomethingToSay(review), body, quietBody });
      if (plan.action === 'none') {
        log.info(`Comment for ${review.name}: nothing to do (${plan.reason}).`);
        continue;
      }
      const posted = plan.action === 'update' ? await api.updateComment(plan.id, plan.body) : await createOnce(api, issue, marker, plan.body);
      log.info(`Comment for ${review.name}: ${plan.action === 'update' ? 'updated' : 'created'} ${posted.html_url ?? `#${posted.id}`}.`);
    } catch (error) {
      if (isPermissionError(error)) {
        const why = `Could not comment on PR #${issue}: GitHub answered ${String((error as { status?: number }).status)} (${errorMessage(error).split('\n')[0]}).`;
        warnings.push(
          inputs.mode === 'comment-only'
            ? `${why} Give this workflow "permissions: pull-requests: write" (a workflow_run workflow runs with the base repository's token, which may comment).`
            : `${why} The token is read-only here, as it always is for pull requests from forks, or the workflow lacks "permissions: pull-requests: write". ${FORK_HELP}`,
        );
        break;
      }
      warnings.push(`Could not post the contract comment for ${review.name} on PR #${issue}: ${errorMessage(error)}. The report is in this job summary.`);
    }
  }
  return warnings;
}

/**
 * A review run that failed before it could review (a malformed config pushed, a base it
 * cannot read…): each sticky comment of this job on the pull request describes an older
 * commit, so it is replaced by why this one could not be reviewed. None is created: the failed
 * check already shows on the pull request. The next good run puts the review back.
 */
export async function replaceWithFailure({ api, context, inputs }: { api: GitHubApi; context: RunContext; inputs: ActionInputs }, message: string): Promise<void> {
  try {
    const plan = planEvent(context, inputs.baselineRef);
    if (!plan.pr) return;
    for (const comment of await api.stickyCommentsOfJob(plan.pr.number, context.job)) {
      const marker = (comment.body ?? '').split(/\r?\n/, 1)[0] as string;
      const body = redactor.redact(renderFailedReview({ marker, headSha: plan.headSha, why: message, runUrl: runUrl() }));
      const update = planComment({ mode: 'always', existing: comment, changed: true, body, quietBody: body });
      if (update.action !== 'update') continue;
      await api.updateComment(update.id, update.body);
      log.info(`Comment ${comment.html_url ?? `#${comment.id}`}: replaced by why this commit could not be reviewed.`);
    }
  } catch (error) {
    log.warning(`Could not update the contract comment to say that this run failed: ${errorMessage(error)}.`);
  }
}

/** This run's page, whose summary holds the full report: `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID`. */
export function runUrl(): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: id } = process.env;
  return server && repository && id ? `${server.replace(/\/+$/, '')}/${repository}/actions/runs/${id}` : undefined;
}

/**
 * A POST that failed on a transient error may still have created the comment: look for it
 * before trying again, so a flaky network never leaves two sticky comments.
 */
async function createOnce(api: GitHubApi, issue: number, marker: string, body: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api.createComment(issue, body);
    } catch (error) {
      if (!isTransient(error) || attempt >= DEFAULT_RETRY.attempts) throw error;
      log.info(`Creating the comment failed (${errorMessage(error)}); checking whether it landed before trying again.`);
      await new Promise((r) => setTimeout(r, retryPolicy().baseMs * attempt));
      const landed = await api.findStickyComment(issue, marker);
      if (landed) return landed.body === body ? landed : await api.updateComment(landed.id, body);
    }
  }
}
