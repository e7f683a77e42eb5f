/**
 * `mcp-contract-guard proxy`: self-healing errors for any MCP server, whatever its language.
 * The client launches the proxy in place of the server (or reaches it over streamable HTTP,
 * `--listen`); the proxy starts the server over stdio (its own process group, stopped whole),
 * or reaches one over streamable HTTP (`--url`), and relays the session through
 * `RelaySession`, which checks calls and explains errors. Not
 * part of the runtime export: it loads ajv, which a server embedding the runtime does not need.
 */
import { existsSync } from 'node:fs';
import { redactUrl } from '../compile/redact.js';
import { shellQuote } from '../compile/source.js';
import { findConfig } from '../config-location.js';
import { loadConfig } from '../config.js';
import { LockfileError } from '../contract/lockfile.js';
import { ENTRY_KINDS, countOf } from '../contract/model.js';
import { parsePinFile, pinOf, type PinFile, type PinnedServer } from '../contract/pins.js';
import { readTextIfExists } from '../files.js';
import { repinCommand } from '../pin/repin.js';
import { DEFAULT_DRIFT_POLICY, describePolicy, type DriftPolicy } from '../policy/drift.js';
import type { PinSettings } from './pin.js';
import type { Readable, Writable } from 'node:stream';
import { UserError, errorMessage } from '../errors.js';
import { DeltaArtifactError, loadDeltaMap, type DeltaMap } from '../runtime/index.js';
import { UsageRecorder } from '../runtime/usage.js';
import { CallRouter } from '../runtime/routing.js';
import { PROXY_USAGE, parseProxyArgs, type ProxyOptions } from './args.js';
import { CallLog } from './call-log.js';
import { httpUpstream } from './http-upstream.js';
import { serveHttp } from './http.js';
import { launchServer } from './server-link.js';
import { runStdio } from './stdio.js';

export { PROXY_USAGE, parseProxyArgs, type ProxyOptions } from './args.js';
export type { CallOutcome, CallRecord } from './call-log.js';

/** Where the MCP session flows; by default this process's stdin, stdout and stderr. */
export interface ProxyStreams {
  input: Readable;
  output: Writable;
  errors: Writable;
}

/**
 * Runs the proxy: on stdio until the client closes its input (then the server is stopped) or
 * the server exits (then the proxy does too), resolving to 0 or the server's exit code; with
 * `listen`, as an HTTP server until the process is stopped. Throws `UserError` for an
 * unreadable artifact or an address it cannot listen on.
 */
export async function runProxy(options: ProxyOptions, streams: ProxyStreams = processStreams()): Promise<number> {
  const warn = (message: string) => void streams.errors.write(`mcp-contract-guard proxy: ${message}\n`);
  const deltas = readArtifact(options.artifact, warn);
  const pin = options.lockfile === undefined ? undefined : await loadPin(options, warn);
  const log = options.log === undefined ? undefined : new CallLog(options.log, options.logValues === true, warn);
  const renames = options.renames ?? 'explain';
  if (renames === 'route' && deltas.size > 0 && deltas.release?.date === undefined) {
    warn('the artifact records no release date, so renames are routed with no end to the deprecation window; write it with --released-at (the Action dates it itself).');
  }
  const router = new CallRouter(deltas, { renames, ...(options.renameWindowDays !== undefined ? { renameWindowDays: options.renameWindowDays } : {}) });
  const usage = options.usage === undefined ? undefined : openUsage(options.usage, warn);
  usage?.setTransport(options.listen !== undefined ? 'tcp' : 'pipe');
  const relay = { deltas, router, validate: options.validate !== false, explainAll: options.explainAll !== false, log, usage, warn, pin };
  const { url, headers = {}, command } = options;
  const upstream = () => (url !== undefined ? httpUpstream(url, headers, warn) : launchServer(command));
  const signal = stopSignal();
  try {
    if (options.listen !== undefined) return await serveHttp(upstream, relay, options.listen, signal.received, options.sessions);
    return await runStdio(upstream(), relay, streams.input, streams.output, signal.received);
  } finally {
    signal.dispose();
    log?.close();
    await usage?.close();
  }
}

/**
 * SIGINT or SIGTERM, as the exit code it calls for (130, 143): the proxy then stops its servers
 * the graceful way (SIGTERM to each process group, SIGKILL after a grace) before it exits.
 */
function stopSignal(): { received: Promise<number>; dispose: () => void } {
  let stop!: (code: number) => void;
  const received = new Promise<number>((resolve) => (stop = resolve));
  const onInt = () => stop(130);
  const onTerm = () => stop(143);
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    received,
    dispose: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

/** `mcp-contract-guard proxy …` from the CLI: parses the flags, runs, and reports errors in words. */
export async function proxyCommand(argv: readonly string[], io: { stdout: (text: string) => void; stderr: (text: string) => void }): Promise<number> {
  try {
    const options = parseProxyArgs(argv);
    if (options.help) {
      io.stdout(`${PROXY_USAGE}\n`);
      return 0;
    }
    return await runProxy(options);
  } catch (error) {
    if (error instanceof UserError) {
      io.stderr(`error: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr(`error: the proxy failed unexpectedly: ${errorMessage(error)}\n(this is a bug in mcp-contract-guard; please report it)\n`);
    return 2;
  }
}

function processStreams(): ProxyStreams {
  return { input: process.stdin, output: process.stdout, errors: process.stderr };
}

/** The usage recorder of `--usage FILE`; a file that cannot be opened stops the proxy before it starts. */
function openUsage(file: string, warn: (message: string) => void): UsageRecorder {
  try {
    return new UsageRecorder({ file, warn: (message) => warn(`usage: ${message}`) });
  } catch (error) {
    throw new UserError(`--usage ${file} cannot be opened for appending (${errorMessage(error)}).`);
  }
}

/**
 * `--lockfile`: the pinned server's contracts, verified (a pin that does not match its digests
 * is refused: it was edited by hand, or is not the one reviewed), and what to do with drift.
 */
async function loadPin(options: ProxyOptions, warn: (message: string) => void): Promise<PinSettings> {
  const file = options.lockfile as string;
  const text = await readTextIfExists(file, 'the pin file');
  if (text === undefined) throw new UserError(`There is no pin file at ${file}: write it with "mcp-contract-guard pin <client configuration>" (or a lockfile with "mcp-contract-guard lock").`);
  let pins: PinFile;
  try {
    pins = parsePinFile(text, file);
  } catch (error) {
    if (!(error instanceof LockfileError)) throw error;
    const cause = error.problem === 'tampered' ? ' The proxy holds a server only to the pin that was reviewed: restore it from version control, or pin the server again.' : '';
    throw new UserError(`${error.message}${cause}`);
  }
  let chosen: { name: string; pin: PinnedServer };
  try {
    chosen = pinOf(pins.servers, options.pinServer, file);
  } catch (error) {
    throw new UserError(`${errorMessage(error)} Name it with --server.`);
  }
  const policy = options.onDrift ?? (await configuredPolicy(options.config)) ?? DEFAULT_DRIFT_POLICY;
  const { contracts } = chosen.pin;
  const counts = ENTRY_KINDS.filter((kind) => Object.keys(contracts[kind]).length > 0).map((kind) => countOf(kind, Object.keys(contracts[kind]).length));
  warn(`holding ${JSON.stringify(chosen.name)} to ${file} (${counts.join(', ') || 'nothing listed'}); on drift: ${describePolicy(policy)}.`);
  return { server: chosen.name, file, contracts, policy, repin: acceptCommand(pins, chosen, file, options), logged: new Set(), warn };
}

/** The config file's `onDrift`: the one --config names, else ./mcp-contract-guard.config.json if there is one. */
async function configuredPolicy(path: string | undefined): Promise<DriftPolicy | undefined> {
  const config = path ?? findConfig(process.cwd());
  if (config === undefined) return undefined;
  return (await loadConfig(config)).onDrift;
}

/** How to accept a reviewed change: pin the server again, the way it was pinned. */
function acceptCommand(pins: PinFile, chosen: { name: string; pin: PinnedServer }, file: string, options: ProxyOptions): string {
  const repin = repinCommand(pins.configuration, file, chosen.name);
  if (repin !== undefined) return repin;
  const lockfile = `--lockfile ${shellQuote(file)}`;
  if (options.url !== undefined) return `mcp-contract-guard lock --url ${shellQuote(redactUrl(options.url.href))} ${lockfile}`;
  return `mcp-contract-guard lock --command ${shellQuote(options.command.map(shellQuote).join(' '))} ${lockfile}`;
}

/** The artifact's deltas. A missing file is a warning (a first release has none); a corrupt one stops the proxy. */
function readArtifact(path: string | undefined, warn: (message: string) => void): DeltaMap {
  if (path !== undefined && !existsSync(path)) {
    warn(`there is no delta artifact at ${path}; calls are still checked, without <contract_awareness>.`);
  }
  if (path === undefined) return new Map();
  try {
    return loadDeltaMap(path, { optional: true });
  } catch (error) {
    if (error instanceof DeltaArtifactError) throw new UserError(`${error.message} Regenerate it with "mcp-contract-guard diff OLD NEW --artifact ${path}".`);
    throw error;
  }
}
