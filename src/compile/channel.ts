import type { JsonObject } from '../contract/model.js';
import type { Containment } from './containment.js';

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
  /** For the first request to a server we started: how long a slow start may be waited for. */
  patience?: Patience;
}

/**
 * A slow start is healed by waiting longer on the same live process, never by restarting it:
 * past `timeoutMs`, the channel keeps waiting until `until` (epoch ms) as long as
 * `keepWaiting()` says the server still looks like it is starting.
 */
export interface Patience {
  until: number;
  keepWaiting: () => boolean;
  /** Called once, when the wait goes past `timeoutMs`. */
  onSlow?: (waitedMs: number) => void;
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
  /** What held the server's process tree (containment.ts); undefined for a server we did not start. */
  containment?: Containment;
  /** Processes of the server's tree still alive after it was stopped ("PID (command)"). */
  survivors: string[];
  /** A stdout line carried a JSON-RPC message after other text (a logger writing to stdout). */
  pollutedStdout?: boolean;
  /** Whether any JSON-RPC message arrived from the server. */
  spokeJsonRpc: boolean;
  httpStatus?: number;
  /** The network error code of a failed HTTP request (ECONNREFUSED, ENOTFOUND…). */
  networkErrorCode?: string;
  /** The method of the request that timed out, if one did. */
  timedOutOn?: string;
  /** The first local address the server's log said it listens on ("listening on http://…"). */
  announcedUrl?: string;
  /** How long the server took to answer its first request, when that was past the timeout. */
  slowStartMs?: number;
}

export function newEvidence(transport: AttemptEvidence['transport'], target: string): AttemptEvidence {
  return { transport, target, startedAt: Date.now(), stderrTail: [], strayStdout: [], survivors: [], spokeJsonRpc: false };
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

export type ChannelFailure =
  | 'spawn'
  | 'exited'
  | 'timeout'
  | 'http'
  | 'network'
  | 'protocol'
  /** Something else already answers on the port a launched server should listen on. */
  | 'port-taken'
  /** A launched server listens on another port than the one given (it said so in its log). */
  | 'port-mismatch';

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

/**
 * The largest JSON-RPC message we read, on a stdout line, in an HTTP body or in one SSE event:
 * 64 MiB. The largest legitimate message is a tools/list page, and `MAX_ENTRIES` (10,000)
 * tools of 6 KB each (six times the average of real servers' tools, schemas included: about
 * 0.6 KB for server-everything, 1 KB for server-filesystem) is 60 MB. Past it the server is
 * flooding, not answering, and memory must not follow it.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Evidence keeps this much of a line: enough to quote an error, never a flood. */
export const EVIDENCE_LINE_CHARS = 500;

/** Keep only the last `max` items of a list that grows, each cut to `EVIDENCE_LINE_CHARS`. */
export function pushBounded(list: string[], line: string, max: number): void {
  list.push(line.length > EVIDENCE_LINE_CHARS ? `${line.slice(0, EVIDENCE_LINE_CHARS)}…` : line);
  if (list.length > max) list.splice(0, list.length - max);
}

/**
 * Where a server's log line says it listens, as an address we can connect to: a URL or a port
 * after a listening verb ("listening on http://127.0.0.1:4123/mcp", "Uvicorn running on
 * http://127.0.0.1:8000", "started on port 8080"). The verb is required: other URLs in a log
 * (a database it connects to, an API it calls, its docs) are not where it listens. A wildcard
 * host becomes loopback, and a bare origin gets MCP's usual path, /mcp.
 */
export function announcedListenUrl(line: string): string | undefined {
  if (!LISTEN_VERB.test(line)) return undefined;
  for (const match of line.matchAll(/\bhttps?:\/\/[^\s'"<>]+/gi)) {
    let url: URL;
    try {
      url = new URL(match[0].replace(/[.,;)\]]+$/, ''));
    } catch {
      continue;
    }
    if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
    if (url.hostname === '[::]') url.hostname = '[::1]';
    if (url.pathname === '/') url.pathname = '/mcp';
    return url.href;
  }
  const port = /\bport\s*:?\s*(\d{2,5})\b/i.exec(line);
  return port ? `http://127.0.0.1:${port[1]}/mcp` : undefined;
}

const LISTEN_VERB = /\b(?:listening|listens|running|started|starting|serving|available|ready|bound)\b/i;

/** Record a line the server logged (stderr, or stdout that is not protocol) in the evidence. */
export function noteLogLine(evidence: AttemptEvidence, list: string[], line: string, max: number): void {
  pushBounded(list, line, max);
  evidence.announcedUrl ??= announcedListenUrl(line.slice(0, EVIDENCE_LINE_CHARS * 4));
}
