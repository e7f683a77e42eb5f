/**
 * `withSelfHealing`: one call that makes an `McpServer` (from `@modelcontextprotocol/sdk`) answer
 * a call it rejects for its arguments with the enriched `<validation_error>`, and a call to a
 * tool the artifact says was renamed or removed with `<tool_error code="UNKNOWN_TOOL">`, instead
 * of the SDK's flat text; and decide, before the SDK sees it, what becomes of a call that uses
 * a name the artifact says is gone (see routing.ts): explained, or served under the new names.
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
 *   pass through unchanged; the request path pays one `Map` entry per `tools/call`, and a
 *   `Map` lookup in the artifact's compiled renames and removals. Only what
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
import { ToolListing, type Deliver } from './listing.js';
import { errorResult } from './protocol.js';
import { CallRouter, NEEDS_LISTING, withNotice, type CallNotice, type RoutingOptions } from './routing.js';
import { createExplainer, type Explainer, type ExplainerOptions } from './self-healing.js';
import type { CallExplanations } from './session.js';
import { UsageRecorder, createUsageRecorder, type CallOutcome, type UsageRecorderOptions } from './usage.js';

export type WithSelfHealingOptions = ExplainerOptions &
  RoutingOptions & {
    /**
     * Record what the calls use (tools, argument fields, enum values, refusals, renames routed),
     * per day, for `usage summarize` and the gate: `{ file }` appends to that file (one recorder
     * per file per process), or a recorder made with `createUsageRecorder` (share one between the
     * servers a process makes per session). See docs/usage.md.
     */
    usage?: UsageRecorderOptions | UsageRecorder;
  };

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

/** A server's configuration: how it explains, and how it decides about old-shaped calls. */
interface Healing {
  readonly explainer: Explainer;
  readonly router: CallRouter;
  readonly recorder: UsageRecorder | undefined;
}

const configurations = new WeakMap<object, Healing>();
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
  const router = new CallRouter(options.deltas, options);
  const protocol = (server as unknown as { server?: unknown } | null)?.server;
  if (!isProtocol(protocol)) {
    throw new TypeError(
      'withSelfHealing: this is not an McpServer of @modelcontextprotocol/sdk 1.x (it has no low-level `server` with a `connect` method), so its answers cannot be hooked.',
    );
  }
  const recorder = options.usage === undefined ? undefined : options.usage instanceof UsageRecorder ? options.usage : createUsageRecorder(options.usage);
  if (!explainer.active && !router.active && recorder === undefined) {
    configurations.delete(protocol);
    return server;
  }
  configurations.set(protocol, { explainer, router, recorder });
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
  const connection = new Connection(protocol, transport, transport.onmessage, transport.send);
  const recorder = configurations.get(protocol)?.recorder;
  if (recorder !== undefined) {
    // OpenTelemetry's network.transport: `pipe` for stdio, `tcp` for HTTP (streamable or SSE), unsaid for any other (in memory).
    const kind = transport.constructor?.name ?? '';
    if (/stdio/i.test(kind)) recorder.setTransport('pipe');
    else if (/http|sse/i.test(kind)) recorder.setTransport('tcp');
    // The stdio transport closing is often the end of the process: what was counted goes out now.
    const onclose = transport.onclose;
    transport.onclose = function (this: unknown) {
      void configurations.get(protocol)?.recorder?.flush();
      onclose?.call(this);
    };
  }
  transport.onmessage = function (this: unknown, message, extra) {
    connection.incoming(this, message, extra);
  };
  transport.send = function (this: unknown, message, options) {
    return connection.outgoing(this, message, options);
  };
}

/**
 * One connected transport: every message in goes through `incoming` (where a call is decided),
 * every message out through `outgoing` (where an answer is explained, or carries its notice).
 */
class Connection {
  private readonly calls = new CallRegister();
  private listing: ToolListing | undefined;
  private explanations: Promise<CallExplanations> | undefined;
  /** Messages in, in order, held while a call waits for the tool listing its decision needs. */
  private held: Array<[unknown, unknown, unknown]> | undefined;
  /** The listing failed: calls are passed on undecided until the tool list changes. */
  private unlisted = false;

  constructor(
    private readonly protocol: object,
    private readonly transport: TransportLike,
    private readonly deliver: TransportLike['onmessage'],
    private readonly send: TransportLike['send'],
  ) {}

  /**
   * A message from the client. A `tools/call` is decided here, once, before the SDK sees it
   * (the SDK drops the arguments a schema does not declare, so afterwards is too late): passed
   * on as it is (almost always), passed on changed (a routed rename, with a notice for its
   * answer), or answered here (old-shaped arguments, explained).
   */
  incoming(self: unknown, message: unknown, extra: unknown): void {
    if (this.held !== undefined) {
      this.held.push([self, message, extra]);
      // A client that floods while a listing is under way is not held without bound: decide nothing until it changes.
      if (this.held.length > MAX_HELD) {
        this.unlisted = true;
        this.release();
      }
      return;
    }
    const healing = configurations.get(this.protocol);
    const call = healing?.router.active === true && !this.unlisted ? callOf(message) : undefined;
    const decision = call === undefined ? undefined : (healing as Healing).router.decide(call.name, call.args, this.listing?.current);
    if (decision === NEEDS_LISTING) {
      this.held = [[self, message, extra]];
      void this.tools(extra).then((tools) => {
        if (tools === undefined) this.unlisted = true;
        this.release();
      });
      return;
    }
    // Usage counts a call once it is decided, as the client made it: the name and arguments it sent.
    const recorder = healing?.recorder;
    const recorded = recorder === undefined ? undefined : (call ?? callOf(message));
    if (recorded !== undefined) recorder?.call(recorded.name, recorded.args);
    else if (recorder !== undefined) this.calls.observeListing(message);
    const usage = recorder === undefined || recorded === undefined ? undefined : { recorder, called: recorded.name };
    if (decision === undefined || call === undefined) {
      this.calls.observe(message, extra, undefined, usage);
      this.deliver?.call(self, message, extra);
    } else if (decision.kind === 'serve') {
      const routed = { ...call.message, params: { ...call.params, name: decision.name, arguments: decision.args } };
      if (decision.name !== call.name) recorder?.routed(call.name, decision.name);
      this.calls.observe(routed, extra, decision.notice, usage);
      this.deliver?.call(self, routed, extra);
    } else {
      recorder?.outcome(call.name, 'invalid-arguments', 0, '-32602');
      const tools = this.listing?.current;
      void this.explainer()
        .then((explanations) => explanations.refusal((healing as Healing).explainer, decision, tools))
        .then((text) => this.send.call(this.transport, { jsonrpc: call.message.jsonrpc, id: call.message.id, result: errorResult(text) }))
        .catch(() => undefined);
    }
  }

  /** A message to the client: the answer to a call the SDK rejected is explained; a routed call's answer carries its notice. */
  outgoing(self: unknown, message: unknown, options: unknown): Promise<void> {
    if (this.listing !== undefined) {
      // The answers to our own listing stay here; a changed tool list makes ours stale.
      if (this.listing.isOwnAnswer(message)) {
        this.listing.ownAnswer(message);
        return Promise.resolve();
      }
      if (isJsonObject(message) && message.method === 'notifications/tools/list_changed') this.listing.forget();
    }
    if (isJsonObject(message) && message.method === 'notifications/tools/list_changed') this.unlisted = false;
    const answered = this.calls.answered(message);
    if (answered !== undefined && answered.kind !== 'call') {
      const recorder = configurations.get(this.protocol)?.recorder;
      const result = isJsonObject(message) && isJsonObject(message.result) ? message.result : undefined;
      if (answered.kind === 'list') recorder?.listed(Array.isArray(result?.tools) ? result.tools : []);
      else recorder?.setServer(isJsonObject(result?.serverInfo) ? result.serverInfo : undefined);
      return this.send.call(self, message, options);
    }
    const call = answered;
    if (call?.usage !== undefined) recordOutcome(call, message);
    const explainer = call === undefined ? undefined : configurations.get(this.protocol)?.explainer;
    const text = explainer === undefined ? undefined : failureText(message);
    const plain = call?.notice === undefined ? message : answerWithNotice(message, call.notice);
    if (call === undefined || explainer === undefined || text === undefined) return this.send.call(self, plain, options);
    return this.explainer()
      .then(async (explanations) => {
        if (!explanations.explainable(explainer, call, text)) return undefined;
        return explanations.failure(explainer, call, text, await this.tools(call.extra));
      })
      .then(
        (explained) => this.send.call(self, explained === undefined ? plain : answer(message, call.notice === undefined ? explained : `${explained}\n${call.notice.text}`), options),
        () => this.send.call(self, plain, options),
      );
  }

  private tools(extra: unknown) {
    this.listing ??= new ToolListing(((request, requestExtra) => this.deliver?.call(this.transport, request, requestExtra)) as Deliver);
    return this.listing.tools(extra);
  }

  /** The explaining half, loaded on its first use. */
  private explainer(): Promise<CallExplanations> {
    this.explanations ??= import('./session.js').then(({ CallExplanations }) => new CallExplanations());
    return this.explanations;
  }

  private release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    // A call may hold the stream again; what follows it then queues behind it, in order.
    for (const [index, [self, message, extra]] of held.entries()) {
      this.incoming(self, message, extra);
      if (this.held !== undefined) {
        (this.held as Array<[unknown, unknown, unknown]>).push(...held.slice(index + 1));
        return;
      }
    }
  }
}

/** A `tools/call` request: its message, params, tool and arguments. */
function callOf(message: unknown): { message: Readonly<Record<string, unknown>>; params: Readonly<Record<string, unknown>>; name: string; args: unknown } | undefined {
  if (!isJsonObject(message) || message.method !== 'tools/call' || !isJsonObject(message.params) || message.id === undefined) return undefined;
  const name = message.params.name;
  return typeof name === 'string' ? { message, params: message.params, name, args: message.params.arguments } : undefined;
}

/** The answer with the notice added to its result (see `withNotice`). */
function answerWithNotice(message: unknown, notice: CallNotice): unknown {
  return isJsonObject(message) && isJsonObject(message.result) ? { ...message, result: withNotice(message.result, notice) } : message;
}

/**
 * The `tools/call` requests awaiting an answer (and, when usage is recorded, the `tools/list`
 * and `initialize` ones): the request path's whole cost is one entry here.
 */
class CallRegister {
  private readonly pending = new Map<string, Pending>();

  observe(message: unknown, extra: unknown, notice?: CallNotice, usage?: { recorder: UsageRecorder; called: string }): void {
    if (!isJsonObject(message) || message.method !== 'tools/call' || !isJsonObject(message.params)) return;
    const key = idKey(message.id);
    const name = message.params.name;
    if (key === undefined || typeof name !== 'string') return;
    const call: PendingCall = { kind: 'call', name, args: message.params.arguments, extra };
    this.track(key, { ...call, ...(notice !== undefined ? { notice } : {}), ...(usage !== undefined ? { usage: { ...usage, started: performance.now() } } : {}) });
  }

  /** A `tools/list` or `initialize` request, whose answer tells the usage recorder the tools shown and the server. */
  observeListing(message: unknown): void {
    if (!isJsonObject(message) || (message.method !== 'tools/list' && message.method !== 'initialize')) return;
    const key = idKey(message.id);
    if (key !== undefined) this.track(key, { kind: message.method === 'tools/list' ? 'list' : 'initialize' });
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
/** Messages held behind a call waiting for the tool listing, at most. */
const MAX_HELD = 10_000;

/** A `tools/call` as the server was given it. */
export interface PendingCall {
  readonly kind: 'call';
  readonly name: string;
  readonly args: unknown;
  /** What the transport handed the protocol with the call (authentication, the HTTP request). */
  readonly extra: unknown;
  /** What its answer must carry: the call was routed. */
  readonly notice?: CallNotice;
  /** Usage is recorded: the recorder, the name the client called, and when the call came in (`performance.now()`). */
  readonly usage?: { readonly recorder: UsageRecorder; readonly called: string; readonly started: number };
}

type Pending = PendingCall | { readonly kind: 'list' | 'initialize' };

/**
 * How a call ended, as usage counts it (under the name the client called): a refusal by the SDK
 * (invalid arguments, an unknown tool: its InvalidParams error, thrown or as an `isError`
 * result), another JSON-RPC error, the tool's own error, or success.
 */
function recordOutcome(call: PendingCall, message: unknown): void {
  const usage = call.usage;
  if (usage === undefined || !isJsonObject(message)) return;
  const seconds = (performance.now() - usage.started) / 1000;
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
  usage.recorder.outcome(usage.called, outcome, seconds, errorType);
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

function idKey(id: unknown): string | undefined {
  if (typeof id === 'number') return `n${id}`;
  if (typeof id === 'string') return `s${id}`;
  return undefined;
}
