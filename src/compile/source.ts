import { UserError } from '../errors.js';
import { passEnvProblem } from './env.js';
import type { Launch } from './process.js';
import { redactUrl } from './redact.js';

/** Where contracts come from: a server started over stdio, one reached over HTTP, or a file. */
export type ContractSource = CommandSource | UrlSource | FileSource;

/**
 * The client capabilities a capture can declare in `initialize`, sorted. A full-featured client
 * declares all three, and some servers offer tools only to such clients.
 */
export const CLIENT_CAPABILITIES = ['elicitation', 'roots', 'sampling'] as const;
export type ClientCapability = (typeof CLIENT_CAPABILITIES)[number];

/**
 * A command source: `env`, `passEnv` and `isolateEnv` (from `Launch`) decide the server's
 * environment, see env.ts.
 */
export interface CommandSource extends Launch {
  kind: 'command';
  /** argv: the program, then its arguments (already split; run without a shell). */
  command: string[];
  timeoutMs: number;
  /** The server speaks streamable HTTP at this address once started, instead of stdio. */
  url?: string;
  headers?: Record<string, string>;
  /** Read JSON-RPC messages that follow log text on the same stdout line. */
  lenientStdout?: boolean;
  /** What `initialize` declares; default: all of `CLIENT_CAPABILITIES`. */
  clientCapabilities?: ClientCapability[];
}

export interface UrlSource {
  kind: 'url';
  url: string;
  headers?: Record<string, string>;
  timeoutMs: number;
  clientCapabilities?: ClientCapability[];
}

/** A tools/list dump or a lockfile. */
export interface FileSource {
  kind: 'file';
  path: string;
}

export type ServerSource = CommandSource | UrlSource;

export const DEFAULT_TIMEOUT_MS = 30_000;

/** The capabilities a source declares, sorted, once each. */
export function clientCapabilitiesOf(source: CommandSource | UrlSource): ClientCapability[] {
  return [...new Set(source.clientCapabilities ?? CLIENT_CAPABILITIES)].sort();
}

/**
 * Read a capability list as users write it: names separated by commas or spaces
 * ("roots,sampling"), or "none". `what` names the flag, key or input, for the message.
 */
export function parseClientCapabilities(text: string, what: string): ClientCapability[] {
  const names = text.split(/[\s,]+/).filter((name) => name !== '');
  if (names.length === 1 && names[0]?.toLowerCase() === 'none') return [];
  if (names.length === 0) throw new UserError(`${what} is empty: list client capabilities (${CLIENT_CAPABILITIES.join(', ')}) or say "none".`);
  return checkClientCapabilities(names, what);
}

/** Check a list of capability names (the config's array form). */
export function checkClientCapabilities(names: string[], what: string): ClientCapability[] {
  for (const name of names) {
    if (!(CLIENT_CAPABILITIES as readonly string[]).includes(name)) {
      throw new UserError(`${what}: "${name}" is not a client capability we can declare; the capabilities are ${CLIENT_CAPABILITIES.join(', ')} (or "none").`);
    }
  }
  return names as ClientCapability[];
}

/**
 * Servers may show some tools only to clients that declare a capability (sampling, roots…), so
 * a capture compared with a lockfile declares what the lockfile's capture declared (`recorded`),
 * unless its source says otherwise: then `mismatch` says what may look added or removed because
 * of it. Names the lockfile records that we cannot declare (it may come from a pull request)
 * are left out.
 */
export function declaringAsRecorded<S extends ContractSource>(source: S, recorded: readonly string[] | undefined): { source: S; mismatch?: { recorded: string[]; declared: string[] } } {
  if (recorded === undefined || source.kind === 'file') return { source };
  const known = recorded.filter((name): name is ClientCapability => (CLIENT_CAPABILITIES as readonly string[]).includes(name));
  const declared = source.clientCapabilities;
  if (declared === undefined) return { source: { ...source, clientCapabilities: [...new Set(known)].sort() } };
  const same = [...new Set(declared)].sort().join(',') === [...new Set(known)].sort().join(',');
  return same ? { source } : { source, mismatch: { recorded: known, declared: [...declared] } };
}

/** Check the names of variables to pass to a server (flags, config, Action input). */
export function checkPassEnv(names: string[], what: string): string[] {
  for (const name of names) {
    const problem = passEnvProblem(name);
    if (problem) throw new UserError(`${what}: ${problem}.`);
  }
  return names;
}

/**
 * The source as the flags that select it, for messages that say which command to run. URL
 * credentials are redacted and env and header values left out: these lines are printed.
 */
export function sourceFlags(source: ContractSource): string {
  switch (source.kind) {
    case 'command': {
      const parts = [`--command ${shellQuote(source.command.map(shellQuote).join(' '))}`];
      if (source.cwd) parts.push(`--cwd ${shellQuote(source.cwd)}`);
      for (const key of Object.keys(source.env ?? {}).sort()) parts.push(`--env ${withHiddenValue(key, '=')}`);
      if (source.isolateEnv) parts.push('--isolate-env');
      for (const name of source.passEnv ?? []) parts.push(`--pass-env ${name}`);
      if (source.url) parts.push(`--url ${shellQuote(redactUrl(source.url))}`);
      for (const header of Object.keys(source.headers ?? {})) parts.push(`--header ${withHiddenValue(header, ': ')}`);
      if (source.lenientStdout) parts.push('--lenient-stdout');
      parts.push(...capabilityFlag(source));
      if (source.timeoutMs !== DEFAULT_TIMEOUT_MS) parts.push(`--timeout ${source.timeoutMs / 1000}`);
      return parts.join(' ');
    }
    case 'url': {
      const parts = [`--url ${shellQuote(redactUrl(source.url))}`, ...Object.keys(source.headers ?? {}).map((h) => `--header ${withHiddenValue(h, ': ')}`), ...capabilityFlag(source)];
      if (source.timeoutMs !== DEFAULT_TIMEOUT_MS) parts.push(`--timeout ${source.timeoutMs / 1000}`);
      return parts.join(' ');
    }
    case 'file':
      return `--file ${shellQuote(source.path)}`;
  }
}

/**
 * `NAME=…` or `"Name: …"`, the value left out: a name with a quote, `$` or a space (a config's
 * env or header key) is quoted for the shell, so the line can be pasted as it is.
 */
function withHiddenValue(name: string, separator: string): string {
  const shown = `${name}${separator}…`;
  if (!/^[\w.-]+$/.test(name)) return shellQuote(shown);
  return separator === '=' ? shown : `"${shown}"`;
}

function capabilityFlag(source: CommandSource | UrlSource): string[] {
  if (source.clientCapabilities === undefined) return [];
  const declared = clientCapabilitiesOf(source);
  if (declared.join() === CLIENT_CAPABILITIES.join()) return [];
  return [`--capabilities ${declared.length === 0 ? 'none' : declared.join(',')}`];
}

/** Quote a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
