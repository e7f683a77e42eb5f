import { resolve } from 'node:path';
import type { Config, Target } from '../config.js';
import { CONFIG_NAME, findConfig } from '../config-location.js';
import { LOCKFILE_NAME } from '../contract/lockfile.js';
import { UserError } from '../errors.js';
import { flagsOf, sourceFromFlags, type CliArgs } from './args.js';
import type { CommandContext } from './context.js';

/**
 * The servers a command runs on: the one the source flags describe, or else the config file's
 * (all of them, or the one `--server` names). `config` is the config file, when there is one
 * and the command uses it (its servers, or its allow list for `check`).
 */
export async function resolveTargets(args: CliArgs, cwd: string): Promise<{ targets: Target[]; config: Config | undefined }> {
  const source = sourceFromFlags(args, cwd);
  const lockfile = resolve(cwd, args.flags.lockfile ?? LOCKFILE_NAME);
  // The commands with a gate apply the config's allow list, whatever the source.
  const usesAllowList = args.command !== undefined && flagsOf(args.command).includes('fail-on');
  if (source) {
    if (args.flags.server !== undefined) throw new UserError('--server picks a server of the config file; it cannot be combined with --command, --url or --file.');
    if (args.flags.config !== undefined && !usesAllowList) {
      throw new UserError(`--config names the config file whose servers to ${args.command}; with --command, --url or --file it has nothing to do.`);
    }
    return { targets: [{ name: 'default', source, lockfile }], config: usesAllowList ? await configOf(args, cwd) : undefined };
  }
  const config = await configOf(args, cwd);
  if (!config) {
    throw new UserError(
      'No MCP server to look at: give --command "node dist/server.js", --url http://localhost:3000/mcp or --file tools.json, ' +
        'or list your servers in mcp-contract-guard.config.json.',
    );
  }
  const { selectTargets } = await import('../config.js');
  const targets = selectTargets(config, args.flags.server);
  // An explicit --lockfile applies when a single server is selected.
  if (args.flags.lockfile !== undefined) {
    if (targets.length !== 1) throw new UserError('--lockfile names one file, but the config lists several servers: pick one with --server.');
    return { targets: [{ ...(targets[0] as Target), lockfile }], config };
  }
  return { targets, config };
}

/** The config file an allow-list entry goes in: the one read (--config, or found), else the default name. */
export function configFileOf(context: CommandContext, config: Config | undefined): string {
  return config === undefined ? CONFIG_NAME : context.display(config.path);
}

/**
 * The config file `--config` names, or the one in the working directory; none is fine. Its
 * schema library is loaded only then: most runs without a config never pay for it.
 */
export async function configOf(args: CliArgs, cwd: string): Promise<Config | undefined> {
  const path = args.flags.config !== undefined ? resolve(cwd, args.flags.config) : findConfig(cwd);
  if (path === undefined) return undefined;
  const { loadConfig } = await import('../config.js');
  return loadConfig(path);
}
