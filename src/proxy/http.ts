/**
 * `--listen HOST:PORT`: the proxy as a streamable HTTP MCP endpoint (`/mcp`) in front of a
 * stdio server (or of an HTTP one, `--url`). A stdio server talks to one client, so each MCP
 * session (an `initialize` POSTed without `Mcp-Session-Id`) gets its own server process (or
 * upstream session) and `RelaySession`; the session id is ours, and `DELETE` (or the server
 * exiting) ends both.
 *
 * A POST carrying requests is answered with an SSE stream that closes once each of its
 * requests is answered; one carrying only notifications or responses gets 202. The server's
 * messages are routed back: an answer to the stream of the POST that carried its request,
 * progress to the stream of the request that asked for it (its `progressToken`), and what the
 * server sends on its own (logs, ping, sampling, elicitation, list_changed) to the session's
 * GET stream when the client opened one, else to its newest open POST stream, else it waits
 * (a bounded number of messages) for a GET stream.
 *
 * Bounds: bodies up to the line limit, at most `MAX_SESSIONS` sessions (each one a process),
 * sessions idle for `IDLE_MS` with no open stream are closed. Listening on a loopback address,
 * requests from a web page of another origin are refused (DNS rebinding). The protocol's
 * stateless revision (no session) is not served over HTTP yet.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isJsonObject, type JsonObject, type JsonValue } from '../contract/model.js';
import { UserError } from '../errors.js';
import { LineReader } from './lines.js';
import { RelaySession, idKey, type RelayOptions } from './relay.js';
import { MAX_LINE_BYTES, type Upstream } from './server-link.js';
import { DEFAULT_SESSION_LIMITS, SessionTable, type SessionLimits, type TableSession } from './sessions.js';

export interface ListenAddress {
  host: string;
  port: number;
}

const PATH = '/mcp';
/** Server messages held for a session with no open stream; past it, new ones are dropped (and reported). */
const MAX_WAITING_MESSAGES = 1000;
/** How often idle sessions are looked for: often enough for short idle times, at most once a minute. */
const MAX_SWEEP_MS = 60_000;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

interface SseStream {
  readonly res: ServerResponse;
  /** The requests this POST still waits an answer for (id key → id); empty for the GET stream. */
  readonly pending: Map<string, JsonValue>;
  readonly tokens: readonly string[];
}

/**
 * Serves until `stopped` resolves (a signal, with its exit code), then stops every session's
 * server and resolves to that code. Throws `UserError` when it cannot listen.
 */
export async function serveHttp(
  upstream: () => Upstream,
  relay: RelayOptions,
  address: ListenAddress,
  stopped: Promise<number>,
  limits: SessionLimits = DEFAULT_SESSION_LIMITS,
): Promise<number> {
  const sessions = new SessionTable<HttpSession>(limits);
  const loopback = LOOPBACK.has(address.host);
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      relay.warn(`an HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (new URL(req.url ?? '/', 'http://proxy').pathname !== PATH) return rpcError(res, 404, -32000, `Not found: the MCP endpoint is ${PATH}`);
    if (loopback && !isLocalOrigin(req.headers.origin)) return rpcError(res, 403, -32000, 'Forbidden: requests from another origin are refused');
    if (loopback && !isLocalHost(req.headers.host)) return rpcError(res, 403, -32000, 'Forbidden: requests for another host are refused');
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (typeof sessionId === 'string' && session === undefined) return rpcError(res, 404, -32001, 'Session not found');
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (session === undefined) return rpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      if (req.method === 'DELETE') {
        sessions.remove(session);
        await session.close();
        res.writeHead(200).end();
      } else {
        session.listen(res);
      }
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
      return;
    }
    const body = await readBody(req);
    if (body === undefined) return rpcError(res, 413, -32600, `Request too large: at most ${MAX_LINE_BYTES} bytes`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return rpcError(res, 400, -32700, 'Parse error');
    }
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    // One message, one line: a body written over several lines is written again on one.
    const line = Buffer.from(`${body.includes('\n') ? JSON.stringify(parsed) : body}\n`);
    if (session !== undefined) return session.post(messages, line, res);
    if (!messages.some((message) => isJsonObject(message) && message.method === 'initialize')) {
      return rpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id; start a session with initialize');
    }
    if (!sessions.makeRoom()) {
      res.setHeader('retry-after', '1');
      return rpcError(res, 503, -32000, `Too many sessions (at most ${limits.maxSessions}), each with a request in progress; retry shortly`);
    }
    const created = new HttpSession(upstream(), relay, (gone) => sessions.remove(gone));
    sessions.add(created);
    created.post(messages, line, res);
  }

  const sweep = setInterval(() => sessions.sweep(), Math.min(limits.idleMs, MAX_SWEEP_MS));
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) => reject(new UserError(`cannot listen on ${address.host}:${address.port} (${error.code ?? error.message}).`)));
    http.listen(address.port, address.host, resolve);
  });
  const bound = http.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : address.port;
  const host = address.host.includes(':') && !address.host.startsWith('[') ? `[${address.host}]` : address.host;
  relay.warn(`listening on http://${host}:${port}${PATH}`);
  const code = await stopped;
  clearInterval(sweep);
  http.close();
  http.closeAllConnections();
  await sessions.closeAll();
  return code;
}

class HttpSession implements TableSession {
  readonly id = randomUUID();
  private readonly relay: RelaySession;
  private readonly byRequest = new Map<string, SseStream>();
  private readonly byToken = new Map<string, SseStream>();
  /** Open POST streams, oldest first. */
  private readonly posts = new Set<SseStream>();
  private standalone: SseStream | undefined;
  /** Server messages that arrived while the client had no stream open, oldest first. */
  private readonly waiting: JsonObject[] = [];
  private waitingOverflowReported = false;
  /** When the session was last active: a request, or the last answer it awaited. */
  private lastActive = Date.now();
  private overflowReported = false;

  constructor(
    private readonly server: Upstream,
    private readonly options: RelayOptions,
    onGone: (session: HttpSession) => void,
  ) {
    const input = this.server.input;
    this.relay = new RelaySession(options, {
      toServer: (bytes) => void (input?.writable && input.write(bytes)),
      toClient: (bytes) => this.deliver(bytes),
      // A POST cannot be paused; the session queues what waits for the contract itself.
      pauseClient: () => {},
      resumeClient: () => {},
    });
    const reader = new LineReader({ maxLineBytes: MAX_LINE_BYTES, onLine: (line) => this.relay.fromServer(line), onOverflow: () => this.reportOverflow() });
    this.server.output?.on('data', (chunk: Buffer) => reader.push(chunk));
    void this.server.gone.then((how) => {
      if (this.server.startFailed()) options.warn(`the server ${how}.`);
      this.endStreams(`the MCP server ${how}`);
      this.relay.close();
      onGone(this);
    });
  }

  post(messages: unknown[], line: Buffer, res: ServerResponse): void {
    this.lastActive = Date.now();
    const requests = messages.filter((message): message is JsonObject => isJsonObject(message) && typeof message.method === 'string' && idKey(message.id) !== undefined);
    if (requests.length === 0) {
      res.writeHead(202, { 'mcp-session-id': this.id }).end();
      this.relay.fromClient(line);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': this.id });
    const tokens = requests.flatMap((request) => {
      const token = isJsonObject(request.params) && isJsonObject(request.params._meta) ? idKey(request.params._meta.progressToken) : undefined;
      return token === undefined ? [] : [token];
    });
    const stream: SseStream = { res, pending: new Map(requests.map((request) => [idKey(request.id) as string, request.id as JsonValue])), tokens };
    for (const key of stream.pending.keys()) this.byRequest.set(key, stream);
    for (const token of tokens) this.byToken.set(token, stream);
    this.posts.add(stream);
    res.on('close', () => this.forget(stream));
    this.deliverWaiting(stream);
    // Registered first: the proxy may answer a call at once, inside this very call.
    this.relay.fromClient(line);
  }

  /** The GET stream, for what the server sends on its own. */
  listen(res: ServerResponse): void {
    this.lastActive = Date.now();
    if (this.standalone !== undefined) {
      rpcError(res, 409, -32000, 'Conflict: this session already has a GET stream');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': this.id });
    const stream: SseStream = { res, pending: new Map(), tokens: [] };
    this.standalone = stream;
    res.on('close', () => {
      if (this.standalone === stream) this.standalone = undefined;
    });
    this.deliverWaiting(stream);
  }

  idleSince(): number | undefined {
    return this.byRequest.size > 0 ? undefined : this.lastActive;
  }

  async close(): Promise<void> {
    await this.server.stop();
  }

  private deliver(bytes: Buffer | string): void {
    for (const line of bytes.toString().split('\n')) {
      if (line.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        continue; // not JSON-RPC: nothing an HTTP client could be sent
      }
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) if (isJsonObject(message)) this.route(message);
    }
  }

  private route(message: JsonObject): void {
    if (typeof message.method !== 'string') {
      const key = idKey(message.id);
      const stream = key === undefined ? undefined : this.byRequest.get(key);
      if (key === undefined || stream === undefined) return; // its POST is gone
      this.byRequest.delete(key);
      stream.pending.delete(key);
      this.lastActive = Date.now();
      send(stream, message);
      if (stream.pending.size === 0) {
        // Forgotten now, not on 'close': what the server sends next must not go to an ended stream.
        this.forget(stream);
        stream.res.end();
      }
      return;
    }
    const token = isJsonObject(message.params) ? idKey(message.params.progressToken) : undefined;
    const target = (token === undefined ? undefined : this.byToken.get(token)) ?? this.standalone ?? [...this.posts].at(-1);
    if (target !== undefined) send(target, message);
    else this.hold(message);
  }

  /** A server message with no stream to go to: kept for the next stream the client opens. */
  private hold(message: JsonObject): void {
    if (this.waiting.length < MAX_WAITING_MESSAGES) {
      this.waiting.push(message);
    } else if (!this.waitingOverflowReported) {
      this.waitingOverflowReported = true;
      this.options.warn(`a session's client opened no stream for over ${MAX_WAITING_MESSAGES} messages of its server; later ones were dropped.`);
    }
  }

  private deliverWaiting(stream: SseStream): void {
    for (const message of this.waiting.splice(0)) send(stream, message);
  }

  private forget(stream: SseStream): void {
    this.posts.delete(stream);
    for (const key of stream.pending.keys()) if (this.byRequest.get(key) === stream) this.byRequest.delete(key);
    for (const token of stream.tokens) if (this.byToken.get(token) === stream) this.byToken.delete(token);
  }

  /** The server is gone: requests still waiting get an error saying so, and every stream ends. */
  private endStreams(reason: string): void {
    for (const stream of [...this.posts, ...(this.standalone === undefined ? [] : [this.standalone])]) {
      for (const id of stream.pending.values()) send(stream, { jsonrpc: '2.0', id, error: { code: -32000, message: `Connection closed: ${reason}` } });
      stream.res.end();
    }
  }

  private reportOverflow(): void {
    if (this.overflowReported) return;
    this.overflowReported = true;
    this.options.warn(`the server wrote a message over ${MAX_LINE_BYTES} bytes; over HTTP it cannot be relayed unread, so it was dropped.`);
  }
}

function send(stream: SseStream, message: JsonObject): void {
  stream.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** The body, or undefined past the line limit (read to its end all the same, so the answer can be sent). */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_LINE_BYTES) chunks.push(chunk as Buffer);
  }
  return size > MAX_LINE_BYTES ? undefined : Buffer.concat(chunks).toString('utf8');
}

/** The Host header names a loopback host (a request without one is not from a browser). */
function isLocalHost(host: string | undefined): boolean {
  if (host === undefined) return true;
  return URL.canParse(`http://${host}`) && LOOPBACK.has(new URL(`http://${host}`).hostname);
}

function isLocalOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  try {
    return LOOPBACK.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}
