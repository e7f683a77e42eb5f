import type { JsonObject } from '../contract/model.js';

/**
 * A JSON-RPC channel to an MCP server. We speak JSON-RPC ourselves instead of going through the
 * SDK's `Client`: its typed `listTools()` drops fields it does not know and rejects shapes it
 * considers invalid, and its transports hide what a diagnosis needs (exit code, the stderr
 * tail, non-JSON lines on stdout, the HTTP status).
 */
export interface RpcChannel {
  request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject>;
  notify(method: string, params?: JsonObject): Promise<void>;
  /** Record the negotiated protocol version (HTTP sends it as `MCP-Protocol-Version`). */
  setProtocolVersion?(version: string): void;
  /** Stop the server (stdio) or end the session (HTTP). Never throws; safe to call twice. */
  close(): Promise<void>;
  /** What this channel has observed so far, for error messages and diagnosis. */
  readonly evidence: AttemptEvidence;
}

export interface RequestOptions {
  timeoutMs: number;
  /** Extra HTTP headers for this request (ignored on stdio). */
  headers?: Record<string, string>;
}

/** Everything an attempt left behind that helps explain a failure. */
export interface AttemptEvidence {
  transport: 'stdio' | 'http';
  /** What was run or contacted, for messages. */
  target: string;
  startedAt: number;
  /** The server's process id (stdio), so callers can verify nothing outlives the attempt. */
  pid?: number;
  /** Node's error code when the process could not be spawned (ENOENT, EACCES…). */
  spawnErrorCode?: string;
  exitCode?: number | null;
  signal?: string | null;
  /** The last lines the server wrote to stderr. */
  stderrTail: string[];
  /** Lines on stdout that were not JSON-RPC (logs printed to the wrong stream, a banner…). */
  strayStdout: string[];
  /** A stdout line carried a JSON-RPC message after other text (a logger writing to stdout). */
  pollutedStdout?: boolean;
  /** Whether any JSON-RPC message arrived from the server. */
  spokeJsonRpc: boolean;
  httpStatus?: number;
  /** The network error code of a failed HTTP request (ECONNREFUSED, ENOTFOUND…). */
  networkErrorCode?: string;
  /** The method of the request that timed out, if one did. */
  timedOutOn?: string;
}

export function newEvidence(transport: AttemptEvidence['transport'], target: string): AttemptEvidence {
  return { transport, target, startedAt: Date.now(), stderrTail: [], strayStdout: [], spokeJsonRpc: false };
}

/** The server answered with a JSON-RPC error. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${method} failed: ${message} (JSON-RPC error ${code})`);
  }
}

export type ChannelFailure = 'spawn' | 'exited' | 'timeout' | 'http' | 'network' | 'protocol';

/** The channel itself failed: no answer could be had. `evidence` says what was seen. */
export class ChannelError extends Error {
  override readonly name = 'ChannelError';
  constructor(
    readonly failure: ChannelFailure,
    message: string,
    readonly method?: string,
  ) {
    super(message);
  }
}

export const JSONRPC_METHOD_NOT_FOUND = -32601;

/** Keep only the last `max` items of a list that grows. */
export function pushBounded(list: string[], line: string, max: number): void {
  list.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
  if (list.length > max) list.splice(0, list.length - max);
}
