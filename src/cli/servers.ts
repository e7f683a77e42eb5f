/**
 * What the commands that read servers (compile, lock, check) share: compiling one target with
 * its healing story told, the command that regenerates its lockfile, and a run over every
 * target of a config that reports each failure and goes on to the next server.
 */
import { compileFile } from '../compile/dump.js';
import type { Compiled, HealingFailedError } from '../compile/index.js';
import { shellQuote, sourceFlags } from '../compile/source.js';
import { canonicalJson } from '../protocol/index.js';
import type { Target } from '../config.js';
import { CLI_COMMAND } from '../version.js';
import type { CliArgs } from './args.js';
import { FLAGS, type FlagName } from './flags.js';
import { formatError, type CommandContext } from './context.js';

/**
 * The server pipeline (capture, transports, healing), loaded the first time a server is
 * compiled: a file target needs only the file reader.
 */
let serverPipeline: typeof import('../compile/index.js') | undefined;

export async function compileTarget(context: CommandContext, target: Target): Promise<Compiled> {
  if (target.source.kind === 'file') {
    const compiled = await compileFile(target.source.path);
    for (const warning of compiled.warnings) context.warn(warning);
    return compiled;
  }
  serverPipeline ??= await import('../compile/index.js');
  const compiled = await serverPipeline.compileContracts(target.source, { onProgress: context.progress, heal: context.args.heal });
  for (const warning of compiled.warnings) context.warn(warning);
  const healed = compiled.healing?.healedSource;
  if (healed && compiled.healing) {
    const fixes = compiled.healing.attempts.flatMap((a) => (a.fixApplied ? [a.fixApplied] : []));
    // A config's server was read from the config: loading it again costs nothing.
    const configEntry = async () => JSON.stringify((await import('../config.js')).configEntryFor(healed, context.io.cwd));
    const permanent =
      target.name === 'default'
        ? `use: ${sourceFlags(healed)}`
        : `set this server entry in ${context.display(context.args.flags.config ?? 'mcp-contract-guard.config.json')}:\n  "${target.name}": ${await configEntry()}`;
    context.io.stderr(`healed after ${compiled.healing.attempts.length} attempts: ${fixes.join('; ')}.\nTo make it work the first time, ${permanent}\n`);
  }
  return compiled;
}

/** The command that regenerates this target's lockfile, for messages. */
export function lockCommand(context: CommandContext, target: Target): string {
  if (target.name !== 'default') {
    const config = context.args.flags.config === undefined ? '' : ` --config ${shellQuote(context.args.flags.config)}`;
    // An explicit --lockfile replaced the config's for this run: the lock that fixes it must write there too.
    const lockfile = context.args.flags.lockfile === undefined ? '' : ` --lockfile ${shellQuote(context.display(target.lockfile))}`;
    return `${CLI_COMMAND} lock --server ${target.name}${config}${lockfile}`;
  }
  const lockfile = context.display(target.lockfile);
  return `${CLI_COMMAND} lock ${sourceFlags(target.source)}${lockfile === 'mcp-contracts.lock.json' ? '' : ` --lockfile ${shellQuote(lockfile)}`}`;
}

/**
 * Run `each` on every target, in order. A server that fails is reported at once and the run
 * goes on, so one broken server never hides the verdict on the others; the failures are
 * summed up at the end. Resolves to the number of servers that failed.
 */
export async function forEachTarget(context: CommandContext, targets: Target[], done: string, each: (target: Target) => Promise<void>): Promise<number> {
  const failed: string[] = [];
  for (const target of targets) {
    try {
      await each(target);
    } catch (error) {
      failed.push(target.name);
      reportFailure(context, target, error, targets.length);
    }
  }
  if (failed.length > 0 && targets.length > 1) {
    context.io.stderr(`error: ${failed.length} of ${targets.length} servers could not be ${done}: ${failed.join(', ')} (see above).\n`);
  }
  return failed.length;
}

function reportFailure(context: CommandContext, target: Target, error: unknown, runSize: number): void {
  const { args, io } = context;
  const text = formatError(error, args.debug);
  io.stderr(`${runSize > 1 ? text.replace(/^error: /, `error: server "${target.name}": `) : text}\n`);
  // Only the server pipeline fails to heal, so it is loaded when this is one.
  if (serverPipeline === undefined || !(error instanceof serverPipeline.HealingFailedError)) return;
  if (target.name === 'default') io.stderr(`Then run again: ${CLI_COMMAND} ${args.command} ${error.report.attempts.at(-1)?.flags ?? ''}${ownFlagsOf(args)}\n`);
  // Machine readers of `--format json` get the diagnosis and every attempt, too.
  if (args.format === 'json' && runSize === 1) io.stdout(canonicalJson(failureJson(error), true));
}

/**
 * The flags the user gave the command itself (--lockfile, --format, --fail-on…), as typed: an
 * attempt records only its source's flags, and a rerun without them would check another lockfile.
 */
function ownFlagsOf(args: CliArgs): string {
  let text = '';
  for (const name of Object.keys(FLAGS) as FlagName[]) {
    const value = args.flags[name];
    if (FLAGS[name].scope !== 'command' || value === undefined || value === false) continue;
    text += value === true ? ` --${name}` : ` --${name} ${shellQuote(String(value))}`;
  }
  return text;
}

function failureJson(error: HealingFailedError) {
  return {
    error: {
      category: error.diagnosis.category,
      explanation: error.diagnosis.explanation,
      confidence: error.diagnosis.confidence,
      userActionNeeded: error.userActionNeeded,
    },
    attempts: error.report.attempts,
    totalMs: error.report.totalMs,
  };
}
