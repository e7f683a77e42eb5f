#!/usr/bin/env node
import type { CommandName } from './cli/commands.js';

// V8's compile cache where Node has it (22.3 and later, reached through `process.getBuiltinModule`;
// Node 20 has no cache and loads nothing for it): the CLI's code is compiled once per Node
// version and read back from the cache after that, which is most of what loading it costs. The
// cache is where Node puts it by default (node-compile-cache in the OS temp directory);
// NODE_COMPILE_CACHE moves it and NODE_DISABLE_COMPILE_CACHE turns it off, as for any Node
// program. Only the CLI turns it on: the library and the runtime leave their host's settings
// alone. It applies to modules loaded after this call, hence the rest is imported below.
if (Number(process.versions.node.split('.')[0]) >= 22) {
  const node = process as NodeJS.Process & { getBuiltinModule?: (id: 'node:module') => { enableCompileCache?: () => unknown } };
  node.getBuiltinModule?.('node:module').enableCompileCache?.();
}

/**
 * The code of the command argv names, started now, while the front (process.ts, main.ts, the
 * parser and the help) loads, instead of after it: loading is a chain of file reads otherwise,
 * each waiting for the one before. main.ts imports the same modules when the command runs, and
 * gets them from Node's module map. Not for a command's help, which needs none of it; a failure
 * here is reported there.
 */
const COMMAND_CODE: Record<CommandName, () => Promise<unknown>> = {
  compile: () => import('./cli/compile-command.js'),
  lock: () => import('./cli/lock-command.js'),
  check: () => import('./cli/check-command.js'),
  diff: () => import('./cli/diff-command.js'),
  pin: () => import('./cli/pin-command.js'),
  changelog: () => import('./cli/changelog-command.js'),
  usage: () => import('./cli/usage-command.js'),
};
const [command, ...rest] = process.argv.slice(2);
if (command !== undefined && Object.hasOwn(COMMAND_CODE, command) && !rest.some((arg) => arg === '--help' || arg === '-h')) {
  COMMAND_CODE[command as CommandName]().catch(() => undefined);
}

await (await import('./cli/process.js')).runCli();
