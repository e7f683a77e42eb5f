import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { splitCommand } from '../compile/argv.js';
import { DEFAULT_TIMEOUT_MS, checkPassEnv, parseClientCapabilities, type ContractSource } from '../compile/source.js';
import { isReleaseDate } from '../protocol/report.js';
import { UserError } from '../errors.js';
import type { CheckMode, FailOn } from '../protocol/review.js';
import { parseCheckMode, parseFailOn } from '../policy/checks.js';
import { CLI_COMMAND } from '../version.js';
import { COMMANDS, type CommandName, type Format } from './commands.js';
import { FLAGS, type FlagName, type FlagSpec } from './flags.js';

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

/**
 * `isTty`: whether the output goes to a terminal, asked only when a command reads `color` (only
 * a colored text report does): knowing it creates process.stdout, which `--help`, a JSON report
 * or an error message need not pay for (some 3 ms of a short command).
 */
export function parseCli(argv: string[], isTty: () => boolean): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: PARSER_OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    // Node's messages end without a period when they name a missing value ("… argument missing").
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '.').replace(/([^.])$/, '$1.');
    throw new UserError(`${message} Run "${CLI_COMMAND} --help" for the options.`);
  }
  const values = parsed.values as ParsedFlags;
  const [first, ...positionals] = parsed.positionals;
  if (first !== undefined && !Object.hasOwn(COMMANDS, first)) {
    // `proxy` never gets here: main.ts hands it its own argv before this parser runs.
    throw new UserError(`Unknown command "${first}". The commands are: ${[...Object.keys(COMMANDS), 'proxy'].join(', ')}. Run "${CLI_COMMAND} --help" for details.`);
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
    get color() {
      return !values['no-color'] && !process.env.NO_COLOR && isTty();
    },
    help: values.help ?? false,
    version: values.version ?? false,
    flags: values,
  };
  // Asking for help never fails on the other flags; without a command, the usage says what to give.
  if (args.help || args.version || command === undefined) return args;

  const accepted = new Set<string>(flagsOf(command));
  for (const token of parsed.tokens) {
    if (token.kind === 'option' && !accepted.has(token.name)) {
      throw new UserError(`${command} does not take ${token.rawName}. Run "${CLI_COMMAND} ${command} --help" for the flags it takes.`);
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
