import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { splitCommand } from '../compile/argv.js';
import { DEFAULT_TIMEOUT_MS, checkPassEnv, parseClientCapabilities, type ContractSource } from '../compile/source.js';
import { CONFIG_NAME } from '../config-location.js';
import { isReleaseDate } from '../protocol/report.js';
import { UserError } from '../errors.js';
import { parseCheckMode, parseFailOn, type CheckMode, type FailOn } from '../policy/checks.js';
import { COMMANDS, type CommandName, type Format } from './commands.js';

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

const PARSER_OPTIONS = Object.fromEntries(
  Object.entries(FLAGS).map(([name, spec]: [string, FlagSpec]) => [
    name,
    { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) },
  ]),
) as { [K in FlagName]: { type: (typeof FLAGS)[K]['type']; short?: string; multiple?: boolean } };

type FlagValue<S> = S extends { type: 'boolean' } ? boolean : S extends { multiple: true } ? string[] : string;
/** The flags as given on the command line. */
export type ParsedFlags = { [K in FlagName]?: FlagValue<(typeof FLAGS)[K]> };

export interface CliArgs {
  command: CommandName | undefined;
  positionals: string[];
  format: Format;
  failOn: FailOn;
  /** What a lockfile that no longer matches its server does (`check`), as the Action's lockfile-check input. */
  lockfileCheck: CheckMode;
  artifact: string | undefined;
  /** The usage summary (`--usage`; `--unused-days` is read with it, by the commands). */
  usage: string | undefined;
  /** `--released-at`, as the UTC day it names. */
  releasedAt: string | undefined;
  quiet: boolean;
  debug: boolean;
  heal: boolean;
  color: boolean;
  help: boolean;
  version: boolean;
  /** The raw flags, for those resolved later (the source, the config). */
  flags: ParsedFlags;
}

/** The flags `command` takes: the general ones, the source ones if it reads a server, its own. */
export function flagsOf(command: CommandName): FlagName[] {
  const spec = COMMANDS[command];
  return (Object.keys(FLAGS) as FlagName[]).filter((name) => {
    const { scope } = FLAGS[name];
    if (scope === 'general') return true;
    if (name === 'format') return spec.formats !== undefined;
    return spec.flags.includes(name) || (spec.source && (scope === 'source' || scope === 'source-option'));
  });
}

export function parseCli(argv: string[], isTty: boolean): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: PARSER_OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    // Node's messages end without a period when they name a missing value ("… argument missing").
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '.').replace(/([^.])$/, '$1.');
    throw new UserError(`${message} Run "mcp-contract-guard --help" for the options.`);
  }
  const values = parsed.values as ParsedFlags;
  const [first, ...positionals] = parsed.positionals;
  if (first !== undefined && !Object.hasOwn(COMMANDS, first)) {
    // `proxy` never gets here: main.ts hands it its own argv before this parser runs.
    throw new UserError(`Unknown command "${first}". The commands are: ${[...Object.keys(COMMANDS), 'proxy'].join(', ')}. Run "mcp-contract-guard --help" for details.`);
  }
  const command = first as CommandName | undefined;
  const args: CliArgs = {
    command,
    positionals,
    format: 'text',
    failOn: 'BREAKING',
    lockfileCheck: 'fail',
    artifact: values.artifact,
    usage: values.usage,
    releasedAt: undefined,
    quiet: values.quiet ?? false,
    debug: values.debug ?? false,
    heal: !values['no-heal'],
    color: isTty && !values['no-color'] && !process.env.NO_COLOR,
    help: values.help ?? false,
    version: values.version ?? false,
    flags: values,
  };
  // Asking for help never fails on the other flags; without a command, the usage says what to give.
  if (args.help || args.version || command === undefined) return args;

  const accepted = new Set<string>(flagsOf(command));
  for (const token of parsed.tokens) {
    if (token.kind === 'option' && !accepted.has(token.name)) {
      throw new UserError(`${command} does not take ${token.rawName}. Run "mcp-contract-guard ${command} --help" for the flags it takes.`);
    }
  }
  const { formats } = COMMANDS[command];
  if (formats !== undefined) args.format = oneOf(`${command} --format`, values.format ?? formats[0]!, formats);
  if (values['released-at'] !== undefined) args.releasedAt = releaseDay(values['released-at']);
  if (values.release !== undefined && (values.release.trim() === '' || values.release.length > 200)) throw new UserError(`--release takes the version released, e.g. 2.0.0; got "${values.release}".`);
  if (values['fail-on'] !== undefined) args.failOn = parseFailOn(values['fail-on'], '--fail-on');
  if (values['lockfile-check'] !== undefined) args.lockfileCheck = parseCheckMode(values['lockfile-check'], '--lockfile-check');
  return args;
}

/**
 * The UTC day `--released-at` names: `YYYY-MM-DD`, an ISO 8601 date-time with its offset (what
 * `git log -1 --format=%cI` prints), or `today` (MCP_CONTRACT_GUARD_TODAY stands in for the
 * clock, as for the allow list).
 */
function releaseDay(value: string): string {
  if (value === 'today') {
    // As the allow list's `todayUtc` reads it; not imported, so that --help loads none of the policy.
    const override = process.env.MCP_CONTRACT_GUARD_TODAY;
    return override !== undefined && isReleaseDate(override) ? override : new Date().toISOString().slice(0, 10);
  }
  if (isReleaseDate(value)) return value;
  const time = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(time)) throw new UserError(`--released-at takes a day (2025-06-01), a date-time with its offset (2025-06-01T14:03:00+02:00) or "today"; got "${value}".`);
  return new Date(time).toISOString().slice(0, 10);
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[], given = value): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UserError(`${flag} must be one of ${allowed.join(', ')}; got "${given}".`);
  return value as T;
}

/** The source the flags describe (--command, --url, --file or a file argument), if any. */
export function sourceFromFlags(args: CliArgs, cwd: string): ContractSource | undefined {
  const { flags } = args;
  const file = flags.file ?? args.positionals[0];
  if (file !== undefined && (flags.command !== undefined || flags.url !== undefined)) {
    throw new UserError('Give one source: --command (optionally with --url, for a server that serves HTTP), --url, or --file.');
  }
  if (flags.file !== undefined && args.positionals.length > 0) throw new UserError(`Give the file once: --file ${flags.file} or the argument "${args.positionals[0]}".`);
  if (args.positionals.length > 1) throw new UserError(`Unexpected argument "${args.positionals[1]}": ${args.command} reads one source.`);
  const headers = parsePairs('--header', flags.header ?? [], ':');
  if (flags.url !== undefined && !/^https?:\/\//.test(flags.url)) throw new UserError(`--url must be an http:// or https:// address; got "${flags.url}".`);
  if (flags.header !== undefined && flags.url === undefined) throw new UserError('--header only applies to --url.');
  if (flags.timeout !== undefined && flags.command === undefined && flags.url === undefined) {
    throw new UserError('--timeout only applies to --command or --url (a config file sets "timeout" per server).');
  }
  const timeoutMs = parseTimeout(flags.timeout);
  const capabilities = flags.capabilities === undefined ? {} : { clientCapabilities: parseClientCapabilities(flags.capabilities, '--capabilities') };
  if (flags.command !== undefined) {
    const source: ContractSource = {
      kind: 'command',
      command: splitCommand(flags.command),
      ...(flags.cwd ? { cwd: resolve(cwd, flags.cwd) } : {}),
      env: parsePairs('--env', flags.env ?? [], '='),
      timeoutMs,
      ...capabilities,
    };
    // With --url too: start the command, then reach the server over HTTP.
    if (flags.url !== undefined) Object.assign(source, { url: flags.url, headers });
    if (flags['lenient-stdout']) source.lenientStdout = true;
    if (flags['isolate-env']) source.isolateEnv = true;
    if (flags['pass-env']) source.passEnv = checkPassEnv(flags['pass-env'], '--pass-env');
    return source;
  }
  for (const [flag, value] of [
    ['--cwd', flags.cwd],
    ['--env', flags.env],
    ['--lenient-stdout', flags['lenient-stdout']],
    ['--isolate-env', flags['isolate-env']],
    ['--pass-env', flags['pass-env']],
  ] as const) {
    if (value !== undefined) throw new UserError(`${flag} only applies to --command.`);
  }
  if (flags.url !== undefined) return { kind: 'url', url: flags.url, headers, timeoutMs, ...capabilities };
  if (flags.capabilities !== undefined) throw new UserError('--capabilities applies to --command or --url; for the servers of a config file, set "capabilities" in their entries.');
  if (file !== undefined) {
    if (flags['no-heal']) throw new UserError('--no-heal only applies to a server (--command, --url or a config file): a file is read, not started.');
    return { kind: 'file', path: resolve(cwd, file) };
  }
  return undefined;
}

function parseTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) throw new UserError(`--timeout is in seconds, more than 0 and at most 3600; got "${value}".`);
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
