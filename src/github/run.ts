/**
 * The Action's shell: read the run, review each server, then act on the results (files,
 * summary, annotations, comment, outputs, exit status). Every decision is made by the pure
 * modules beside this one; this file only does the I/O between them.
 */
import * as core from '@actions/core';
import { context as githubContext } from '@actions/github';
import { mkdir, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { CompileError, compileContracts, contractsOfFile, declaringAsRecorded, lockfileAdvice, parseContractsFile, sourceFlags, type ContractSource } from '../compile/index.js';
import type { AllowEntry } from '../config.js';
import { compareContracts, hasChanges } from '../contract/compare.js';
import { LockfileError, parseLockfile, recordedClientCapabilities } from '../contract/lockfile.js';
import { ENTRY_KINDS, emptyContracts, type Contracts } from '../contract/model.js';
import { diffContracts } from '../diff/index.js';
import type { SeverityOverrides } from '../diff/rules.js';
import { emptyReport, type DiffReport } from '../protocol/index.js';
import { UserError, errorMessage } from '../errors.js';
import { renderArtifact, renderSarif } from '../report/index.js';
import { allowListNotes, evaluateAllowList, offeredExpiry, todayUtc } from '../policy/allow.js';
import { judgeApproval } from '../policy/approval.js';
import { approvalCoverage, covers, needingApproval, type ApprovalRecord, type Coverage } from '../policy/coverage.js';
import { decideGate, type Approval } from '../policy/gate.js';
import { releaseVerdict, versionFailure } from '../policy/semver.js';
import { entryAnnotations, selectAnnotations, type Annotation } from './annotations.js';
import { DEFAULT_RETRY, GitHubApi, isPermissionError, isTransient } from './api.js';
import { checkoutTree, commitTree, repoPath, repoRootOf, type Tree } from './baseline.js';
import { parseBundle, renderBundle, BUNDLE_VERSION, type ReviewBundle } from './bundle.js';
import { readApprovalRecord, renderApprovalRecord, withApprovalRecord } from './approval-record.js';
import { COMMENT_LIMIT, renderComment, renderFailedReview, renderQuietComment, runLink } from './comment.js';
import { planEvent, type EventPlan, type PullRequestInfo, type RunContext } from './event.js';
import { readInputs, type ActionInputs } from './inputs.js';
import { inert } from './log.js';
import { mdCodeBlock, plural, shortSha } from './markdown.js';
import { readWorkspaceFile, writeOutputFile, type FileRoots } from './paths.js';
import { PRIVILEGED_EVENTS, privilegePolicy } from './privilege.js';
import { Redactor } from './redact.js';
import { lockCommand, reproduceCommands } from './reproduce.js';
import { hasSomethingToSay, reviewCoverage, reviewGate, type ServerReview } from './review.js';
import { commentMarker, planComment } from './sticky.js';
import { subjectsOf, type RunSubjects, type Subject } from './subjects.js';
import { computeOutputs, renderSummary } from './summary.js';
import { vouchReview } from './vouch.js';

/** Where the Action runs: the workspace and scratch space a runner provides. */
interface Runner {
  workspace: string;
  temp: string;
  repoRoot: string;
  /** Where files may be read (the workspace) and written (the workspace, RUNNER_TEMP). */
  roots: FileRoots;
}

/** One review run: what it was asked, about which event, and where each side's files are read. */
interface Run {
  inputs: ActionInputs;
  plan: EventPlan;
  runner: Runner;
  api: GitHubApi | undefined;
  head: Tree;
  /** The base commit's files; absent when there is no base. */
  base?: Tree;
  /** The base config's severity overrides (subjects.ts says why not the head's). */
  rules?: SeverityOverrides;
}

/** Review one server, before the allow-list and the gate (they look at every server at once). */
interface ServerDraft {
  subject: Subject;
  name: string;
  report: DiffReport | null;
  reviewError?: string;
  stale?: { message: string; command: string };
  headLockText: string | null;
  headSource: ServerReview['headSource'];
  notes: string[];
  /** The server's version (serverInfo.version) as the base's lockfile records it, and at the head. */
  versions: { previous?: string; current?: string };
}

const FORK_HELP =
  'To comment on pull requests from forks, split the job in two: this workflow (on pull_request) uploads the review file ' +
  '("review-path" output) as an artifact, and a second workflow on workflow_run downloads it and runs this Action with ' +
  '"mode: comment-only", which posts the comment without running any code of the pull request ' +
  '(examples/workflows/fork-review.yml and fork-comment.yml). The report is in this job\'s summary.';

/** Credentials the run was given: masked in the log by the runner, and replaced by *** in everything written. */
const redactor = new Redactor((secret) => core.setSecret(secret));

/** The log, for text a pull request or a server may have written: no credential, never a workflow command. */
const log = {
  info: (message: string) => core.info(inert(redactor.redact(message))),
  debug: (message: string) => core.debug(redactor.redact(message)),
  warning: (message: string) => core.warning(redactor.redact(message)),
};

export async function runAction(): Promise<void> {
  // The first line of the log, before any work: what ran, on what (the cold-start bench waits for it).
  core.info(`mcp-contract-guard: ${githubContext.eventName ?? 'local'} run${process.env.GITHUB_REPOSITORY ? ` in ${process.env.GITHUB_REPOSITORY}` : ''}.`);
  /** Set once a review run could comment: its sticky comments then say when it fails. */
  let commenting: { api: GitHubApi; context: RunContext; inputs: ActionInputs } | undefined;
  try {
    const runner = await runnerOf();
    const inputs = readInputs((name) => core.getInput(name), runner.workspace);
    redactor.addHeaderValues(inputs.headers);
    redactor.addUrl(inputs.url);
    const context: RunContext = {
      eventName: githubContext.eventName ?? 'unknown',
      payload: (githubContext.payload ?? {}) as Record<string, unknown>,
      sha: githubContext.sha ?? '',
      job: githubContext.job ?? 'job',
      repo: repoOf(),
    };
    const api = inputs.token === '' ? undefined : new GitHubApi(inputs.token, context.repo, log, retryPolicy());
    // Under a privileged event a run that fails writes nothing: it may be failing on a refusal.
    if (api && inputs.mode !== 'comment-only' && inputs.comment !== 'never' && !PRIVILEGED_EVENTS.includes(context.eventName)) commenting = { api, context, inputs };
    if (inputs.mode === 'comment-only') await commentOnly(inputs, context, runner, api);
    else await review(inputs, context, runner, api);
  } catch (error) {
    const message = redactor.redact(
      error instanceof UserError ? error.message : `Unexpected failure: ${errorMessage(error)}. This is a bug in mcp-contract-guard; please report it with the log of this step.`,
    );
    core.setFailed(message);
    if (commenting) await replaceWithFailure(commenting, message);
    // The summary is written on every run, this one included: the message, never a stack trace.
    await writeSummary(`## MCP contract review\n\n> [!CAUTION]\n> The review could not run:\n\n${mdCodeBlock(message, 'text')}\n`).catch(() => undefined);
    // For a bug, the stack goes to the log (not the summary), where a report can quote it.
    if (!(error instanceof UserError) && error instanceof Error && error.stack) log.info(error.stack);
  }
}

async function review(inputs: ActionInputs, context: RunContext, runner: Runner, api: GitHubApi | undefined): Promise<void> {
  const plan = await planOf(context, inputs, api);
  const policy = privilegePolicy(plan.eventName, inputs.unsafeAllowPrivilegedEvents);
  if (policy.warning) core.warning(policy.warning);
  if (policy.headFromCommit && !/^[0-9a-f]{40}$/.test(plan.headSha)) {
    throw new UserError(`Under ${plan.eventName} the head's files are read at the head commit, but this event names none: run the review on pull_request instead.`);
  }
  const commit = (ref: string) => commitTree(ref, { workspace: runner.repoRoot, ...(api ? { api } : {}), log: log.info });
  const run: Run = { inputs, plan, runner, api, head: policy.headFromCommit ? commit(plan.headSha) : checkoutTree(runner.roots) };
  if (plan.baseline) run.base = commit(plan.baseline.ref);
  const { subjects, allow, allowFile, rules, notes } = await subjectsOf(inputs, runner, run.head, run.base);
  run.rules = rules;
  for (const subject of subjects) registerCredentials(subject.target?.source);
  const live = subjects.flatMap((s) => (inputs.compile && s.target && s.target.source.kind !== 'file' ? [{ name: s.name ?? s.id, kind: s.target.source.kind }] : []));
  const refusal = policy.refusal(live);
  if (refusal) throw new UserError(refusal);
  if (policy.headFromCommit) log.info(`${plan.eventName} runs with this repository's secrets: the head's files are read at ${shortSha(plan.headSha)}, not from the checkout, and no server is started.`);
  if (plan.baseline) log.info(`Reviewing ${plural(subjects.length, 'server')} against ${plan.baseline.describe}.`);
  else log.info(`No base to compare with: ${plan.noBaselineReason}. The review compares with the lockfile in the checkout.`);

  const label = plan.pr ? await approvalOf(plan.pr, inputs.approveLabel, api) : {};
  if (label.ignored) log.info(label.ignored);
  const drafts: ServerDraft[] = [];
  for (const subject of subjects) {
    core.startGroup(`Reviewing ${subject.name ?? subject.id}`);
    try {
      const draft = await draftReview(subject, run);
      draft.notes.push(...notes);
      drafts.push(draft);
    } finally {
      core.endGroup();
    }
  }

  const today = todayUtc(process.env.MCP_CONTRACT_GUARD_TODAY);
  const allowEvaluation = evaluateAllowList(
    drafts.map((d) => ({ server: d.name, report: d.report })),
    allow,
    today,
    inputs.allowMaxDays,
  );
  const allowNotes = allowListNotes(allowEvaluation);
  const present = drafts.map((d) => ({ id: d.subject.id, job: context.job, present: d.report ? needingApproval(d.report, inputs.failOn) : null }));
  const coverages = plan.pr ? await coveragesOf(present, label, { issue: plan.pr.number, triggeredBy: senderOf(context.payload) }, api) : [];
  const judged = { label, acceptedBy: allowEvaluation.acceptedBy, allowNotes, allowFile, today };
  const reviews = drafts.map((draft, i) => finishReview(draft, run, context, { ...judged, coverage: coverages[i] }));
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
  for (const [name, value] of Object.entries(computeOutputs(reviews, paths))) core.setOutput(name, redactor.redact(value));

  const failures = reviews.flatMap((r) => r.gate.failures);
  if (failures.length > 0) core.setFailed(redactor.redact(failures.join('\n\n')));
  else log.info(reviews.some((r) => r.stale) ? 'The contract gate passes (the stale lockfile is only reported: lockfile-check is warn).' : 'The contract gate passes.');
}

/** The event plan; for a comment on a pull request, completed from the API (the event does not carry the pull request). */
async function planOf(context: RunContext, inputs: ActionInputs, api: GitHubApi | undefined): Promise<EventPlan> {
  const plan = planEvent(context, inputs.baselineRef);
  if (plan.lookUpPullRequest === undefined) return plan;
  if (!api) throw new UserError(`This ${plan.eventName} event is about PR #${plan.lookUpPullRequest}, whose commits only the API can tell: set "github-token".`);
  const pullRequest = await api.pullRequest(plan.lookUpPullRequest);
  return planEvent({ ...context, payload: { ...context.payload, pull_request: pullRequest } }, inputs.baselineRef);
}

/** A server's URL and header values are credentials until shown otherwise. */
function registerCredentials(source: ContractSource | undefined): void {
  if (!source || source.kind === 'file') return;
  redactor.addUrl(source.url);
  redactor.addHeaderValues(source.headers);
}

/** The approval label on the pull request: the approval when it counts, when it was added, or why it does not count. */
interface LabelState {
  approval?: Approval;
  /** When the label was added, as GitHub's issue events say; '' when they did not. */
  labeledAt?: string;
  ignored?: string;
}

/**
 * Whether the pull request carries the approval label and that label counts: who added it
 * (this very event, else the issue's events) must have write, maintain or admin permission.
 * Labels are read live: a re-run keeps the old payload.
 */
async function approvalOf(pr: Pick<PullRequestInfo, 'number' | 'labels' | 'labeled'>, label: string, api: GitHubApi | undefined): Promise<LabelState> {
  let labels = pr.labels;
  if (api) {
    try {
      labels = await api.labels(pr.number);
    } catch (error) {
      log.info(`Could not read the labels of PR #${pr.number} (${errorMessage(error)}); using those of the event.`);
    }
  }
  if (!labels.includes(label)) return {};
  const event = await api?.labeled(pr.number, label).catch(() => undefined);
  const by = pr.labeled?.label === label ? pr.labeled.by : event?.by;
  const permission = by === undefined ? undefined : api ? await api.permission(by).catch((error: unknown) => ({ error: errorMessage(error) })) : { error: 'there is no github-token to ask GitHub' };
  const judgement = judgeApproval({ label, ...(by !== undefined ? { by } : {}), ...(permission ? { permission } : {}) });
  if (!('approval' in judgement)) return { ignored: judgement.ignored };
  return { approval: judgement.approval, labeledAt: event !== undefined && by !== undefined && event.by.toLowerCase() === by.toLowerCase() ? (event.at ?? '') : '' };
}

/**
 * What the approval covers, per server: the record in this Action's own sticky comment, or a
 * new one when the approver caused this run (policy/coverage.ts). Undefined where no label approves.
 */
async function coveragesOf(
  servers: Array<{ id: string; job: string; present: string[] | null }>,
  label: LabelState,
  where: { issue: number; triggeredBy: string | undefined },
  api: GitHubApi | undefined,
): Promise<Array<Coverage | undefined>> {
  const { approval } = label;
  if (!approval?.by) return servers.map(() => undefined);
  const coverages: Array<Coverage | undefined> = [];
  for (const { id, job, present } of servers) {
    let record: ApprovalRecord | undefined;
    try {
      const sticky = api ? await api.findStickyComment(where.issue, commentMarker(id, job)) : undefined;
      record = sticky?.body ? readApprovalRecord(sticky.body) : undefined;
    } catch (error) {
      log.info(`Could not read the comment that records what the label "${approval.label}" approves (${errorMessage(error)}).`);
    }
    const coverage = approvalCoverage({
      approval: { ...approval, by: approval.by },
      labeledAt: label.labeledAt ?? '',
      ...(where.triggeredBy !== undefined ? { triggeredBy: where.triggeredBy } : {}),
      ...(record ? { record } : {}),
      present,
    });
    if ('record' in coverage && coverage.recordedNow) log.info(`${id}: the label "${approval.label}" added by @${approval.by} approves ${plural(coverage.record.fingerprints.length, 'change')} as of this run; recorded in the comment.`);
    coverages.push(coverage);
  }
  return coverages;
}

async function draftReview(subject: Subject, run: Run): Promise<ServerDraft> {
  const { target } = subject;
  const { inputs } = run;
  const notes = subject.planNote !== undefined ? [subject.planNote] : [];
  const fix = lockCommand(subject.selection);
  let headLockText: string | null = null;
  const headSource: ServerDraft['headSource'] = !target ? 'removed' : !inputs.compile ? 'lockfile' : target.source.kind === 'file' ? 'file' : 'server';
  const fail = (reviewError: string): ServerDraft => ({ subject, name: subject.name ?? serverNameIn(headLockText) ?? subject.id, report: null, reviewError, headLockText, headSource, notes, versions: {} });

  // A server the head's config dropped: every entry of its base lockfile is removed.
  if (!target) {
    const base = await baselineOf(subject, run, subject.id, undefined, notes);
    if (typeof base === 'string') return fail(base);
    const report = await diffContracts(base, emptyContracts({ name: base.server.name }), { severityOverrides: run.rules ?? {} });
    return { subject, name: subject.id, report, headLockText, headSource, notes, versions: versionsOf(base, undefined) };
  }

  // The head: compiled live (what the PR's code exposes now), or its lockfile when compile is off.
  let head: Contracts;
  try {
    headLockText = await run.head.read(target.lockfile, 'the lockfile');
    if (!inputs.compile) {
      if (headLockText === null) return fail(`With "compile: false" the head lockfile is the head's contracts, but there is no ${subject.lockfileRepoPath} in ${run.head.describe}. Create it with: ${fix}`);
      head = parseLockfile(headLockText, subject.lockfileRepoPath);
    } else if (target.source.kind === 'file') {
      const shown = repoPath(run.runner.repoRoot, target.source.path);
      const text = await run.head.read(target.source.path, 'the contracts file');
      if (text === null) return fail(`There is no ${shown} in ${run.head.describe}: "file" names a tools/list dump or a lockfile.`);
      head = reportWarnings(contractsOfFile(parseContractsFile(text, shown)), notes).contracts;
    } else {
      const compiled = await compileContracts(declaringAsLocked(target.source, headLockText, subject, notes), { onProgress: (m) => log.info(`› ${m}`) });
      head = reportWarnings(compiled, notes).contracts;
      if (compiled.healing?.healedSource) {
        const fixes = compiled.healing.attempts.map((a) => a.fixApplied).filter((f): f is string => f !== undefined);
        notes.push(
          `The server was captured only after mcp-contract-guard ${fixes.join(', then ')}: configure it that way to skip the failed attempts (as CLI flags: ${sourceFlags(compiled.healing.healedSource)}).`,
        );
      }
    }
  } catch (error) {
    // A CompileError carries its diagnosis in plain words: no stack trace in a PR comment.
    if (error instanceof LockfileError) return fail(lockfileAdvice(error, fix));
    if (error instanceof CompileError || error instanceof UserError) return fail(error.message);
    throw error;
  }

  // Freshness: the head lockfile against the live head, kept apart from the review.
  let stale: ServerDraft['stale'];
  let headLocked: Contracts | undefined;
  if (headLockText !== null) {
    try {
      headLocked = parseLockfile(headLockText, subject.lockfileRepoPath, head);
    } catch (error) {
      if (!(error instanceof LockfileError)) throw error;
      if (inputs.compile && inputs.lockfileCheck !== 'off') stale = { message: error.message, command: fix };
    }
  }
  if (inputs.compile && inputs.lockfileCheck !== 'off' && stale === undefined) {
    if (headLockText === null) stale = { message: `There is no lockfile at ${subject.lockfileRepoPath}.`, command: fix };
    else if (headLocked && hasChanges(compareContracts(headLocked, head))) {
      const changes = compareContracts(headLocked, head);
      const count = ENTRY_KINDS.reduce((n, k) => n + changes[k].added.length + changes[k].removed.length + changes[k].changed.length, 0);
      stale = { message: `${subject.lockfileRepoPath} does not match the ${headSource === 'server' ? 'server' : 'contracts'} at this commit (${plural(count, 'entry', 'entries')} differ${count === 1 ? 's' : ''}).`, command: fix };
    }
  }
  if (stale) log.info(`Stale lockfile: ${stale.message} Fix: ${stale.command}`);

  const base = await baselineOf(subject, run, head.server.name, headLocked, notes);
  if (typeof base === 'string') return fail(base);
  const report = await diffContracts(base, head, { severityOverrides: run.rules ?? {} });
  const name = subject.name ?? (head.server.name !== 'unknown' ? head.server.name : subject.id);
  log.info(`${name}: ${report.summary.maxSeverity === null ? 'no contract changes' : `worst change ${report.summary.maxSeverity}`}.`);
  const draft: ServerDraft = { subject, name, report, headLockText, headSource, notes, versions: versionsOf(base, head) };
  if (stale) draft.stale = stale;
  return draft;
}

/**
 * The head is captured declaring the client capabilities its lockfile was captured with (as
 * `check` does), unless the config or the inputs say otherwise: then the comment says so.
 */
function declaringAsLocked(source: ContractSource, headLockText: string | null, subject: Subject, notes: string[]): ContractSource {
  const { source: declaring, mismatch } = declaringAsRecorded(source, headLockText === null ? undefined : recordedClientCapabilities(headLockText));
  if (mismatch) {
    const list = (names: string[]) => (names.length === 0 ? 'none' : names.join(', '));
    notes.push(`${subject.lockfileRepoPath} was captured declaring the client capabilities ${list(mismatch.recorded)}; this run declares ${list(mismatch.declared)}, so tools the server shows only to some clients may appear as added or removed.`);
  }
  return declaring;
}

function versionsOf(base: Contracts, head: Contracts | undefined): ServerDraft['versions'] {
  const versions: ServerDraft['versions'] = {};
  if (base.server.version !== undefined) versions.previous = base.server.version;
  if (head?.server.version !== undefined) versions.current = head.server.version;
  return versions;
}

/** Lint findings go to the log, and a line saying so to the comment. */
function reportWarnings<T extends { warnings: string[] }>(compiled: T, notes: string[]): T {
  for (const warning of compiled.warnings) log.info(`lint: ${warning}`);
  if (compiled.warnings.length > 0) notes.push(`The server has ${plural(compiled.warnings.length, 'lint warning')} (see the log of this step).`);
  return compiled;
}

/**
 * The baseline: the lockfile the base's config names, as committed at the base, whatever the
 * pull request did to it since. A string is why it could not be read.
 */
async function baselineOf(subject: Subject, run: Run, serverName: string, headLocked: Contracts | undefined, notes: string[]): Promise<Contracts | string> {
  const { plan } = run;
  const empty = () => emptyContracts({ name: serverName });
  if (!plan.baseline || !run.base) {
    notes.push(`No base to compare with (${plan.noBaselineReason}): compared with ${subject.lockfileRepoPath} as checked out.`);
    return headLocked ?? empty();
  }
  // A server the base's config does not list: the plan's note says it is new.
  if (subject.baseLockfile === undefined) return empty();
  const shown = repoPath(run.runner.repoRoot, subject.baseLockfile);
  let text: string | null;
  try {
    text = await run.base.read(subject.baseLockfile, 'the base lockfile');
  } catch (error) {
    const why = isPermissionError(error) ? 'the token may not read this repository\'s contents' : errorMessage(error);
    return `Could not read ${shown} at ${plan.baseline.describe}: ${why}.`;
  }
  if (text === null) {
    notes.push(`There is no ${shown} at ${plan.baseline.describe}: every entry counts as new.`);
    return empty();
  }
  try {
    return parseLockfile(text, `${shown} at ${shortSha(plan.baseline.ref)}`);
  } catch (error) {
    if (!(error instanceof LockfileError)) throw error;
    notes.push(`${error.message} It is ignored: every entry counts as new.`);
    return empty();
  }
}

/** What the run decided over every server, and what the approval covers of this one. */
interface Judged {
  label: LabelState;
  coverage: Coverage | undefined;
  acceptedBy: (fingerprint: string) => AllowEntry | undefined;
  allowNotes: string[];
  allowFile: RunSubjects['allowFile'];
  today: string;
}

function finishReview(draft: ServerDraft, run: Run, context: RunContext, judged: Judged): ServerReview {
  const { inputs, plan } = run;
  const { label, coverage, acceptedBy, allowNotes } = judged;
  const redact = (text: string) => redactor.redact(text);
  const accepted = (fingerprint: string) => acceptedBy(fingerprint) !== undefined;
  const stale = draft.stale && { message: redact(draft.stale.message), command: redact(draft.stale.command) };
  const reviewError = draft.reviewError === undefined ? undefined : redact(draft.reviewError);
  // The label approves only what its record covers; without a record it does not approve (coverage says why).
  const record = coverage && 'record' in coverage ? coverage.record : undefined;
  const approval = coverage === undefined || record ? label.approval : undefined;
  const ignored = coverage && 'ignored' in coverage ? coverage.ignored : label.ignored;
  const release = draft.report
    ? releaseVerdict({ bump: draft.report.summary.semverBump, ...draft.versions, mode: inputs.versionCheck, removed: draft.headSource === 'removed' })
    : undefined;
  const failure = versionFailure(draft.name, release);
  const gate = decideGate({
    server: draft.name,
    report: draft.report,
    failOn: inputs.failOn,
    accepted,
    ...(approval ? { approval } : {}),
    ...(record ? { covers: covers(record) } : {}),
    ...(plan.pr ? { approveLabel: inputs.approveLabel } : {}),
    allowFile: judged.allowFile.path,
    ...(stale ? { staleMessage: `${stale.message} Fix it with \`${stale.command}\` and commit ${draft.subject.lockfileRepoPath}.` } : {}),
    lockfileCheck: inputs.lockfileCheck,
    ...(failure !== undefined ? { versionFailure: redact(failure) } : {}),
    ...(reviewError !== undefined ? { reviewError } : {}),
  });
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
    gate: reviewGate(gate),
    accepted: gate.accepted.map((d) => {
      const allowed = acceptedBy(d.delta.fingerprint)!;
      return { entry: `${d.collection}.${d.name}`, severity: d.delta.severity, fingerprint: d.delta.fingerprint, reason: allowed.reason, ...(allowed.expires ? { expires: allowed.expires } : {}) };
    }),
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
          }).map(redact),
    notes: draft.notes.map(redact),
  };
  if (plan.baseline) {
    review.baseline = plan.baseline.describe;
    review.baselineRef = plan.baseline.ref;
  }
  if (reviewError !== undefined) review.reviewError = reviewError;
  if (stale) review.stale = stale;
  if (approval && gate.verdict === 'approved') review.approval = approval;
  if (ignored !== undefined && gate.verdict === 'blocked') review.approvalIgnored = ignored;
  if (record && draft.report) review.approvalCoverage = reviewCoverage(record, gate);
  if (plan.pr) review.approveLabel = inputs.approveLabel;
  if (release) review.release = { ...release, ...(release.message !== undefined ? { message: redact(release.message) } : {}) };
  review.allowList = { file: judged.allowFile.path, fileExists: judged.allowFile.exists, expires: offeredExpiry(judged.today, inputs.allowMaxDays) };
  const url = runUrl();
  if (url !== undefined) review.runUrl = url;
  return review;
}

/** The artifact(s), the Markdown report, the review bundle and SARIF: the run's files, credentials taken out. */
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
  const bundle: ReviewBundle = { version: BUNDLE_VERSION, repository: `${context.repo.owner}/${context.repo.repo}`, pullRequest: plan.pr?.number ?? null, headSha: plan.headSha, reviews };
  await write(reviewPath, renderBundle(bundle), 'the review file');
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

/**
 * Create or update each server's sticky comment. Never fails the step: a token that may not
 * comment (a fork's, a read-only one) gets one warning explaining the two-workflow pattern,
 * and anything else a warning of its own. Returns those warnings.
 */
async function postComments(
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
      // What the approval covers rides along as the comment's second line (approval-record.ts).
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
async function replaceWithFailure({ api, context, inputs }: { api: GitHubApi; context: RunContext; inputs: ActionInputs }, message: string): Promise<void> {
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
function runUrl(): string | undefined {
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

/**
 * `mode: comment-only`: post the comments of a review computed by another job, without
 * running any code of the PR. The review file comes from that (possibly forged) job: it is
 * validated, its PR number must belong to the commit the triggering run reviewed, and what it
 * must not decide (the gate, the approval) is taken from GitHub (vouch.ts).
 */
async function commentOnly(inputs: ActionInputs, context: RunContext, runner: Runner, api: GitHubApi | undefined): Promise<void> {
  const path = inputs.reviewPath ?? resolve(inputs.workingDirectory, 'mcp-contract-guard-review.json');
  const text = await readWorkspaceFile(path, runner.roots, 'the review file');
  if (text === null) {
    throw new UserError(`There is no review file at ${path}. In the workflow_run job, download the artifact the pull_request job uploaded (its "review-path" output) and point "review-path" at the file.`);
  }
  const bundle = parseBundle(text, relative(runner.workspace, path) || path);
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
      const present = bundled.map((r) => ({ id: r.id, job: r.job, present: r.report ? needingApproval(r.report, r.failOn) : null }));
      const coverages = await coveragesOf(present, label, { issue: bundle.pullRequest, triggeredBy }, api);
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

/** The records to keep in each server's comment: what its approval covers, found or made by this run. */
function recordsOf(reviews: ServerReview[], coverages: Array<Coverage | undefined>): Map<string, ApprovalRecord> {
  const records = new Map<string, ApprovalRecord>();
  reviews.forEach((review, i) => {
    const coverage = coverages[i];
    if (coverage && 'record' in coverage) records.set(review.id, coverage.record);
  });
  return records;
}

/** Who caused the event that started this run (a pull_request event's `sender`; a re-run keeps it). */
function senderOf(payload: Record<string, unknown>): string | undefined {
  const login = (payload.sender as { login?: unknown } | undefined)?.login;
  return typeof login === 'string' && login !== '' ? login : undefined;
}

/** The release verdict as one line of the log. */
function releaseLine(release: NonNullable<ServerReview['release']>): string {
  const bump = release.bump === 'none' ? 'no release' : `a ${release.bump} release`;
  return `the contract changes call for ${bump} (semver-bump ${release.bump}); version-check ${release.check}${release.message !== undefined ? `: ${release.message}` : '.'}`;
}

/** The job summary; outside a runner (no GITHUB_STEP_SUMMARY) the report file is enough. */
async function writeSummary(markdown: string): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) {
    log.info('No GITHUB_STEP_SUMMARY: the job summary is only in the report file ("report-path").');
    return;
  }
  await core.summary.addRaw(redactor.redact(markdown)).write();
}

async function runnerOf(): Promise<Runner> {
  const workspace = resolve(process.env.GITHUB_WORKSPACE ?? process.cwd());
  const temp = resolve(process.env.RUNNER_TEMP ?? tmpdir());
  await mkdir(temp, { recursive: true });
  const root = async (path: string) => ({ path, real: await realpath(path).catch(() => path) });
  const roots = { workspace: await root(workspace), temp: await root(temp) };
  // git names the root with its links resolved; paths are shown under the workspace as the runner names it.
  const gitRoot = await repoRootOf(workspace);
  const repoRoot = gitRoot === undefined || gitRoot === roots.workspace.real ? workspace : gitRoot;
  return { workspace, temp, repoRoot, roots };
}

function repoOf(): { owner: string; repo: string } {
  try {
    return githubContext.repo;
  } catch {
    throw new UserError('GITHUB_REPOSITORY is not set: this Action runs in a GitHub Actions workflow (or with the variables a runner sets).');
  }
}

function retryPolicy() {
  const base = Number(process.env.MCP_CONTRACT_GUARD_RETRY_BASE_MS);
  return Number.isFinite(base) && base >= 0 ? { ...DEFAULT_RETRY, baseMs: base } : DEFAULT_RETRY;
}

function withSuffix(path: string, id: string): string {
  const ext = extname(path);
  const safe = id.replace(/[^\w.-]+/g, '-');
  return join(dirname(path), `${basename(path, ext)}.${safe}${ext}`);
}

/** The server's name as the head lockfile records it, to name a server that did not start. */
function serverNameIn(lockText: string | null): string | undefined {
  try {
    const name = (JSON.parse(lockText ?? 'null') as { server?: { name?: unknown } } | null)?.server?.name;
    return typeof name === 'string' && name !== '' && name !== 'unknown' ? name : undefined;
  } catch {
    return undefined;
  }
}


