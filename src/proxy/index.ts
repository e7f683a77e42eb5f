/**
 * `mcp-contract-guard proxy`: self-healing errors for any MCP server, whatever its language.
 * The client launches the proxy in place of the server; the proxy starts the server over stdio
 * (its own process group, stopped whole) and relays the session byte for byte through
 * `RelaySession`, which checks calls and explains errors. Not part of the runtime export: it
 * loads ajv, which a server embedding the runtime does not need.
 */
import { existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { newEvidence } from '../compile/channel.js';
import { ServerProcess } from '../compile/process.js';
import { UserError, errorMessage } from '../errors.js';
import { DeltaArtifactError, loadDeltaMap, type DeltaMap } from '../runtime/index.js';
import { PROXY_USAGE, parseProxyArgs, type ProxyOptions } from './args.js';
import { CallLog } from './call-log.js';
import { LineReader } from './lines.js';
import { RelaySession } from './relay.js';

export { PROXY_USAGE, parseProxyArgs, type ProxyOptions } from './args.js';
export type { CallOutcome, CallRecord } from './call-log.js';

/** Where the MCP session flows; by default this process's stdin, stdout and stderr. */
export interface ProxyStreams {
  input: Readable;
  output: Writable;
  errors: Writable;
}

/**
 * Lines longer than this are relayed without being read (so never checked or explained): a
 * peer that never ends a line must not grow our memory. Far above any real tools/list or call.
 */
const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** After the client hangs up, how long the server gets to exit on its own before it is stopped. */
const EXIT_GRACE_MS = 1000;

/**
 * Runs the proxy until the client closes its input (then the server is stopped) or the server
 * exits (then the proxy does too). Resolves to the exit code: 0 when the client ended the
 * session, else the server's. Throws `UserError` for an unreadable artifact.
 */
export async function runProxy(options: ProxyOptions, streams: ProxyStreams = processStreams()): Promise<number> {
  const { input, output, errors } = streams;
  const warn = (message: string) => void errors.write(`mcp-contract-guard proxy: ${message}\n`);
  const deltas = readArtifact(options.artifact, warn);
  const log = options.log === undefined ? undefined : new CallLog(options.log, options.logValues === true, warn);

  let serverGone!: () => void;
  const gone = new Promise<void>((resolve) => (serverGone = resolve));
  let goneHow = '';
  const evidence = newEvidence('stdio', options.command.join(' '));
  const server = new ServerProcess(
    {
      command: [...options.command],
      stdin: 'pipe',
      relay: true,
      onGone: (how) => {
        goneHow = how;
        serverGone();
      },
    },
    evidence,
  );
  const { stdin: serverInput, stdout: serverOutput } = server.streams;

  // The client's input pauses while a call waits for the contract or the server's stdin is full.
  const clientPause = new Set<'hold' | 'full'>();
  const setClientPause = (reason: 'hold' | 'full', paused: boolean) => {
    if (paused) clientPause.add(reason);
    else clientPause.delete(reason);
    if (clientPause.size > 0) input.pause();
    else input.resume();
  };
  const toServer = (bytes: Buffer | string) => {
    if (serverInput?.writable && !serverInput.write(bytes) && !clientPause.has('full')) {
      setClientPause('full', true);
      serverInput.once('drain', () => setClientPause('full', false));
    }
  };
  let serverPaused = false;
  const toClient = (bytes: Buffer | string) => {
    if (!output.write(bytes) && !serverPaused && serverOutput !== null) {
      serverPaused = true;
      serverOutput.pause();
      output.once('drain', () => {
        serverPaused = false;
        serverOutput.resume();
      });
    }
  };
  // A client that went away mid-write ends the session through its input; the EPIPE says nothing more.
  output.on('error', () => {});

  const session = new RelaySession(
    { deltas, validate: options.validate !== false, log, warn },
    { toServer, toClient, pauseClient: () => setClientPause('hold', true), resumeClient: () => setClientPause('hold', false) },
  );
  const fromClient = new LineReader({ maxLineBytes: MAX_LINE_BYTES, onLine: (line) => session.fromClient(line), onOverflow: (bytes) => session.relayClient(bytes) });
  const fromServer = new LineReader({ maxLineBytes: MAX_LINE_BYTES, onLine: (line) => session.fromServer(line), onOverflow: toClient });

  // The lines of one chunk leave in one write per direction (a burst of calls costs few syscalls).
  const corked = (read: () => void) => {
    serverInput?.cork();
    output.cork();
    try {
      read();
    } finally {
      serverInput?.uncork();
      output.uncork();
    }
  };
  const clientEnded = new Promise<void>((resolve) => {
    input.on('data', (chunk: Buffer) => corked(() => fromClient.push(chunk)));
    input.once('end', resolve);
    input.once('error', () => resolve());
  });
  serverOutput?.on('data', (chunk: Buffer) => corked(() => fromServer.push(chunk)));
  serverOutput?.once('end', () => {
    const rest = fromServer.rest();
    if (rest !== undefined) toClient(rest);
  });

  const ending = await Promise.race([clientEnded.then(() => 'client' as const), gone.then(() => 'server' as const)]);
  if (ending === 'client') {
    const rest = fromClient.rest();
    if (rest !== undefined) session.relayClient(rest);
    // Calls the client sent before hanging up still go out (and get answered, as without the proxy).
    await session.settled();
    // The MCP way to end a stdio server: close its input, give it a moment, then signal.
    serverInput?.end();
    await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, EXIT_GRACE_MS).unref())]);
  } else {
    input.destroy();
    if (evidence.spawnErrorCode !== undefined) warn(`the server ${goneHow} (command: ${options.command.join(' ')}).`);
  }
  await server.stop();
  session.close();
  await log?.close();
  if (ending === 'client') return 0;
  return evidence.spawnErrorCode !== undefined ? 2 : typeof evidence.exitCode === 'number' ? evidence.exitCode : 1;
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
