/**
 * Review one server, before the allow list and the gate (they look at every server at once):
 * the head's contracts (captured live, or its lockfile), the freshness of its lockfile, the
 * baseline the base commit's config names, and the diff between them.
 */
import {
  CompileError,
  compileContracts,
  contractsOfFile,
  declaringAsRecorded,
  lockfileAdvice,
  parseContractsFile,
  sourceFlags,
  type Compiled,
  type ContractSource,
} from '../compile/index.js';
import { compareContracts, hasChanges } from '../contract/compare.js';
import { LockfileError, parseLockfile, recordedClientCapabilities } from '../contract/lockfile.js';
import { ENTRY_KINDS, emptyContracts, type Contracts } from '../contract/model.js';
import { diffContracts } from '../diff/index.js';
import type { SeverityOverrides } from '../rules/index.js';
import { todayUtc } from '../policy/allow.js';
import { UserError, errorMessage } from '../errors.js';
import type { CaptureFile, DiffReport, ServerReview } from '../protocol/index.js';
import { capturedContracts, isPermissionError, log, repoPath, type ActionInputs, type EventPlan, type GitHubApi, type Runner, type Tree } from './io/index.js';
import { plural, shortSha } from './text.js';
import { lockCommand } from './render/index.js';
import type { Subject } from './subjects.js';

/** One review run: what it was asked, about which event, and where each side's files are read. */
export interface Run {
  inputs: ActionInputs;
  plan: EventPlan;
  runner: Runner;
  api: GitHubApi | undefined;
  head: Tree;
  /** The base commit's files; absent when there is no base. */
  base?: Tree;
  /** The base config's severity overrides (subjects.ts says why not the head's). */
  rules?: SeverityOverrides;
  /** The servers' contracts as another job captured them (`capture-file`): no server is started. */
  captured?: { file: CaptureFile; label: string };
}

/** Review one server, before the allow-list and the gate (they look at every server at once). */
export interface ServerDraft {
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
  /** The names the server gives itself (serverInfo.name) at the base and at the head: what a usage summary is matched by. */
  serverNames?: string[];
}

/**
 * What the base commit holds for one server. It is read, with the base's config, before any
 * code of the pull request starts (a server could otherwise rewrite the clone it is read from
 * while it starts), and through a reader that checks every object against its name.
 */
export type BaseLockfile =
  | { kind: 'no-base' }
  /** A server the base's config does not list. */
  | { kind: 'new-server' }
  | { kind: 'absent'; shown: string }
  | { kind: 'text'; text: string; shown: string }
  | { kind: 'unreadable'; message: string };

export async function readBaseLockfile(subject: Subject, run: Run): Promise<BaseLockfile> {
  const { plan } = run;
  if (!plan.baseline || !run.base) return { kind: 'no-base' };
  if (subject.baseLockfile === undefined) return { kind: 'new-server' };
  const shown = repoPath(run.runner.repoRoot, subject.baseLockfile);
  try {
    const text = await run.base.read(subject.baseLockfile, 'the base lockfile');
    return text === null ? { kind: 'absent', shown } : { kind: 'text', text, shown };
  } catch (error) {
    const why = isPermissionError(error) ? 'the token may not read this repository\'s contents' : errorMessage(error).replace(/\.$/, '');
    return { kind: 'unreadable', message: `Could not read ${shown} at ${plan.baseline.describe}: ${why}.` };
  }
}

export async function draftReview(subject: Subject, run: Run, baseLockfile: BaseLockfile): Promise<ServerDraft> {
  const { target } = subject;
  const { inputs } = run;
  const notes = subject.planNote !== undefined ? [subject.planNote] : [];
  const fix = lockCommand(subject.selection);
  let headLockText: string | null = null;
  const headSource: ServerDraft['headSource'] = !target ? 'removed' : !inputs.compile ? 'lockfile' : target.source.kind === 'file' ? 'file' : 'server';
  const fail = (reviewError: string): ServerDraft => ({ subject, name: subject.name ?? serverNameIn(headLockText) ?? subject.id, report: null, reviewError, headLockText, headSource, notes, versions: {} });

  // A server the head's config dropped: every entry of its base lockfile is removed.
  if (!target) {
    const base = baselineOf(subject, run, baseLockfile, subject.id, undefined, notes);
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
    } else if (run.captured) {
      const captured = capturedContracts(run.captured.file, subject.id, run.captured.label);
      if (typeof captured === 'string') return fail(captured);
      notes.push(...captured.notes);
      head = reportWarnings({ ...captured, warnings: captured.warnings }, notes).contracts;
    } else {
      const live = await captureLive(target.source, headLockText, subject);
      notes.push(...live.notes);
      head = reportWarnings(live.compiled, notes).contracts;
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

  const base = baselineOf(subject, run, baseLockfile, head.server.name, headLocked, notes);
  if (typeof base === 'string') return fail(base);
  // The artifact dates the release it describes: the deprecation window of renames counts from it.
  const release = { ...(head.server.version !== undefined ? { version: head.server.version } : {}), date: run.plan.releasedAt ?? todayUtc(process.env.MCP_CONTRACT_GUARD_TODAY) };
  const report = await diffContracts(base, head, { severityOverrides: run.rules ?? {}, release });
  const name = subject.name ?? (head.server.name !== 'unknown' ? head.server.name : subject.id);
  log.info(`${name}: ${report.summary.maxSeverity === null ? 'no contract changes' : `worst change ${report.summary.maxSeverity}`}.`);
  const draft: ServerDraft = { subject, name, report, headLockText, headSource, notes, versions: versionsOf(base, head), serverNames: [base.server.name, head.server.name] };
  if (stale) draft.stale = stale;
  return draft;
}

/**
 * Start a server and capture its contracts, as the review does and as `mode: capture` does for
 * a review in another job: the notes say how (a healed start, capabilities other than its
 * lockfile's).
 */
export async function captureLive(source: ContractSource, headLockText: string | null, subject: Subject): Promise<{ compiled: Compiled; notes: string[] }> {
  const notes: string[] = [];
  const compiled = await compileContracts(declaringAsLocked(source, headLockText, subject, notes), { onProgress: (m) => log.info(`› ${m}`) });
  if (compiled.healing?.healedSource) {
    const fixes = compiled.healing.attempts.map((a) => a.fixApplied).filter((f): f is string => f !== undefined);
    notes.push(`The server was captured only after mcp-contract-guard ${fixes.join(', then ')}: configure it that way to skip the failed attempts (as CLI flags: ${sourceFlags(compiled.healing.healedSource)}).`);
  }
  return { compiled, notes };
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
function baselineOf(subject: Subject, run: Run, base: BaseLockfile, serverName: string, headLocked: Contracts | undefined, notes: string[]): Contracts | string {
  const { plan } = run;
  const empty = () => emptyContracts({ name: serverName });
  switch (base.kind) {
    case 'no-base':
      notes.push(`No base to compare with (${plan.noBaselineReason}): compared with ${subject.lockfileRepoPath} as checked out.`);
      return headLocked ?? empty();
    // The plan's note says it is new.
    case 'new-server':
      return empty();
    case 'unreadable':
      return base.message;
    case 'absent':
      notes.push(`There is no ${base.shown} at ${plan.baseline?.describe}: every entry counts as new.`);
      return empty();
    case 'text':
      try {
        return parseLockfile(base.text, `${base.shown} at ${shortSha(plan.baseline?.ref ?? '')}`);
      } catch (error) {
        if (!(error instanceof LockfileError)) throw error;
        notes.push(`${error.message} It is ignored: every entry counts as new.`);
        return empty();
      }
  }
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
