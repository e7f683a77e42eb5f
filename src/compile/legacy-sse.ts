import { isJsonObject, type JsonObject } from '../contract/model.js';
import { parseJson } from '../protocol/index.js';
import { openOlderTransportStream } from '../http-client.js';
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

/** How the session ends when its stream does. */
const ENDINGS = {
  closed: (url: string) => new ChannelError('protocol', `${url} closed its event stream before the capture ended`),
  broken: (url: string) => new ChannelError('network', `${url} broke off its event stream`),
  overflow: (url: string) => new ChannelError('protocol', `${url} sent an event of more than ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB; capture stopped`),
};

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
 * that stream (openOlderTransportStream). The stream stays open for the whole session: each
 * answer goes to the request waiting for it, and the server's own requests are answered. Every
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
    let session: LegacySseSession | undefined;
    const opened = await openOlderTransportStream({
      get: (signal) => send('GET', url, undefined, signal),
      url: new URL(url),
      timeoutMs,
      signal: stream.signal,
      maxEventChars: MAX_MESSAGE_BYTES,
      onEvent: (event) => {
        if (event.event === undefined || event.event === 'message') session?.receive(event.data);
      },
      onEnd: (how) => session?.fail(ENDINGS[how](shownUrl)),
    });
    if (opened.found === 'nothing') return undefined;
    // An event stream: this transport is spoken here, and its failures are what to report.
    evidence.httpStatus = opened.status;
    if (opened.found === 'unusable endpoint') {
      throw new ChannelError(
        'protocol',
        opened.origin === undefined
          ? `${shownUrl} named a message endpoint that is not a URL (${JSON.stringify(opened.text.slice(0, 200))})`
          : `${shownUrl} named a message endpoint on another origin (${opened.origin}); its messages are not sent there`,
        'initialize',
      );
    }
    session = new LegacySseSession(send, opened.endpoint.href, stream, shownUrl, evidence, answerServer);
    return session;
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
