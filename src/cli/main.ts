import { readFile, rename, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { HealingFailedError, compileContracts, lockfileAdvice, sourceFlags, type Compiled } from '../compile/index.js';
import { canonicalJson } from '../contract/canonical.js';
import { compareContracts, hasChanges } from '../contract/compare.js';
import { LockfileError, parseLockfile, renderLockfile } from '../contract/lockfile.js';
import type { Contracts } from '../contract/model.js';
import { configEntryFor, type Target } from '../config.js';
import { diffContracts } from '../diff/index.js';
import { meetsThreshold, type DiffReport } from '../diff/types.js';
import { UserError } from '../errors.js';
import { renderArtifact, renderJson, renderMarkdown, renderSarif, renderText, renderXml } from '../report/index.js';
import { USAGE, parseCli, resolveTargets, type CliArgs } from './args.js';
import { renderContractsText, summarizeContracts } from './contracts-text.js';

export interface Io {
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTty: boolean;
}

/** Run the CLI; resolves to the exit code. Never throws. */
export async function main(argv: string[], io: Io): Promise<number> {
  // The proxy owns stdin and stdout (they carry the MCP session) and parses its own flags.
  if (argv[0] === 'proxy') return (await import('../proxy/index.js')).proxyCommand(argv.slice(1), io);
  let args: CliArgs | undefined;
  try {
    args = parseCli(argv, io.isTty);
    if (args.version) {
      io.stdout(`${await packageVersion()}\n`);
      return 0;
    }
    if (args.help) {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    if (args.command === undefined) {
      // No command is a usage error: the usage goes where errors go.
      io.stderr(`${USAGE}\n`);
      return 2;
    }
    const context = new CommandContext(args, io);
    return await COMMAND_RUNNERS[args.command](context);
  } catch (error) {
    io.stderr(`${formatError(error, args?.debug ?? argv.includes('--debug'))}\n`);
    if (error instanceof HealingFailedError && args?.command) {
      const flags = error.report.attempts.at(-1)?.flags ?? '';
      io.stderr(`Then run again: mcp-contract-guard ${args.command} ${flags}\n`);
    }
    // Machine readers of `--format json` get the diagnosis and every attempt, too.
    if (args?.format === 'json' && error instanceof HealingFailedError) io.stdout(canonicalJson(failureJson(error), true));
    return error instanceof UserError ? error.exitCode : 2;
  }
}

class CommandContext {
  constructor(
    readonly args: CliArgs,
    readonly io: Io,
  ) {}

  progress = (message: string): void => {
    if (!this.args.quiet) this.io.stderr(`› ${message}\n`);
  };

  warn(message: string): void {
    this.io.stderr(`warning: ${message}\n`);
  }

  display(path: string): string {
    const rel = relative(this.io.cwd, path);
    return rel === '' || rel.startsWith('..') ? path : rel;
  }

  async compile(target: Target): Promise<Compiled> {
    const compiled = await compileContracts(target.source, { onProgress: this.progress, heal: this.args.heal });
    for (const warning of compiled.warnings) this.warn(warning);
    const healed = compiled.healing?.healedSource;
    if (healed && compiled.healing) {
      const fixes = compiled.healing.attempts.flatMap((a) => (a.fixApplied ? [a.fixApplied] : []));
      const permanent =
        target.name === 'default'
          ? `use: ${sourceFlags(healed)}`
          : `set this server entry in ${this.display(this.args.flags.config ?? 'mcp-contract-guard.config.json')}:\n  "${target.name}": ${JSON.stringify(configEntryFor(healed, this.io.cwd))}`;
      this.io.stderr(`healed after ${compiled.healing.attempts.length} attempts: ${fixes.join('; ')}.\nTo make it work the first time, ${permanent}\n`);
    }
    return compiled;
  }

  /** The command that regenerates this target's lockfile, for messages. */
  lockCommand(target: Target): string {
    if (target.name !== 'default') return `mcp-contract-guard lock --server ${target.name}`;
    const lockfile = this.display(target.lockfile);
    return `mcp-contract-guard lock ${sourceFlags(target.source)}${lockfile === 'mcp-contracts.lock.json' ? '' : ` --lockfile ${lockfile}`}`;
  }
}

type Runner = (context: CommandContext) => Promise<number>;

const COMMAND_RUNNERS: Record<NonNullable<CliArgs['command']>, Runner> = {
  async compile(context) {
    const targets = await resolveTargets(context.args, context.io.cwd);
    const results: Array<[string, Contracts]> = [];
    for (const target of targets) results.push([target.name, (await context.compile(target)).contracts]);
    if (context.args.format === 'json') {
      const value = results.length === 1 ? results[0]![1] : Object.fromEntries(results);
      context.io.stdout(canonicalJson(value, true));
    } else {
      if (context.args.format !== 'text') throw new UserError('compile prints --format text or json.');
      for (const [, contracts] of results) context.io.stdout(renderContractsText(contracts));
    }
    return 0;
  },

  async lock(context) {
    for (const target of await resolveTargets(context.args, context.io.cwd)) {
      const { contracts } = await context.compile(target);
      const text = renderLockfile(contracts);
      const existing = await readFile(target.lockfile, 'utf8').catch(() => undefined);
      let status = existing === undefined ? 'created' : existing === text ? 'unchanged' : 'updated';
      if (existing !== undefined && existing !== text) {
        try {
          parseLockfile(existing, target.lockfile);
        } catch (error) {
          if (error instanceof LockfileError) status = `replaced a lockfile that could not be trusted: ${error.problem}`;
        }
      }
      if (existing !== text) await writeAtomically(target.lockfile, text);
      context.io.stdout(`Locked ${contracts.server.name}: ${summarizeContracts(contracts)} → ${context.display(target.lockfile)} (${status})\n`);
    }
    return 0;
  },

  async check(context) {
    let drifted = false;
    for (const target of await resolveTargets(context.args, context.io.cwd)) {
      // Read before starting the server: a missing lockfile needs no server to report.
      const lockText = await readLockfileText(context, target);
      const { contracts } = await context.compile(target);
      const locked = parseTrustedLockfile(context, target, lockText, contracts);
      const lockfile = context.display(target.lockfile);
      if (!hasChanges(compareContracts(locked, contracts))) {
        context.io.stdout(`✓ ${contracts.server.name} matches ${lockfile} (${summarizeContracts(contracts)})\n`);
        continue;
      }
      drifted = true;
      const report = await diffContracts(locked, contracts);
      context.io.stdout(`✗ ${contracts.server.name} no longer matches ${lockfile}:\n\n`);
      context.io.stdout(renderText(report, { color: context.args.color }));
      context.io.stdout(`\nIf these changes are intended, update the lockfile: ${context.lockCommand(target)}\n`);
    }
    return drifted ? 1 : 0;
  },

  async diff(context) {
    const { positionals } = context.args;
    if (positionals.length !== 2) throw new UserError('diff compares two files: mcp-contract-guard diff OLD NEW (each a lockfile or a tools/list dump).');
    const [previous, current] = await Promise.all(positionals.map((p) => contractsOfFile(p as string)));
    const report = await diffContracts(previous as Contracts, current as Contracts);
    context.io.stdout(await renderReport(report, context.args, positionals[1] as string));
    if (context.args.artifact !== undefined) {
      await writeAtomically(context.args.artifact, renderArtifact(report));
      context.progress(`wrote the delta artifact to ${context.args.artifact}`);
    }
    return context.args.failOn !== undefined && meetsThreshold(report.summary.maxSeverity, context.args.failOn) ? 1 : 0;
  },
};

async function renderReport(report: DiffReport, args: CliArgs, newPath: string): Promise<string> {
  switch (args.format) {
    case 'json':
      return renderJson(report);
    case 'markdown':
      return renderMarkdown(report, {});
    case 'xml':
      return renderXml(report);
    case 'sarif':
      // With the new file's text, each result points at its entry's line.
      return renderSarif(report, { lockfilePath: newPath, lockfileText: await readFile(newPath, 'utf8') });
    case 'text':
      return renderText(report, { color: args.color });
  }
}

async function contractsOfFile(path: string): Promise<Contracts> {
  const compiled = await compileContracts({ kind: 'file', path });
  return compiled.contracts;
}

async function readLockfileText(context: CommandContext, target: Target): Promise<string> {
  try {
    return await readFile(target.lockfile, 'utf8');
  } catch {
    throw new UserError(`There is no lockfile at ${context.display(target.lockfile)} yet. Create it with: ${context.lockCommand(target)}`);
  }
}

/** Parse and verify a lockfile; `live` makes verifying unchanged entries cheap. */
function parseTrustedLockfile(context: CommandContext, target: Target, text: string, live: Contracts): Contracts {
  try {
    return parseLockfile(text, context.display(target.lockfile), live);
  } catch (error) {
    if (error instanceof LockfileError) throw new UserError(lockfileAdvice(error, context.lockCommand(target)));
    throw error;
  }
}

/** Write via a temporary file and a rename, so an interrupted write never leaves half a file. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
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

function formatError(error: unknown, debug: boolean): string {
  if (debug && error instanceof Error && error.stack) return `error: ${error.stack}`;
  if (error instanceof UserError) return `error: ${error.message}`;
  const message = error instanceof Error ? error.message : String(error);
  return `error: unexpected failure: ${message}\n(this is a bug in mcp-contract-guard; run again with --debug for the stack trace and report it)`;
}

async function packageVersion(): Promise<string> {
  const text = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

