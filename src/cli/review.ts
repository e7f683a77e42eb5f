/**
 * What `check` and `diff` share once they hold a report: the config's allow list and the review
 * (decided by policy/review.ts, as the Action's), the report in the asked format,
 * the verdict beside it, and the delta artifact.
 */
import { resolve } from 'node:path';
import type { AllowEntry } from '../policy/allow.js';
import { shellQuote } from '../compile/source.js';
import { ENTRY_NOUN } from '../contract/model.js';
import { DEFAULT_UNUSED_DAYS, SEVERITIES, UsageSummaryError, readUsageSummaryText, type CheckMode, type DiffReport, type FailOn, type Release } from '../protocol/index.js';
import { UserError } from '../errors.js';
import { readTextIfExists, writeTextAtomically } from '../files.js';
import { allowListNotes, evaluateAllowList, offeredExpiry, todayUtc } from '../policy/allow.js';
import { judgeChanges, type ChangePolicy } from '../policy/judge.js';
import type { LocatedDelta } from '../policy/deltas.js';
import type { GateDecision } from '../policy/gate.js';
import { decideReview } from '../policy/review.js';
import { terminalText, truncate } from '../report/escape.js';
import { CLI_COMMAND } from '../version.js';
import type { CliArgs } from './args.js';
import type { Format } from './commands.js';
import type { CommandContext } from './context.js';

export interface Review {
  server: string;
  /** The names the report's server goes by (previous and current), matched against a usage summary's. */
  names?: readonly string[];
  report: DiffReport;
}

export interface Judgement {
  /** The report as judged: a usage summary's downgrades and evidence applied. */
  report: DiffReport;
  gate: GateDecision;
  acceptedBy: (fingerprint: string) => AllowEntry | undefined;
}

/** Most blocking changes listed by fingerprint in the verdict; the report has them all. */
const MAX_LISTED = 20;

function today(): string {
  return todayUtc(process.env.MCP_CONTRACT_GUARD_TODAY);
}

/**
 * The usage summary and the allow list's verdict on each delta (the Action's policy, in the same
 * place), then the gate at `failOn`. `stale` (check) is a lockfile that no longer matches its
 * server, which fails the gate when `lockfileCheck` is fail, as in the Action.
 */
export function judge(review: Review, failOn: FailOn, allow: AllowEntry[], options: { usage?: ChangePolicy['usage']; stale?: { message: string; lockfileCheck: CheckMode } } = {}): Judgement {
  const { usage, stale } = options;
  const { reports, allow: evaluation } = judgeChanges([{ server: review.server, names: review.names ?? [review.server], report: review.report }], { allow, today: today(), ...(usage ? { usage } : {}) });
  const report = reports[0] as DiffReport;
  const { acceptedBy } = evaluation;
  const { gate } = decideReview({
    server: review.server,
    report,
    failOn,
    acceptedBy,
    lockfileCheck: stale?.lockfileCheck ?? 'off',
    ...(stale ? { staleMessage: stale.message } : {}),
  });
  return { report, gate, acceptedBy };
}

/**
 * The usage summary of `--usage`, read as hostile: a file that is not a summary of this version
 * is an error (asked for, it is never silently ignored), and so is one cut short or edited.
 */
export async function readUsageOption(context: CommandContext): Promise<ChangePolicy['usage']> {
  const { usage } = context.args;
  const days = context.args.flags['unused-days'];
  if (usage === undefined) {
    if (days !== undefined) throw new UserError('--unused-days only applies with --usage FILE (a usage summary).');
    return undefined;
  }
  const unusedDays = days === undefined ? DEFAULT_UNUSED_DAYS : /^\d{1,5}$/.test(days) ? Number(days) : 0;
  if (unusedDays < 1 || unusedDays > 3650) throw new UserError(`--unused-days takes a whole number of days from 1 to 3650; got "${days}".`);
  const path = resolve(context.io.cwd, usage);
  const text = await readTextIfExists(path, 'the usage summary');
  const advice = `Write one with: ${CLI_COMMAND} usage summarize <recordings…> --out ${shellQuote(usage)}`;
  if (text === undefined) throw new UserError(`There is no usage summary at ${usage}. ${advice}`);
  try {
    return { summaries: [readUsageSummaryText(text)], unusedDays };
  } catch (error) {
    if (error instanceof UsageSummaryError) throw new UserError(`--usage ${usage} is not a usage summary this version can read: ${error.message}. ${advice}`);
    throw error;
  }
}

/** Says when the usage summary could not be used for a report, and why. */
export function usageWarning(context: CommandContext, report: DiffReport): void {
  if (report.usage !== undefined && !report.usage.applied) context.warn(`--usage ${context.args.usage} downgraded nothing: ${report.usage.reason}.`);
}

/**
 * Allow-list entries past their date. (Entries that matched nothing are not reported: in the
 * Action that means their change was merged, but here `lock` moves the baseline, so it does not.)
 */
export function expiredEntryNotes(reviews: Review[], allow: AllowEntry[]): string[] {
  return allowListNotes({ ...evaluateAllowList(reviews, allow, today()), unused: [] });
}

/** The accepted changes and the gate's verdict, as text lines ('' when there was no change). */
/** `configFile` is the config file the allow list goes in, as the user would type it. */
export function verdictText({ gate, acceptedBy }: Judgement, failOn: FailOn, configFile: string): string {
  const lines: string[] = [];
  if (gate.accepted.length > 0) {
    lines.push(`Accepted by the allow list (${gate.accepted.length}):`);
    for (const located of gate.accepted) {
      const entry = acceptedBy(located.delta.fingerprint);
      const until = entry?.expires ? ` (until ${entry.expires})` : '';
      lines.push(`  ${deltaLine(located)}: ${terminalText(truncate(entry?.reason ?? '', 300))}${until}`);
    }
  }
  switch (gate.verdict) {
    case 'blocked': {
      const counts = SEVERITIES.map((s) => [s, gate.blocking.filter((d) => d.delta.severity === s).length] as const)
        .filter(([, n]) => n > 0)
        .map(([s, n]) => `${n} ${s}`)
        .join(', ');
      const n = gate.blocking.length;
      lines.push(`✗ ${n} change${n === 1 ? '' : 's'} at or above --fail-on ${failOn} (${counts}), not accepted by the allow list:`);
      for (const located of gate.blocking.slice(0, MAX_LISTED)) lines.push(`  ${deltaLine(located)}`);
      if (n > MAX_LISTED) lines.push(`  … and ${n - MAX_LISTED} more (--format json lists every fingerprint)`);
      // With a date within the horizon, so that the entry works as typed.
      lines.push(`To accept one, add {"fingerprint": "…", "reason": "why it is safe", "expires": "${offeredExpiry(today())}"} to "allow" in ${configFile}.`);
      break;
    }
    case 'accepted':
      lines.push(`✓ Every change at or above --fail-on ${failOn} is accepted by the allow list.`);
      break;
    case 'below-threshold':
      lines.push(`✓ No change at or above --fail-on ${failOn}.`);
      break;
    default:
      break;
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function deltaLine({ collection, name, delta }: LocatedDelta): string {
  const field = delta.field === '' ? '' : ` ${terminalText(truncate(delta.field, 200))}`;
  return `${delta.severity} ${collection === 'server' ? 'server' : ENTRY_NOUN[collection]} ${terminalText(truncate(name, 200))}${field} [${delta.fingerprint}]`;
}

/**
 * The report in `format`; each renderer is loaded only when asked for. SARIF results point at
 * the lines of `sarifFile`, the file the changes will update.
 */
export async function renderReport(report: DiffReport, format: Format, options: { color: boolean; sarifFile: { path: string; text?: string } }): Promise<string> {
  switch (format) {
    case 'json':
      return (await import('../report/artifact.js')).renderJson(report);
    case 'markdown':
      return (await import('../report/markdown.js')).renderMarkdown(report, {});
    case 'xml':
      return (await import('../report/xml.js')).renderXml(report);
    case 'sarif': {
      const { path, text } = options.sarifFile;
      return (await import('../report/sarif.js')).renderSarif(report, { lockfilePath: path, lockfileText: text });
    }
    case 'text':
      return (await import('../report/text.js')).renderText(report, { color: options.color });
  }
}

/**
 * The release the new side is, from `--released-at` and `--release` (the version defaulting to
 * the server's own); undefined when neither was given: the report then says nothing of when.
 */
export function releaseOf(args: CliArgs, serverVersion: string | undefined): Release | undefined {
  const version = args.flags.release ?? serverVersion;
  if (args.releasedAt === undefined && args.flags.release === undefined) return undefined;
  return { ...(version !== undefined ? { version } : {}), ...(args.releasedAt !== undefined ? { date: args.releasedAt } : {}) };
}

/** The frozen delta artifact the runtime loads, written atomically to `--artifact`. */
export async function writeArtifact(context: CommandContext, report: DiffReport): Promise<void> {
  if (context.args.artifact === undefined) return;
  const path = resolve(context.io.cwd, context.args.artifact);
  const { renderArtifact } = await import('../report/artifact.js');
  await writeTextAtomically(path, renderArtifact(report), 'the delta artifact');
  context.progress(`wrote the delta artifact to ${context.display(path)}`);
}
