import type { Readable, Writable } from 'node:stream';
import { LineReader } from './lines.js';
import { RelaySession, type RelayOptions } from './relay.js';
import { MAX_LINE_BYTES, corked, type Upstream } from './server-link.js';

/** After the client hangs up, how long the server gets to exit on its own before it is stopped. */
const EXIT_GRACE_MS = 1000;

/**
 * The proxy on stdio: the client speaks on `input`/`output`, the server on `server`'s. Runs
 * until the client closes `input` (then the server is stopped), the server exits (then so do
 * we) or `stopped` resolves (a signal: the server is stopped). Resolves to 0 when the client
 * ended the session, the signal's code, else the server's exit code (2 when it could not start).
 */
export async function runStdio(server: Upstream, relay: RelayOptions, input: Readable, output: Writable, stopped: Promise<number>): Promise<number> {
  const { input: serverInput, output: serverOutput } = server;

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

  const session = new RelaySession(relay, {
    toServer,
    toClient,
    pauseClient: () => setClientPause('hold', true),
    resumeClient: () => setClientPause('hold', false),
  });
  const fromClient = new LineReader({ maxLineBytes: MAX_LINE_BYTES, onLine: (line) => session.fromClient(line), onOverflow: (bytes) => session.relayClient(bytes) });
  const fromServer = new LineReader({ maxLineBytes: MAX_LINE_BYTES, onLine: (line) => session.fromServer(line), onOverflow: toClient });

  const clientEnded = new Promise<void>((resolve) => {
    input.on('data', (chunk: Buffer) => corked([serverInput, output], () => fromClient.push(chunk)));
    input.once('end', resolve);
    input.once('error', () => resolve());
  });
  serverOutput?.on('data', (chunk: Buffer) => corked([serverInput, output], () => fromServer.push(chunk)));
  serverOutput?.once('end', () => {
    const rest = fromServer.rest();
    if (rest !== undefined) toClient(rest);
  });

  let signalCode = 0;
  const ending = await Promise.race([
    clientEnded.then(() => 'client' as const),
    server.gone.then(() => 'server' as const),
    stopped.then((code) => ((signalCode = code), 'signal' as const)),
  ]);
  if (ending === 'client') {
    const rest = fromClient.rest();
    if (rest !== undefined) session.relayClient(rest);
    // Calls the client sent before hanging up still go out (and get answered, as without the proxy).
    await session.settled();
    // The MCP way to end a stdio server: close its input, give it a moment, then signal.
    serverInput?.end();
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([server.gone, new Promise((resolve) => (grace = setTimeout(resolve, EXIT_GRACE_MS)))]);
    clearTimeout(grace);
  } else {
    input.destroy();
    if (ending === 'server' && server.startFailed()) relay.warn(`the server ${await server.gone}.`);
  }
  await server.stop();
  session.close();
  if (ending === 'client') return 0;
  if (ending === 'signal') return signalCode;
  return server.exitCode();
}
