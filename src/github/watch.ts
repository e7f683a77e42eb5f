/**
 * `mode: watch`, on a schedule: every server of the pin file (docs/pinning.md) checked at its
 * latest release, and one issue per server that drifted from its pin, kept up to date:
 *
 * - a server whose command runs a registry package (npx, uvx) is started at the latest version
 *   the registry has (resolved as `pin` resolves it); one at the pinned version already has
 *   nothing new to check; a server reached over HTTP is captured as it answers now; any other
 *   command has no release to check, and is said to be skipped;
 * - what the release exposes is diffed against the pin with the whole engine (the semantic
 *   cross-check included); a release that changes anything opens an issue (label `watch-label`)
 *   with the review, the same digest-first body as a pull request's comment, or updates the one
 *   already open when the review changed; a server whose pin matches its latest release (pinned
 *   again, say) gets its open issue closed, with a comment saying so, and so does a server no
 *   longer in the pin file. An issue a person closed for a release is not opened again for that
 *   release: the next release that drifts opens a new one.
 *
 * An issue is found again by the hidden marker on its first line (the pin file and the server),
 * and only if this Action's identity opened it, as with the sticky comment. A pin that does not
 * match its digests is refused: the watch compares releases with the pin that was reviewed.
 */
import * as core from '@actions/core';
import { relative } from 'node:path';
import { CompileError, DEFAULT_TIMEOUT_MS, compileContracts, declaringAsRecorded, shellQuote, type ContractSource } from '../compile/index.js';
import { LockfileError } from '../contract/lockfile.js';
import { parsePinFile, type PinFile, type PinnedServer } from '../contract/pins.js';
import { diffContracts } from '../diff/index.js';
import { UserError, errorMessage } from '../errors.js';
import { ResolveError, packageOf, resolveVersion, withVersion } from '../pin/packages.js';
import { repinCommand } from '../pin/repin.js';
import { decideReview } from '../policy/review.js';
import type { DiffReport, ServerReview } from '../protocol/index.js';
import { mdCell, mdCode, mdText, truncate } from '../report/index.js';
import { CLI_COMMAND } from '../version.js';
import {
  isOwn,
  log,
  markerValue,
  readWorkspaceFile,
  redactor,
  registerCredentials,
  tamperingMessage,
  writeSummary,
  type ActionInputs,
  type CommandFileGuard,
  type GitHubApi,
  type RepoIssue,
  type RunContext,
  type Runner,
} from './io/index.js';
import { renderDriftReview, SUMMARY_LIMIT } from './render/index.js';
import { plural } from './text.js';
import { runUrl } from './post.js';

/** What the watch found for one pinned server. */
type Check =
  | { kind: 'checked'; release: string; command: string[] | undefined; report: DiffReport }
  | { kind: 'current'; release: string }
  | { kind: 'skipped'; why: string }
  | { kind: 'failed'; why: string };

/** What became of a server's issue: `dismissed` when a person closed the issue of this very release. */
type IssueAction = 'opened' | 'updated' | 'unchanged' | 'dismissed' | 'closed' | 'none';

/** GitHub refuses an issue title longer than this. */
const TITLE_LIMIT = 256;

export function watchMarker(pinFile: string, server: string): string {
  return `${markerPrefix(pinFile)}${markerValue(server)} -->`;
}

function markerPrefix(pinFile: string): string {
  return `<!-- mcp-contract-guard:watch pins=${markerValue(pinFile)} server=`;
}

/** Where a watch may run: events of the repository itself, never one a pull request's code steers. */
const WATCH_EVENTS = ['schedule', 'workflow_dispatch', 'push', 'repository_dispatch'];

export async function watchPins(inputs: ActionInputs, context: RunContext, runner: Runner, api: GitHubApi | undefined, commandFiles: CommandFileGuard): Promise<void> {
  if (!WATCH_EVENTS.includes(context.eventName)) {
    throw new UserError(`mode: watch runs on ${WATCH_EVENTS.join(', ')} (a schedule, usually): under ${context.eventName} the pin file, and so the servers it starts, could be a pull request's.`);
  }
  const shown = relative(runner.workspace, inputs.pinFile) || inputs.pinFile;
  const pins = await readPins(inputs.pinFile, shown, runner);
  if (!api) throw new UserError('mode: watch opens an issue for each server that drifted: set "github-token" (with "issues: write").');
  const issues = await watchIssues(api, inputs.watchLabel, shown);

  const rows: string[] = [];
  const failures: string[] = [];
  const drifted: Array<{ review: ServerReview; verdict: string }> = [];
  const names = Object.keys(pins.servers).sort();
  for (const name of names) {
    const pin = pins.servers[name] as PinnedServer;
    core.startGroup(`Checking ${name}`);
    let check: Check;
    try {
      check = await checkServer(name, pin, inputs, runner);
    } finally {
      core.endGroup();
    }
    const marker = watchMarker(shown, name);
    const mine = issues.filter((issue) => firstLine(issue) === marker);
    const open = mine.find((issue) => issue.state === 'open');
    let action: IssueAction = 'none';
    let link = open?.html_url;
    if (check.kind === 'checked' && check.report.summary.maxSeverity !== null) {
      const review = reviewOf(name, check, inputs, context);
      const verdict = driftVerdict(name, pin, check, shown, pins);
      drifted.push({ review, verdict });
      const body = redactor.redact(renderDriftReview(review, { verdict, issue: { marker, compared: `pinned ${mdCode(pinnedLabel(pin))} → ${mdCode(check.release)}` } }));
      const title = redactor.redact(truncate(`MCP server "${name}" drifted from its pin: ${pinnedLabel(pin)} → ${check.release}`, TITLE_LIMIT));
      const dismissed = mine.find((issue) => issue.state === 'closed' && issue.title === title);
      if (open !== undefined) {
        // The footer links this run: a body that differs only there says nothing new.
        if (open.title === title && withoutFooter(open.body ?? '') === withoutFooter(body)) action = 'unchanged';
        else {
          await api.updateIssue(open.number, { title, body });
          action = 'updated';
        }
      } else if (dismissed !== undefined) {
        action = 'dismissed';
        link = dismissed.html_url;
      } else {
        const created = await api.createIssue(title, body, [inputs.watchLabel]);
        action = 'opened';
        link = created.html_url;
        if (!created.labels?.some((label) => (typeof label === 'string' ? label : label.name) === inputs.watchLabel)) {
          log.warning(`GitHub did not put the label "${inputs.watchLabel}" on issue #${created.number}, by which the next run finds it: give the workflow "issues: write", or create the label.`);
        }
      }
    } else if ((check.kind === 'checked' || check.kind === 'current') && open !== undefined) {
      await closeIssue(api, open, `The pin of ${mdCode(name)} in ${mdCode(shown)} now matches its latest release (${mdCode(check.release)}): closing.`);
      action = 'closed';
    }
    if (check.kind === 'failed') failures.push(`The pinned server ${name} could not be checked: ${check.why}`);
    const issueCell = action === 'none' ? '' : link !== undefined ? `[${action}](${link})` : action;
    rows.push(`| ${mdCell(mdCode(name))} | ${mdCell(mdCode(pinnedLabel(pin)))} | ${mdCell(describeCheck(check, mdCode, (why) => mdText(truncate(why, 500))))} | ${issueCell} |`);
    log.info(`${name}: ${describeCheck(check, (text) => text)}${action === 'none' ? '' : ` (issue ${action})`}.`);
  }

  // A server no longer pinned has nothing to drift from: its issue is closed.
  for (const issue of issues) {
    const server = issue.state === 'open' ? serverOfMarker(firstLine(issue), shown) : undefined;
    if (server === undefined || Object.hasOwn(pins.servers, server)) continue;
    await closeIssue(api, issue, `${mdCode(server)} is no longer pinned in ${mdCode(shown)}: closing.`);
    rows.push(`| ${mdCell(mdCode(server))} | no longer pinned | | [closed](${issue.html_url ?? ''}) |`);
    log.info(`${server}: no longer pinned (issue closed).`);
  }

  // The servers are third-party code: what they wrote to the runner's command files is undone, and fails the step.
  const tampered = await commandFiles.restore();
  if (tampered.length > 0) failures.unshift(tamperingMessage(tampered, 'pinned'));
  await writeSummary(redactor.redact(watchSummary(names.length, shown, rows, drifted))).catch((error: unknown) => log.info(`Could not write the job summary: ${errorMessage(error)}`));
  core.setOutput('drifted', drifted.map(({ review }) => review.name).join(','));
  if (failures.length > 0) core.setFailed(redactor.redact(failures.join('\n')));
}

async function readPins(path: string, shown: string, runner: Runner): Promise<PinFile> {
  const text = await readWorkspaceFile(path, runner.roots, 'the pin file');
  if (text === null) throw new UserError(`There is no pin file at ${shown}: write it with "${CLI_COMMAND} pin <client configuration>" and commit it, or point "pin-file" at it.`);
  try {
    return parsePinFile(text, shown);
  } catch (error) {
    if (!(error instanceof LockfileError)) throw error;
    const cause = error.problem === 'tampered' ? ' The watch compares releases with the pin that was reviewed: restore it from version control, or pin again.' : '';
    throw new UserError(`${error.message}${cause}`);
  }
}

/**
 * The issues of the label, open and closed, that this Action's identity opened for servers of
 * this pin file (their first line is a watch marker), oldest first. Issues by any other account
 * carrying the marker are trusted only when the token is that account's (a PAT), as comments are.
 */
async function watchIssues(api: GitHubApi, label: string, pinFile: string): Promise<RepoIssue[]> {
  const marked = (await api.issuesWithLabel(label)).filter((issue) => serverOfMarker(firstLine(issue), pinFile) !== undefined);
  const login = marked.some((issue) => !isOwn(issue)) ? await api.ownLogin() : undefined;
  return marked.filter((issue) => isOwn(issue, login));
}

function firstLine(issue: RepoIssue): string {
  return (issue.body ?? '').split(/\r?\n/, 1)[0] ?? '';
}

/** The server a watch marker of `pinFile` names, undefined for any other line. */
function serverOfMarker(line: string, pinFile: string): string | undefined {
  const prefix = markerPrefix(pinFile);
  if (!line.startsWith(prefix) || !line.endsWith(' -->')) return undefined;
  try {
    return decodeURIComponent(line.slice(prefix.length, -' -->'.length));
  } catch {
    return undefined;
  }
}

async function closeIssue(api: GitHubApi, issue: RepoIssue, why: string): Promise<void> {
  await api.createComment(issue.number, redactor.redact(why));
  await api.updateIssue(issue.number, { state: 'closed', state_reason: 'completed' });
}

/** An issue's body without its last line, the footer, which links the run that wrote it. */
function withoutFooter(body: string): string {
  const end = body.trimEnd();
  return end.slice(0, Math.max(0, end.lastIndexOf('\n')));
}

/** The release to check, started (or reached) and diffed against the pin. */
async function checkServer(name: string, pin: PinnedServer, inputs: ActionInputs, runner: Runner): Promise<Check> {
  const { launch } = pin;
  let source: ContractSource;
  let release: string;
  let command: string[] | undefined;
  const pkg = launch.command === undefined ? undefined : packageOf(launch.command[0] as string, launch.command.slice(1));
  if (launch.command !== undefined && pkg !== undefined && launch.package !== undefined) {
    let latest: string;
    try {
      latest = await resolveVersion({ ...pkg, requested: '' });
    } catch (error) {
      if (!(error instanceof ResolveError)) throw error;
      return { kind: 'failed', why: `cannot tell the latest release of ${pkg.name}: ${error.message}` };
    }
    release = `${pkg.name}@${latest}`;
    if (latest === launch.package.version) return { kind: 'current', release };
    command = [launch.command[0] as string, ...withVersion(launch.command.slice(1), pkg, latest)];
    const missing = (launch.env ?? []).filter((variable) => process.env[variable] === undefined);
    if (missing.length > 0) log.warning(`${name} is given ${missing.join(', ')} by its client configuration, which this step's environment does not set: it may not start (set it from a secret in the workflow's env).`);
    source = { kind: 'command', command, cwd: runner.workspace, isolateEnv: true, passEnv: (launch.env ?? []).filter((variable) => process.env[variable] !== undefined), timeoutMs: inputs.timeoutMs ?? DEFAULT_TIMEOUT_MS };
  } else if (launch.url !== undefined) {
    release = `${launch.url} as it answers now`;
    // Only the headers the client configuration gives this server: a secret meant for one server never reaches another.
    const named = new Set((launch.headers ?? []).map((header) => header.toLowerCase()));
    const headers = Object.fromEntries(Object.entries(inputs.headers).filter(([header]) => named.has(header.toLowerCase())));
    source = { kind: 'url', url: launch.url, headers, timeoutMs: inputs.timeoutMs ?? DEFAULT_TIMEOUT_MS };
  } else {
    return { kind: 'skipped', why: launch.command === undefined ? 'the pin records no launch' : 'its command runs no registry package: no release to check' };
  }
  const declared = declaringAsRecorded(source, pin.contracts.clientCapabilities).source;
  registerCredentials(declared);
  try {
    const compiled = await compileContracts(declared, { onProgress: (message) => log.info(`${name}: ${message}`) });
    const report = await diffContracts(pin.contracts, compiled.contracts);
    return { kind: 'checked', release, command, report };
  } catch (error) {
    if (error instanceof CompileError || error instanceof UserError) return { kind: 'failed', why: error.message };
    throw error;
  }
}

/** What the check found, in a few words; `code` renders a name or a version (Markdown, or plain for the log). */
function describeCheck(check: Check, code: (text: string) => string, text: (text: string) => string = code): string {
  switch (check.kind) {
    case 'checked':
      return check.report.summary.maxSeverity === null ? `matches ${code(check.release)}` : `drifted: ${code(check.release)}, ${check.report.summary.maxSeverity}`;
    case 'current':
      return `pinned at its latest release (${code(check.release)})`;
    case 'skipped':
      return `skipped: ${text(check.why)}`;
    case 'failed':
      return `could not be checked: ${text(check.why)}`;
  }
}

/** The job summary: a table of every server, then each drifted server's full review (its issue may be cut). */
function watchSummary(count: number, pinFile: string, rows: string[], drifted: Array<{ review: ServerReview; verdict: string }>): string {
  const outcome = drifted.length === 0 ? 'none drifted' : `${plural(drifted.length, 'drifted', 'drifted')} (${drifted.map(({ review }) => mdCode(review.name)).join(', ')})`;
  const head = [
    '## MCP pin watch',
    `${plural(count, 'pinned server')} of ${mdCode(pinFile)} checked at their latest release: ${outcome}.`,
    '| Server | Pinned | Latest release | Issue |\n| --- | --- | --- | --- |\n' + rows.join('\n'),
  ].join('\n\n');
  const share = Math.floor((SUMMARY_LIMIT - head.length) / Math.max(1, drifted.length));
  const sections = drifted.map(({ review, verdict }) => `### ${mdCode(review.name)}\n\n${renderDriftReview(review, { verdict }, Math.max(2_000, share - 200))}`);
  return `${[head, ...sections].join('\n\n')}\n`;
}

/** What was pinned, for people: the package at its version, else the URL or the command as launched. */
function pinnedLabel(pin: PinnedServer): string {
  const { launch } = pin;
  if (launch.package !== undefined) return `${launch.package.name}@${launch.package.version}`;
  if (launch.url !== undefined) return launch.url;
  return launch.command === undefined ? pin.contracts.server.name : truncate(launch.command.map(shellQuote).join(' '), 200);
}

/** The issue's opening paragraph: what drifted, and how to accept it once reviewed. */
function driftVerdict(name: string, pin: PinnedServer, check: Check & { kind: 'checked' }, pinFile: string, pins: PinFile): string {
  const { summary } = check.report;
  const repin = repinCommand(pins.configuration, pinFile, name) ?? `${CLI_COMMAND} pin <client configuration> --server ${shellQuote(name)} --lockfile ${shellQuote(pinFile)}`;
  const move = pin.launch.package !== undefined ? `move the configuration to ${mdCode(check.release)} and pin the server again` : 'pin the server again';
  return (
    `> [!${summary.maxSeverity === 'BREAKING' ? 'CAUTION' : 'WARNING'}]\n` +
    `> **${mdCode(name)} drifted from its pin**: ${mdCode(check.release)} exposes other contracts than the ${mdCode(pinnedLabel(pin))} pinned in ${mdCode(pinFile)}. ` +
    `If the changes below are acceptable, ${move} (${mdCode(repin)}), then commit ${mdCode(pinFile)}: the next check closes the issue. ` +
    'If they are not, keep the pin (the proxy holds the server to it) and close the issue: it is not opened again for this release.'
  );
}

/** The review the issue and the summary render: the watch reports, and gates nothing (its review is decided at fail-on never). */
function reviewOf(name: string, check: Check & { kind: 'checked' }, inputs: ActionInputs, context: RunContext): ServerReview {
  const review: ServerReview = {
    id: name,
    name,
    job: context.job,
    lockfile: '',
    headSha: context.sha,
    headSource: 'server',
    report: check.report,
    lockfileCheck: 'off',
    failOn: inputs.failOn,
    ...decideReview({ server: name, report: check.report, failOn: 'never', acceptedBy: () => undefined, lockfileCheck: 'off' }).review,
    allowNotes: [],
    reproduce: [],
    // The footer names the pin and the release; how the release was started is said here.
    notes: check.command === undefined ? [] : [`The release was started as ${check.command.map(shellQuote).join(' ')}.`],
  };
  const url = runUrl();
  if (url !== undefined) review.runUrl = url;
  return review;
}
