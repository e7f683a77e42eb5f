import { UserError } from '../errors.js';
import { parseCli, type CliArgs } from './args.js';
import type { CommandName } from './commands.js';
import { formatError, type Io, type Runner } from './context.js';
import { commandHelp, usage } from './help.js';

export type { Io };

/**
 * Each command's code, loaded only when it runs, so `--help` and the other commands pay
 * nothing for it. A command missing here is a type error: every name of the command table
 * has its loader.
 */
const RUNNERS: Record<CommandName, () => Promise<{ run: Runner }>> = {
  compile: () => import('./compile-command.js'),
  lock: () => import('./lock-command.js'),
  check: () => import('./check-command.js'),
  diff: () => import('./diff-command.js'),
  pin: () => import('./pin-command.js'),
  changelog: () => import('./changelog-command.js'),
  usage: () => import('./usage-command.js'),
};

/**
 * Run the CLI; resolves to the exit code. Never throws. Only the table of flags and commands
 * is loaded up front: a command's code is imported when it runs, so `--help`, `--version`
 * and each command load what they need and nothing else.
 */
export async function main(argv: string[], io: Io): Promise<number> {
  // The proxy owns stdin and stdout (they carry the MCP session) and parses its own flags.
  if (argv[0] === 'proxy') return (await import('../proxy/index.js')).proxyCommand(argv.slice(1), io);
  let args: CliArgs | undefined;
  try {
    args = parseCli(argv, () => io.isTty);
    if (args.version) {
      io.stdout(`${(await import('../version.js')).VERSION}\n`);
      return 0;
    }
    if (args.help) {
      io.stdout(`${args.command ? commandHelp(args.command) : usage()}\n`);
      return 0;
    }
    if (args.command === undefined) {
      // No command is a usage error: the usage goes where errors go.
      io.stderr(`${usage()}\n`);
      return 2;
    }
    const { run } = await RUNNERS[args.command]();
    return await run(args, io);
  } catch (error) {
    io.stderr(`${formatError(error, args?.debug ?? argv.includes('--debug'))}\n`);
    return error instanceof UserError ? error.exitCode : 2;
  }
}
