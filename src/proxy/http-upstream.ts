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
 * theirs, and their method in `Mcp-Method`), and once the session is initialized a GET stream
 * receives what the server sends on its own (reopened at most `MAX_GET_RETRIES` times; a
 * server without one answers 405). An HTTP or network failure answers the request it carried
 * with a JSON-RPC error, so the client is never left waiting. `stop()` DELETEs the session,
 * and so does the end of our input once the answers still on their way have arrived.
 */
import { PassThrough, Writable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import { isJsonObject, type JsonObject } from '../contract/model.js';
import { parseJson } from '../protocol/json.js';
import { REFUSED_BY_OLDER_SERVERS, fetchFollowingRedirects, openOlderTransportStream, readBody } from '../http-client.js';
import { LineReader } from './lines.js';
import { MAX_LINE_BYTES, type Upstream } from './server-link.js';

/** How long the older transport's stream may take to name its endpoint. */
const LEGACY_ENDPOINT_MS = 10_000;
const MAX_GET_RETRIES = 3;
const GET_RETRY_MS = 1000;
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';

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
  private getRetries = 0;
  private getOpen = false;
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

  async stop(): Promise<void> {
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
    this.ended('was left (its session ended)');
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
    const first = isJsonObject(message) ? message : undefined;
    const meta = isJsonObject(first?.params) && isJsonObject(first.params._meta) ? first.params._meta : undefined;
    const extra: Record<string, string> = {};
    if (typeof meta?.[META_VERSION] === 'string') {
      extra['mcp-protocol-version'] = meta[META_VERSION] as string;
      if (typeof first?.method === 'string') extra['mcp-method'] = first.method;
    }
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
    const session = response.headers.get('mcp-session-id');
    if (session !== null) this.sessionId = session;
    const reading = this.readAnswer(response, requests).then(() => {
      if (first?.method === 'notifications/initialized') void this.openGetStream();
    });
    this.reading.add(reading);
    void reading.finally(() => this.reading.delete(reading));
  }

  private async readAnswer(response: Response, requests: readonly JsonObject[]): Promise<void> {
    const type = response.headers.get('content-type') ?? '';
    if (response.ok && type.includes('text/event-stream')) {
      await this.readEvents(response);
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

  /** An event stream's messages, each bounded by MAX_LINE_BYTES: past it, the stream is dropped, not buffered. */
  private async readEvents(response: Response): Promise<void> {
    let overflow = false;
    const parser = createParser({
      maxBufferSize: MAX_LINE_BYTES,
      onError: (error) => void (overflow ||= error.type === 'max-buffer-size-exceeded'),
      onEvent: (event) => this.deliverJson(event.data),
    });
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (reader === undefined) return;
    try {
      while (!overflow) {
        const { value, done } = await reader.read();
        if (done) return;
        parser.feed(value);
      }
      this.warn(`${this.url.href} sent an event over ${MAX_LINE_BYTES} characters; its stream was dropped.`);
    } catch {
      // Aborted by stop(), or the server dropped the stream: what arrived was delivered.
    } finally {
      await reader.cancel().catch(() => {});
    }
  }

  private async openGetStream(): Promise<void> {
    if (this.getOpen || this.stopped || this.sessionId === undefined) return;
    this.getOpen = true;
    try {
      const response = await fetchFollowingRedirects(this.url, { method: 'GET', headers: (sameOrigin) => this.requestHeaders({ accept: 'text/event-stream' }, sameOrigin), signal: this.abort.signal });
      if (!response.ok) {
        await response.body?.cancel();
        return; // 405: this server sends nothing on its own
      }
      await this.readEvents(response);
    } catch {
      // Unreachable for now: retried below.
    } finally {
      this.getOpen = false;
    }
    if (!this.stopped && this.getRetries < MAX_GET_RETRIES) {
      this.getRetries += 1;
      setTimeout(() => void this.openGetStream(), GET_RETRY_MS).unref();
    }
  }

  private deliverJson(text: string): void {
    const parsed = parseJson(text);
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) if (isJsonObject(message)) this.deliver(message);
  }

  private deliver(message: JsonObject): void {
    // The version the server chose in its initialize answer goes on every later request.
    if (isJsonObject(message.result) && typeof message.result.protocolVersion === 'string' && isJsonObject(message.result.serverInfo)) {
      this.protocolVersion = message.result.protocolVersion;
    }
    if (!this.stopped) this.output.write(`${JSON.stringify(message)}\n`);
  }

  private fail(requests: readonly JsonObject[], reason: string): void {
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

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
