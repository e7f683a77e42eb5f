import type { JsonObject } from '../contract/model.js';
import { isJsonObject } from '../contract/model.js';
import {
  ChannelError,
  JSONRPC_METHOD_NOT_FOUND,
  RpcError,
  newEvidence,
  pushBounded,
  type AttemptEvidence,
  type RequestOptions,
  type RpcChannel,
} from './channel.js';
import { STRAY_STDOUT_LINES, ServerProcess } from './process.js';

export interface StdioOptions {
  /** argv: the program, then its arguments. Run without a shell. */
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
  /**
   * Read a JSON-RPC message that follows other text on the same stdout line (a logger that
   * writes without a newline). Off by default: real MCP clients choke on such lines too.
   */
  lenientStdout?: boolean;
}

interface Pending {
  method: string;
  resolve: (result: JsonObject) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** Newline-delimited JSON-RPC over a child process's stdin/stdout (the MCP stdio transport). */
export class StdioChannel implements RpcChannel {
  readonly evidence: AttemptEvidence;
  private readonly server: ServerProcess;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: ChannelError | undefined;

  constructor(private readonly options: StdioOptions) {
    this.evidence = newEvidence('stdio', options.command.join(' '));
    this.server = new ServerProcess(
      {
        command: options.command,
        cwd: options.cwd,
        env: options.env,
        stdin: 'pipe',
        onStdoutLine: (line) => this.onLine(line),
        onGone: (how) => this.fail(new ChannelError(this.evidence.spawnErrorCode ? 'spawn' : 'exited', `the server ${how}`)),
      },
      this.evidence,
    );
  }

  request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.evidence.timedOutOn = method;
        reject(new ChannelError('timeout', `the server did not answer ${method} within ${options.timeoutMs / 1000} s`, method));
      }, options.timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
      this.write({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    });
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    if (!this.failure) this.write({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  async close(): Promise<void> {
    await this.server.stop();
    this.fail(new ChannelError('exited', 'the channel was closed'));
  }

  private write(message: JsonObject): void {
    this.server.write(`${JSON.stringify(message)}\n`);
  }

  private onLine(line: string): void {
    let message = parseMessage(line);
    if (message === undefined) {
      // A line that carries a message after some other text: stdout polluted by a logger.
      const embedded = line.indexOf('{"jsonrpc"');
      if (embedded > 0) {
        this.evidence.pollutedStdout = true;
        if (this.options.lenientStdout) message = parseMessage(line.slice(embedded));
      }
    }
    if (message === undefined) {
      pushBounded(this.evidence.strayStdout, line, STRAY_STDOUT_LINES);
      return;
    }
    this.evidence.spokeJsonRpc = true;
    if ('method' in message) {
      this.answerServerRequest(message);
      return;
    }
    const pending = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
    if (!pending) return;
    this.pending.delete(message.id as number);
    clearTimeout(pending.timer);
    if (isJsonObject(message.error)) {
      const { code, message: text, data } = message.error;
      pending.reject(new RpcError(pending.method, typeof code === 'number' ? code : 0, String(text ?? 'unknown error'), data));
    } else if (isJsonObject(message.result)) {
      pending.resolve(message.result);
    } else {
      pending.reject(new ChannelError('protocol', `the answer to ${pending.method} has no result object`, pending.method));
    }
  }

  /** We declare no client capabilities, so the only server request worth answering is ping. */
  private answerServerRequest(message: JsonObject): void {
    if (message.id === undefined) return;
    if (message.method === 'ping') this.write({ jsonrpc: '2.0', id: message.id, result: {} });
    else this.write({ jsonrpc: '2.0', id: message.id, error: { code: JSONRPC_METHOD_NOT_FOUND, message: 'Method not found' } });
  }

  private fail(error: ChannelError): void {
    this.failure ??= error;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(new ChannelError(error.failure, error.message, pending.method));
    }
  }
}

function parseMessage(line: string): JsonObject | undefined {
  try {
    const message: unknown = JSON.parse(line);
    return isJsonObject(message) && message.jsonrpc === '2.0' ? message : undefined;
  } catch {
    return undefined;
  }
}
