import { DEFAULT_TIMEOUT_MS } from '../compile/source.js';
import { CONFIG_NAME } from '../config-location.js';

/**
 * Who takes a flag: every command (`general`), every command that reads a server (`source`
 * picks where it comes from, `source-option` tunes that source), or only the commands that
 * list it in their own flags (`command`).
 */
export type FlagScope = 'general' | 'source' | 'source-option' | 'command';

export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** The value's placeholder in the help (string flags). */
  value?: string;
  /** One line for the help. */
  help: string;
  scope: FlagScope;
}

/**
 * Every flag of the CLI, once: the parser, the per-command check and the help all read this
 * table. A new flag is one entry here (and, for a `command` flag, its name in the commands
 * that take it, in commands.ts; `--format` goes with a command's `formats`).
 */
export const FLAGS = {
  command: { type: 'string', value: '"CMD ARGS"', scope: 'source', help: 'start the server and speak MCP over stdio (split like a shell, run without one)' },
  url: { type: 'string', value: 'URL', scope: 'source', help: 'reach the server over streamable HTTP, or the older HTTP+SSE (with --command: where the started server serves it)' },
  file: { type: 'string', value: 'PATH', scope: 'source', help: 'read a tools/list dump or a lockfile (PATH may also be given as the argument)' },
  cwd: { type: 'string', value: 'DIR', scope: 'source-option', help: 'the working directory of --command' },
  env: { type: 'string', multiple: true, value: 'KEY=VALUE', scope: 'source-option', help: 'an environment variable for --command (repeatable)' },
  'lenient-stdout': { type: 'boolean', scope: 'source-option', help: 'read JSON-RPC past log text on the stdout lines of --command' },
  header: { type: 'string', multiple: true, value: '"Name: value"', scope: 'source-option', help: 'an HTTP header for --url (repeatable)' },
  timeout: { type: 'string', value: 'SECONDS', scope: 'source-option', help: `how long --command or --url may take to answer (default ${DEFAULT_TIMEOUT_MS / 1000})` },
  'no-heal': { type: 'boolean', scope: 'source-option', help: 'do not diagnose, fix and retry a server that fails to start' },
  'isolate-env': { type: 'boolean', scope: 'source-option', help: 'give the server only the runtime variables (PATH, HOME, LANG…) and those named, as the Action does' },
  'pass-env': { type: 'string', multiple: true, value: 'NAME', scope: 'source-option', help: 'pass this variable of your environment to --command (repeatable; needed for GITHUB_TOKEN, GH_TOKEN)' },
  capabilities: { type: 'string', value: 'LIST', scope: 'source-option', help: 'client capabilities to declare: roots,sampling,elicitation (default all) or none' },
  config: { type: 'string', value: 'PATH', scope: 'source-option', help: `the config file (default ./${CONFIG_NAME})` },
  server: { type: 'string', value: 'NAME', scope: 'source-option', help: 'only this server of the config file (of the recordings, for usage summarize)' },
  // The name is LOCKFILE_NAME's (a test holds them together): its module is not worth loading for --help.
  lockfile: { type: 'string', value: 'PATH', scope: 'command', help: 'the lockfile (default ./mcp-contracts.lock.json)' },
  from: { type: 'string', value: 'REF', scope: 'command', help: 'start after this commit, tag or branch (default: the lockfile\'s first version)' },
  to: { type: 'string', value: 'REF', scope: 'command', help: 'end at this commit, tag or branch (default HEAD)' },
  format: { type: 'string', value: 'FORMAT', scope: 'command', help: 'the output format' },
  'fail-on': { type: 'string', value: 'SEVERITY', scope: 'command', help: 'exit 1 on a change at or above it: BREAKING (default), RISKY, SAFE, COSMETIC or never' },
  'lockfile-check': { type: 'string', value: 'MODE', scope: 'command', help: 'a lockfile that no longer matches its server: fail (default, exit 1), warn (only said) or off' },
  artifact: { type: 'string', value: 'PATH', scope: 'command', help: 'also write the delta artifact the runtime loads' },
  usage: { type: 'string', value: 'FILE', scope: 'command', help: 'a usage summary (usage summarize): a BREAKING change no call used in the window is RISKY' },
  'unused-days': { type: 'string', value: 'N', scope: 'command', help: 'with --usage: the days without a call that make a break RISKY (default 30)' },
  out: { type: 'string', value: 'FILE', scope: 'command', help: 'write the summary to FILE (default: stdout)' },
  days: { type: 'string', value: 'N', scope: 'command', help: 'summarize only the last N days (today included)' },
  'released-at': { type: 'string', value: 'DATE', scope: 'command', help: 'the day the new side is released (YYYY-MM-DD, a date-time, or today): renames are served under their old names for a window from it' },
  release: { type: 'string', value: 'VERSION', scope: 'command', help: "the version released (default: the server's own version)" },
  'no-color': { type: 'boolean', scope: 'command', help: 'plain text, even on a terminal (also NO_COLOR=1)' },
  rewrite: { type: 'boolean', scope: 'command', help: 'also rewrite the client configuration to start each server through the pinning proxy (a backup is kept)' },
  'on-drift': { type: 'string', value: 'POLICY', scope: 'command', help: 'with --rewrite: what the proxy does on drift: block (default), hide, warn, or per class (breaking=block,risky=warn…)' },
  'proxy-command': { type: 'string', value: '"CMD ARGS"', scope: 'command', help: 'with --rewrite: how the configuration starts mcp-contract-guard (default: this installation)' },
  quiet: { type: 'boolean', short: 'q', scope: 'general', help: 'no progress on stderr' },
  debug: { type: 'boolean', scope: 'general', help: 'stack traces on errors' },
  help: { type: 'boolean', short: 'h', scope: 'general', help: 'this help' },
  version: { type: 'boolean', short: 'v', scope: 'general', help: 'print the version' },
} as const satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAGS;
