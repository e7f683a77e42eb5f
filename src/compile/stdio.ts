import type { JsonObject } from '../contract/model.js';
import { isJsonObject } from '../contract/model.js';
import {
  ChannelError,
  RpcError,
  newEvidence,
  noteLogLine,
  type AttemptEvidence,
  type RequestOptions,
  type RpcChannel,
} from './channel.js';
import { STRAY_STDOUT_LINES, ServerProcess, type Launch } from './process.js';
import { answerServerRequest } from './protocol.js';
import type { ClientCapability } from './source.js';

export interface StdioOptions extends Launch {
  /** What `initialize` declared: the server requests we then answer (roots/list…). */
  clientCapabilities: readonly ClientCapability[];
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
  sentAt: number;
  /** The request outlived its timeout and is waited for as a slow start. */
  patient?: boolean;
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
        ...options,
        stdin: 'pipe',
        onStdoutLine: (line) => this.onLine(line),
        onOversizedLine: (message) => {
          this.fail(new ChannelError('protocol', message));
          void this.server.stop();
        },
        onGone: (how) => this.fail(new ChannelError(this.evidence.spawnErrorCode ? 'spawn' : 'exited', `the server ${how}`)),
      },
      this.evidence,
    );
  }

  request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const sent = Date.now();
    return new Promise((resolve, reject) => {
      const giveUp = () => {
        const patient = this.pending.get(id)?.patient ? `, nor in the ${seconds(Date.now() - sent - options.timeoutMs)} s more it was waited for as a slow start` : '';
        this.pending.delete(id);
        this.evidence.timedOutOn = method;
        reject(new ChannelError('timeout', `the server did not answer ${method} within ${seconds(options.timeoutMs)} s${patient}`, method));
      };
      // Past the timeout, a server that still looks like it is starting is waited for, same process.
      const { patience } = options;
      const onTimeout = () => {
        const pending = this.pending.get(id);
        if (!pending) return;
        if (!patience || Date.now() >= patience.until || !patience.keepWaiting()) return giveUp();
        patience.onSlow?.(Date.now() - sent);
        pending.timer = setTimeout(giveUp, patience.until - Date.now());
        pending.patient = true;
      };
      this.pending.set(id, { method, resolve, reject, timer: setTimeout(onTimeout, options.timeoutMs), sentAt: sent });
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
        const inner = parseMessage(line.slice(embedded));
        if (this.options.lenientStdout) message = inner;
        // The answer came, behind log text: said now (and healed), not after the timeout.
        else if (typeof inner?.id === 'number') {
          const pending = this.settle(inner.id);
          pending?.reject(new ChannelError('protocol', `the answer to ${pending.method} came after log text on the same stdout line`, pending.method));
        }
      }
    }
    if (message === undefined) {
      noteLogLine(this.evidence, this.evidence.strayStdout, line, STRAY_STDOUT_LINES);
      return;
    }
    this.evidence.spokeJsonRpc = true;
    if ('method' in message) {
      this.answerServerRequest(message);
      return;
    }
    const pending = typeof message.id === 'number' ? this.settle(message.id) : undefined;
    if (!pending) return;
    if (pending.patient) this.evidence.slowStartMs = Date.now() - pending.sentAt;
    if (isJsonObject(message.error)) {
      const { code, message: text, data } = message.error;
      pending.reject(new RpcError(pending.method, typeof code === 'number' ? code : 0, String(text ?? 'unknown error'), data));
    } else if (isJsonObject(message.result)) {
      pending.resolve(message.result);
    } else {
      pending.reject(new ChannelError('protocol', `the answer to ${pending.method} has no result object`, pending.method));
    }
  }

  /** The pending request `id`, taken off the list, its timer stopped; undefined when none waits. */
  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    if (!pending) return undefined;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    return pending;
  }

  private answerServerRequest(message: JsonObject): void {
    if (message.id === undefined) return;
    this.write({ jsonrpc: '2.0', id: message.id, ...answerServerRequest(String(message.method), this.options.clientCapabilities) });
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

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

function parseMessage(line: string): JsonObject | undefined {
  try {
    const message: unknown = JSON.parse(line);
    return isJsonObject(message) && message.jsonrpc === '2.0' ? message : undefined;
  } catch {
    return undefined;
  }
}
