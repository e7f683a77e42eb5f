import { parseArgs } from 'node:util';
import { UserError } from '../errors.js';
import { parseDriftPolicy, type DriftPolicy } from '../policy/drift.js';
import type { RenameMode } from '../runtime/routing.js';
import { CLI_COMMAND } from '../version.js';
import type { ListenAddress } from './http.js';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from './sessions.js';

export interface ProxyOptions {
  /** argv of the server: the program, then its arguments. Run without a shell. Empty with `url`. */
  command: readonly string[];
  /** A streamable HTTP server to relay to instead of starting one. */
  url?: URL | undefined;
  /** Extra HTTP headers for `url` (e.g. Authorization). */
  headers?: Readonly<Record<string, string>>;
  /** The delta artifact (`diff --artifact`); without it, errors carry no `<contract_awareness>`. */
  artifact?: string | undefined;
  /** Check calls against the current schema before they reach the server (default true). */
  validate?: boolean;
  /**
   * Check and explain the calls of every tool (default true); false: only of the tools the
   * artifact has deltas for, and calls to tools it says moved, the others relayed untouched.
   */
  explainAll?: boolean;
  /** What a call using a renamed tool or argument, or a removed argument, gets (default `explain`; see `CallRouter`). */
  renames?: RenameMode;
  /** Days after the artifact's release date during which `route` serves old names (default 365). */
  renameWindowDays?: number;
  /** Append one JSON line per call to this file. */
  log?: string | undefined;
  /** Put the arguments' values in the log too (default: field names only). */
  logValues?: boolean;
  /** Record what the calls use, per day, to this file (`usage summarize` reads it). */
  usage?: string | undefined;
  /** Serve streamable HTTP here instead of stdio, one server process per MCP session. */
  listen?: ListenAddress | undefined;
  /** With `listen`: the sessions served at once, and how long one may stay idle. */
  sessions?: SessionLimits;
  /** A pin file (`pin`) or a lockfile (`lock`): the server is held to its contracts (see pin.ts). */
  lockfile?: string | undefined;
  /** With `lockfile`: which server of the pin file this is (needed when it pins several). */
  pinServer?: string | undefined;
  /** With `lockfile`: what to do with drift; default the config file's `onDrift`, else block. */
  onDrift?: DriftPolicy | undefined;
  /** The config file `onDrift` is read from (default ./mcp-contract-guard.config.json, if there is one). */
  config?: string | undefined;
}

const OPTIONS = {
  artifact: { type: 'string' },
  'no-validate': { type: 'boolean' },
  'explain-all': { type: 'boolean' },
  'no-explain-all': { type: 'boolean' },
  renames: { type: 'string' },
  'rename-window-days': { type: 'string' },
  log: { type: 'string' },
  'log-values': { type: 'boolean' },
  usage: { type: 'string' },
  listen: { type: 'string' },
  'max-sessions': { type: 'string' },
  'session-idle': { type: 'string' },
  url: { type: 'string' },
  header: { type: 'string', multiple: true },
  lockfile: { type: 'string' },
  server: { type: 'string' },
  'on-drift': { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const PROXY_USAGE = `mcp-contract-guard proxy: an MCP stdio proxy that a client launches in place of the server.

Usage:
  mcp-contract-guard proxy [--artifact contract-deltas.json] [--renames route|explain [--rename-window-days N]] [--no-validate] [--no-explain-all] [--log FILE [--log-values]] [--usage FILE] [--listen HOST:PORT [--max-sessions N] [--session-idle TIME]] -- <server command…>
  mcp-contract-guard proxy [same options] --url http://host:port/mcp [--header "Name: value"]…
  mcp-contract-guard proxy --lockfile mcp-pins.lock.json [--server NAME] [--on-drift block|hide|warn] [same options] -- <server command…>

Every message is relayed unchanged, except that:
  - a tools/call whose arguments do not fit the tool's current input schema is answered with
    a <validation_error> (and the artifact's <contract_awareness> for the tool) and never
    reaches the server;
  - a call to a tool the artifact says was renamed or removed, and that the server no longer
    lists, gets <tool_error code="UNKNOWN_TOOL"> naming the new tool;
  - a call that uses a tool or argument the artifact says was renamed, or sends an argument it
    says was removed, is refused with what changed (--renames explain, the default), or served
    under the new names with a notice in its result (--renames route), never silently;
  - the server's own input-validation errors (TypeScript SDK, FastMCP, Python SDK) are explained the same way;
  - with --lockfile, what drifted from the pinned contracts is held back (see --on-drift).
A tool's own answers are never changed (a routed call's result only gains the notice).

Options:
  --artifact FILE   the delta artifact written by "diff --artifact" (a missing file is a warning)
  --renames MODE    explain (default): refuse a call using a renamed tool or argument, or sending a
                    removed argument, saying what changed; route: serve it under the new names
                    (removed arguments dropped), with a notice in the result, for the deprecation
                    window after the artifact's release date
  --rename-window-days N  how long route serves old names after the release (default 365)
  --no-validate     do not check calls: only explain the server's own validation errors
  --no-explain-all  check and explain only the tools the artifact has deltas for; the calls of
                    other tools, and their errors, are relayed untouched (default: every tool,
                    --explain-all)
  --log FILE        append one JSON line per tools/call: tool, outcome, fields (never values)
  --log-values      also log the arguments' values
  --usage FILE      record what the calls use, per day (tools, argument fields, enum values, refusals;
                    never free text), for "mcp-contract-guard usage summarize"; several proxies may
                    share the file
  --listen HOST:PORT  serve streamable HTTP at http://HOST:PORT/mcp instead of stdio, one server
                    process per MCP session (PORT 0: any free port, printed on stderr)
  --max-sessions N  with --listen: sessions served at once (default ${DEFAULT_SESSION_LIMITS.maxSessions}); when full, the
                    session idle the longest is ended to make room
  --session-idle TIME  with --listen: end a session idle this long (default 30m; 90s, 2h, 500ms)
  --url URL         relay to this HTTP server (streamable, or the older HTTP+SSE) instead of starting one
  --header "Name: value"  an HTTP header for --url (repeatable), e.g. "Authorization: Bearer …"
  --lockfile FILE   hold the server to the contracts pinned in FILE (a pin file written by "pin", or a
                    lockfile written by "lock"): at start and on every listing and list_changed, the live
                    contracts are diffed against it; a pin that does not match its digests is refused
  --server NAME     with --lockfile: the server of the pin file this is (needed when it pins several)
  --on-drift POLICY with --lockfile: block (default), hide or warn, or per class, e.g.
                    breaking=block,poisoning=block,risky=warn,unreviewed=hide. block: a call to a tool
                    with a BREAKING change or new poisoning text is answered with what changed and how to
                    re-pin; hide: such tools, and tools the pin does not have, are left out of tools/list;
                    warn: a line on stderr. SAFE and COSMETIC changes pass.
  --config FILE     the config file whose "onDrift" applies when --on-drift is not given (default
                    ./mcp-contract-guard.config.json, if there is one)
  --help, -h        this text

The server inherits the proxy's environment and working directory; its stderr is ours.`;

/** The proxy's flags, then `--` and the server's command line (passed on as it is). */
export function parseProxyArgs(argv: readonly string[]): ProxyOptions & { help: boolean } {
  const separator = argv.indexOf('--');
  const flags = separator === -1 ? argv : argv.slice(0, separator);
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(flags).values;
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '.');
    throw new UserError(`${message} Give the server's command after "--": ${CLI_COMMAND} proxy [options] -- node server.js`);
  }
  if (values.help) return { command: [], help: true };
  const command = separator === -1 ? [] : argv.slice(separator + 1);
  if (values.url !== undefined && command.length > 0) throw new UserError('Give the server either as a command after "--" or as --url, not both.');
  if (values.url === undefined && command.length === 0) {
    throw new UserError(`proxy needs the command that starts the server after "--", e.g. ${CLI_COMMAND} proxy --artifact contract-deltas.json -- python server.py (or --url for an HTTP server).`);
  }
  if (values.header !== undefined && values.url === undefined) throw new UserError('--header only applies to --url.');
  if (values['log-values'] && values.log === undefined) throw new UserError('--log-values only applies with --log FILE.');
  if (values['explain-all'] && values['no-explain-all']) throw new UserError('Give --explain-all or --no-explain-all, not both.');
  if (values.renames !== undefined && values.renames !== 'route' && values.renames !== 'explain') throw new UserError(`--renames takes route or explain; got "${values.renames}".`);
  if (values['rename-window-days'] !== undefined && values.renames !== 'route') throw new UserError('--rename-window-days only applies with --renames route.');
  for (const flag of ['max-sessions', 'session-idle'] as const) {
    if (values[flag] !== undefined && values.listen === undefined) throw new UserError(`--${flag} only applies with --listen.`);
  }
  for (const flag of ['server', 'on-drift', 'config'] as const) {
    if (values[flag] !== undefined && values.lockfile === undefined) throw new UserError(`--${flag} only applies with --lockfile (the pin the server is held to).`);
  }
  return {
    command,
    url: values.url === undefined ? undefined : parseUrl(values.url),
    headers: Object.fromEntries((values.header ?? []).map(parseHeader)),
    artifact: values.artifact,
    validate: !values['no-validate'],
    explainAll: !values['no-explain-all'],
    renames: (values.renames ?? 'explain') as RenameMode,
    ...(values['rename-window-days'] === undefined ? {} : { renameWindowDays: parseDays(values['rename-window-days']) }),
    log: values.log,
    logValues: values['log-values'] ?? false,
    usage: values.usage,
    listen: values.listen === undefined ? undefined : parseListen(values.listen),
    sessions: {
      maxSessions: values['max-sessions'] === undefined ? DEFAULT_SESSION_LIMITS.maxSessions : parseCount('--max-sessions', values['max-sessions']),
      idleMs: values['session-idle'] === undefined ? DEFAULT_SESSION_LIMITS.idleMs : parseDuration('--session-idle', values['session-idle']),
    },
    lockfile: values.lockfile,
    pinServer: values.server,
    onDrift: values['on-drift'] === undefined ? undefined : parseDriftPolicy(values['on-drift'], '--on-drift'),
    config: values.config,
    help: false,
  };
}

function parseUrl(value: string): URL {
  if (!/^https?:\/\//.test(value) || !URL.canParse(value)) throw new UserError(`--url must be an http:// or https:// address; got "${value}".`);
  return new URL(value);
}

function parseHeader(value: string): [string, string] {
  const at = value.indexOf(':');
  const name = at > 0 ? value.slice(0, at).trim() : '';
  if (name === '') throw new UserError(`--header expects "Name: value"; got "${value}".`);
  return [name.toLowerCase(), value.slice(at + 1).trim()];
}

function parseListen(value: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (match === null || port > 65535) throw new UserError(`--listen takes HOST:PORT, e.g. 127.0.0.1:8080 (port 0 picks a free one); got "${value}".`);
  return { host: (match[1] ?? match[2]) as string, port };
}

/** The largest timer Node keeps (about 24.8 days): longer waits fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function parseDays(value: string): number {
  const days = /^\d{1,5}$/.test(value) ? Number(value) : -1;
  if (days < 0 || days > 36_500) throw new UserError(`--rename-window-days takes a whole number of days from 0 to 36500; got "${value}".`);
  return days;
}

function parseCount(flag: string, value: string): number {
  const count = /^\d{1,7}$/.test(value) ? Number(value) : 0;
  if (count < 1) throw new UserError(`${flag} takes a whole number of at least 1; got "${value}".`);
  return count;
}

/** `90s`, `30m`, `2h`, `500ms`, or a number of seconds. */
function parseDuration(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  const ms = match === null ? 0 : Number(match[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  if (!(ms >= 1) || ms > MAX_TIMER_MS) throw new UserError(`${flag} takes a duration such as 90s, 30m or 2h (at most 24 days); got "${value}".`);
  return Math.round(ms);
}

function parse(flags: readonly string[]) {
  return parseArgs({ args: [...flags], options: OPTIONS, allowPositionals: false, strict: true });
}
