/**
 * The Action's shell: read the run, review each server, then act on the results (files,
 * summary, annotations, comment, outputs, exit status). Every decision is made by the pure
 * modules beside this one; this file only does the I/O between them.
 */
import * as core from '@actions/core';
import { context as githubContext } from '@actions/github';
import { basename, dirname, extname, join, relative } from 'node:path';
import type { AllowEntry } from '../config.js';
import { REVIEW_FILE_VERSION, emptyReport, renderReviewFile, type ReviewFile, type ServerReview } from '../protocol/index.js';
import { UserError, asUserError, errorMessage } from '../errors.js';
import { renderArtifact, renderSarif } from '../report/index.js';
import { allowListNotes, offeredExpiry, todayUtc } from '../policy/allow.js';
import { judgeChanges } from '../policy/judge.js';
import { needingApproval, type Coverage } from '../policy/coverage.js';
import { decideReview } from '../policy/review.js';
import { computeOutputs, entryAnnotations, renderSummary, reproduceCommands, selectAnnotations, whatWentWrong, type Annotation } from './render/index.js';
import {
  checkoutTree,
  commitTree,
  GitHubApi,
  guardCommandFiles,
  log,
  parseCaptureFile,
  planEvent,
  readInputs,
  readUsageInputs,
  readWorkspaceFile,
  redactor,
  registerCredentials,
  releaseTagsOf,
  retryPolicy,
  runnerOf,
  tamperingMessage,
  writeOutputFile,
  writeSummary,
  type ActionInputs,
  type CommandFileGuard,
  type EventPlan,
  type ReleaseTags,
  type RunContext,
  type Runner,
  type UsageRead,
} from './io/index.js';
import { captureOnly } from './capture-only.js';
import { commentOnly } from './comment-only.js';
import { draftReview, readBaseLockfile, type BaseLockfile, type Run, type ServerDraft } from './draft.js';
import { approvalOf, approvalRecordsOf, coveragesOf, recordsOf, senderOf, type LabelState } from './approval/index.js';
import { plural, shortSha } from './text.js';
import { postComments, replaceWithFailure, runUrl } from './post.js';
import { PRIVILEGED_EVENTS, privilegePolicy } from './privilege.js';
import { subjectsOf, type RunSubjects } from './subjects.js';
import { watchPins } from './watch.js';

export async function runAction(): Promise<void> {
  // The first line of the log, before any work: what ran, on what (the cold-start bench waits for it).
  core.info(`mcp-contract-guard: ${githubContext.eventName ?? 'local'} run${process.env.GITHUB_REPOSITORY ? ` in ${process.env.GITHUB_REPOSITORY}` : ''}.`);
  /** Set once a review run could comment: its sticky comments then say when it fails. */
  let commenting: { api: GitHubApi; context: RunContext; inputs: ActionInputs } | undefined;
  // Before anything else, and so before any code of the pull request runs: the credentials of
  // the step's environment (a server can read them from this process), and a copy of the
  // runner's command files (a server can write to them).
  redactor.addEnvironment(process.env);
  let commandFiles: CommandFileGuard | undefined;
  try {
    commandFiles = await guardCommandFiles();
    const runner = await runnerOf();
    const inputs = readInputs((name) => core.getInput(name), runner.workspace);
    redactor.addSecret(inputs.token);
    redactor.addHeaderValues(inputs.headers);
    redactor.addUrl(inputs.url);
    redactor.addHeaderValues(inputs.usageHeaders);
    for (const usage of inputs.usage) if (usage.kind === 'url') redactor.addUrl(usage.url);
    redactor.addEnvironment(process.env, inputs.passEnv);
    const context: RunContext = {
      eventName: githubContext.eventName ?? 'unknown',
      payload: (githubContext.payload ?? {}) as Record<string, unknown>,
      sha: githubContext.sha ?? '',
      job: githubContext.job ?? 'job',
      repo: repoOf(),
    };
    const api = inputs.token === '' ? undefined : new GitHubApi(inputs.token, context.repo, log, retryPolicy());
    // Under a privileged event a run that fails writes nothing: it may be failing on a refusal.
    if (api && inputs.mode === 'review' && inputs.comment !== 'never' && !PRIVILEGED_EVENTS.includes(context.eventName)) commenting = { api, context, inputs };
    if (inputs.mode === 'comment-only') await commentOnly(inputs, context, runner, api);
    else if (inputs.mode === 'capture') await captureOnly(inputs, context, runner, commandFiles);
    else if (inputs.mode === 'watch') await watchPins(inputs, context, runner, api, commandFiles);
    else await review(inputs, context, runner, api, commandFiles);
  } catch (error) {
    const user = asUserError(error);
    // Whatever failed, a server may have run: the runner's files are put back before anything of ours is written.
    const tampered = (await commandFiles?.restore().catch(() => [])) ?? [];
    const message = redactor.redact(
      [
        ...(tampered.length > 0 ? [tamperingMessage(tampered)] : []),
        user !== undefined ? user.message : `Unexpected failure: ${errorMessage(error)}. This is a bug in mcp-contract-guard; please report it with the log of this step.`,
      ].join('\n\n'),
    );
    core.setFailed(message);
    if (commenting) await replaceWithFailure(commenting, message);
    // The summary is written on every run, this one included: the message, never a stack trace.
    await writeSummary(`## MCP contract review\n\n> [!CAUTION]\n> The review could not run:\n\n${whatWentWrong(message)}\n`).catch(() => undefined);
    // For a bug, the stack goes to the log (not the summary), where a report can quote it.
    if (!(error instanceof UserError) && error instanceof Error && error.stack) log.info(error.stack);
  }
}

async function review(inputs: ActionInputs, context: RunContext, runner: Runner, api: GitHubApi | undefined, commandFiles: CommandFileGuard): Promise<void> {
  const plan = await planOf(context, inputs, api);
  const policy = privilegePolicy(plan.eventName, inputs.unsafeAllowPrivilegedEvents);
  if (policy.warning) core.warning(policy.warning);
  if (policy.headFromCommit && !/^[0-9a-f]{40}$/.test(plan.headSha)) {
    throw new UserError(`Under ${plan.eventName} the head's files are read at the head commit, but this event names none: run the review on pull_request instead.`);
  }
  const commit = (ref: string) => commitTree(ref, { workspace: runner.repoRoot, ...(api ? { api } : {}), log: log.info, warn: log.warning });
  const run: Run = { inputs, plan, runner, api, head: policy.headFromCommit ? commit(plan.headSha) : checkoutTree(runner.roots) };
  if (plan.baseline) run.base = commit(plan.baseline.ref);
  if (inputs.captureFile !== undefined) run.captured = await readCaptureFile(inputs.captureFile, runner, context, plan);
  const { subjects, allow, allowFile, rules, notes } = await subjectsOf(inputs, runner, run.head, run.base);
  run.rules = rules;
  for (const subject of subjects) registerCredentials(subject.target?.source);
  const live = subjects.flatMap((s) => (inputs.compile && !run.captured && s.target && s.target.source.kind !== 'file' ? [{ name: s.name ?? s.id, kind: s.target.source.kind }] : []));
  const refusal = policy.refusal(live);
  if (refusal) throw new UserError(refusal);
  if (policy.headFromCommit) log.info(`${plan.eventName} runs with this repository's secrets: the head's files are read at ${shortSha(plan.headSha)}, not from the checkout, and no server is started.`);
  if (plan.baseline) log.info(`Reviewing ${plural(subjects.length, 'server')} against ${plan.baseline.describe}.`);
  else log.info(`No base to compare with: ${plan.noBaselineReason}. The review compares with the lockfile in the checkout.`);

  // Everything the base and GitHub say is read before any code of the pull request starts: the
  // usage summaries, the baselines, the release tags, the approval label and what its record in our
  // comment covers.
  const headCommit = policy.headFromCommit ? run.head : /^[0-9a-f]{40}$/.test(plan.headSha) ? commit(plan.headSha) : undefined;
  const usage = inputs.usage.length === 0 ? undefined : await readUsageInputs(inputs, runner, { base: run.base, head: headCommit, baseRef: plan.baseline?.ref }, log.info);
  for (const note of usage?.notes ?? []) log.warning(note);
  const baseLockfiles: BaseLockfile[] = [];
  for (const subject of subjects) baseLockfiles.push(await readBaseLockfile(subject, run));
  const tags = inputs.versionCheck === 'off' ? {} : await releaseTagsOf(plan, runner.repoRoot);
  if (tags.current !== undefined) log.info(`The release is tagged ${tags.current}${tags.previous !== undefined ? `, the previous one ${tags.previous}` : ' (no release tag at the baseline to compare it with)'}: the version check compares the tags too.`);
  const label = plan.pr ? await approvalOf(plan.pr, inputs.approveLabel, api) : {};
  if (label.ignored) log.info(label.ignored);
  const records = plan.pr ? await approvalRecordsOf(subjects.map((s) => ({ id: s.id, job: context.job })), label, plan.pr.number, api) : [];
  const drafts: ServerDraft[] = [];
  for (const [i, subject] of subjects.entries()) {
    core.startGroup(`Reviewing ${subject.name ?? subject.id}`);
    try {
      const draft = await draftReview(subject, run, baseLockfiles[i]!);
      draft.notes.push(...notes);
      drafts.push(draft);
    } finally {
      core.endGroup();
    }
  }
  // Every server is stopped (its whole process tree): what it wrote to the runner's files is undone.
  // Servers captured in another job report what they wrote there.
  const tampered = [...new Set([...(run.captured?.file.tampered ?? []), ...(await commandFiles.restore())])];
  const tampering = tampered.length > 0 ? tamperingMessage(tampered) : undefined;

  const today = todayUtc(process.env.MCP_CONTRACT_GUARD_TODAY);
  // The policy over the changes, as the CLI applies it: usage first, then the allow list.
  const judgedChanges = judgeChanges(
    drafts.map((d) => ({ server: d.name, names: d.serverNames ?? [d.name], report: d.report })),
    { allow, today, allowMaxDays: inputs.allowMaxDays, ...(usage !== undefined && usage.summaries.length > 0 ? { usage: { summaries: usage.summaries, unusedDays: inputs.unusedDays } } : {}) },
  );
  drafts.forEach((draft, i) => {
    draft.report = judgedChanges.reports[i] ?? null;
    draft.notes.push(...(usage?.notes ?? []));
  });
  const allowEvaluation = judgedChanges.allow;
  const allowNotes = allowListNotes(allowEvaluation);
  const present = drafts.map((d) => ({ id: d.subject.id, present: d.report ? needingApproval(d.report, inputs.failOn) : null }));
  const coverages = plan.pr ? coveragesOf(present, label, senderOf(context.payload), records) : [];
  const judged = { label, acceptedBy: allowEvaluation.acceptedBy, allowNotes, allowFile, today, usage, tags };
  const reviews = drafts.map((draft, i) => finishReview(draft, run, context, { ...judged, coverage: coverages[i] }));
  if (tampering) for (const review of reviews) review.alert = redactor.redact(tampering);
  for (const review of reviews) if (review.release) log.info(`${review.name}: ${releaseLine(review.release)}`);

  const paths = await writeFiles(reviews, drafts, run, context);
  const warnings: string[] = [];
  emitAnnotations(reviews, drafts, allowNotes);
  if (plan.pr && inputs.comment !== 'never') {
    if (!api) warnings.push('No github-token, so no PR comment was posted; the report is in this job summary.');
    else warnings.push(...(await postComments(api, plan.pr.number, reviews, inputs, recordsOf(reviews, coverages))));
  }
  for (const warning of warnings) log.warning(warning);
  await writeSummary(renderSummary(reviews, warnings));
  const outputs = computeOutputs(reviews, paths);
  if (tampering) outputs.gate = 'fail';
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, redactor.redact(value));

  const failures = [...(tampering ? [tampering] : []), ...reviews.flatMap((r) => r.gate.failures)];
  if (failures.length > 0) core.setFailed(redactor.redact(failures.join('\n\n')));
  else log.info(reviews.some((r) => r.stale) ? 'The contract gate passes (the stale lockfile is only reported: lockfile-check is warn).' : 'The contract gate passes.');
}

/** The capture file of `capture-file`, checked as hostile data, and that it is of this repository and this commit. */
async function readCaptureFile(path: string, runner: Runner, context: RunContext, plan: EventPlan): Promise<NonNullable<Run['captured']>> {
  const label = relative(runner.workspace, path) || path;
  const text = await readWorkspaceFile(path, runner.roots, 'the capture file');
  if (text === null) throw new UserError(`There is no capture file at ${label}: download the artifact the capture job uploaded (its "capture-path") into the workspace and point "capture-file" at it.`);
  const file = parseCaptureFile(text, label);
  const repository = `${context.repo.owner}/${context.repo.repo}`;
  if (file.repository !== repository) throw new UserError(`The capture file ${label} is of ${file.repository}, but this run is in ${repository}.`);
  if (file.headSha !== plan.headSha) throw new UserError(`The capture file ${label} is of commit ${shortSha(file.headSha)}, but this run reviews ${shortSha(plan.headSha)}: the capture job must run on the same commit (the same workflow run).`);
  log.info(`The servers' contracts come from ${label}, captured in another job at ${shortSha(file.headSha)}: no server is started here.`);
  return { file, label };
}

/** The event plan; for a comment on a pull request, completed from the API (the event does not carry the pull request). */
async function planOf(context: RunContext, inputs: ActionInputs, api: GitHubApi | undefined): Promise<EventPlan> {
  const plan = planEvent(context, inputs.baselineRef);
  if (plan.lookUpPullRequest === undefined) return plan;
  if (!api) throw new UserError(`This ${plan.eventName} event is about PR #${plan.lookUpPullRequest}, whose commits only the API can tell: set "github-token".`);
  const pullRequest = await api.pullRequest(plan.lookUpPullRequest);
  return planEvent({ ...context, payload: { ...context.payload, pull_request: pullRequest } }, inputs.baselineRef);
}

/** What the run decided over every server, and what the approval covers of this one. */
interface Judged {
  label: LabelState;
  coverage: Coverage | undefined;
  acceptedBy: (fingerprint: string) => AllowEntry | undefined;
  allowNotes: string[];
  allowFile: RunSubjects['allowFile'];
  today: string;
  usage: UsageRead | undefined;
  /** The release's tag and the previous release's, for the version check. */
  tags: ReleaseTags;
}

/** The summary a review was judged with, as "Reproduce locally" gets it (none when usage was not applied). */
function usageToReproduce(draft: ServerDraft, usage: UsageRead | undefined, unusedDays: number): { usage?: { fetch: string[]; path: string; unusedDays: number } } {
  if (usage === undefined || draft.report?.usage?.applied !== true) return {};
  const at = usage.summaries.findIndex((s) => s.server.name === draft.report?.usage?.server);
  const how = usage.reproduce[at];
  return how === undefined ? {} : { usage: { ...how, unusedDays } };
}

function finishReview(draft: ServerDraft, run: Run, context: RunContext, judged: Judged): ServerReview {
  const { inputs, plan } = run;
  const { label, coverage, acceptedBy, allowNotes } = judged;
  const redact = (text: string) => redactor.redact(text);
  const stale = draft.stale && { message: redact(draft.stale.message), command: redact(draft.stale.command) };
  const reviewError = draft.reviewError === undefined ? undefined : redact(draft.reviewError);
  // The label approves only what its record covers; without a record it does not approve (coverage says why).
  const record = coverage && 'record' in coverage ? coverage.record : undefined;
  const approval = coverage === undefined || record ? label.approval : undefined;
  const ignored = coverage && 'ignored' in coverage ? coverage.ignored : label.ignored;
  const { review: decided } = decideReview({
    server: draft.name,
    report: draft.report,
    failOn: inputs.failOn,
    acceptedBy,
    ...(approval ? { approval } : {}),
    ...(record ? { approvalRecord: record } : {}),
    ...(ignored !== undefined ? { approvalIgnored: ignored } : {}),
    ...(plan.pr ? { approveLabel: inputs.approveLabel } : {}),
    allowFile: judged.allowFile.path,
    ...(stale ? { staleMessage: `${stale.message} Fix it with \`${stale.command}\` and commit ${draft.subject.lockfileRepoPath}.` } : {}),
    lockfileCheck: inputs.lockfileCheck,
    release: { ...draft.versions, tags: judged.tags, mode: inputs.versionCheck, removed: draft.headSource === 'removed' },
    ...(reviewError !== undefined ? { reviewError } : {}),
  });
  // The version check quotes the server's versions: what the gate and the comment say of it is redacted like the rest.
  const { release } = decided;
  if (release?.message !== undefined) release.message = redact(release.message);
  decided.gate.failures = decided.gate.failures.map(redact);
  const review: ServerReview = {
    id: draft.subject.id,
    name: draft.name,
    job: context.job,
    lockfile: draft.subject.lockfileRepoPath,
    headSha: plan.headSha,
    headSource: draft.headSource,
    report: draft.report,
    lockfileCheck: inputs.lockfileCheck,
    failOn: inputs.failOn,
    ...decided,
    allowNotes,
    reproduce:
      draft.headSource === 'removed'
        ? []
        : reproduceCommands({
            selection: draft.subject.selection,
            lockfileRepoPath: draft.subject.lockfileRepoPath,
            lockfileLocalPath: draft.subject.lockfileLocalPath,
            ...(plan.baseline ? { baselineRef: plan.baseline.ref } : {}),
            compile: inputs.compile && draft.headSource !== 'lockfile',
            failOn: inputs.failOn,
            ...usageToReproduce(draft, judged.usage, inputs.unusedDays),
          }).map(redact),
    notes: draft.notes.map(redact),
  };
  if (plan.baseline) {
    review.baseline = plan.baseline.describe;
    review.baselineRef = plan.baseline.ref;
  }
  if (reviewError !== undefined) review.reviewError = reviewError;
  if (stale) review.stale = stale;
  if (plan.pr) review.approveLabel = inputs.approveLabel;
  review.allowList = { file: judged.allowFile.path, fileExists: judged.allowFile.exists, expires: offeredExpiry(judged.today, inputs.allowMaxDays) };
  const url = runUrl();
  if (url !== undefined) review.runUrl = url;
  return review;
}

/** The artifact(s), the Markdown report, the review file and SARIF: the run's files, credentials taken out. */
async function writeFiles(reviews: ServerReview[], drafts: ServerDraft[], run: Run, context: RunContext) {
  const { inputs, runner, plan } = run;
  const write = (path: string, text: string, what: string) => writeOutputFile(path, redactor.redact(text), runner.roots, what);
  const several = reviews.length > 1;
  const artifacts: string[] = [];
  for (const review of reviews) {
    if (!review.report) continue;
    const path = several ? withSuffix(inputs.artifactPath, review.id) : inputs.artifactPath;
    await write(path, renderArtifact(review.report), 'the delta artifact');
    artifacts.push(path);
  }
  const scratch = join(runner.temp, 'mcp-contract-guard');
  const reportPath = join(scratch, 'report.md');
  await write(reportPath, renderSummary(reviews, []), 'the report');
  const reviewPath = inputs.reviewPath ?? join(scratch, 'mcp-contract-guard-review.json');
  const file: ReviewFile = { version: REVIEW_FILE_VERSION, repository: `${context.repo.owner}/${context.repo.repo}`, pullRequest: plan.pr?.number ?? null, headSha: plan.headSha, reviews };
  await write(reviewPath, renderReviewFile(file), 'the review file');
  const paths: { artifacts: string[]; report: string; review: string; sarif?: string } = { artifacts, report: reportPath, review: reviewPath };
  if (inputs.sarifPath !== undefined) {
    const runs = reviews.flatMap((review, i) => {
      const draft = drafts[i]!;
      const sarif = JSON.parse(
        renderSarif(review.report ?? emptyReport(), { lockfilePath: review.lockfile, ...(draft.headLockText !== null ? { lockfileText: draft.headLockText } : {}) }),
      ) as { runs: unknown[] };
      return sarif.runs;
    });
    const first = JSON.parse(renderSarif(emptyReport(), { lockfilePath: 'mcp-contracts.lock.json' })) as Record<string, unknown>;
    await write(inputs.sarifPath, `${JSON.stringify({ ...first, runs }, null, 2)}\n`, 'the SARIF file');
    paths.sarif = inputs.sarifPath;
  }
  const shown = (p: string) => (relative(runner.workspace, p).startsWith('..') ? p : relative(runner.workspace, p));
  log.info(`Wrote ${[...artifacts, reportPath, reviewPath, ...(paths.sarif ? [paths.sarif] : [])].map(shown).join(', ')}.`);
  return paths;
}

function emitAnnotations(reviews: ServerReview[], drafts: ServerDraft[], allowNotes: string[]): void {
  // Allow-list housekeeping shares the notice slots, after every contract change.
  const candidates: Annotation[] = allowNotes.map((message) => ({ level: 'notice', title: 'mcp-contract-guard allow-list', message, rank: -1 }));
  reviews.forEach((review, i) => {
    const draft = drafts[i]!;
    const lockfile = draft.headLockText !== null ? { file: review.lockfile, text: draft.headLockText } : undefined;
    // A review that could not be made is already the step's failure message: no second copy.
    if (review.stale && review.lockfileCheck !== 'off') {
      candidates.push({ level: review.lockfileCheck === 'fail' ? 'error' : 'warning', title: `Stale lockfile (${review.name})`, message: `${review.stale.message} Fix: ${review.stale.command}`, rank: 9_000, file: review.lockfile, line: 1 });
    }
    // A failing version check is already the step's failure message; a warning needs its own line.
    if (review.release?.check === 'too-small' && review.release.mode === 'warn') {
      candidates.push({ level: 'warning', title: `Version too small for the contract changes (${review.name})`, message: review.release.message ?? '', rank: 9_000 });
    }
    if (review.report) {
      const accepted = new Set(review.accepted.map((a) => a.fingerprint));
      candidates.push(...entryAnnotations({ server: review.name, report: review.report, ...(lockfile ? { lockfile } : {}), isAccepted: (f) => accepted.has(f) }));
    }
  });
  for (const a of selectAnnotations(candidates)) {
    const properties = { title: redactor.redact(a.title), ...(a.file !== undefined ? { file: a.file, startLine: a.line ?? 1 } : {}) };
    const message = redactor.redact(a.message);
    if (a.level === 'error') core.error(message, properties);
    else if (a.level === 'warning') core.warning(message, properties);
    else core.notice(message, properties);
  }
}

/** The release verdict as one line of the log. */
function releaseLine(release: NonNullable<ServerReview['release']>): string {
  const bump = release.bump === 'none' ? 'no release' : `a ${release.bump} release`;
  return `the contract changes call for ${bump} (semver-bump ${release.bump}); version-check ${release.check}${release.message !== undefined ? `: ${release.message}` : '.'}`;
}

function repoOf(): { owner: string; repo: string } {
  try {
    return githubContext.repo;
  } catch {
    throw new UserError('GITHUB_REPOSITORY is not set: this Action runs in a GitHub Actions workflow (or with the variables a runner sets).');
  }
}

function withSuffix(path: string, id: string): string {
  const ext = extname(path);
  const safe = id.replace(/[^\w.-]+/g, '-');
  return join(dirname(path), `${basename(path, ext)}.${safe}${ext}`);
}

