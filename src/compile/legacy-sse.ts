import { createParser } from 'eventsource-parser';
import { isJsonObject, type JsonObject } from '../contract/model.js';
import { parseJson } from '../protocol/json.js';
import { ChannelError, MAX_MESSAGE_BYTES, type AttemptEvidence } from './channel.js';

/**
 * One HTTP exchange under the channel's rules (HttpChannel.send): redirects followed by hand,
 * the user's headers only on the URL's own origin.
 */
export type Send = (method: 'GET' | 'POST', url: string, body: string | undefined, signal: AbortSignal) => Promise<Response>;

/** Answers to the server's own requests (ping, roots/list…) sent in one session: past it, the server is flooding. */
const MAX_REPLIES = 1_000;
/** How long a notification or an answer of ours may take to be accepted (a request's own timeout bounds its POST). */
const COURTESY_TIMEOUT_MS = 10_000;

/** The answer (without `jsonrpc` and `id`) to a request the server sent us. */
type AnswerServer = (method: string) => object;

interface Waiter {
  resolve: (message: JsonObject) => void;
  reject: (error: ChannelError) => void;
}

/**
 * MCP's HTTP+SSE transport (protocol 2024-11-05), which many deployed servers still speak
 * (FastMCP's `transport="sse"`, the SDKs' SSE server transports): a GET opens an event stream
 * whose first event, `endpoint`, says where to POST messages, and every answer comes back on
 * that stream. The stream stays open for the whole session and is read by one loop that hands
 * each answer to the request waiting for it and answers the server's own requests. Every
 * event is bounded by `MAX_MESSAGE_BYTES`, every request by its timeout, the endpoint must be
 * on the URL's own origin (the user's headers go there), and `close` ends the stream.
 */
export class LegacySseSession {
  private readonly waiting = new Map<unknown, Waiter>();
  private failure: ChannelError | undefined;
  private replies = 0;

  private constructor(
    private readonly send: Send,
    private readonly endpoint: string,
    private readonly stream: AbortController,
    private readonly shownUrl: string,
    private readonly evidence: AttemptEvidence,
    private readonly answerServer: AnswerServer,
  ) {}

  /**
   * Open the stream at `url` and wait (up to `timeoutMs`) for its `endpoint` event. Undefined
   * when `url` does not serve this transport: no event stream, or none that names an endpoint.
   */
  static async open(
    send: Send,
    url: string,
    shownUrl: string,
    timeoutMs: number,
    evidence: AttemptEvidence,
    answerServer: AnswerServer,
  ): Promise<LegacySseSession | undefined> {
    const stream = new AbortController();
    const deadline = setTimeout(() => stream.abort(), timeoutMs);
    let session: LegacySseSession | undefined;
    let endpoint: string | undefined;
    let overflowed = false;
    try {
      const response = await send('GET', url, undefined, stream.signal);
      if (!response.ok || !(response.headers.get('content-type') ?? '').includes('text/event-stream') || !response.body) {
        await response.body?.cancel();
        return undefined;
      }
      // An event stream: this transport is spoken here, and its failures are what to report.
      evidence.httpStatus = response.status;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = createParser({
        maxBufferSize: MAX_MESSAGE_BYTES,
        onError: (error) => {
          if (error.type !== 'max-buffer-size-exceeded') return;
          overflowed = true;
          session?.fail(new ChannelError('protocol', `${shownUrl} sent an event of more than ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB; capture stopped`));
        },
        onEvent: (event) => {
          if (session !== undefined) {
            if (event.event === undefined || event.event === 'message') session.receive(event.data);
          } else if (event.event === 'endpoint' && endpoint === undefined) {
            endpoint = event.data.trim();
          }
        },
      });
      while (endpoint === undefined) {
        const { value, done } = await reader.read();
        if (done || overflowed) {
          await reader.cancel().catch(() => {});
          return undefined;
        }
        parser.feed(value);
      }
      let target: URL;
      try {
        target = new URL(endpoint, response.url || url);
      } catch {
        throw new ChannelError('protocol', `${shownUrl} named a message endpoint that is not a URL (${JSON.stringify(endpoint.slice(0, 200))})`, 'initialize');
      }
      if (target.origin !== new URL(url).origin) {
        throw new ChannelError('protocol', `${shownUrl} named a message endpoint on another origin (${target.origin}); its messages are not sent there`, 'initialize');
      }
      clearTimeout(deadline);
      session = new LegacySseSession(send, target.href, stream, shownUrl, evidence, answerServer);
      void session.read(reader, parser);
      return session;
    } catch (error) {
      stream.abort();
      if (error instanceof ChannelError) throw error;
      return undefined;
    } finally {
      clearTimeout(deadline);
    }
  }

  /** Send a request and wait for its answer on the stream. */
  async request(message: JsonObject, method: string, timeoutMs: number): Promise<JsonObject> {
    if (this.failure) throw this.failure;
    const id = message.id;
    let timer: NodeJS.Timeout | undefined;
    const answer = new Promise<JsonObject>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      timer = setTimeout(() => {
        this.evidence.timedOutOn = method;
        reject(new ChannelError('timeout', `${this.shownUrl} did not answer ${method} within ${timeoutMs / 1000} s`, method));
      }, timeoutMs);
    });
    // Rejected while the POST is still under way, it is awaited only after: not an unhandled rejection.
    answer.catch(() => {});
    try {
      await this.post(message, method, timeoutMs);
      return await answer;
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
    }
  }

  async notify(message: JsonObject, method: string): Promise<void> {
    if (this.failure) throw this.failure;
    await this.post(message, method, COURTESY_TIMEOUT_MS);
  }

  close(): void {
    this.fail(new ChannelError('protocol', 'the session was closed'));
    this.stream.abort();
  }

  private async post(message: JsonObject, method: string, timeoutMs: number): Promise<void> {
    const response = await this.send('POST', this.endpoint, JSON.stringify(message), AbortSignal.timeout(timeoutMs)).catch((error: unknown) => {
      throw new ChannelError('network', `could not send ${method} to ${this.shownUrl} (${error instanceof Error ? error.message : String(error)})`, method);
    });
    await response.body?.cancel();
    if (!response.ok) throw new ChannelError('http', `${this.shownUrl} answered ${method} with HTTP ${response.status} ${response.statusText}`.trim(), method);
  }

  /** The loop that reads the stream for the whole session. */
  private async read(reader: ReadableStreamDefaultReader<string>, parser: { feed(chunk: string): void }): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || this.failure) break;
        parser.feed(value);
      }
      this.fail(new ChannelError('protocol', `${this.shownUrl} closed its event stream before the capture ended`));
    } catch {
      this.fail(new ChannelError('network', `${this.shownUrl} broke off its event stream`));
    } finally {
      await reader.cancel().catch(() => {});
    }
  }

  private receive(data: string): void {
    const message = parseJson(data);
    if (!isJsonObject(message)) return;
    if ('result' in message || 'error' in message) {
      this.evidence.spokeJsonRpc = true;
      this.waiting.get(message.id)?.resolve(message);
    } else if (typeof message.method === 'string' && message.id !== undefined && this.replies < MAX_REPLIES) {
      // The server may be waiting for this answer before it answers us.
      this.replies += 1;
      this.post({ jsonrpc: '2.0', id: message.id, ...this.answerServer(message.method) }, message.method, COURTESY_TIMEOUT_MS).catch(() => {});
    }
  }

  private fail(error: ChannelError): void {
    this.failure ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(this.failure);
  }
}
