/**
 * `mcp-contract-guard proxy`: self-healing errors for any MCP server, whatever its language.
 * The client launches the proxy in place of the server (or reaches it over streamable HTTP,
 * `--listen`); the proxy starts the server over stdio (its own process group, stopped whole),
 * or reaches one over streamable HTTP (`--url`), and relays the session through
 * `RelaySession`, which checks calls and explains errors. Not
 * part of the runtime export: it loads ajv, which a server embedding the runtime does not need.
 */
import { existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { UserError, errorMessage } from '../errors.js';
import type { DeltaMap } from '../runtime/index.js';
import type { UsageRecorder } from '../runtime/usage.js';
import { CLI_COMMAND } from '../version.js';
import { PROXY_USAGE, parseProxyArgs, type ProxyOptions } from './args.js';
import { CallLog } from './call-log.js';
import { launchServer, type Upstream } from './server-link.js';

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
  // Only a pinning proxy loads the pin's code (the lockfile reader, the drift policy, the config).
  // Read before the server starts: a pin that does not match its digests never starts the server.
  const pin = options.lockfile === undefined ? undefined : await (await import('./pin-settings.js')).loadPin(options, warn);
  const { url, headers = {}, command } = options;
  const signal = stopSignal();
  // On stdio the client waits for the server's first answer: the server starts now, and the
  // rest (the artifact, the log and usage files, the relay's code: the validator, the explainer)
  // is read and loaded while it does. The client's first lines wait in the pipe until the relay
  // reads them. What cannot be read then stops the server, and the proxy, with the same error.
  const server = options.listen === undefined && url === undefined ? launchServer(command) : undefined;
  let log: CallLog | undefined;
  let usage: UsageRecorder | undefined;
  try {
    const deltas = await readArtifact(options.artifact, warn);
    log = options.log === undefined ? undefined : new CallLog(options.log, options.logValues === true, warn);
    usage = options.usage === undefined ? undefined : await openUsage(options.usage, warn);
    usage?.setTransport(options.listen !== undefined ? 'tcp' : 'pipe');
    const renames = options.renames ?? 'explain';
    if (renames === 'route' && deltas.size > 0 && deltas.release?.date === undefined) {
      warn('the artifact records no release date, so renames are routed with no end to the deprecation window; write it with --released-at (the Action dates it itself).');
    }
    const { CallRouter } = await import('../runtime/routing.js');
    const router = new CallRouter(deltas, { renames, ...(options.renameWindowDays !== undefined ? { renameWindowDays: options.renameWindowDays } : {}) });
    const relay = { deltas, router, validate: options.validate !== false, explainAll: options.explainAll !== false, log, usage, warn, pin };
    const { httpUpstream } = url !== undefined ? await import('./http-upstream.js') : { httpUpstream: undefined };
    const upstream = (): Upstream => (httpUpstream !== undefined && url !== undefined ? httpUpstream(url, headers, warn) : launchServer(command));
    if (options.listen !== undefined) return await (await import('./http.js')).serveHttp(upstream, relay, options.listen, signal.received, options.sessions);
    const { runStdio } = await import('./stdio.js');
    // From here the relay owns the server: it stops it when the session ends.
    return await runStdio(server ?? upstream(), relay, streams.input, streams.output, signal.received);
  } catch (error) {
    await server?.stop();
    throw error;
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

/** This process's stdio, each taken on first use: creating them is work the server's start need not wait for. */
function processStreams(): ProxyStreams {
  return {
    get input() {
      return process.stdin;
    },
    get output() {
      return process.stdout;
    },
    get errors() {
      return process.stderr;
    },
  };
}

/** The usage recorder of `--usage FILE` (its code loaded only then); a file that cannot be opened stops the proxy before it starts. */
async function openUsage(file: string, warn: (message: string) => void): Promise<UsageRecorder> {
  const { UsageRecorder } = await import('../runtime/usage.js');
  try {
    return new UsageRecorder({ file, warn: (message) => warn(`usage: ${message}`) });
  } catch (error) {
    throw new UserError(`--usage ${file} cannot be opened for appending (${errorMessage(error)}).`);
  }
}

/** The artifact's deltas. A missing file is a warning (a first release has none); a corrupt one stops the proxy. */
async function readArtifact(path: string | undefined, warn: (message: string) => void): Promise<DeltaMap> {
  if (path !== undefined && !existsSync(path)) {
    warn(`there is no delta artifact at ${path}; calls are still checked, without <contract_awareness>.`);
  }
  if (path === undefined) return new Map();
  const { DeltaArtifactError, loadDeltaMap } = await import('../runtime/delta-map.js');
  try {
    return loadDeltaMap(path, { optional: true });
  } catch (error) {
    if (error instanceof DeltaArtifactError) throw new UserError(`${error.message} Regenerate it with "${CLI_COMMAND} diff OLD NEW --artifact ${path}".`);
    throw error;
  }
}
