import { lockfileAdvice } from '../compile/dump.js';
import { compareContracts, hasChanges } from '../contract/compare.js';
import { LockfileError, parseLockfile, recordedClientCapabilities, renderLockfile } from '../contract/lockfile.js';
import type { Contracts } from '../contract/model.js';
import { declaringAsRecorded } from '../compile/source.js';
import type { Target } from '../config.js';
import type { SeverityOverrides } from '../rules/index.js';
import type { DiffReport, Release } from '../protocol/index.js';
import { UserError } from '../errors.js';
import { assertWritable, readTextIfExists } from '../files.js';
import { summarizeContracts } from './contracts-text.js';
import { CommandContext, type Runner } from './context.js';
import type { Review } from './review.js';
import { compileTarget, forEachTarget, lockCommand } from './servers.js';
import { configFileOf, resolveTargets } from './targets.js';

/**
 * `check`: each server against its lockfile. The report and the exit code follow the same rule
 * as `diff` (the gate at --fail-on, after the allow list); whatever the threshold, a lockfile
 * that no longer matches its server is said, with the command that updates it, and fails the
 * check unless --lockfile-check says warn or off (the Action's lockfile-check, same default).
 * A server that matches its lockfile needs neither the diff engine nor the review: they load
 * when there is something to report.
 */
export const run: Runner = async (args, io) => {
  const context = new CommandContext(args, io);
  const { targets, config } = await resolveTargets(args, io.cwd);
  // One report per run for the machine formats and the artifact: one document, one file.
  if (targets.length > 1 && (args.format !== 'text' || args.artifact !== undefined)) {
    const what = args.artifact !== undefined ? '--artifact writes one artifact' : `--format ${args.format} prints one report`;
    throw new UserError(`${what}, but the config lists ${targets.length} servers: pick one with --server (or run once per server).`);
  }
  if (args.artifact !== undefined) await assertWritable(args.artifact, 'the delta artifact');
  const usage = args.usage === undefined && args.flags['unused-days'] === undefined ? undefined : await (await import('./review.js')).readUsageOption(context);
  const allow = config?.allow ?? [];
  const reviews: Review[] = [];
  let blocked = false;
  const failed = await forEachTarget(context, targets, 'checked', async (target) => {
    // Read before starting the server: a missing lockfile needs no server to report.
    const lockText = await readLockfile(context, target);
    const compiled = await compileTarget(context, declaringAsLocked(context, target, lockText));
    const locked = parseTrustedLockfile(context, target, lockText, compiled.contracts);
    const lockfile = context.display(target.lockfile);
    // A lockfile that is, byte for byte, the live contracts' own is them: nothing to compare.
    const drifted = locked !== compiled.contracts && hasChanges(compareContracts(locked, compiled.contracts));
    const server = compiled.contracts.server.name;
    if (!drifted && args.format === 'text' && args.artifact === undefined) {
      io.stdout(`✓ ${server} matches ${lockfile} (${summarizeContracts(compiled.contracts)})\n`);
      return;
    }
    const { judge, releaseOf, renderReport, usageWarning, verdictText, writeArtifact } = await import('./review.js');
    const diffed = await diffOf(locked, compiled.contracts, config?.rules, releaseOf(args, compiled.contracts.server.version));
    // A lockfile that no longer matches fails the gate as the Action's lockfile-check does (default fail).
    const stale = drifted ? { message: `${lockfile} no longer matches ${server}.`, lockfileCheck: args.lockfileCheck } : undefined;
    const judgement = judge({ server, names: [locked.server.name, server], report: diffed }, args.failOn, allow, { usage, stale });
    const { report } = judgement;
    const review = { server, report };
    reviews.push(review);
    usageWarning(context, report);
    blocked ||= !judgement.gate.pass;
    if (args.format === 'text') {
      io.stdout(drifted ? `✗ ${server} no longer matches ${lockfile}:\n\n` : `✓ ${server} matches ${lockfile} (${summarizeContracts(compiled.contracts)})\n`);
    }
    if (drifted || args.format !== 'text') {
      io.stdout(await renderReport(report, args.format, { color: args.color, sarifFile: { path: lockfile, text: lockText } }));
    }
    const verdict = verdictText(judgement, args.failOn, configFileOf(context, config));
    if (verdict !== '') context.tell(`\n${verdict}`);
    if (drifted && args.lockfileCheck !== 'off') {
      const how = args.lockfileCheck === 'fail' ? '--lockfile-check fail, the default: exit 1' : '--lockfile-check warn: said, not failed';
      const advice = `If these changes are intended, update the lockfile: ${lockCommand(context, target)}\n`;
      context.tell(args.format === 'text' ? `\n${args.lockfileCheck === 'fail' ? '✗ ' : ''}${lockfile} no longer matches the server (${how}).\n${advice}` : `${server} no longer matches ${lockfile} (${how}). ${advice}`);
    }
    await writeArtifact(context, report);
  });
  if (allow.length > 0) for (const note of (await import('./review.js')).expiredEntryNotes(reviews, allow)) context.warn(note);
  return failed > 0 ? 2 : blocked ? 1 : 0;
};

/** The classified changes; the diff engine is loaded only when there is something to classify or print. */
async function diffOf(locked: Contracts, live: Contracts, rules: SeverityOverrides | undefined, release: Release | undefined): Promise<DiffReport> {
  const { diffContracts } = await import('../diff/index.js');
  return diffContracts(locked, live, { ...(rules === undefined ? {} : { severityOverrides: rules }), ...(release !== undefined ? { release } : {}) });
}

/**
 * Servers may show some tools only to clients that declare a capability (sampling, roots…).
 * Capture the server declaring what its lockfile was captured with, unless told otherwise, so a
 * different declaration is never mistaken for tools added or removed; when told otherwise, say so.
 */
function declaringAsLocked(context: CommandContext, target: Target, lockText: string): Target {
  const { source, mismatch } = declaringAsRecorded(target.source, recordedClientCapabilities(lockText));
  if (mismatch) {
    context.warn(`${context.display(target.lockfile)} was captured declaring ${mismatch.recorded.join(', ') || 'no client capabilities'}; this run declares ${mismatch.declared.join(', ') || 'none'}, so tools a server shows only to some clients may appear as added or removed.`);
  }
  return { ...target, source };
}

async function readLockfile(context: CommandContext, target: Target): Promise<string> {
  const text = await readTextIfExists(target.lockfile, 'the lockfile');
  if (text === undefined) throw new UserError(`There is no lockfile at ${context.display(target.lockfile)} yet. Create it with: ${lockCommand(context, target)}`);
  return text;
}

/**
 * Parse and verify a lockfile. A lockfile that is, byte for byte, the one `lock` would write for
 * the live contracts needs neither: it holds exactly them (the common case in CI, and what keeps
 * `check` of an unchanged server at the cost of writing its lockfile). Otherwise the live
 * contracts still make verifying unchanged entries cheap.
 */
function parseTrustedLockfile(context: CommandContext, target: Target, text: string, live: Contracts): Contracts {
  if (text === renderLockfile(live)) return live;
  try {
    return parseLockfile(text, context.display(target.lockfile), live);
  } catch (error) {
    if (error instanceof LockfileError) throw new UserError(lockfileAdvice(error, lockCommand(context, target)));
    throw error;
  }
}
