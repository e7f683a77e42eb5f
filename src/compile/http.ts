import { connect } from 'node:net';
import { createParser, type ParseError } from 'eventsource-parser';
import type { JsonObject } from '../contract/model.js';
import { isJsonObject } from '../contract/model.js';
import { parseJson } from '../protocol/index.js';
import {
  ChannelError,
  MAX_MESSAGE_BYTES,
  RpcError,
  newEvidence,
  pushBounded,
  type AttemptEvidence,
  type RequestOptions,
  type RpcChannel,
} from './channel.js';
import { LegacySseSession, type Send } from './legacy-sse.js';
import { REFUSED_BY_OLDER_SERVERS, RedirectError, fetchFollowingRedirects, readBody } from '../http-client.js';
import { ServerProcess, type Launch } from './process.js';
import { answerServerRequest } from './protocol.js';
import { percentDecoded, redactUrl } from './redact.js';
import type { ClientCapability } from './source.js';

export interface HttpOptions {
  url: string;
  headers?: Record<string, string>;
  /** What `initialize` declared: the server requests we then answer (roots/list…). */
  clientCapabilities: readonly ClientCapability[];
}

/**
 * Of an error body, evidence quotes 500 characters; a JSON-RPC error explaining a refusal is
 * a few hundred bytes. A longer body is not read (and not quoted).
 */
const ERROR_BODY_BYTES = 64 * 1024;
/** How long ending a session (a courtesy) or answering a server's request may take. */
const COURTESY_TIMEOUT_MS = 2000;

/**
 * JSON-RPC over MCP's streamable HTTP transport: each message is a POST; the answer is either
 * a JSON body or an SSE stream carrying it. The session id the server hands out is sent back,
 * and the negotiated protocol version goes in `MCP-Protocol-Version`. Redirects are followed
 * by hand, not by fetch, so the user's headers never reach another origin; bodies and streams are
 * read up to `MAX_MESSAGE_BYTES`; the URL is printed only redacted.
 */
export class HttpChannel implements RpcChannel {
  readonly evidence: AttemptEvidence;
  private nextId = 1;
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  /** Set when the server speaks the older HTTP+SSE transport (see openLegacy). */
  private legacy: LegacySseSession | undefined;
  private readonly shownUrl: string;
  /** The URL requests go to: fetch refuses one with a user and password in it. */
  private readonly url: string;
  /** The user's headers, with a URL's user and password as Basic authorization (as curl does). */
  private readonly customHeaders: Record<string, string>;

  constructor(
    private readonly options: HttpOptions,
    evidence?: AttemptEvidence,
  ) {
    this.shownUrl = redactUrl(options.url);
    this.evidence = evidence ?? newEvidence('http', this.shownUrl);
    const url = new URL(options.url);
    const basic = url.username || url.password ? `${percentDecoded(url.username)}:${percentDecoded(url.password)}` : undefined;
    url.username = url.password = '';
    this.url = url.href;
    const given = options.headers ?? {};
    const hasAuthorization = Object.keys(given).some((name) => name.toLowerCase() === 'authorization');
    this.customHeaders = basic && !hasAuthorization ? { ...given, authorization: `Basic ${Buffer.from(basic).toString('base64')}` } : given;
  }

  async request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject> {
    const id = this.nextId++;
    const request = { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) };
    if (this.legacy) return resultOf(await this.legacy.request(request, method, options.timeoutMs), method);
    let response: Response;
    try {
      response = await this.post(request, method, options, AbortSignal.timeout(options.timeoutMs));
    } catch (error) {
      this.legacy = id === 1 && refusesStreamable(error, this.evidence.httpStatus) ? await this.openLegacy(options.timeoutMs) : undefined;
      if (!this.legacy) throw error;
      return resultOf(await this.legacy.request(request, method, options.timeoutMs), method);
    }
    return resultOf(await this.readAnswer(response, id, method, options.timeoutMs), method);
  }

  /**
   * A URL that refuses the first POST with a 4xx may serve the older HTTP+SSE transport: the
   * specification's backwards-compatibility rule is to GET it, expecting an event stream whose
   * first event names the endpoint for messages. When it does not, the POST's refusal stands.
   */
  private async openLegacy(timeoutMs: number): Promise<LegacySseSession | undefined> {
    const refusal = this.evidence.httpStatus;
    const send: Send = (method, url, body, signal) => this.send(method, body, {}, signal, url);
    const session = await LegacySseSession.open(send, this.url, this.shownUrl, timeoutMs, this.evidence, (method) => answerServerRequest(method, this.options.clientCapabilities));
    if (session === undefined) this.evidence.httpStatus = refusal;
    return session;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    const message = { jsonrpc: '2.0', method, ...(params ? { params } : {}) };
    if (this.legacy) return this.legacy.notify(message, method);
    const timeoutMs = 10_000;
    const response = await this.post(message, method, { timeoutMs }, AbortSignal.timeout(timeoutMs));
    await response.body?.cancel();
  }

  async close(): Promise<void> {
    this.legacy?.close();
    if (this.sessionId === undefined) return;
    // Ending the session is a courtesy; a server that does not support DELETE answers 405.
    await this.send('DELETE', undefined, {}, AbortSignal.timeout(COURTESY_TIMEOUT_MS))
      .then((r) => r.body?.cancel())
      .catch(() => {});
    this.sessionId = undefined;
  }

  /** Headers for a request; the user's and the session's only while on the URL's own origin. */
  private headers(extra: Record<string, string>, sameOrigin: boolean): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sameOrigin ? this.customHeaders : {}),
      ...(sameOrigin && this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}),
      ...extra,
    };
  }

  /**
   * One HTTP exchange, its redirects followed by hand (fetchFollowingRedirects): the user's
   * headers and the session id stay on the URL's own origin.
   */
  private async send(method: 'GET' | 'POST' | 'DELETE', body: string | undefined, extra: Record<string, string>, signal: AbortSignal, to = this.url): Promise<Response> {
    try {
      return await fetchFollowingRedirects(to, { method, body, signal, headers: (sameOrigin) => this.headers(extra, sameOrigin) });
    } catch (error) {
      if (error instanceof RedirectError) throw new ChannelError('http', `${this.shownUrl} ${error.message}`);
      throw error;
    }
  }

  private async post(body: JsonObject, method: string, options: RequestOptions, signal: AbortSignal): Promise<Response> {
    let response: Response;
    try {
      response = await this.send('POST', JSON.stringify(body), options.headers ?? {}, signal);
    } catch (error) {
      if (error instanceof ChannelError) throw error;
      throw this.networkError(error, method, options.timeoutMs);
    }
    this.evidence.httpStatus = response.status;
    const session = response.headers.get('mcp-session-id');
    if (session) this.sessionId = session;
    if (response.ok) return response;
    // Servers often explain a refusal in a JSON-RPC error body: surface it when there is one.
    const text = (await readBody(response, ERROR_BODY_BYTES).catch(() => undefined)) ?? '';
    const rpc = parseJson(text);
    if (isJsonObject(rpc) && isJsonObject(rpc.error)) {
      const { code, message } = rpc.error;
      throw new RpcError(method, typeof code === 'number' ? code : 0, `HTTP ${response.status}: ${String(message ?? '')}`);
    }
    if (text.trim() !== '') pushBounded(this.evidence.stderrTail, text.trim(), 5);
    throw new ChannelError('http', `${this.shownUrl} answered ${method} with HTTP ${response.status} ${response.statusText}`.trim(), method);
  }

  private networkError(error: unknown, method: string, timeoutMs: number): ChannelError {
    if ((error as Error)?.name === 'TimeoutError') {
      this.evidence.timedOutOn = method;
      return new ChannelError('timeout', `${this.shownUrl} did not answer ${method} within ${timeoutMs / 1000} s`, method);
    }
    // fetch wraps the socket error: its cause holds the code (ECONNREFUSED…) or a message.
    const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
    // fetch quotes the URL in some messages: never with its credentials.
    const detail = (cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error))).replaceAll(this.options.url, this.shownUrl);
    this.evidence.networkErrorCode = cause?.code ?? detail;
    return new ChannelError('network', `could not reach ${this.shownUrl} (${detail})`, method);
  }

  /** Read the JSON-RPC message answering `id` from a JSON body or an SSE stream. */
  private async readAnswer(response: Response, id: number, method: string, timeoutMs: number): Promise<JsonObject> {
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) return this.readSse(response, id, method, timeoutMs);
    let text: string | undefined;
    try {
      text = await readBody(response, MAX_MESSAGE_BYTES);
    } catch (error) {
      throw this.networkError(error, method, timeoutMs);
    }
    if (text === undefined) throw new ChannelError('protocol', `${this.shownUrl} answered ${method} with a body of more than ${mebibytes(MAX_MESSAGE_BYTES)}; capture stopped`, method);
    const parsed = parseJson(text);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    const answer = messages.find((m) => isJsonObject(m) && m.id === id);
    if (!isJsonObject(answer)) {
      pushBounded(this.evidence.strayStdout, text, 5);
      throw new ChannelError('protocol', `${this.shownUrl} answered ${method} with something that is not a JSON-RPC response`, method);
    }
    this.evidence.spokeJsonRpc = true;
    return answer;
  }

  /**
   * The answer from an SSE stream. Requests the server sends on it (roots/list, ping…) are
   * answered with a POST while we keep reading: the server may be waiting for them. One event
   * may not exceed `MAX_MESSAGE_BYTES`; the stream as a whole is bounded by the request's timeout.
   */
  private async readSse(response: Response, id: number, method: string, timeoutMs: number): Promise<JsonObject> {
    let answer: JsonObject | undefined;
    let overflow: ParseError | undefined;
    const replies: Array<Promise<unknown>> = [];
    const parser = createParser({
      maxBufferSize: MAX_MESSAGE_BYTES,
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') overflow = error;
      },
      onEvent: (event) => {
        const data = parseJson(event.data);
        if (!isJsonObject(data)) return;
        if (data.id === id && ('result' in data || 'error' in data)) answer = data;
        else if (typeof data.method === 'string' && data.id !== undefined) replies.push(this.reply(data.id, data.method));
      },
    });
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (!reader) throw new ChannelError('protocol', `${this.shownUrl} sent an empty event stream for ${method}`, method);
    try {
      while (answer === undefined && overflow === undefined) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch (error) {
      throw this.networkError(error, method, timeoutMs);
    } finally {
      await reader.cancel().catch(() => {});
      await Promise.allSettled(replies);
    }
    if (overflow) throw new ChannelError('protocol', `${this.shownUrl} sent an event of more than ${mebibytes(MAX_MESSAGE_BYTES)} for ${method}; capture stopped`, method);
    if (answer === undefined) throw new ChannelError('protocol', `the event stream for ${method} ended without an answer`, method);
    this.evidence.spokeJsonRpc = true;
    return answer;
  }

  private async reply(id: JsonObject[string], method: string): Promise<void> {
    const message = { jsonrpc: '2.0', id, ...answerServerRequest(method, this.options.clientCapabilities) };
    const response = await this.send('POST', JSON.stringify(message), {}, AbortSignal.timeout(COURTESY_TIMEOUT_MS)).catch(() => undefined);
    await response?.body?.cancel();
  }
}

/** The result of a JSON-RPC answer; its error, thrown. */
function resultOf(message: JsonObject, method: string): JsonObject {
  if (isJsonObject(message.error)) {
    const { code, message: text, data } = message.error;
    throw new RpcError(method, typeof code === 'number' ? code : 0, String(text ?? 'unknown error'), data);
  }
  if (!isJsonObject(message.result)) throw new ChannelError('protocol', `the answer to ${method} has no result object`, method);
  return message.result;
}

/** The first POST refused as a server of the older transport refuses it (REFUSED_BY_OLDER_SERVERS). */
function refusesStreamable(error: unknown, status: number | undefined): boolean {
  return error instanceof ChannelError && error.failure === 'http' && status !== undefined && REFUSED_BY_OLDER_SERVERS.has(status);
}

export interface LaunchOptions extends HttpOptions, Launch {}

/** How often we look whether a launched server listens yet. */
const LISTEN_POLL_MS = 100;
/**
 * A server whose log announced another port, which accepts connections while ours does not,
 * gets this long to open ours too (a server may log a metrics or admin port first). Past it,
 * it listens where it said, not where we were told.
 */
const ANNOUNCED_PORT_GRACE_MS = 1000;

/**
 * A server we start ourselves and then reach over HTTP. Before starting it, nothing may answer
 * on its port already (we would capture that instead); the first request then waits until the
 * port accepts connections while our process is alive, fails fast when the server's log says
 * it listens on another port, and waits past the timeout for a slow start (`patience`). Every
 * request checks that our process still runs. close() stops it.
 */
export class LaunchedHttpChannel implements RpcChannel {
  readonly evidence: AttemptEvidence;
  private server: ServerProcess | undefined;
  private readonly http: HttpChannel;
  private ready: Promise<void> | undefined;

  constructor(private readonly options: LaunchOptions) {
    this.evidence = newEvidence('http', `${options.command.join(' ')} (serving ${redactUrl(options.url)})`);
    this.http = new HttpChannel(options, this.evidence);
  }

  async request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject> {
    await (this.ready ??= this.start(options));
    await this.ensureRunning(method);
    return this.http.request(method, params, options);
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    return this.http.notify(method, params);
  }

  setProtocolVersion(version: string): void {
    this.http.setProtocolVersion(version);
  }

  async close(): Promise<void> {
    await this.http.close();
    await this.server?.stop();
  }

  /** Our process must still run: what answers on a port it left is someone else's. */
  private async ensureRunning(method: string): Promise<void> {
    if (this.server?.running) return;
    if (this.evidence.spawnErrorCode !== undefined) throw new ChannelError('spawn', 'the server could not be started', method);
    const { hostname, port } = endpointOf(this.options.url);
    if (await accepts(hostname, port)) {
      throw new ChannelError('port-taken', `the server ${exitOf(this.evidence)}, yet something answers on port ${port}: not the process we started`, method);
    }
    throw new ChannelError('exited', `the server ${exitOf(this.evidence)} before it answered ${method}`, method);
  }

  private async start({ timeoutMs, patience }: RequestOptions): Promise<void> {
    const { hostname, port } = endpointOf(this.options.url);
    if (await accepts(hostname, port)) {
      throw new ChannelError('port-taken', `something already listens on port ${port}, before the server was started`, 'initialize');
    }
    const server = new ServerProcess({ ...this.options, stdin: 'ignore' }, this.evidence);
    this.server = server;
    const started = Date.now();
    let slow = false;
    let otherPortSince: number | undefined;
    for (;;) {
      await this.ensureRunning('initialize');
      if (await accepts(hostname, port)) {
        // It may have exited since: then what listens is not ours.
        await this.ensureRunning('initialize');
        if (slow) this.evidence.slowStartMs = Date.now() - started;
        return;
      }
      const announced = this.evidence.announcedUrl === undefined ? undefined : endpointOf(this.evidence.announcedUrl);
      if (announced && announced.port !== port && (await accepts(announced.hostname, announced.port))) {
        otherPortSince ??= Date.now();
        if (Date.now() - otherPortSince >= ANNOUNCED_PORT_GRACE_MS) {
          throw new ChannelError('port-mismatch', `the server listens on port ${announced.port} (its log says ${this.evidence.announcedUrl}), not on port ${port}`, 'initialize');
        }
      }
      const waited = Date.now() - started;
      if (waited >= timeoutMs) {
        if (!patience || Date.now() >= patience.until || !patience.keepWaiting()) {
          this.evidence.timedOutOn = `a connection on port ${port}`;
          throw new ChannelError('timeout', `the server did not listen on port ${port} within ${(waited / 1000).toFixed(1)} s`, 'initialize');
        }
        if (!slow) patience.onSlow?.(waited);
        slow = true;
      }
      await new Promise((resolve) => setTimeout(resolve, LISTEN_POLL_MS));
    }
  }
}

/** The port a URL reaches, the scheme's default included. */
export function portOf(url: string): number {
  return endpointOf(url).port;
}

function endpointOf(url: string): { hostname: string; port: number } {
  const { hostname, port, protocol } = new URL(url);
  return { hostname: hostname.replace(/^\[|\]$/g, ''), port: Number(port || (protocol === 'https:' ? 443 : 80)) };
}

function exitOf(evidence: AttemptEvidence): string {
  return evidence.signal ? `was killed by ${evidence.signal}` : `exited with code ${evidence.exitCode ?? 'unknown'}`;
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function mebibytes(bytes: number): string {
  return `${bytes / 1024 / 1024} MiB`;
}
