import { connect } from 'node:net';
import { createParser } from 'eventsource-parser';
import type { JsonObject } from '../contract/model.js';
import { isJsonObject } from '../contract/model.js';
import {
  ChannelError,
  RpcError,
  newEvidence,
  pushBounded,
  type AttemptEvidence,
  type RequestOptions,
  type RpcChannel,
} from './channel.js';
import { ServerProcess } from './process.js';

export interface HttpOptions {
  url: string;
  headers?: Record<string, string>;
}

/**
 * JSON-RPC over MCP's streamable HTTP transport: each message is a POST; the answer is either
 * a JSON body or an SSE stream carrying it. The session id the server hands out is sent back,
 * and the negotiated protocol version goes in `MCP-Protocol-Version`.
 */
export class HttpChannel implements RpcChannel {
  readonly evidence: AttemptEvidence;
  private nextId = 1;
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;

  constructor(
    private readonly options: HttpOptions,
    evidence?: AttemptEvidence,
  ) {
    this.evidence = evidence ?? newEvidence('http', options.url);
  }

  async request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject> {
    const id = this.nextId++;
    const response = await this.post({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }, method, options);
    const message = await this.readAnswer(response, id, method, options.timeoutMs);
    if (isJsonObject(message.error)) {
      const { code, message: text, data } = message.error;
      throw new RpcError(method, typeof code === 'number' ? code : 0, String(text ?? 'unknown error'), data);
    }
    if (!isJsonObject(message.result)) throw new ChannelError('protocol', `the answer to ${method} has no result object`, method);
    return message.result;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    const response = await this.post({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }, method, { timeoutMs: 10_000 });
    await response.body?.cancel();
  }

  async close(): Promise<void> {
    if (this.sessionId === undefined) return;
    // Ending the session is a courtesy; a server that does not support DELETE answers 405.
    await fetch(this.options.url, {
      method: 'DELETE',
      headers: this.headers({}),
      signal: AbortSignal.timeout(2000),
    })
      .then((r) => r.body?.cancel())
      .catch(() => {});
    this.sessionId = undefined;
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...this.options.headers,
      ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}),
      ...extra,
    };
  }

  private async post(body: JsonObject, method: string, options: RequestOptions): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(this.options.url, {
        method: 'POST',
        headers: this.headers(options.headers ?? {}),
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      throw this.networkError(error, method, options.timeoutMs);
    }
    this.evidence.httpStatus = response.status;
    const session = response.headers.get('mcp-session-id');
    if (session) this.sessionId = session;
    if (response.ok) return response;
    // Servers often explain a refusal in a JSON-RPC error body: surface it when there is one.
    const text = await response.text().catch(() => '');
    const rpc = parseJson(text);
    if (isJsonObject(rpc) && isJsonObject(rpc.error)) {
      const { code, message } = rpc.error;
      throw new RpcError(method, typeof code === 'number' ? code : 0, `HTTP ${response.status}: ${String(message ?? '')}`);
    }
    if (text.trim() !== '') pushBounded(this.evidence.stderrTail, text.trim().slice(0, 500), 5);
    throw new ChannelError('http', `${this.options.url} answered ${method} with HTTP ${response.status} ${response.statusText}`.trim(), method);
  }

  private networkError(error: unknown, method: string, timeoutMs: number): ChannelError {
    if ((error as Error)?.name === 'TimeoutError') {
      this.evidence.timedOutOn = method;
      return new ChannelError('timeout', `${this.options.url} did not answer ${method} within ${timeoutMs / 1000} s`, method);
    }
    // fetch wraps the socket error: its cause holds the code (ECONNREFUSED…) or a message.
    const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
    const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
    this.evidence.networkErrorCode = cause?.code ?? detail;
    return new ChannelError('network', `could not reach ${this.options.url} (${detail})`, method);
  }

  /** Read the JSON-RPC message answering `id` from a JSON body or an SSE stream. */
  private async readAnswer(response: Response, id: number, method: string, timeoutMs: number): Promise<JsonObject> {
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) return this.readSse(response, id, method, timeoutMs);
    const text = await response.text();
    const parsed = parseJson(text);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    const answer = messages.find((m) => isJsonObject(m) && m.id === id);
    if (!isJsonObject(answer)) {
      pushBounded(this.evidence.strayStdout, text.slice(0, 500), 5);
      throw new ChannelError('protocol', `${this.options.url} answered ${method} with something that is not a JSON-RPC response`, method);
    }
    this.evidence.spokeJsonRpc = true;
    return answer;
  }

  private async readSse(response: Response, id: number, method: string, timeoutMs: number): Promise<JsonObject> {
    let answer: JsonObject | undefined;
    const parser = createParser({
      onEvent: (event) => {
        const data = parseJson(event.data);
        if (isJsonObject(data) && data.id === id && ('result' in data || 'error' in data)) answer = data;
      },
    });
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (!reader) throw new ChannelError('protocol', `${this.options.url} sent an empty event stream for ${method}`, method);
    try {
      while (answer === undefined) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch (error) {
      throw this.networkError(error, method, timeoutMs);
    } finally {
      await reader.cancel().catch(() => {});
    }
    if (answer === undefined) throw new ChannelError('protocol', `the event stream for ${method} ended without an answer`, method);
    this.evidence.spokeJsonRpc = true;
    return answer;
  }
}

export interface LaunchOptions extends HttpOptions {
  /** argv of a server that serves streamable HTTP at `url` once started. */
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
}

/**
 * A server we start ourselves and then reach over HTTP: the first request waits until its port
 * accepts connections (or the server dies, or the timeout passes); close() stops it.
 */
export class LaunchedHttpChannel implements RpcChannel {
  readonly evidence: AttemptEvidence;
  private readonly server: ServerProcess;
  private readonly http: HttpChannel;
  private listening: Promise<void> | undefined;

  constructor(private readonly options: LaunchOptions) {
    this.evidence = newEvidence('http', `${options.command.join(' ')} (serving ${options.url})`);
    this.server = new ServerProcess({ command: options.command, cwd: options.cwd, env: options.env, stdin: 'ignore' }, this.evidence);
    this.http = new HttpChannel({ url: options.url, headers: options.headers }, this.evidence);
  }

  async request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject> {
    await (this.listening ??= this.waitUntilListening(options.timeoutMs));
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
    await this.server.stop();
  }

  private async waitUntilListening(timeoutMs: number): Promise<void> {
    const { hostname, port, protocol } = new URL(this.options.url);
    const portNumber = Number(port || (protocol === 'https:' ? 443 : 80));
    const deadline = Date.now() + timeoutMs;
    while (!(await accepts(hostname.replace(/^\[|\]$/g, ''), portNumber))) {
      if (!this.server.running) throw new ChannelError(this.evidence.spawnErrorCode ? 'spawn' : 'exited', 'the server stopped before it listened', 'initialize');
      if (Date.now() > deadline) {
        this.evidence.timedOutOn = `a connection on port ${portNumber}`;
        throw new ChannelError('timeout', `the server did not listen on port ${portNumber} within ${timeoutMs / 1000} s`, 'initialize');
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
