/**
 * The Action's shell: read the run, review each server, then act on the results (files,
 * summary, annotations, comment, outputs, exit status). Every decision is made by the pure
 * modules beside this one; this file only does the I/O between them.
 */
import * as core from '@actions/core';
import { context as githubContext } from '@actions/github';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { CompileError, DEFAULT_TIMEOUT_MS, compileContracts, lockfileAdvice, sourceFlags, splitCommand, type ContractSource } from '../compile/index.js';
import { CONFIG_NAME, findConfig, loadConfig, selectTargets, type AllowEntry, type Target } from '../config.js';
import { compareContracts, hasChanges } from '../contract/compare.js';
import { LOCKFILE_NAME, LockfileError, parseLockfile } from '../contract/lockfile.js';
import { ENTRY_KINDS, emptyContracts, type Contracts } from '../contract/model.js';
import { diffContracts } from '../diff/index.js';
import { emptyReport, type DiffReport } from '../protocol/index.js';
import { UserError, errorMessage } from '../errors.js';
import { renderArtifact, renderSarif } from '../report/index.js';
import { allowListNotes, evaluateAllowList, todayUtc } from '../policy/allow.js';
import { entryAnnotations, selectAnnotations, type Annotation } from './annotations.js';
import { DEFAULT_RETRY, GitHubApi, isPermissionError, isTransient } from './api.js';
import { readFileAtRef, repoPath, repoRootOf } from './baseline.js';
import { parseBundle, renderBundle, BUNDLE_VERSION, type ReviewBundle } from './bundle.js';
import { renderComment, renderQuietComment } from './comment.js';
import { isPrivilegedPullRequestEvent, planEvent, type EventPlan, type RunContext } from './event.js';
import { decideGate, type Approval } from '../policy/gate.js';
import { readInputs, type ActionInputs } from './inputs.js';
import { mdCodeBlock, plural, shortSha } from './markdown.js';
import { lockCommand, reproduceCommands, type CliSelection } from './reproduce.js';
import { hasSomethingToSay, type ServerReview } from './review.js';
import { commentMarker, planComment } from './sticky.js';
import { computeOutputs, renderSummary } from './summary.js';

/** Where the Action runs: the workspace and scratch space a runner provides. */
interface Runner {
  workspace: string;
  temp: string;
  repoRoot: string;
}

/** A server to review, with what the comment and the CLI call it. */
interface Subject {
  target: Target;
  id: string;
  /** The config name or the `name` input; else the server's own name once known. */
  name?: string;
  selection: CliSelection;
  lockfileRepoPath: string;
  lockfileLocalPath: string;
}

/** Review one server, before the allow-list and the gate (they look at every server at once). */
interface Draft {
  subject: Subject;
  name: string;
  report: DiffReport | null;
  reviewError?: string;
  stale?: { message: string; command: string };
  headLockText: string | null;
  headSource: ServerReview['headSource'];
  notes: string[];
}

const FORK_HELP =
  'To comment on pull requests from forks, split the job in two: this workflow (on pull_request) uploads the review file ' +
  '("review-path" output) as an artifact, and a second workflow on workflow_run downloads it and runs this Action with ' +
  '"mode: comment-only", which posts the comment without running any code of the pull request ' +
  '(examples/workflows/fork-review.yml and fork-comment.yml). The report is in this job\'s summary.';

export async function runAction(): Promise<void> {
  // The first line of the log, before any work: what ran, on what (the cold-start bench waits for it).
  core.info(`mcp-contract-guard: ${githubContext.eventName ?? 'local'} run${process.env.GITHUB_REPOSITORY ? ` in ${process.env.GITHUB_REPOSITORY}` : ''}.`);
  try {
    const runner = await runnerOf();
    const inputs = readInputs((name) => core.getInput(name), runner.workspace);
    const context: RunContext = {
      eventName: githubContext.eventName ?? 'unknown',
      payload: (githubContext.payload ?? {}) as Record<string, unknown>,
      sha: githubContext.sha ?? '',
      job: githubContext.job ?? 'job',
      repo: repoOf(),
    };
    const api = inputs.token === '' ? undefined : new GitHubApi(inputs.token, context.repo, core, retryPolicy());
    if (inputs.mode === 'comment-only') await commentOnly(inputs, context, runner, api);
    else await review(inputs, context, runner, api);
  } catch (error) {
    const message = error instanceof UserError ? error.message : `Unexpected failure: ${errorMessage(error)}. This is a bug in mcp-contract-guard; please report it with the log of this step.`;
    core.setFailed(message);
    // The summary is written on every run, this one included: the message, never a stack trace.
    await writeSummary(`## MCP contract review\n\n> [!CAUTION]\n> The review could not run:\n\n${mdCodeBlock(message, 'text')}\n`).catch(() => undefined);
    // For a bug, the stack goes to the log (not the summary), where a report can quote it.
    if (!(error instanceof UserError) && error instanceof Error && error.stack) core.info(error.stack);
  }
}

async function review(inputs: ActionInputs, context: RunContext, runner: Runner, api: GitHubApi | undefined): Promise<void> {
  const plan = planEvent(context, inputs.baselineRef);
  const { subjects, allow } = await subjectsOf(inputs, runner);
  guardPrivilegedEvent(plan, inputs, subjects);
  if (plan.baseline) core.info(`Reviewing ${plural(subjects.length, 'server')} against ${plan.baseline.describe}.`);
  else core.info(`No base to compare with: ${plan.noBaselineReason}. The review compares with the lockfile in the checkout.`);

  const approval = plan.pr ? await approvalOf(plan, inputs.approveLabel, api) : undefined;
  const drafts: Draft[] = [];
  for (const subject of subjects) {
    core.startGroup(`Reviewing ${subject.name ?? subject.id}`);
    try {
      drafts.push(await draftReview(subject, inputs, plan, runner, api));
    } finally {
      core.endGroup();
    }
  }

  const allowEvaluation = evaluateAllowList(
    drafts.map((d) => ({ server: d.name, report: d.report })),
    allow,
    todayUtc(process.env.MCP_CONTRACT_GUARD_TODAY),
  );
  const allowNotes = allowListNotes(allowEvaluation);
  const reviews = drafts.map((draft) => finishReview(draft, inputs, context, plan, approval, allowEvaluation.acceptedBy, allowNotes));

  const paths = await writeFiles(reviews, drafts, inputs, runner, context, plan);
  const warnings: string[] = [];
  emitAnnotations(reviews, drafts, allowNotes);
  if (plan.pr && inputs.comment !== 'never') {
    if (!api) warnings.push('No github-token, so no PR comment was posted; the report is in this job summary.');
    else warnings.push(...(await postComments(api, plan.pr.number, reviews, inputs)));
  }
  for (const warning of warnings) core.warning(warning);
  await writeSummary(renderSummary(reviews, warnings));
  for (const [name, value] of Object.entries(computeOutputs(reviews, paths))) core.setOutput(name, value);

  const failures = reviews.flatMap((r) => r.gate.failures);
  if (failures.length > 0) core.setFailed(failures.join('\n\n'));
  else core.info(reviews.some((r) => r.stale) ? 'The contract gate passes (the stale lockfile is only reported: lockfile-check is warn).' : 'The contract gate passes.');
}

/** The servers of this run: one from `command` / `url` / `file`, or those of a config file. */
async function subjectsOf(inputs: ActionInputs, runner: Runner): Promise<{ subjects: Subject[]; allow: AllowEntry[] }> {
  const wd = inputs.workingDirectory;
  const dir = repoPath(runner.repoRoot, wd);
  const configPath = inputs.config ?? findConfig(wd);
  const config = configPath ? await loadConfig(configPath) : undefined;
  const lockfile = inputs.lockfile ?? resolve(wd, LOCKFILE_NAME);
  // With compile: false the head lockfile is all there is to read: no source needed.
  const single = singleSource(inputs) ?? (!inputs.compile && !config ? { kind: 'file' as const, path: lockfile } : undefined);
  if (single) {
    const local = relative(wd, lockfile);
    const displaySource = single.kind === 'command' ? { ...single, cwd: undefined } : single.kind === 'file' ? { ...single, path: relative(wd, single.path) } : single;
    const subject: Subject = {
      target: { name: inputs.name ?? 'default', source: single, lockfile },
      id: inputs.name ?? repoPath(runner.repoRoot, lockfile),
      selection: { flags: sourceFlags(displaySource), lockfileFlag: local === LOCKFILE_NAME ? '' : ` --lockfile ${local}`, dir: dir === '.' ? '' : dir },
      lockfileRepoPath: repoPath(runner.repoRoot, lockfile),
      lockfileLocalPath: local,
    };
    if (inputs.name !== undefined) subject.name = inputs.name;
    return { subjects: [subject], allow: config?.allow ?? [] };
  }
  if (!config) {
    throw new UserError(
      `No MCP server to review: set the input "command" (e.g. node dist/server.js), "url" or "file", or commit ${CONFIG_NAME} ` +
        `listing your servers${inputs.workingDirectory === runner.workspace ? '' : ` in ${dir}`} (or point "config" at it).`,
    );
  }
  let targets = selectTargets(config, inputs.server);
  if (inputs.lockfile !== undefined) {
    if (targets.length !== 1) throw new UserError('"lockfile" names one file, but the config lists several servers: pick one with "server" (a matrix over the servers works well).');
    targets = [{ ...(targets[0] as Target), lockfile: inputs.lockfile }];
  }
  const configFlag = relative(wd, config.path) === CONFIG_NAME ? '' : ` --config ${relative(wd, config.path)}`;
  const subjects = targets.map((target): Subject => {
    const source = withInputOverrides(target.source, inputs);
    const local = relative(wd, target.lockfile);
    return {
      target: { ...target, source },
      id: target.name,
      name: target.name,
      selection: { flags: `--server ${target.name}${configFlag}`, lockfileFlag: inputs.lockfile !== undefined ? ` --lockfile ${local}` : '', dir: dir === '.' ? '' : dir },
      lockfileRepoPath: repoPath(runner.repoRoot, target.lockfile),
      lockfileLocalPath: local,
    };
  });
  return { subjects, allow: config.allow };
}

function singleSource(inputs: ActionInputs): ContractSource | undefined {
  const timeoutMs = inputs.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (inputs.command !== undefined) return withInputOverrides({ kind: 'command', command: splitCommand(inputs.command), cwd: inputs.workingDirectory, timeoutMs }, inputs);
  if (inputs.url !== undefined) return withInputOverrides({ kind: 'url', url: inputs.url, headers: inputs.headers, timeoutMs }, inputs);
  if (inputs.file !== undefined) return { kind: 'file', path: inputs.file };
  return undefined;
}

function withInputOverrides(source: ContractSource, inputs: ActionInputs): ContractSource {
  if (source.kind === 'file') return source;
  const out = { ...source };
  if (inputs.timeoutMs !== undefined) out.timeoutMs = inputs.timeoutMs;
  if (out.kind === 'url' && Object.keys(inputs.headers).length > 0) out.headers = { ...out.headers, ...inputs.headers };
  if (inputs.clientCapabilities !== undefined) out.clientCapabilities = inputs.clientCapabilities;
  // The server is the code under review: it never inherits the runner's environment (env.ts).
  if (out.kind === 'command') Object.assign(out, { isolateEnv: true, passEnv: [...new Set([...(out.passEnv ?? []), ...inputs.passEnv])] });
  return out;
}

/**
 * pull_request_target runs with the base repository's secrets and a write token: starting a
 * server from the PR's code there hands both to whoever opened the PR. Refuse unless the
 * workflow says, in an input named for the risk, that it knows.
 */
function guardPrivilegedEvent(plan: EventPlan, inputs: ActionInputs, subjects: Subject[]): void {
  if (!isPrivilegedPullRequestEvent(plan.eventName) || !inputs.compile || inputs.unsafeAllowPullRequestTarget) return;
  if (!subjects.some((s) => s.target.source.kind === 'command')) return;
  throw new UserError(
    'Refusing to start an MCP server under pull_request_target: that event runs with this repository\'s secrets and a write token, ' +
      'so running the code of a pull request there hands both to whoever opened it. Run the review on pull_request instead ' +
      '(for comments on fork PRs, add the workflow_run pattern of examples/workflows/fork-review.yml and fork-comment.yml), or set "compile: false" ' +
      'to review the committed lockfiles only. If every PR that can trigger this workflow is trusted, set "unsafe-allow-pull-request-target: true".',
  );
}

/** Whether the PR carries the approval label, and who added it. Labels are read live: a re-run keeps the old payload. */
async function approvalOf(plan: EventPlan, label: string, api: GitHubApi | undefined): Promise<Approval | undefined> {
  const pr = plan.pr!;
  let labels = pr.labels;
  if (api) {
    try {
      labels = await api.labels(pr.number);
    } catch (error) {
      core.info(`Could not read the labels of PR #${pr.number} (${errorMessage(error)}); using those of the event.`);
    }
  }
  if (!labels.includes(label)) return undefined;
  if (pr.labeled?.label === label) return { label, by: pr.labeled.by };
  const by = api ? await api.labeledBy(pr.number, label).catch(() => undefined) : undefined;
  return by === undefined ? { label } : { label, by };
}

async function draftReview(subject: Subject, inputs: ActionInputs, plan: EventPlan, runner: Runner, api: GitHubApi | undefined): Promise<Draft> {
  const { target } = subject;
  const notes: string[] = [];
  const headLockText = await readFile(target.lockfile, 'utf8').catch(() => null);
  const headSource: Draft['headSource'] = !inputs.compile ? 'lockfile' : target.source.kind === 'file' ? 'file' : 'server';
  const fix = lockCommand(subject.selection);
  const fail = (reviewError: string): Draft => ({ subject, name: subject.name ?? serverNameIn(headLockText) ?? subject.id, report: null, reviewError, headLockText, headSource, notes });

  // The head: compiled live (what the PR's code exposes now), or its lockfile when compile is off.
  let head: Contracts;
  if (!inputs.compile) {
    if (headLockText === null) return fail(`With "compile: false" the head lockfile is the head's contracts, but there is no ${subject.lockfileRepoPath}. Create it with: ${fix}`);
    try {
      head = parseLockfile(headLockText, subject.lockfileRepoPath);
    } catch (error) {
      if (error instanceof LockfileError) return fail(lockfileAdvice(error, fix));
      throw error;
    }
  } else {
    try {
      const compiled = await compileContracts(target.source, { onProgress: (m) => core.info(`› ${m}`) });
      head = compiled.contracts;
      for (const warning of compiled.warnings) core.info(`lint: ${warning}`);
      if (compiled.warnings.length > 0) notes.push(`The server has ${plural(compiled.warnings.length, 'lint warning')} (see the log of this step).`);
      if (compiled.healing?.healedSource) {
        const fixes = compiled.healing.attempts.map((a) => a.fixApplied).filter((f): f is string => f !== undefined);
        notes.push(
          `The server was captured only after mcp-contract-guard ${fixes.join(', then ')}: configure it that way to skip the failed attempts (as CLI flags: ${sourceFlags(compiled.healing.healedSource)}).`,
        );
      }
    } catch (error) {
      // A CompileError carries its diagnosis in plain words: no stack trace in a PR comment.
      if (error instanceof CompileError || error instanceof UserError) return fail(error.message);
      throw error;
    }
  }

  // Freshness: the head lockfile against the live head, kept apart from the review.
  let stale: Draft['stale'];
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
  if (stale) core.info(`Stale lockfile: ${stale.message} Fix: ${stale.command}`);

  // The baseline: the lockfile as committed at the base, whatever the PR did to it since.
  let base: Contracts;
  if (plan.baseline) {
    let text: string | null;
    try {
      const read = await readFileAtRef({ path: target.lockfile, ref: plan.baseline.ref, workspace: runner.repoRoot, api, log: (m) => core.info(m) });
      core.info(`Read ${subject.lockfileRepoPath} at ${shortSha(plan.baseline.ref)} through ${read.via}.`);
      text = read.text;
    } catch (error) {
      const why = isPermissionError(error) ? 'the token may not read this repository\'s contents' : errorMessage(error);
      return fail(`Could not read ${subject.lockfileRepoPath} at ${plan.baseline.describe}: ${why}.`);
    }
    if (text === null) {
      base = emptyContracts({ name: head.server.name });
      notes.push(`There is no ${subject.lockfileRepoPath} at ${plan.baseline.describe}: every entry counts as new.`);
    } else {
      try {
        base = parseLockfile(text, `${subject.lockfileRepoPath} at ${shortSha(plan.baseline.ref)}`);
      } catch (error) {
        if (!(error instanceof LockfileError)) throw error;
        base = emptyContracts({ name: head.server.name });
        notes.push(`${error.message} It is ignored: every entry counts as new.`);
      }
    }
  } else {
    base = headLocked ?? emptyContracts({ name: head.server.name });
    notes.push(`No base to compare with (${plan.noBaselineReason}): compared with ${subject.lockfileRepoPath} as checked out.`);
  }

  const report = await diffContracts(base, head);
  const name = subject.name ?? (head.server.name !== 'unknown' ? head.server.name : subject.id);
  core.info(`${name}: ${report.summary.maxSeverity === null ? 'no contract changes' : `worst change ${report.summary.maxSeverity}`}.`);
  const draft: Draft = { subject, name, report, headLockText, headSource, notes };
  if (stale) draft.stale = stale;
  return draft;
}

function finishReview(
  draft: Draft,
  inputs: ActionInputs,
  context: RunContext,
  plan: EventPlan,
  approval: Approval | undefined,
  acceptedBy: (fingerprint: string) => AllowEntry | undefined,
  allowNotes: string[],
): ServerReview {
  const accepted = (fingerprint: string) => acceptedBy(fingerprint) !== undefined;
  const gate = decideGate({
    server: draft.name,
    report: draft.report,
    failOn: inputs.failOn,
    accepted,
    ...(approval ? { approval } : {}),
    ...(plan.pr ? { approveLabel: inputs.approveLabel } : {}),
    ...(draft.stale ? { staleMessage: `${draft.stale.message} Fix it with \`${draft.stale.command}\` and commit ${draft.subject.lockfileRepoPath}.` } : {}),
    lockfileCheck: inputs.lockfileCheck,
    ...(draft.reviewError !== undefined ? { reviewError: draft.reviewError } : {}),
  });
  const entry = (d: { kind: string; name: string }) => `${d.kind}.${d.name}`;
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
    gate: {
      pass: gate.pass,
      review: gate.review,
      blocking: gate.blocking.map((d) => ({ entry: entry(d), severity: d.delta.severity, kind: d.delta.kind, field: d.delta.field, fingerprint: d.delta.fingerprint })),
      failures: gate.failures,
    },
    accepted: gate.accepted.map((d) => {
      const allowed = acceptedBy(d.delta.fingerprint)!;
      return { entry: entry(d), severity: d.delta.severity, fingerprint: d.delta.fingerprint, reason: allowed.reason, ...(allowed.expires ? { expires: allowed.expires } : {}) };
    }),
    allowNotes,
    reproduce: reproduceCommands({
      selection: draft.subject.selection,
      lockfileRepoPath: draft.subject.lockfileRepoPath,
      lockfileLocalPath: draft.subject.lockfileLocalPath,
      ...(plan.baseline ? { baselineRef: plan.baseline.ref } : {}),
      compile: inputs.compile && draft.headSource !== 'lockfile',
      failOn: inputs.failOn,
    }),
    notes: draft.notes,
  };
  if (plan.baseline) {
    review.baseline = plan.baseline.describe;
    review.baselineRef = plan.baseline.ref;
  }
  if (draft.reviewError !== undefined) review.reviewError = draft.reviewError;
  if (draft.stale) review.stale = draft.stale;
  if (approval && gate.review === 'approved') review.approval = approval;
  if (plan.pr) review.approveLabel = inputs.approveLabel;
  return review;
}

/** The artifact(s), the Markdown report, the review bundle and SARIF: the run's files. */
async function writeFiles(reviews: ServerReview[], drafts: Draft[], inputs: ActionInputs, runner: Runner, context: RunContext, plan: EventPlan) {
  const several = reviews.length > 1;
  const artifacts: string[] = [];
  for (const review of reviews) {
    if (!review.report) continue;
    const path = several ? withSuffix(inputs.artifactPath, review.id) : inputs.artifactPath;
    await writeText(path, renderArtifact(review.report));
    artifacts.push(path);
  }
  const scratch = join(runner.temp, 'mcp-contract-guard');
  const reportPath = join(scratch, 'report.md');
  await writeText(reportPath, renderSummary(reviews, []));
  const reviewPath = inputs.reviewPath ?? join(scratch, 'mcp-contract-guard-review.json');
  const bundle: ReviewBundle = { version: BUNDLE_VERSION, repository: `${context.repo.owner}/${context.repo.repo}`, pullRequest: plan.pr?.number ?? null, headSha: plan.headSha, reviews };
  await writeText(reviewPath, renderBundle(bundle));
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
    await writeText(inputs.sarifPath, `${JSON.stringify({ ...first, runs }, null, 2)}\n`);
    paths.sarif = inputs.sarifPath;
  }
  const shown = (p: string) => (relative(runner.workspace, p).startsWith('..') ? p : relative(runner.workspace, p));
  core.info(`Wrote ${[...artifacts, reportPath, reviewPath, ...(paths.sarif ? [paths.sarif] : [])].map(shown).join(', ')}.`);
  return paths;
}

function emitAnnotations(reviews: ServerReview[], drafts: Draft[], allowNotes: string[]): void {
  // Allow-list housekeeping shares the notice slots, after every contract change.
  const candidates: Annotation[] = allowNotes.map((message) => ({ level: 'notice', title: 'mcp-contract-guard allow-list', message, rank: -1 }));
  reviews.forEach((review, i) => {
    const draft = drafts[i]!;
    const lockfile = draft.headLockText !== null ? { file: review.lockfile, text: draft.headLockText } : undefined;
    // A review that could not be made is already the step's failure message: no second copy.
    if (review.stale && review.lockfileCheck !== 'off') {
      candidates.push({ level: review.lockfileCheck === 'fail' ? 'error' : 'warning', title: `Stale lockfile (${review.name})`, message: `${review.stale.message} Fix: ${review.stale.command}`, rank: 9_000, file: review.lockfile, line: 1 });
    }
    if (review.report) {
      const accepted = new Set(review.accepted.map((a) => a.fingerprint));
      candidates.push(...entryAnnotations({ server: review.name, report: review.report, ...(lockfile ? { lockfile } : {}), isAccepted: (f) => accepted.has(f) }));
    }
  });
  for (const a of selectAnnotations(candidates)) {
    const properties = { title: a.title, ...(a.file !== undefined ? { file: a.file, startLine: a.line ?? 1 } : {}) };
    if (a.level === 'error') core.error(a.message, properties);
    else if (a.level === 'warning') core.warning(a.message, properties);
    else core.notice(a.message, properties);
  }
}

/**
 * Create or update each server's sticky comment. Never fails the step: a token that may not
 * comment (a fork's, a read-only one) gets one warning explaining the two-workflow pattern,
 * and anything else a warning of its own. Returns those warnings.
 */
async function postComments(api: GitHubApi, issue: number, reviews: ServerReview[], inputs: Pick<ActionInputs, 'comment' | 'mode'>): Promise<string[]> {
  const warnings: string[] = [];
  for (const review of reviews) {
    const marker = commentMarker(review.id, review.job);
    try {
      const existing = await api.findStickyComment(issue, marker);
      const plan = planComment({ mode: inputs.comment, existing, changed: hasSomethingToSay(review), body: renderComment(review), quietBody: renderQuietComment(review) });
      if (plan.action === 'none') {
        core.info(`Comment for ${review.name}: nothing to do (${plan.reason}).`);
        continue;
      }
      const posted = plan.action === 'update' ? await api.updateComment(plan.id, plan.body) : await createOnce(api, issue, marker, plan.body);
      core.info(`Comment for ${review.name}: ${plan.action === 'update' ? 'updated' : 'created'} ${posted.html_url ?? `#${posted.id}`}.`);
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
 * A POST that failed on a transient error may still have created the comment: look for it
 * before trying again, so a flaky network never leaves two sticky comments.
 */
async function createOnce(api: GitHubApi, issue: number, marker: string, body: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api.createComment(issue, body);
    } catch (error) {
      if (!isTransient(error) || attempt >= DEFAULT_RETRY.attempts) throw error;
      core.info(`Creating the comment failed (${errorMessage(error)}); checking whether it landed before trying again.`);
      await new Promise((r) => setTimeout(r, retryPolicy().baseMs * attempt));
      const landed = await api.findStickyComment(issue, marker);
      if (landed) return landed.body === body ? landed : await api.updateComment(landed.id, body);
    }
  }
}

/**
 * `mode: comment-only`: post the comments of a review computed by another job, without
 * running any code of the PR. The bundle comes from that (possibly untrusted) job, so it is
 * validated, and its PR number must belong to the commit the triggering run reviewed.
 */
async function commentOnly(inputs: ActionInputs, context: RunContext, runner: Runner, api: GitHubApi | undefined): Promise<void> {
  const path = inputs.reviewPath ?? resolve(inputs.workingDirectory, 'mcp-contract-guard-review.json');
  const text = await readFile(path, 'utf8').catch(() => {
    throw new UserError(`There is no review file at ${path}. In the workflow_run job, download the artifact the pull_request job uploaded (its "review-path" output) and point "review-path" at the file.`);
  });
  const bundle = parseBundle(text, relative(runner.workspace, path) || path);
  const repository = `${context.repo.owner}/${context.repo.repo}`;
  if (bundle.repository !== repository) throw new UserError(`The review file is for ${bundle.repository}, but this run is in ${repository}.`);
  for (const [name, value] of Object.entries(computeOutputs(bundle.reviews, { artifacts: [], report: '', review: path }))) core.setOutput(name, value);
  const warnings: string[] = [];
  if (bundle.pullRequest === null) {
    warnings.push('The review file is not about a pull request (its run was not triggered by one): nothing to comment on.');
  } else if (!api) {
    throw new UserError('mode: comment-only needs a token: set "github-token" (the default, github.token, works with "permissions: pull-requests: write").');
  } else {
    const run = context.payload.workflow_run as { head_sha?: string } | undefined;
    if (run?.head_sha !== undefined && run.head_sha !== bundle.headSha) {
      throw new UserError(`The review file is about commit ${shortSha(bundle.headSha)}, but the workflow run that triggered this one reviewed ${shortSha(run.head_sha)}: refusing to post it.`);
    }
    const prHead = await api.pullRequestHead(bundle.pullRequest);
    if (prHead !== bundle.headSha) {
      warnings.push(`PR #${bundle.pullRequest} has moved on to ${shortSha(prHead)} since this review of ${shortSha(bundle.headSha)}: not posting it (the newer commit's run will).`);
    } else {
      warnings.push(...(await postComments(api, bundle.pullRequest, bundle.reviews, inputs)));
    }
  }
  for (const warning of warnings) core.warning(warning);
  await writeSummary(renderSummary(bundle.reviews, warnings));
}

/** The job summary; outside a runner (no GITHUB_STEP_SUMMARY) the report file is enough. */
async function writeSummary(markdown: string): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) {
    core.info('No GITHUB_STEP_SUMMARY: the job summary is only in the report file ("report-path").');
    return;
  }
  await core.summary.addRaw(markdown).write();
}

async function runnerOf(): Promise<Runner> {
  const workspace = resolve(process.env.GITHUB_WORKSPACE ?? process.cwd());
  const temp = resolve(process.env.RUNNER_TEMP ?? tmpdir());
  const repoRoot = (await repoRootOf(join(workspace, '.'))) ?? workspace;
  return { workspace, temp, repoRoot };
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

async function writeText(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
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


