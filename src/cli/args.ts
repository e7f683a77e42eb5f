import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { splitCommand } from '../compile/argv.js';
import { DEFAULT_TIMEOUT_MS, type ContractSource } from '../compile/source.js';
import { findConfig, loadConfig, selectTargets, type Target } from '../config.js';
import { LOCKFILE_NAME } from '../contract/lockfile.js';
import { SEVERITIES, type Severity } from '../diff/types.js';
import { UserError } from '../errors.js';

export const COMMANDS = ['compile', 'lock', 'check', 'diff'] as const;
export type CommandName = (typeof COMMANDS)[number];

export const FORMATS = ['text', 'json', 'markdown', 'xml', 'sarif'] as const;
export type Format = (typeof FORMATS)[number];

const OPTIONS = {
  command: { type: 'string' },
  cwd: { type: 'string' },
  env: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  url: { type: 'string' },
  header: { type: 'string', multiple: true },
  file: { type: 'string' },
  lockfile: { type: 'string' },
  config: { type: 'string' },
  server: { type: 'string' },
  format: { type: 'string' },
  'fail-on': { type: 'string' },
  artifact: { type: 'string' },
  'no-heal': { type: 'boolean' },
  'lenient-stdout': { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  debug: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

export interface CliArgs {
  command: CommandName | undefined;
  positionals: string[];
  format: Format;
  failOn: Severity | undefined;
  artifact: string | undefined;
  quiet: boolean;
  debug: boolean;
  heal: boolean;
  color: boolean;
  help: boolean;
  version: boolean;
  /** The raw flags that select a source, resolved lazily by `resolveTargets`. */
  flags: ReturnType<typeof parse>['values'];
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

export function parseCli(argv: string[], isTty: boolean): CliArgs {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UserError(`${(error as Error).message.replace(/\. To specify a positional argument.*$/s, '.')} Run "mcp-contract-guard --help" for the options.`);
  }
  const { values, positionals } = parsed;
  const [first, ...rest] = positionals;
  if (first !== undefined && !(COMMANDS as readonly string[]).includes(first)) {
    throw new UserError(`Unknown command "${first}". The commands are: ${COMMANDS.join(', ')}. Run "mcp-contract-guard --help" for details.`);
  }
  return {
    command: first as CommandName | undefined,
    positionals: rest,
    format: oneOf('--format', values.format ?? 'text', FORMATS),
    failOn: values['fail-on'] === undefined ? undefined : oneOf('--fail-on', values['fail-on'].toUpperCase(), SEVERITIES),
    artifact: values.artifact,
    quiet: values.quiet ?? false,
    debug: values.debug ?? false,
    heal: !values['no-heal'],
    color: isTty && !values['no-color'] && !process.env.NO_COLOR,
    help: values.help ?? false,
    version: values.version ?? false,
    flags: values,
  };
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UserError(`${flag} must be one of ${allowed.join(', ')}; got "${value}".`);
  return value as T;
}

/**
 * The servers a command runs on: the one the source flags describe, or else the config file's
 * (all of them, or the one `--server` names).
 */
export async function resolveTargets(args: CliArgs, cwd: string): Promise<Target[]> {
  const source = sourceFromFlags(args, cwd);
  const lockfile = resolve(cwd, args.flags.lockfile ?? LOCKFILE_NAME);
  if (source) {
    if (args.flags.server !== undefined) throw new UserError('--server picks a server of the config file; it cannot be combined with --command, --url or --file.');
    return [{ name: 'default', source, lockfile }];
  }
  const configPath = args.flags.config ? resolve(cwd, args.flags.config) : findConfig(cwd);
  if (!configPath) {
    throw new UserError(
      'No MCP server to look at: give --command "node dist/server.js", --url http://localhost:3000/mcp or --file tools.json, ' +
        'or list your servers in mcp-contract-guard.config.json.',
    );
  }
  const targets = selectTargets(await loadConfig(configPath), args.flags.server);
  // An explicit --lockfile applies when a single server is selected.
  if (args.flags.lockfile !== undefined) {
    if (targets.length !== 1) throw new UserError('--lockfile names one file, but the config lists several servers: pick one with --server.');
    return [{ ...(targets[0] as Target), lockfile }];
  }
  return targets;
}

function sourceFromFlags(args: CliArgs, cwd: string): ContractSource | undefined {
  const { flags } = args;
  const positionalFile = args.command !== 'diff' ? args.positionals[0] : undefined;
  const file = flags.file ?? positionalFile;
  if (file !== undefined && (flags.command !== undefined || flags.url !== undefined)) {
    throw new UserError('Give one source: --command (optionally with --url, for a server that serves HTTP), --url, or --file.');
  }
  if (args.command !== 'diff' && args.positionals.length > 1) throw new UserError(`Unexpected argument "${args.positionals[1]}".`);
  const timeoutMs = parseTimeout(flags.timeout);
  const headers = parsePairs('--header', flags.header ?? [], ':');
  if (flags.url !== undefined && !/^https?:\/\//.test(flags.url)) throw new UserError(`--url must be an http:// or https:// address; got "${flags.url}".`);
  if (flags.header !== undefined && flags.url === undefined) throw new UserError('--header only applies to --url.');
  if (flags.command !== undefined) {
    const source: ContractSource = {
      kind: 'command',
      command: splitCommand(flags.command),
      ...(flags.cwd ? { cwd: resolve(cwd, flags.cwd) } : {}),
      env: parsePairs('--env', flags.env ?? [], '='),
      timeoutMs,
    };
    // With --url too: start the command, then reach the server over HTTP.
    if (flags.url !== undefined) Object.assign(source, { url: flags.url, headers });
    if (flags['lenient-stdout']) source.lenientStdout = true;
    return source;
  }
  for (const [flag, value] of [['--cwd', flags.cwd], ['--env', flags.env], ['--lenient-stdout', flags['lenient-stdout']]] as const) {
    if (value !== undefined) throw new UserError(`${flag} only applies to --command.`);
  }
  if (flags.url !== undefined) return { kind: 'url', url: flags.url, headers, timeoutMs };
  if (file !== undefined) return { kind: 'file', path: resolve(cwd, file) };
  return undefined;
}

function parseTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) throw new UserError(`--timeout is in seconds, between 0 and 3600; got "${value}".`);
  return Math.round(seconds * 1000);
}

function parsePairs(flag: string, items: string[], separator: '=' | ':'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf(separator);
    const key = at > 0 ? item.slice(0, at).trim() : '';
    if (key === '') {
      const example = separator === '=' ? 'KEY=VALUE' : '"Name: value"';
      throw new UserError(`${flag} expects ${example}; got "${item}".`);
    }
    out[key] = item.slice(at + 1).trim();
  }
  return out;
}

export const USAGE = `mcp-contract-guard: lock, diff and classify the contracts of MCP servers.

Usage:
  mcp-contract-guard compile <source> [--format text|json]
  mcp-contract-guard lock    <source> [--lockfile PATH]
  mcp-contract-guard check   <source> [--lockfile PATH]
  mcp-contract-guard diff    <OLD> <NEW> [--format text|json|markdown|xml|sarif] [--fail-on SEVERITY] [--artifact PATH]
  mcp-contract-guard proxy   [--artifact PATH] [--no-validate] [--log FILE] -- <server command…>   (see proxy --help)

A <source> is one of:
  --command "node dist/server.js"   start the server over stdio (split like a shell, run without one)
      --cwd DIR  --env KEY=VALUE (repeatable)  --timeout SECONDS (default 30)
      --url URL (with --command)     the server serves streamable HTTP there once started
      --lenient-stdout               read JSON-RPC past log text on stdout lines
  --url http://host:port/mcp         reach it over streamable HTTP
      --header "Name: value" (repeatable)  --timeout SECONDS
  --file tools.json                  read a tools/list dump or a lockfile
  (none)                             use mcp-contract-guard.config.json: every server, or --server NAME

Diff: OLD and NEW are lockfiles or tools/list dumps. SEVERITY is BREAKING, RISKY, SAFE or COSMETIC.

Options:
  --lockfile PATH   default ./mcp-contracts.lock.json
  --config PATH     default ./mcp-contract-guard.config.json
  --no-heal         do not diagnose, fix and retry a server that fails to start
  --quiet, -q       no progress on stderr
  --debug           stack traces on errors
  --no-color        plain text output

Exit codes: 0 ok, 1 contract drift or --fail-on threshold met, 2 usage, config, compile or input error.`;
