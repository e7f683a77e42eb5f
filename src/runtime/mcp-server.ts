/**
 * `withSelfHealing`: one call that makes an `McpServer` (from `@modelcontextprotocol/sdk`) answer
 * a call it rejects for its arguments with the enriched `<validation_error>`, and a call to a
 * tool the artifact says was renamed or removed with `<tool_error code="UNKNOWN_TOOL">`, instead
 * of the SDK's flat text.
 *
 * Where it hooks, and why: only public, stable surfaces. The low-level `Server` behind
 * `server.server` connects to a transport (`connect`, `transport`), and a transport is the
 * documented `Transport` interface: the protocol hands it every message it sends (`send`) and
 * takes every message it receives from it (`onmessage`). `withSelfHealing` watches that
 * stream on each transport the server connects to: it remembers each `tools/call` it sees go
 * in, and when the answer to one comes out as the SDK's input-validation failure (or "Tool X
 * not found" for a tool that moved), it replaces the answer's text before it leaves. So:
 * - tools registered before or after `withSelfHealing`, before or after `connect`, and the
 *   SDK's own request handlers, are all covered, and no private SDK method is touched;
 * - a successful call, a tool's own error, an output-validation failure and any other message
 *   pass through unchanged; the request path pays one `Map` entry per `tools/call`. Only what
 *   the SDK itself answered is rewritten: its `McpError` (a JSON-RPC InvalidParams error, or an
 *   `isError` result whose text is that error's message), and "Tool X not found" only while
 *   the server does not list X (a tool that says so of itself is answering its caller);
 * - the SDK versions whose answers differ (1.17 and older throw the failure as a JSON-RPC
 *   error, with the zod issues as JSON; later ones return an `isError` result with one line per
 *   issue) are both read; either way the model gets an `isError` tool result.
 *
 * The SDK's error keeps only a flattened message, and the input schema is what the model was
 * shown: on the first failure the server is asked for its tools (a `tools/list` handed to the
 * protocol with an id of our own, its answer kept to ourselves, the listing kept until the
 * server says `notifications/tools/list_changed`), exactly as a client would see them. That
 * path, and the parser of the SDK's messages, are loaded on the first failure, off the import
 * path of `mcp-contract-guard/runtime`.
 */
import { isJsonObject } from '../protocol/index.js';
import { createExplainer, type Explainer, type ExplainerOptions } from './self-healing.js';
import { errorResult } from './protocol.js';
import type { HealingSession } from './session.js';
import { UsageRecorder, createUsageRecorder, type CallOutcome, type UsageRecorderOptions } from './usage.js';

export interface WithSelfHealingOptions extends ExplainerOptions {
  /**
   * Record what the calls use (tools, argument fields, enum values, refusals), per day, for
   * `usage summarize` and the gate: `{ file }` appends to that file (one recorder per file per
   * process), or a recorder made with `createUsageRecorder` (share one between the servers a
   * process makes per session). See docs/usage.md.
   */
  usage?: UsageRecorderOptions | UsageRecorder;
}

/**
 * What `withSelfHealing` needs of an `McpServer` (@modelcontextprotocol/sdk 1.x), written out
 * rather than imported: the SDK is an optional peer, and the runtime's types must check in a
 * project that does not have it (an agent using only `callWithSelfHealing`, say).
 */
export interface McpServerLike {
  /** The low-level `Server`, whose `connect` is where each transport is watched. */
  readonly server: { connect(transport: never): Promise<void> };
}

/** The parts of the SDK's low-level `Server` (a `Protocol`) used here: public in every 1.x release. */
interface ProtocolLike {
  connect(transport: TransportLike): Promise<void>;
  readonly transport?: TransportLike | undefined;
}

/** The SDK's `Transport` interface, structurally (any SDK copy). */
interface TransportLike {
  send(message: unknown, options?: unknown): Promise<void>;
  onmessage?: ((message: unknown, extra?: unknown) => void) | undefined;
  onclose?: (() => void) | undefined;
}

const explainers = new WeakMap<object, Explainer>();
const recorders = new WeakMap<object, UsageRecorder>();
const hooked = new WeakSet<object>();
const attached = new WeakSet<object>();

/**
 * Makes `server` explain the calls it rejects, and returns the same server. Call it before or
 * after registering tools, before or after `connect`; calling it again replaces the
 * configuration. With no applicable delta in `deltas`, the server is returned untouched. Throws
 * at once (a `TypeError`) when `server` is not an `McpServer` it can hook, or (a `RangeError`)
 * on a bad option: never later, in a request.
 */
export function withSelfHealing<T extends McpServerLike>(server: T, options: WithSelfHealingOptions): T {
  const explainer = createExplainer(options);
  const protocol = (server as unknown as { server?: unknown } | null)?.server;
  if (!isProtocol(protocol)) {
    throw new TypeError(
      'withSelfHealing: this is not an McpServer of @modelcontextprotocol/sdk 1.x (it has no low-level `server` with a `connect` method), so its answers cannot be hooked.',
    );
  }
  const recorder = options.usage === undefined ? undefined : options.usage instanceof UsageRecorder ? options.usage : createUsageRecorder(options.usage);
  if (recorder === undefined) recorders.delete(protocol);
  else recorders.set(protocol, recorder);
  if (!explainer.active) explainers.delete(protocol);
  else explainers.set(protocol, explainer);
  if (!explainer.active && recorder === undefined) return server;
  if (!hooked.has(protocol)) {
    hooked.add(protocol);
    const connect = protocol.connect;
    const connecting: ProtocolLike['connect'] = async function (this: ProtocolLike, transport) {
      await connect.call(this, transport);
      attach(protocol, transport);
    };
    Object.defineProperty(protocol, 'connect', { value: connecting, writable: true, configurable: true, enumerable: false });
  }
  if (protocol.transport !== undefined) attach(protocol, protocol.transport);
  return server;
}

function isProtocol(value: unknown): value is ProtocolLike {
  return value !== null && typeof value === 'object' && typeof (value as ProtocolLike).connect === 'function';
}

/** Watches one connected transport (see the module comment). */
function attach(protocol: object, transport: TransportLike): void {
  if (attached.has(transport) || typeof transport.send !== 'function') return;
  attached.add(transport);
  const deliver = transport.onmessage;
  const send = transport.send;
  const calls = new CallRegister();
  let session: Promise<HealingSession> | undefined;
  const recorder = recorders.get(protocol);
  if (recorder !== undefined) {
    recorder.setTransport(/stdio/i.test(transport.constructor?.name ?? '') ? 'pipe' : 'tcp');
    // The stdio transport closing is often the end of the process: what was counted goes out now.
    const onclose = transport.onclose;
    transport.onclose = function (this: unknown) {
      void recorders.get(protocol)?.flush();
      onclose?.call(this);
    };
  }
  transport.onmessage = function (this: unknown, message, extra) {
    calls.observe(message, extra, recorders.get(protocol));
    deliver?.call(this, message, extra);
  };
  transport.send = function (this: unknown, message, options) {
    if (session !== undefined) {
      // The answers to our own listing stay here; a changed tool list makes ours stale.
      if (isJsonObject(message) && typeof message.id === 'string' && message.id.startsWith(OWN_ID_PREFIX)) return session.then((s) => s.ownAnswer(message));
      if (isJsonObject(message) && message.method === 'notifications/tools/list_changed') void session.then((s) => s.forget());
    }
    const answered = calls.answered(message);
    if (answered !== undefined && answered.kind !== 'call') {
      const result = isJsonObject(message) && isJsonObject(message.result) ? message.result : undefined;
      if (answered.kind === 'list') recorders.get(protocol)?.listed(Array.isArray(result?.tools) ? result.tools : []);
      else recorders.get(protocol)?.setServer(isJsonObject(result?.serverInfo) ? result.serverInfo : undefined);
      return send.call(this, message, options);
    }
    const call = answered;
    if (call !== undefined && call.started !== undefined) recordOutcome(recorders.get(protocol), call, message);
    const explainer = call === undefined ? undefined : explainers.get(protocol);
    const text = explainer === undefined ? undefined : failureText(message);
    if (call === undefined || explainer === undefined || text === undefined) return send.call(this, message, options);
    session ??= import('./session.js').then(({ HealingSession }) => new HealingSession((request, extra) => deliver?.call(transport, request, extra)));
    return session
      .then((s) => s.explain(explainer, call, text))
      .then(
        (explained) => send.call(this, explained === undefined ? message : answer(message, explained), options),
        () => send.call(this, message, options),
      );
  };
}

/**
 * The `tools/call` requests awaiting an answer (and, when usage is recorded, the `tools/list`
 * and `initialize` ones): the request path's whole cost is one entry here, plus the recorder's
 * count of the call.
 */
class CallRegister {
  private readonly pending = new Map<string, Pending>();

  observe(message: unknown, extra: unknown, recorder: UsageRecorder | undefined): void {
    if (!isJsonObject(message) || typeof message.method !== 'string') return;
    const key = idKey(message.id);
    if (key === undefined) return;
    if (message.method === 'tools/call') {
      const params = isJsonObject(message.params) ? message.params : undefined;
      const name = params?.name;
      if (typeof name !== 'string') return;
      const args = params?.arguments;
      if (recorder === undefined) this.track(key, { kind: 'call', name, args, extra });
      else {
        recorder.call(name, args);
        this.track(key, { kind: 'call', name, args, extra, started: performance.now() });
      }
    } else if (recorder !== undefined && (message.method === 'tools/list' || message.method === 'initialize')) {
      this.track(key, { kind: message.method === 'tools/list' ? 'list' : 'initialize' });
    }
  }

  answered(message: unknown): Pending | undefined {
    if (!isJsonObject(message) || !('result' in message || 'error' in message)) return undefined;
    const key = idKey(message.id);
    const pending = key === undefined ? undefined : this.pending.get(key);
    if (pending !== undefined) this.pending.delete(key as string);
    return pending;
  }

  private track(key: string, pending: Pending): void {
    this.pending.set(key, pending);
    // Calls cancelled without an answer are forgotten, oldest first, past any real concurrency.
    if (this.pending.size > MAX_PENDING_CALLS) this.pending.delete(this.pending.keys().next().value as string);
  }
}

const MAX_PENDING_CALLS = 10_000;

/** A `tools/call` as it came in. */
export interface PendingCall {
  readonly kind: 'call';
  readonly name: string;
  readonly args: unknown;
  /** What the transport handed the protocol with the call (authentication, the HTTP request). */
  readonly extra: unknown;
  /** When it came in (`performance.now()`), when usage is recorded. */
  readonly started?: number;
}

type Pending = PendingCall | { readonly kind: 'list' | 'initialize' };

/**
 * How a call ended, as the recorder counts it: a refusal by the SDK (invalid arguments, an
 * unknown tool: its InvalidParams error, thrown or as an `isError` result), another JSON-RPC
 * error, the tool's own error, or success.
 */
function recordOutcome(recorder: UsageRecorder | undefined, call: PendingCall, message: unknown): void {
  if (recorder === undefined || !isJsonObject(message)) return;
  const seconds = (performance.now() - (call.started as number)) / 1000;
  let outcome: CallOutcome = 'ok';
  let errorType: string | undefined;
  if (isJsonObject(message.error)) {
    const code = message.error.code;
    errorType = typeof code === 'number' ? String(code) : undefined;
    outcome = code === -32602 ? refusalOf(call.name, message.error.message) : 'error';
  } else if (isJsonObject(message.result) && message.result.isError === true) {
    const text = failureText(message);
    if (text === undefined) outcome = 'tool-error';
    else {
      outcome = refusalOf(call.name, text);
      errorType = '-32602';
    }
  }
  recorder.outcome(call.name, outcome, seconds, errorType);
}

function refusalOf(toolName: string, text: unknown): CallOutcome {
  return typeof text === 'string' && text.replace(/^MCP error -?\d+: /, '') === `Tool ${toolName} not found` ? 'unknown-tool' : 'invalid-arguments';
}

/**
 * The text of an answer the SDK itself gave a call: a JSON-RPC InvalidParams error's message
 * (SDK 1.17 and older), or an `isError` result holding one text, the message of the SDK's
 * `McpError` for invalid parameters (later SDKs). Any other failure is the tool's own answer.
 */
function failureText(message: unknown): string | undefined {
  if (!isJsonObject(message)) return undefined;
  if (isJsonObject(message.error)) return message.error.code === -32602 && typeof message.error.message === 'string' ? message.error.message : undefined;
  const result = message.result;
  if (!isJsonObject(result) || result.isError !== true || !Array.isArray(result.content) || result.content.length !== 1) return undefined;
  const part = result.content[0];
  const text = isJsonObject(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : undefined;
  return text?.startsWith(SDK_INVALID_PARAMS) ? text : undefined;
}

/** How the SDK's `McpError` for invalid parameters begins its message. */
const SDK_INVALID_PARAMS = 'MCP error -32602: ';

/** The answer with `text` as an `isError` tool result: the model sees tool results, not protocol errors. */
function answer(message: unknown, text: string): unknown {
  const { id, jsonrpc } = message as { id: unknown; jsonrpc: unknown };
  return { jsonrpc, id, result: errorResult(text) };
}

/** The ids of the listings asked for here: no client sends these. */
export const OWN_ID_PREFIX = 'mcp-contract-guard/tools-list/';

function idKey(id: unknown): string | undefined {
  if (typeof id === 'number') return `n${id}`;
  if (typeof id === 'string') return `s${id}`;
  return undefined;
}
