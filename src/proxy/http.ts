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
 * server sends on its own (logs, ping, sampling, elicitation, roots, list_changed) to the
 * session's GET stream when the client opened one, else to its newest open POST stream, else
 * it is held (a bounded number of messages) and delivered on the next stream the client opens.
 *
 * Streams resume as the specification has a server offer it: to a client of protocol
 * 2025-11-25 or later, every event carries an id (`STREAM/N`) and a POST stream opens with a
 * priming event; when the client's connection drops before the answers, the stream is kept (a
 * bounded number of them, a bounded number of events each) and a GET with `Last-Event-ID`
 * replays what came after that event, then goes on with the rest.
 *
 * Bounds: bodies up to the line limit, and the sessions' number and idle time (`SessionTable`:
 * the session idle the longest makes room for a new one, an ended or expired session's id is
 * answered 404). Listening on a loopback address, requests from a web page of another origin,
 * or naming another host (DNS rebinding), are refused. The protocol's stateless revision (no
 * session) is not served over HTTP yet.
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

/** Events, and bytes of them, a stream keeps for a client that resumes it; past either, the oldest are forgotten. */
const MAX_KEPT_EVENTS = 1000;
const MAX_KEPT_BYTES = 1024 * 1024;
/**
 * Resumable streams a session keeps once their connection is gone (dropped by the client, or
 * ended after the last answer, which a dropping connection may not have delivered); past it,
 * the oldest are forgotten.
 */
const MAX_KEPT_STREAMS = 8;
/** The reconnection delay the priming event asks for. */
const RETRY_MS = 1000;
/** The first protocol version whose clients read a priming event (an event with empty data). */
const RESUMABLE_SINCE = '2025-11-25';

/** One SSE stream to the client: a POST's, or the GET stream. */
class SseStream {
  /** The client's connection; undefined once it dropped (the stream may be resumed). */
  res: ServerResponse | undefined;
  private sent = 0;
  /** What was sent, for a resumption: only for a resumable stream. */
  private readonly kept: { n: number; text: string }[] = [];
  private keptBytes = 0;

  constructor(
    readonly key: string,
    readonly kind: 'post' | 'get',
    res: ServerResponse,
    /** The requests this POST still waits an answer for (id key → id); empty for the GET stream. */
    readonly pending: Map<string, JsonValue>,
    readonly tokens: readonly string[],
    /** Events carry ids and are kept (the client reads priming events). */
    readonly resumable: boolean,
  ) {
    this.res = res;
  }

  /** The priming event of a POST stream: its first event id, and the retry delay. */
  prime(): void {
    if (this.resumable) this.res?.write(`id: ${this.key}/0\nretry: ${RETRY_MS}\ndata: \n\n`);
  }

  send(message: JsonObject): void {
    this.sent += 1;
    const text = `${this.resumable ? `id: ${this.key}/${this.sent}\n` : ''}event: message\ndata: ${JSON.stringify(message)}\n\n`;
    if (this.resumable) {
      this.kept.push({ n: this.sent, text });
      this.keptBytes += text.length;
      while (this.kept.length > MAX_KEPT_EVENTS || this.keptBytes > MAX_KEPT_BYTES) this.keptBytes -= (this.kept.shift() as { text: string }).text.length;
    }
    this.res?.write(text);
  }

  /** A new connection for the stream: what was sent after event `after`, then what comes. */
  resume(res: ServerResponse, after: number): void {
    this.res = res;
    for (const event of this.kept) if (event.n > after) res.write(event.text);
  }
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
    const version = typeof req.headers['mcp-protocol-version'] === 'string' ? req.headers['mcp-protocol-version'] : undefined;
    if (typeof sessionId === 'string' && session === undefined) return rpcError(res, 404, -32001, 'Session not found');
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (session === undefined) return rpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      if (req.method === 'DELETE') {
        sessions.remove(session);
        await session.close();
        res.writeHead(200).end();
      } else {
        const lastEventId = req.headers['last-event-id'];
        session.listen(res, typeof lastEventId === 'string' ? lastEventId : undefined, version);
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
    if (session !== undefined) return session.post(messages, line, res, version);
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
  /** Resumable streams without a connection, by key, oldest first: kept for a resumption. */
  private readonly kept = new Map<string, SseStream>();
  private streamCount = 0;
  /** The protocol version the server chose: from 2025-11-25 on, streams are resumable. */
  private protocolVersion: string | undefined;
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

  /** `version`: the client's `MCP-Protocol-Version` header, if it sent one. */
  post(messages: unknown[], line: Buffer, res: ServerResponse, version?: string): void {
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
    const pending = new Map(requests.map((request) => [idKey(request.id) as string, request.id as JsonValue]));
    const stream = this.newStream('post', res, pending, tokens, version);
    stream.prime();
    for (const key of stream.pending.keys()) this.byRequest.set(key, stream);
    for (const token of tokens) this.byToken.set(token, stream);
    this.posts.add(stream);
    this.deliverWaiting(stream);
    // Registered first: the proxy may answer a call at once, inside this very call.
    this.relay.fromClient(line);
  }

  /**
   * A GET: the resumption of a stream whose connection is gone (`Last-Event-ID`), else the GET
   * stream, for what the server sends on its own.
   */
  listen(res: ServerResponse, lastEventId: string | undefined, version?: string): void {
    this.lastActive = Date.now();
    const [key, after] = lastEventId?.split('/') ?? [];
    const resumed = key === undefined ? undefined : this.kept.get(key);
    if (resumed !== undefined && /^\d+$/.test(after ?? '')) {
      this.kept.delete(resumed.key);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': this.id });
      resumed.resume(res, Number(after));
      res.on('close', () => this.connectionClosed(resumed, res));
      if (resumed.kind === 'post' && resumed.pending.size > 0) {
        this.posts.add(resumed);
        this.deliverWaiting(resumed);
      } else if (resumed.kind === 'get' && this.standalone === undefined) {
        this.standalone = resumed;
        this.deliverWaiting(resumed);
      } else {
        // Answered while away, or a GET stream opened anew meanwhile: what was missed, and done.
        this.finish(resumed);
      }
      return;
    }
    if (this.standalone !== undefined) {
      rpcError(res, 409, -32000, 'Conflict: this session already has a GET stream');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': this.id });
    const stream = this.newStream('get', res, new Map(), [], version);
    this.standalone = stream;
    this.deliverWaiting(stream);
  }

  idleSince(): number | undefined {
    // Busy while a client's POST awaits its answers; a stream without a connection waits for nobody.
    return this.posts.size > 0 ? undefined : this.lastActive;
  }

  async close(): Promise<void> {
    await this.server.stop();
  }

  private newStream(kind: 'post' | 'get', res: ServerResponse, pending: Map<string, JsonValue>, tokens: readonly string[], version: string | undefined): SseStream {
    this.streamCount += 1;
    const spoken = version ?? this.protocolVersion;
    const resumable = spoken !== undefined && spoken >= RESUMABLE_SINCE;
    const stream = new SseStream(String(this.streamCount), kind, res, pending, tokens, resumable);
    res.on('close', () => this.connectionClosed(stream, res));
    return stream;
  }

  /**
   * The connection `res` of a stream closed before the stream ended. A resumable stream is
   * kept, still receiving what is routed to it, for the client to resume; any other is
   * forgotten.
   */
  private connectionClosed(stream: SseStream, res: ServerResponse): void {
    if (stream.res !== res) return; // the stream ended, or another connection took it over
    stream.res = undefined;
    if (this.standalone === stream) this.standalone = undefined;
    this.posts.delete(stream);
    if (stream.resumable) this.keep(stream);
    else this.unroute(stream);
  }

  /** Ends a stream whose answers were all sent (kept a while if resumable: its connection may have been dropping). */
  private finish(stream: SseStream): void {
    // Unrouted first: what the server sends next must not go to an ended stream.
    this.unroute(stream);
    const res = stream.res;
    stream.res = undefined;
    res?.end();
    if (stream.resumable) this.keep(stream);
  }

  private keep(stream: SseStream): void {
    this.kept.set(stream.key, stream);
    if (this.kept.size <= MAX_KEPT_STREAMS) return;
    const oldest = this.kept.values().next().value as SseStream;
    this.kept.delete(oldest.key);
    this.unroute(oldest);
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
      // The version the server chose in its initialize answer: streams after it may resume.
      if (isJsonObject(message.result) && typeof message.result.protocolVersion === 'string' && isJsonObject(message.result.serverInfo)) {
        this.protocolVersion = message.result.protocolVersion;
      }
      const key = idKey(message.id);
      const stream = key === undefined ? undefined : this.byRequest.get(key);
      if (key === undefined || stream === undefined) return; // its POST is gone
      this.byRequest.delete(key);
      stream.pending.delete(key);
      this.lastActive = Date.now();
      stream.send(message);
      // A stream without a connection keeps its answers until it is resumed (or pushed out).
      if (stream.pending.size === 0 && stream.res !== undefined) this.finish(stream);
      return;
    }
    const token = isJsonObject(message.params) ? idKey(message.params.progressToken) : undefined;
    const target = (token === undefined ? undefined : this.byToken.get(token)) ?? this.standalone ?? [...this.posts].at(-1);
    if (target !== undefined) target.send(message);
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
    for (const message of this.waiting.splice(0)) stream.send(message);
  }

  /** Nothing more is routed to the stream. */
  private unroute(stream: SseStream): void {
    this.posts.delete(stream);
    for (const key of stream.pending.keys()) if (this.byRequest.get(key) === stream) this.byRequest.delete(key);
    for (const token of stream.tokens) if (this.byToken.get(token) === stream) this.byToken.delete(token);
  }

  /** The server is gone: requests still waiting get an error saying so, and every stream ends. */
  private endStreams(reason: string): void {
    this.kept.clear();
    for (const stream of [...this.posts, ...(this.standalone === undefined ? [] : [this.standalone])]) {
      for (const id of stream.pending.values()) stream.send({ jsonrpc: '2.0', id, error: { code: -32000, message: `Connection closed: ${reason}` } });
      stream.res?.end();
    }
  }

  private reportOverflow(): void {
    if (this.overflowReported) return;
    this.overflowReported = true;
    this.options.warn(`the server wrote a message over ${MAX_LINE_BYTES} bytes; over HTTP it cannot be relayed unread, so it was dropped.`);
  }
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
