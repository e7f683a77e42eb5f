/**
 * The second half of the two-workflow pattern for pull requests from forks: post the review a
 * pull_request job computed, from a workflow_run job that holds a write token but runs no code
 * of the pull request.
 */
import * as core from '@actions/core';
import { relative, resolve } from 'node:path';
import { UserError } from '../errors.js';
import { needingApproval } from '../policy/coverage.js';
import { ReviewFileError, readReviewFileText, type ReviewFile } from '../protocol/index.js';
import { isRuleKind } from '../rules/index.js';
import { log, readWorkspaceFile, writeSummary, type ActionInputs, type GitHubApi, type RunContext, type Runner } from './io/index.js';
import { computeOutputs, renderSummary, runLink } from './render/index.js';
import { approvalOf, approvalRecordsOf, coveragesOf, recordsOf } from './approval/index.js';
import { shortSha } from './text.js';
import { postComments, runUrl } from './post.js';
import { vouchReview } from './vouch.js';

/**
 * `mode: comment-only`: post the comments of a review computed by another job, without
 * running any code of the PR. The review file comes from that (possibly forged) job: it is
 * validated, its PR number must belong to the commit the triggering run reviewed, and what it
 * must not decide (the gate, the approval) is taken from GitHub (vouch.ts).
 */
export async function commentOnly(inputs: ActionInputs, context: RunContext, runner: Runner, api: GitHubApi | undefined): Promise<void> {
  const path = inputs.reviewPath ?? resolve(inputs.workingDirectory, 'mcp-contract-guard-review.json');
  const text = await readWorkspaceFile(path, runner.roots, 'the review file');
  if (text === null) {
    throw new UserError(`There is no review file at ${path}. In the workflow_run job, download the artifact the pull_request job uploaded (its "review-path" output) and point "review-path" at the file.`);
  }
  const bundle = reviewFileOf(text, relative(runner.workspace, path) || path);
  const repository = `${context.repo.owner}/${context.repo.repo}`;
  if (bundle.repository !== repository) throw new UserError(`The review file is for ${bundle.repository}, but this run is in ${repository}.`);
  const triggering =
    context.eventName === 'workflow_run'
      ? (context.payload.workflow_run as
          | { head_sha?: string; conclusion?: string; html_url?: unknown; triggering_actor?: { login?: string } | null; actor?: { login?: string } | null }
          | undefined)
      : undefined;
  // The run that wrote the file has the full report in its summary; the file's own link is not believed.
  const url = runLink(typeof triggering?.html_url === 'string' ? triggering.html_url : undefined) ?? runUrl();
  const bundled = bundle.reviews.map((review) => {
    const linked = { ...review };
    delete linked.runUrl;
    return url === undefined ? linked : { ...linked, runUrl: url };
  });
  const vouch = { approveLabel: inputs.approveLabel, ...(typeof triggering?.conclusion === 'string' ? { runConclusion: triggering.conclusion } : {}) };
  const warnings: string[] = [];
  let reviews = bundled.map((review) => vouchReview(review, vouch));
  if (bundle.pullRequest === null) {
    warnings.push('The review file is not about a pull request (its run was not triggered by one): nothing to comment on.');
  } else if (!api) {
    throw new UserError('mode: comment-only needs a token: set "github-token" (the default, github.token, works with "permissions: pull-requests: write").');
  } else {
    if (triggering?.head_sha !== undefined && triggering.head_sha !== bundle.headSha) {
      throw new UserError(`The review file is about commit ${shortSha(bundle.headSha)}, but the workflow run that triggered this one reviewed ${shortSha(triggering.head_sha)}: refusing to post it.`);
    }
    const pullRequest = await api.pullRequest(bundle.pullRequest);
    if (pullRequest.head.sha !== bundle.headSha) {
      warnings.push(`PR #${bundle.pullRequest} has moved on to ${shortSha(pullRequest.head.sha)} since this review of ${shortSha(bundle.headSha)}: not posting it (the newer commit's run will).`);
    } else {
      const label = await approvalOf({ number: bundle.pullRequest, labels: [] }, inputs.approveLabel, api);
      if (label.ignored) log.info(label.ignored);
      // Who caused the reviewed run (its re-runner, for a re-run): the file cannot say it, GitHub's event does.
      const triggeredBy = triggering?.triggering_actor?.login ?? triggering?.actor?.login;
      const present = bundled.map((r) => ({ id: r.id, present: r.report ? needingApproval(r.report, r.failOn) : null }));
      const records = await approvalRecordsOf(bundled, label, bundle.pullRequest, api);
      const coverages = coveragesOf(present, label, triggeredBy, records);
      reviews = bundled.map((review, i) => {
        const coverage = coverages[i];
        const approved = coverage && 'record' in coverage && label.approval ? { approval: label.approval, approvalRecord: coverage.record } : {};
        const ignored = coverage && 'ignored' in coverage ? coverage.ignored : label.ignored;
        return vouchReview(review, { ...vouch, ...approved, ...(ignored !== undefined ? { approvalIgnored: ignored } : {}) });
      });
      warnings.push(...(await postComments(api, bundle.pullRequest, reviews, inputs, recordsOf(reviews, coverages))));
    }
  }
  for (const [name, value] of Object.entries(computeOutputs(reviews, { artifacts: [], report: '', review: path }))) core.setOutput(name, value);
  for (const warning of warnings) log.warning(warning);
  await writeSummary(renderSummary(reviews, warnings));
}

/** The review file's text, read as the hostile input it is; `label` names the file in the error. */
function reviewFileOf(text: string, label: string): ReviewFile {
  try {
    return readReviewFileText(text, isRuleKind);
  } catch (error) {
    if (!(error instanceof ReviewFileError)) throw error;
    const problems = error.problems.map((problem) => `  - ${problem}`).join('\n');
    throw new UserError(`${label} is not a review file of this mcp-contract-guard version:\n${problems}\nIt should be the file a "review" run of the same mcp-contract-guard version wrote (its "review-path").`);
  }
}
