/**
 * `--url URL`: a streamable HTTP server (or one of the older HTTP+SSE transport, see
 * openLegacyStream) behind the proxy, presented to the relay as the byte
 * streams of a stdio server (`Upstream`). Each line written is POSTed as one message; the
 * answer (202, a JSON body, or an SSE stream) comes back as lines. POSTs go out in the order
 * they were written: the next starts once the previous one's response headers have arrived,
 * so the server receives `notifications/initialized` before the proxy's own `tools/list`, while
 * long-running SSE answers still stream side by side.
 *
 * Session: the `Mcp-Session-Id` the server hands out is sent back, the protocol version of its
 * `initialize` answer goes in `MCP-Protocol-Version` (the stateless revision's requests carry
 * theirs, and their method in `Mcp-Method`). `stop()` DELETEs the session, and so does the end
 * of our input once the answers still on their way have arrived. A 404 to a request carrying
 * the session id means the server ended the session: the upstream is then gone (the relay's
 * client starts a new session, as the specification has a client do on 404).
 *
 * Streams, as the specification's resumability rules have a client follow them:
 * - The GET stream (what the server sends on its own: sampling, elicitation, roots, ping, logs)
 *   is opened once the session is initialized, and every request after that waits until it is
 *   open (or refused), so a server request sent while handling one of them is never sent to a
 *   stream that does not exist yet. It is reopened whenever it ends (with `Last-Event-ID` once
 *   the server has given its events ids), after the server's `retry` delay, backing off while
 *   it keeps failing; a 405 (or a 404: a route for POSTs only) says the server has none.
 * - A POST's event stream that ends before answering its requests is resumed by a GET with
 *   `Last-Event-ID` after the server's `retry` delay, as often as each resumed stream brings
 *   something, until the answers have come (on that stream or any other); a stream that cannot
 *   be resumed (no event id, a refusal, no progress) answers the requests it still owes with a
 *   JSON-RPC error, so the client is never left waiting.
 * An HTTP or network failure answers the request it carried with a JSON-RPC error too.
 */
import { PassThrough, Writable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import { isJsonObject, type JsonObject, type JsonValue } from '../contract/model.js';
import { parseJson } from '../protocol/index.js';
import { REFUSED_BY_OLDER_SERVERS, fetchFollowingRedirects, openOlderTransportStream, readBody } from '../http-client.js';
import { LineReader } from './lines.js';
import { idKey } from './relay.js';
import { MAX_LINE_BYTES, type Upstream } from './server-link.js';

/** How long the older transport's stream may take to name its endpoint. */
const LEGACY_ENDPOINT_MS = 10_000;
/** The wait before reconnecting a stream when the server sent no `retry` of its own. */
const DEFAULT_RETRY_MS = 1000;
/** Longest wait between two reconnections, whatever the server's `retry` or the backoff says. */
const MAX_RETRY_MS = 60_000;
/** Requests awaiting their answer that are remembered; past it the oldest are forgotten. */
const MAX_UNANSWERED = 10_000;
/** How long requests wait for the GET stream to open; past it they go out all the same. */
const GET_OPEN_WAIT_MS = 10_000;
/** Reconnections in a row that bring nothing (refused, unreachable, or an empty stream) before giving up on a stream. */
const MAX_FRUITLESS_RECONNECTS = 5;
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';

/** How an event stream ended, and where to resume it. */
interface StreamEnd {
  readonly how: 'closed' | 'broken' | 'overflow';
  /** The id of the last event that carried one, this stream or an earlier part of it. */
  readonly lastEventId: string | undefined;
  /** The server's last `retry`, in milliseconds. */
  readonly retryMs: number | undefined;
  /** Events received (a priming event counts: the server is there). */
  readonly events: number;
}

/** The standalone GET stream: not yet asked for, being opened (requests wait), open, or none to be had. */
type GetState = 'unopened' | 'opening' | 'open' | 'reconnecting' | 'none';

export function httpUpstream(url: URL, headers: Readonly<Record<string, string>>, warn: (message: string) => void): Upstream {
  return new HttpUpstream(url, headers, warn);
}

class HttpUpstream implements Upstream {
  readonly output = new PassThrough();
  readonly input: Writable;
  readonly gone: Promise<string>;
  private ended!: (how: string) => void;
  private readonly abort = new AbortController();
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  /** Answers still being read; the session ends only after them. */
  private readonly reading = new Set<Promise<void>>();
  /** The requests POSTed and not answered yet (by id key), on whichever stream the answer comes. */
  private readonly unanswered = new Map<string, JsonValue>();
  private getState: GetState = 'unopened';
  /** Resolves when the GET stream stops being 'opening'. */
  private getSettled: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Where messages go when the server speaks the older HTTP+SSE transport (see openLegacyStream). */
  private legacyEndpoint: URL | undefined;
  private triedLegacy = false;

  constructor(
    private readonly url: URL,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly warn: (message: string) => void,
  ) {
    this.gone = new Promise((resolve) => (this.ended = resolve));
    const lines: Buffer[] = [];
    const reader = new LineReader({
      maxLineBytes: MAX_LINE_BYTES,
      onLine: (line) => lines.push(line),
      onOverflow: () => warn(`a message over ${MAX_LINE_BYTES} bytes cannot be POSTed to ${url.href}; it was dropped.`),
    });
    // Each write's callback waits for its POSTs' response headers: the order, and the backpressure.
    this.input = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        reader.push(chunk);
        const batch = lines.splice(0);
        void (async () => {
          for (const line of batch) await this.post(line.toString('utf8').trim());
          done();
        })();
      },
    });
    // The relay closes our input when its client hung up: the answers on their way still
    // arrive, then the upstream session ends.
    this.input.once('finish', () => void Promise.all(this.reading).then(() => this.stop()));
  }

  async stop(how = 'was left (its session ended)'): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort();
    if (this.sessionId !== undefined) {
      // Ending the session is a courtesy; a server without DELETE answers 405.
      await fetchFollowingRedirects(this.url, { method: 'DELETE', headers: (sameOrigin) => this.requestHeaders({}, sameOrigin), signal: AbortSignal.timeout(2000) })
        .then((response) => response.body?.cancel())
        .catch(() => {});
    }
    this.output.end();
    this.ended(how);
  }

  /** The server answered 404 to our session id: it ended the session, so the upstream is gone. */
  private sessionEnded(): void {
    if (this.stopped) return;
    this.warn(`${this.url.href} ended the session (HTTP 404); the next client session starts a new one.`);
    this.sessionId = undefined; // nothing to DELETE
    void this.stop('ended the session');
  }

  exitCode(): number {
    return 0;
  }

  startFailed(): boolean {
    return false;
  }

  /** POSTs one message; resolves once its response headers are in (its body is read on the side). */
  private async post(text: string): Promise<void> {
    if (text === '' || this.stopped) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      message = undefined; // sent as it is: the server answers a parse error
    }
    const requests = (Array.isArray(message) ? message : [message]).filter(
      (each): each is JsonObject => isJsonObject(each) && typeof each.method === 'string' && each.id !== undefined && each.id !== null,
    );
    for (const request of requests) {
      const key = idKey(request.id);
      if (key !== undefined) this.unanswered.set(key, request.id as JsonValue);
    }
    // A server that never answers some requests must not grow this: the oldest are forgotten.
    while (this.unanswered.size > MAX_UNANSWERED) this.unanswered.delete(this.unanswered.keys().next().value as string);
    const first = isJsonObject(message) ? message : undefined;
    const meta = isJsonObject(first?.params) && isJsonObject(first.params._meta) ? first.params._meta : undefined;
    const extra: Record<string, string> = {};
    if (typeof meta?.[META_VERSION] === 'string') {
      extra['mcp-protocol-version'] = meta[META_VERSION] as string;
      if (typeof first?.method === 'string') extra['mcp-method'] = first.method;
    }
    // A request may make the server call back (sampling, elicitation, roots, ping) on its GET
    // stream: that stream is open before the request goes out.
    if (requests.length > 0 && this.getState === 'opening') await within(this.getSettled, GET_OPEN_WAIT_MS);
    let response: Response;
    try {
      response = await fetchFollowingRedirects(this.legacyEndpoint ?? this.url, { method: 'POST', headers: (sameOrigin) => this.requestHeaders(extra, sameOrigin), body: text, signal: this.abort.signal });
    } catch (error) {
      if (!this.stopped) this.fail(requests, `could not reach ${this.url.href} (${networkReason(error)})`);
      return;
    }
    // The first POST refused as servers of the older transport refuse it: try that transport, once.
    if (!this.triedLegacy && this.sessionId === undefined && REFUSED_BY_OLDER_SERVERS.has(response.status)) {
      this.triedLegacy = true;
      if (await this.openLegacyStream()) {
        await response.body?.cancel();
        return this.post(text);
      }
    }
    if (response.status === 404 && this.sessionId !== undefined) {
      await response.body?.cancel();
      this.fail(requests, `${this.url.href} ended the session (HTTP 404)`);
      this.sessionEnded();
      return;
    }
    const session = response.headers.get('mcp-session-id');
    if (session !== null) this.sessionId = session;
    const reading = this.readAnswer(response, requests);
    this.reading.add(reading);
    void reading.finally(() => this.reading.delete(reading));
    // Opened now, before the next POST goes out (see the module comment).
    if (first?.method === 'notifications/initialized' && response.ok) this.openGetStream();
  }

  private async readAnswer(response: Response, requests: readonly JsonObject[]): Promise<void> {
    const type = response.headers.get('content-type') ?? '';
    if (response.ok && type.includes('text/event-stream')) {
      await this.followPostStream(response, requests);
      return;
    }
    const body = await readBody(response, MAX_LINE_BYTES).catch(() => '');
    if (body === undefined) {
      this.fail(requests, `${this.url.href} answered with a body over ${MAX_LINE_BYTES} bytes; it was dropped`);
      return;
    }
    if (response.ok && body.trim() !== '') {
      this.deliverJson(body);
      return;
    }
    if (response.ok) return; // 202: a notification or a response was accepted
    // A refusal often explains itself in a JSON-RPC error; else say what HTTP said.
    const parsed = parseJson(body);
    if (isJsonObject(parsed) && isJsonObject(parsed.error) && requests.length === 1) {
      this.deliver({ ...parsed, id: requests[0]?.id ?? null });
      return;
    }
    this.fail(requests, `${this.url.href} answered HTTP ${response.status} ${response.statusText}`.trim());
  }

  /**
   * The older HTTP+SSE transport (protocol 2024-11-05), as the specification's backwards-
   * compatibility rule finds it: a GET of the URL opens an event stream whose first event,
   * `endpoint`, names where to POST messages (on the URL's own origin only: the user's headers
   * go there); every message of the server then comes on that stream, read until stop(). False
   * when the URL serves no such stream within `LEGACY_ENDPOINT_MS`.
   */
  private async openLegacyStream(): Promise<boolean> {
    const opened = await openOlderTransportStream({
      get: (signal) => fetchFollowingRedirects(this.url, { method: 'GET', headers: (sameOrigin) => this.requestHeaders({ accept: 'text/event-stream' }, sameOrigin), signal }),
      url: this.url,
      timeoutMs: LEGACY_ENDPOINT_MS,
      signal: this.abort.signal,
      maxEventChars: MAX_LINE_BYTES,
      onEvent: (event) => this.deliverJson(event.data),
      onEnd: (how) => {
        if (how === 'overflow') this.warn(`${this.url.href} sent an event over ${MAX_LINE_BYTES} characters; its stream was dropped.`);
        if (this.legacyEndpoint !== undefined && !this.stopped) this.warn(`${this.url.href} closed its event stream: the session is over.`);
      },
    });
    if (opened.found === 'unusable endpoint' && opened.origin !== undefined) {
      this.warn(`${this.url.href} named a message endpoint on another origin (${opened.origin}); nothing is sent there.`);
    }
    if (opened.found !== 'endpoint') return false;
    this.legacyEndpoint = opened.endpoint;
    return true;
  }

  /**
   * A POST's event stream, read to its end and resumed while it owes answers (see the module
   * comment); what it still owes then is answered with an error.
   */
  private async followPostStream(response: Response, requests: readonly JsonObject[]): Promise<void> {
    const keys = requests.flatMap((request) => idKey(request.id) ?? []);
    const owed = () => keys.filter((key) => this.unanswered.has(key));
    let end = await this.readStream(response, {});
    let fruitless = 0;
    while (owed().length > 0 && !this.stopped && end.how !== 'overflow' && end.lastEventId !== undefined && fruitless < MAX_FRUITLESS_RECONNECTS) {
      if (!(await this.pause(retryDelay(end.retryMs, fruitless)))) return;
      if (owed().length === 0) return; // answered meanwhile, on another stream
      const resumed = await this.getEvents(end.lastEventId);
      if (resumed === 'refused' || this.stopped) break;
      if (resumed === undefined) {
        fruitless += 1;
        continue;
      }
      const next = await this.readStream(resumed, { lastEventId: end.lastEventId, retryMs: end.retryMs });
      fruitless = next.events > 0 ? 0 : fruitless + 1;
      end = next;
    }
    const still = owed();
    if (still.length === 0 || this.stopped) return;
    const resumable = end.lastEventId !== undefined && end.how !== 'overflow';
    this.fail(
      still.map((key) => ({ id: this.unanswered.get(key) })),
      `${this.url.href} ended the event stream of this request before answering it${resumable ? ', and resuming it brought no answer' : ''}`,
    );
  }

  /**
   * The GET stream, kept open for the session's life: reopened after each end (from the last
   * event id), after the server's retry delay, backing off while reopening brings nothing.
   * Gives up on a 405 (the server has no such stream), a 404 (the session is over), or after
   * `MAX_FRUITLESS_RECONNECTS` fruitless attempts in a row.
   */
  private openGetStream(): void {
    if (this.getState !== 'unopened' || this.stopped || this.sessionId === undefined) return;
    // Not one of `reading`: it lasts as long as the session, and stop() ends it.
    void this.keepGetStream();
  }

  private async keepGetStream(): Promise<void> {
    let opened!: () => void;
    this.getState = 'opening';
    this.getSettled = new Promise((resolve) => (opened = resolve));
    let lastEventId: string | undefined;
    let retryMs: number | undefined;
    let fruitless = 0;
    try {
      while (!this.stopped) {
        const response = await this.getEvents(lastEventId);
        if (response === 'refused') return;
        this.getState = response === undefined ? 'reconnecting' : 'open';
        opened();
        if (response === undefined) {
          fruitless += 1;
        } else {
          const end = await this.readStream(response, { lastEventId, retryMs });
          if (end.how === 'overflow') return;
          ({ lastEventId, retryMs } = end);
          fruitless = end.events > 0 ? 0 : fruitless + 1;
        }
        if (this.stopped) return;
        if (fruitless >= MAX_FRUITLESS_RECONNECTS) {
          this.warn(`${this.url.href} keeps refusing or closing its GET stream; what the server sends on its own may not arrive.`);
          return;
        }
        this.getState = 'reconnecting';
        if (!(await this.pause(retryDelay(retryMs, fruitless)))) return;
      }
    } finally {
      this.getState = 'none';
      opened();
    }
  }

  /**
   * A GET of the event stream, from `lastEventId` when given: the response when it is one,
   * 'refused' for a 405 (no such stream) or a 404 (no such route on servers that only take
   * POSTs, or no such stream any more: a session that ended shows on the next POST), undefined
   * for anything else (unreachable, another refusal: worth another try).
   */
  private async getEvents(lastEventId: string | undefined): Promise<Response | 'refused' | undefined> {
    let response: Response;
    try {
      const extra: Record<string, string> = { accept: 'text/event-stream', ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) };
      response = await fetchFollowingRedirects(this.url, { method: 'GET', headers: (sameOrigin) => this.requestHeaders(extra, sameOrigin), signal: this.abort.signal });
    } catch {
      return undefined;
    }
    if (response.ok && (response.headers.get('content-type') ?? '').includes('text/event-stream')) return response;
    await response.body?.cancel().catch(() => {});
    return response.status === 405 || response.status === 404 ? 'refused' : undefined;
  }

  /**
   * Reads an event stream to its end, delivering each message (each bounded by MAX_LINE_BYTES:
   * past it, the stream is dropped, not buffered). `lastEventId` and `retryMs` carry on from
   * the earlier parts of the stream.
   */
  private async readStream(response: Response, from: { lastEventId?: string | undefined; retryMs?: number | undefined }): Promise<StreamEnd> {
    let { lastEventId, retryMs } = from;
    let events = 0;
    let overflow = false;
    const parser = createParser({
      maxBufferSize: MAX_LINE_BYTES,
      onError: (error) => void (overflow ||= error.type === 'max-buffer-size-exceeded'),
      onRetry: (ms) => (retryMs = ms),
      onEvent: (event) => {
        events += 1;
        if (event.id !== undefined && event.id !== '') lastEventId = event.id;
        this.deliverJson(event.data);
      },
    });
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    let how: StreamEnd['how'] = 'closed';
    try {
      while (reader !== undefined && !overflow) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
      if (overflow) {
        how = 'overflow';
        this.warn(`${this.url.href} sent an event over ${MAX_LINE_BYTES} characters; its stream was dropped.`);
      }
    } catch {
      how = 'broken'; // aborted by stop(), or the connection dropped: what arrived was delivered
    } finally {
      await reader?.cancel().catch(() => {});
    }
    return { how, lastEventId, retryMs, events };
  }

  /** Waits `ms`, or less if the session stops; false once it has stopped. */
  private pause(ms: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    const signal = this.abort.signal;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve(!this.stopped);
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private deliverJson(text: string): void {
    const parsed = parseJson(text);
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) if (isJsonObject(message)) this.deliver(message);
  }

  private deliver(message: JsonObject): void {
    if (message.method === undefined) {
      const key = idKey(message.id);
      if (key !== undefined) this.unanswered.delete(key);
    }
    // The version the server chose in its initialize answer goes on every later request.
    if (isJsonObject(message.result) && typeof message.result.protocolVersion === 'string' && isJsonObject(message.result.serverInfo)) {
      this.protocolVersion = message.result.protocolVersion;
    }
    if (!this.stopped) this.output.write(`${JSON.stringify(message)}\n`);
  }

  private fail(requests: readonly { readonly id?: JsonValue | undefined }[], reason: string): void {
    if (requests.length === 0) this.warn(reason);
    for (const request of requests) this.deliver({ jsonrpc: '2.0', id: request.id ?? null, error: { code: -32000, message: reason } });
  }

  /** The user's headers and the session id go only to the URL's own origin (a redirect may leave it). */
  private requestHeaders(extra: Record<string, string>, sameOrigin: boolean): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sameOrigin ? this.headers : {}),
      ...(sameOrigin && this.sessionId !== undefined ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.protocolVersion !== undefined ? { 'mcp-protocol-version': this.protocolVersion } : {}),
      ...extra,
    };
  }
}

/** `promise`, or nothing once `ms` have passed. */
async function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** The wait before the next reconnection: the server's retry (or ours), doubled for each fruitless attempt before it. */
function retryDelay(retryMs: number | undefined, fruitless: number): number {
  return Math.min((retryMs ?? DEFAULT_RETRY_MS) * 2 ** fruitless, MAX_RETRY_MS);
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
