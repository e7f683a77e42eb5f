/**
 * One client ↔ server session of the proxy, independent of the transport: it is handed each
 * complete message line from either side and decides, per message, to forward the line as it
 * came (almost always), to answer a `tools/call` itself, or to replace the server's answer to
 * one with an explanation.
 *
 * What it learns, from the messages themselves: the protocol generation (an `initialize`
 * handshake, or the stateless revision's `server/discover` and `_meta`), whether the server
 * declares tools, and the current tools from every complete `tools/list` answer (a client's
 * paginated listing is followed cursor by cursor). If the client has not listed the tools when
 * the session starts (or after `notifications/tools/list_changed`), the proxy lists them
 * itself, with ids no client can use (a random UUID prefix), and keeps those answers to
 * itself. A call that arrives before that listing is answered waits for it (at most
 * `listTimeoutMs`), and so does every client message after it, so the order the server sees is
 * the order the client sent.
 *
 * Malformed lines (not JSON) are relayed unchanged in both directions, as if the proxy were
 * not there; the first one from the server is reported on stderr. JSON-RPC batches are
 * relayed as they came unless the proxy answers some of their calls itself: the rest then go
 * out as a smaller batch, and the proxy's answers come back as a batch of their own.
 */
import { ENTRY_KEY, isJsonObject, type EntryKind, type JsonObject, type JsonValue } from '../contract/model.js';
import { createExplainer, type Explainer } from '../runtime/self-healing.js';
import type { DeltaMap } from '../runtime/delta-map.js';
import { errorResult } from '../runtime/protocol.js';
import { CallRouter, NEEDS_LISTING, withNotice, type CallDecision, type CallNotice, type ListedTools, type RoutingOptions } from '../runtime/routing.js';
import { reportedFields } from '../runtime/validation-error.js';
import type { CallLog, CallOutcome } from './call-log.js';
import type { CallOutcome as UsageOutcome, UsageRecorder } from '../runtime/usage.js';
import { explainServerError, isUnknownToolError } from '../runtime/server-errors.js';
import type { DriftGuard, Pin } from './pin.js';
import { ArgumentValidator } from '../runtime/argument-validator.js';

export interface RelayOptions extends RoutingOptions {
  /** The artifact's deltas (empty without `--artifact`). */
  deltas: DeltaMap;
  /** The decisions about old-shaped calls, compiled once for every session (else from `deltas` and the routing options). */
  router?: CallRouter;
  /** Check calls against the current schema before they reach the server (`--no-validate` turns it off). */
  validate: boolean;
  /** Check and explain every tool's calls (default); false: only the tools with deltas (`--no-explain-all`). */
  explainAll?: boolean;
  log?: CallLog | undefined;
  /** Counts what the calls use (`--usage FILE`), shared by every session of the proxy. */
  usage?: UsageRecorder | undefined;
  /** A line for the operator (stderr). */
  warn: (message: string) => void;
  /** How long calls wait for the proxy's own `tools/list` before going out unchecked (default 10 s). */
  listTimeoutMs?: number;
  /** `--lockfile`: hold the server to its pinned contracts (see pin.ts). */
  pin?: Pin | undefined;
}

/** What each listing method lists (followed with a pin, to judge its entries). */
const LIST_METHODS: Readonly<Record<string, EntryKind>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};
/** What each list_changed notification makes stale. */
const LIST_CHANGED: Readonly<Record<string, EntryKind[]>> = {
  'notifications/tools/list_changed': ['tools'],
  'notifications/prompts/list_changed': ['prompts'],
  'notifications/resources/list_changed': ['resources', 'resourceTemplates'],
};

/** Where the session's output goes; each string or buffer is one or more complete lines. */
export interface RelayPeers {
  toServer(bytes: Buffer | string): void;
  toClient(bytes: Buffer | string): void;
  /** Stop delivering client lines (a call waits for the contract) until `resumeClient`. */
  pauseClient(): void;
  resumeClient(): void;
}

type ClientRequest =
  | { readonly kind: 'initialize' }
  | { readonly kind: 'discover' }
  /** `chain` gathers a paginated listing; undefined for a page whose start the proxy did not see. */
  | { readonly kind: 'list'; readonly chain: Map<string, JsonObject> | undefined }
  /** A listing of prompts, resources or resource templates, followed only to hold them to the pin. */
  | { readonly kind: 'entries'; readonly entries: EntryKind; readonly chain: Map<string, JsonObject> | undefined }
  /** `notice`: the call was routed (`--renames route`), and its answer says so. */
  /** `called`: the name the client called, when a rename routed the call to `tool`. */
  | { readonly kind: 'call'; readonly tool: string; readonly called?: string; readonly args: unknown; readonly started: number; readonly notice?: CallNotice };

interface OwnListing {
  readonly id: string;
  readonly chain: Map<string, JsonObject>;
  readonly cursors: Set<string>;
  readonly timer: NodeJS.Timeout;
}

const DEFAULT_LIST_TIMEOUT_MS = 10_000;
/** Requests awaiting an answer that the proxy remembers; past it the oldest are forgotten. */
const MAX_TRACKED_REQUESTS = 10_000;
/** More tools or pages than any real server lists: past it, pagination is looping. */
const MAX_TOOLS = 10_000;
const MAX_PAGES = 1_000;
/** Paginated client listings followed at once. */
const MAX_CHAINS = 16;
const MAX_REPORTED_LINE = 200;
/** The keys of a stateless request's `_meta` that say who the client is (not per-request ones like progressToken). */
const PROTOCOL_META_PREFIX = 'io.modelcontextprotocol/';

/** The JSON-RPC error code of a prompt or resource the pin holds back (the implementation-defined range). */
const PINNED_DRIFT_CODE = -32003;

/** What the proxy does with a client message: answer it itself, or send the server a changed one (undefined: forward it as it came). */
type ClientAction = { readonly answer: JsonObject } | { readonly forward: JsonObject } | undefined;

const FORWARD = Symbol('forward');
const DROP = Symbol('drop');
type Disposition = typeof FORWARD | typeof DROP | JsonObject;
const MALFORMED = Symbol('malformed');

export class RelaySession {
  /**
   * The ids of the proxy's own requests to the server, which no client's id meets. Not a UUID:
   * the relay loads while the server starts, and node:crypto (some 5 ms to load) would compete
   * with it for the CPU; nothing here needs to be unguessable (the server sees these ids).
   */
  private readonly idPrefix = `mcp-contract-guard-proxy/${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}/`;
  private nextOwnId = 1;
  private readonly validator = new ArgumentValidator();
  private readonly explainer: Explainer;
  /** With `--lockfile`: the session's verdicts on what drifted from the pin. */
  private readonly guard: DriftGuard | undefined;
  private readonly router: CallRouter;
  private readonly requests = new Map<string, ClientRequest>();
  /** Client listings awaiting their next page, by the cursor that asks for it. */
  private readonly chains = new Map<string, Map<string, JsonObject>>();
  private readonly uncheckedReported = new Set<string>();
  /** The tools of the last complete listing; undefined while unknown or stale. */
  private tools: ReadonlyMap<string, JsonObject> | undefined;
  private era: 'legacy' | 'stateless' | undefined;
  private initialized = false;
  private meta: JsonObject | undefined;
  private toolsDeclared: boolean | undefined;
  private clientListed = false;
  private ownListing: OwnListing | undefined;
  private listingFailed = false;
  /** Client input waiting for the contract, in order; `raw` bytes are relayed unread. */
  private held: { bytes: Buffer; raw: boolean }[] | undefined;
  private malformedReported = false;
  private onReleased: (() => void) | undefined;

  constructor(
    private readonly options: RelayOptions,
    private readonly peers: RelayPeers,
  ) {
    this.explainer = createExplainer({ deltas: options.deltas, explainAll: options.explainAll !== false });
    this.guard = options.pin?.guard();
    this.router = options.router ?? new CallRouter(options.deltas, options);
  }

  fromClient(line: Buffer): void {
    if (this.held !== undefined) {
      this.held.push({ bytes: line, raw: false });
      return;
    }
    const message = parse(line);
    if (Array.isArray(message)) {
      this.clientBatch(line, message);
      return;
    }
    if (!isJsonObject(message)) {
      this.peers.toServer(line);
      return;
    }
    this.noteProtocol(message);
    if (this.mustWait(message)) {
      this.hold(line);
      return;
    }
    const action = this.fromClientMessage(message);
    if (action === undefined) this.peers.toServer(line);
    else if ('forward' in action) this.peers.toServer(`${JSON.stringify(action.forward)}\n`);
    else this.peers.toClient(`${JSON.stringify(action.answer)}\n`);
    if (message.method === 'notifications/initialized') this.onInitialized();
  }

  fromServer(line: Buffer): void {
    const message = parse(line);
    if (Array.isArray(message)) {
      this.serverBatch(line, message);
      return;
    }
    if (message === MALFORMED) this.reportMalformed(line);
    const disposition = isJsonObject(message) ? this.fromServerMessage(message) : FORWARD;
    if (disposition === FORWARD) this.peers.toClient(line);
    else if (disposition !== DROP) this.peers.toClient(`${JSON.stringify(disposition)}\n`);
  }

  /** Bytes of a client line too long to read: relayed as they are, in order. */
  relayClient(bytes: Buffer): void {
    if (this.held !== undefined) this.held.push({ bytes, raw: true });
    else this.peers.toServer(bytes);
  }

  /** Resolves once no client input waits for the contract (at most the listing timeout). */
  settled(): Promise<void> {
    if (this.held === undefined) return Promise.resolve();
    return new Promise((resolve) => (this.onReleased = resolve));
  }

  /** Stops the timers; the session takes no more input. */
  close(): void {
    if (this.ownListing !== undefined) clearTimeout(this.ownListing.timer);
    this.ownListing = undefined;
  }

  // --- client → server -------------------------------------------------------------------

  private clientBatch(line: Buffer, messages: unknown[]): void {
    for (const message of messages) if (isJsonObject(message)) this.noteProtocol(message);
    if (messages.some((message) => isJsonObject(message) && this.mustWait(message))) {
      this.hold(line);
      return;
    }
    const answers: JsonObject[] = [];
    const forwarded: unknown[] = [];
    let changed = false;
    for (const message of messages) {
      const action = isJsonObject(message) ? this.fromClientMessage(message) : undefined;
      if (action === undefined) forwarded.push(message);
      else if ('forward' in action) {
        forwarded.push(action.forward);
        changed = true;
      } else answers.push(action.answer);
    }
    if (answers.length === 0 && !changed) {
      this.peers.toServer(line);
    } else {
      if (forwarded.length > 0) this.peers.toServer(`${JSON.stringify(forwarded)}\n`);
      this.peers.toClient(`${JSON.stringify(answers)}\n`);
    }
    if (messages.some((message) => isJsonObject(message) && message.method === 'notifications/initialized')) this.onInitialized();
  }

  /** What to do with a client message (see `ClientAction`). */
  private fromClientMessage(message: JsonObject): ClientAction {
    const { method } = message;
    if (typeof method !== 'string') return undefined; // the client answering a server request
    const params = isJsonObject(message.params) ? message.params : undefined;
    const key = idKey(message.id);
    if (key === undefined) {
      if (method === 'notifications/cancelled') this.cancelled(params);
      return undefined;
    }
    switch (method) {
      case 'initialize':
        this.track(key, { kind: 'initialize' });
        return undefined;
      case 'server/discover':
        this.track(key, { kind: 'discover' });
        return undefined;
      case 'tools/list':
        this.clientListed = true;
        this.track(key, { kind: 'list', chain: this.chainOf('', params) });
        return undefined;
      case 'tools/call':
        return this.call(key, message.id as JsonValue, params);
      case 'prompts/get':
      case 'resources/read':
        return this.pinnedGet(method, message.id as JsonValue, params);
      default:
        if (this.guard !== undefined && Object.hasOwn(LIST_METHODS, method)) this.track(key, { kind: 'entries', entries: LIST_METHODS[method] as EntryKind, chain: this.chainOf(`${method}\u0000`, params) });
        return undefined;
    }
  }

  /** A prompt or resource the pin holds back is answered with an error saying why; anything else goes out. */
  private pinnedGet(method: string, id: JsonValue, params: JsonObject | undefined): ClientAction {
    const kind = method === 'prompts/get' ? 'prompts' : 'resources';
    const key = kind === 'prompts' ? params?.name : params?.uri;
    const refusal = typeof key === 'string' ? this.guard?.refusal(kind, key) : undefined;
    return refusal === undefined ? undefined : { answer: { jsonrpc: '2.0', id, error: { code: PINNED_DRIFT_CODE, message: refusal.plain } } };
  }

  /** The listing a page request continues (by its cursor), or a new one. */
  private chainOf(prefix: string, params: JsonObject | undefined): Map<string, JsonObject> | undefined {
    const cursor = params?.cursor;
    if (cursor === undefined) return new Map<string, JsonObject>();
    if (typeof cursor !== 'string') return undefined;
    const chain = this.chains.get(`${prefix}${cursor}`);
    this.chains.delete(`${prefix}${cursor}`);
    return chain;
  }

  /**
   * A `tools/call`, decided here, once: what the pin holds back (the name called, and the one a
   * rename routes it to), what the artifact makes of its names (see `CallRouter`: served as it
   * is, served under the new names, or refused for its old-shaped arguments), then the checks of
   * the tool it goes to (moved, arguments that do not fit its schema).
   */
  private call(key: string, id: JsonValue, params: JsonObject | undefined): ClientAction {
    const called = params?.name;
    if (typeof called !== 'string' || params === undefined) return undefined;
    // Usage counts the call as the client made it: the name and arguments it sent.
    this.options.usage?.call(called, params.arguments);
    const held = this.heldByPin(id, called, params.arguments);
    if (held !== undefined) return held;
    const decision = this.decide(called, params.arguments);
    if (decision?.kind === 'serve' && decision.name !== called) this.options.usage?.routed(called, decision.name);
    if (decision?.kind === 'refuse') {
      const schema = this.tools?.get(decision.name)?.inputSchema;
      const text = this.explainer.refusedCall(decision, schema, this.validator.errors(decision.name, schema, decision.args));
      this.record(called, 'blocked', fieldsOf(text), params.arguments);
      return { answer: errorAnswer(id, text) };
    }
    const name = decision?.name ?? called;
    const args = decision === undefined ? params.arguments : decision.args;
    const notice = decision?.notice;
    if (name !== called) {
      const heldTarget = this.heldByPin(id, name, args);
      if (heldTarget !== undefined) return heldTarget;
    }
    if (this.options.validate && this.tools !== undefined) {
      const tool = this.tools.get(name);
      const moved = tool === undefined ? this.explainer.movedTool(name) : undefined;
      if (moved !== undefined) {
        this.record(name, 'moved', [], args, undefined, undefined, called);
        return { answer: errorAnswer(id, moved) };
      }
      if (tool !== undefined && this.explainer.explains(name)) {
        const verdict = this.validator.check(name, tool.inputSchema, args);
        if (verdict.kind === 'unchecked') this.reportUnchecked(name, verdict.reason);
        else if (verdict.notChecked.length > 0) this.reportPatternsNotChecked(name, verdict.notChecked);
        if (verdict.kind === 'invalid' && verdict.blocking) {
          const text = this.explainer.invalidArguments(name, tool.inputSchema, args, verdict.errors);
          this.record(name, 'blocked', fieldsOf(text), args, undefined, undefined, called);
          return { answer: errorAnswer(id, notice === undefined ? text : `${text}\n${notice.text}`) };
        }
      }
    }
    this.track(key, { kind: 'call', tool: name, args, started: performance.now(), ...(notice !== undefined ? { notice } : {}), ...(name !== called ? { called } : {}) });
    if (decision === undefined) return undefined;
    return { forward: { jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, name, arguments: args as JsonValue } } };
  }

  /** A call to a tool the pin holds back, answered with what changed and how to re-pin; undefined for any other. */
  private heldByPin(id: JsonValue, name: string, args: unknown): ClientAction {
    const refusal = this.guard?.refusal('tools', name);
    if (refusal === undefined) return undefined;
    this.record(name, 'held', [], args);
    return { answer: errorAnswer(id, refusal.xml) };
  }

  /** The artifact's decision about a call (undefined: as it is); a call whose decision needs tools the proxy could not list goes as it is. */
  private decide(name: string, args: unknown): CallDecision | undefined {
    if (!this.router.active) return undefined;
    const decision = this.router.decide(name, args, this.listed());
    return decision === NEEDS_LISTING ? undefined : decision;
  }

  /** The last complete listing, as the router reads it. */
  private listed(): ListedTools | undefined {
    const tools = this.tools;
    return tools === undefined ? undefined : { has: (name) => tools.has(name), inputSchemaOf: (name) => tools.get(name)?.inputSchema };
  }

  private cancelled(params: JsonObject | undefined): void {
    const key = idKey(params?.requestId);
    const request = key === undefined ? undefined : this.requests.get(key);
    if (key === undefined || request?.kind !== 'call') return;
    this.requests.delete(key);
    this.record(request.tool, 'cancelled', [], request.args);
  }

  /** The generation and, in the stateless one, the client's identity `_meta` (reused on the proxy's own requests). */
  private noteProtocol(message: JsonObject): void {
    if (message.method === 'initialize') {
      this.era = 'legacy';
      this.guard?.noteClient(isJsonObject(message.params) ? message.params.capabilities : undefined);
      return;
    }
    const meta = isJsonObject(message.params) ? message.params._meta : undefined;
    if (!isJsonObject(meta) || typeof meta[`${PROTOCOL_META_PREFIX}protocolVersion`] !== 'string') return;
    if (this.era !== 'stateless') this.guard?.noteClient(meta[`${PROTOCOL_META_PREFIX}clientCapabilities`]);
    this.era = 'stateless';
    if (this.meta !== undefined && message.method !== 'server/discover') return;
    this.meta = Object.fromEntries(Object.entries(meta).filter(([name]) => name.startsWith(PROTOCOL_META_PREFIX)));
  }

  /**
   * A call that needs the contract while it is still being listed waits for the listing: one
   * to be checked, and one to a tool the artifact says moved (only the listing tells whether
   * the server still has it, and so whether its "not found" is the server's or the tool's).
   */
  private mustWait(message: JsonObject): boolean {
    if (message.method !== 'tools/call' || this.tools !== undefined) return false;
    if (!isJsonObject(message.params)) return false;
    const name = message.params.name;
    if (typeof name !== 'string') return false;
    // With a pin every call needs the listing: any tool may be held back.
    const checked = (this.options.validate && this.explainer.explains(name)) || this.guard !== undefined;
    const decided = this.router.active && this.router.decide(name, message.params.arguments, undefined) === NEEDS_LISTING;
    if (!checked && !decided && this.explainer.movedTool(name) === undefined) return false;
    return this.ownListing !== undefined || this.startListing();
  }

  private hold(line: Buffer): void {
    this.held = [{ bytes: line, raw: false }];
    this.peers.pauseClient();
  }

  private release(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    // A line may hold the stream again; the lines after it then queue behind it, in order.
    for (const { bytes, raw } of held) {
      if (raw) this.relayClient(bytes);
      else this.fromClient(bytes);
    }
    if (this.held !== undefined) return;
    this.peers.resumeClient();
    this.onReleased?.();
    this.onReleased = undefined;
  }

  private onInitialized(): void {
    this.initialized = true;
    if (!this.clientListed && this.tools === undefined) this.startListing();
  }

  // --- server → client -------------------------------------------------------------------

  private serverBatch(line: Buffer, messages: unknown[]): void {
    let changed = false;
    const out: unknown[] = [];
    for (const message of messages) {
      const disposition = isJsonObject(message) ? this.fromServerMessage(message) : FORWARD;
      if (disposition === FORWARD) {
        out.push(message);
      } else {
        changed = true;
        if (disposition !== DROP) out.push(disposition);
      }
    }
    if (!changed) this.peers.toClient(line);
    else if (out.length > 0) this.peers.toClient(`${JSON.stringify(out)}\n`);
  }

  private fromServerMessage(message: JsonObject): Disposition {
    if (typeof message.method === 'string') {
      if (message.method === 'notifications/tools/list_changed') this.contractChanged();
      else if (this.guard !== undefined && Object.hasOwn(LIST_CHANGED, message.method)) for (const kind of LIST_CHANGED[message.method] ?? []) this.guard.forget(kind);
      return FORWARD;
    }
    const { id } = message;
    if (typeof id === 'string' && id.startsWith(this.idPrefix)) {
      this.ownAnswer(id, message);
      return DROP;
    }
    const key = idKey(id);
    const request = key === undefined ? undefined : this.requests.get(key);
    if (key === undefined || request === undefined) return FORWARD;
    this.requests.delete(key);
    const result = isJsonObject(message.result) ? message.result : undefined;
    switch (request.kind) {
      case 'initialize':
      case 'discover':
        if (result !== undefined) this.toolsDeclared = isJsonObject(result.capabilities) && result.capabilities.tools !== undefined;
        if (isJsonObject(result?.serverInfo)) this.options.usage?.setServer(result.serverInfo);
        if (request.kind === 'discover' && result !== undefined && !this.clientListed && this.tools === undefined) this.startListing();
        return FORWARD;
      case 'list':
        if (request.chain !== undefined && result !== undefined) this.clientPage(request.chain, result);
        return this.pinnedListing('tools', message, result);
      case 'entries':
        if (request.chain !== undefined && result !== undefined) this.entriesPage(request.entries, request.chain, result);
        return this.pinnedListing(request.entries, message, result);
      case 'call':
        return this.callAnswered(request, message, result) ?? FORWARD;
    }
  }

  /** A listing answer without the entries the pin hides, or FORWARD. */
  private pinnedListing(kind: EntryKind, message: JsonObject, result: JsonObject | undefined): Disposition {
    const filtered = this.guard === undefined || result === undefined ? undefined : this.guard.filteredListing(kind, result);
    return filtered === undefined ? FORWARD : { ...message, result: filtered };
  }

  /** A page of a prompts or resources listing: once complete, judged against the pin. */
  private entriesPage(kind: EntryKind, chain: Map<string, JsonObject>, result: JsonObject): void {
    const method = Object.keys(LIST_METHODS).find((m) => LIST_METHODS[m] === kind) as string;
    if (!addPage(chain, result[kind], ENTRY_KEY[kind])) return;
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '') {
      this.guard?.judge(kind, chain.values());
      return;
    }
    this.chains.set(`${method}\u0000${next}`, chain);
    if (this.chains.size > MAX_CHAINS) this.chains.delete(this.chains.keys().next().value as string);
  }

  private clientPage(chain: Map<string, JsonObject>, result: JsonObject): void {
    if (!addPage(chain, result.tools)) return;
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '') {
      this.learn(chain);
      return;
    }
    this.chains.set(next, chain);
    if (this.chains.size > MAX_CHAINS) this.chains.delete(this.chains.keys().next().value as string);
  }

  /**
   * The server's answer to a forwarded call: explained when it is a validation error the proxy
   * recognises, or "not found" for a tool that moved and that the server no longer lists;
   * any other answer (a tool's own error among them) is the server's, relayed as it is.
   */
  private callAnswered(request: Extract<ClientRequest, { kind: 'call' }>, message: JsonObject, result: JsonObject | undefined): JsonObject | undefined {
    const ms = Math.round(performance.now() - request.started);
    const error = isJsonObject(message.error) ? message.error : undefined;
    if (error === undefined && result?.isError !== true) {
      this.record(request.tool, request.notice === undefined ? 'passed' : 'routed', [], request.args, ms, undefined, request.called);
      return request.notice === undefined || result === undefined ? undefined : { ...message, result: withNotice(result, request.notice) as JsonObject };
    }
    const text = error !== undefined ? (typeof error.message === 'string' ? error.message : undefined) : textOf(result);
    const schema = this.tools?.get(request.tool)?.inputSchema;
    const explained =
      text === undefined
        ? undefined
        : explainServerError(this.explainer, request.tool, text, {
            schema,
            args: request.args,
            listed: this.tools?.has(request.tool),
            readIssues: () => this.validator.errors(request.tool, schema, request.args),
          });
    if (explained === undefined) {
      this.record(request.tool, 'failed', [], request.args, ms, message, request.called);
      // A tool's own error still tells the agent where its call went.
      return request.notice === undefined || result === undefined ? undefined : { ...message, result: withNotice(result, request.notice) as JsonObject };
    }
    this.record(request.tool, explained.outcome, fieldsOf(explained.text), request.args, ms, undefined, request.called);
    // A JSON-RPC error becomes a tool result: the model sees tool results, not protocol errors.
    const content = [{ type: 'text', text: request.notice === undefined ? explained.text : `${explained.text}\n${request.notice.text}` }];
    return { jsonrpc: '2.0', id: message.id as JsonValue, result: { ...(result ?? {}), content, isError: true } };
  }

  private contractChanged(): void {
    this.tools = undefined;
    this.guard?.forget('tools');
    this.listingFailed = false;
    this.startListing();
  }

  // --- the proxy's own listing ------------------------------------------------------------

  /** Lists the tools itself when the session allows a request; false when it cannot. */
  private startListing(): boolean {
    if (this.toolsDeclared === false || this.listingFailed) return false;
    if (this.era === 'legacy' ? !this.initialized : this.era !== 'stateless' || this.meta === undefined) return false;
    if (this.ownListing !== undefined) clearTimeout(this.ownListing.timer);
    this.requestPage(new Map(), new Set(), undefined);
    return true;
  }

  private requestPage(chain: Map<string, JsonObject>, cursors: Set<string>, cursor: string | undefined): void {
    const id = `${this.idPrefix}${this.nextOwnId++}`;
    const params: JsonObject = {};
    if (cursor !== undefined) params.cursor = cursor;
    if (this.era === 'stateless' && this.meta !== undefined) params._meta = this.meta;
    const timer = setTimeout(() => this.listingEnded(undefined), this.options.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS);
    timer.unref();
    this.ownListing = { id, chain, cursors, timer };
    const request = { jsonrpc: '2.0', id, method: 'tools/list', ...(Object.keys(params).length > 0 ? { params } : {}) };
    this.peers.toServer(`${JSON.stringify(request)}\n`);
  }

  private ownAnswer(id: string, message: JsonObject): void {
    const listing = this.ownListing;
    // An answer to a listing given up on (timed out, or superseded by a newer one).
    if (listing === undefined || listing.id !== id) return;
    clearTimeout(listing.timer);
    const result = isJsonObject(message.result) ? message.result : undefined;
    if (result === undefined || !addPage(listing.chain, result.tools)) {
      this.listingEnded(undefined);
      return;
    }
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '') {
      this.listingEnded(listing.chain);
      return;
    }
    if (listing.cursors.has(next) || listing.cursors.size >= MAX_PAGES) {
      this.listingEnded(undefined);
      return;
    }
    listing.cursors.add(next);
    this.requestPage(listing.chain, listing.cursors, next);
  }

  private listingEnded(chain: Map<string, JsonObject> | undefined): void {
    this.ownListing = undefined;
    if (chain !== undefined) this.learn(chain);
    else this.listingFailed = true;
    this.release();
  }

  private learn(chain: Map<string, JsonObject>): void {
    this.tools = chain;
    this.options.usage?.listed(chain.values());
    this.guard?.judge('tools', chain.values());
    this.validator.retain(new Set(chain.keys()));
    if (this.ownListing === undefined) this.release();
  }

  // --- rendering and bookkeeping ------------------------------------------------------------

  private track(key: string, request: ClientRequest): void {
    this.requests.set(key, request);
    if (this.requests.size > MAX_TRACKED_REQUESTS) this.requests.delete(this.requests.keys().next().value as string);
  }

  /** The call's line in the log, and its end in the usage counts (under the name the client called). */
  private record(tool: string, outcome: CallOutcome, fields: readonly string[], args: unknown, ms?: number, answer?: JsonObject, called = tool): void {
    this.options.log?.write({ tool, outcome, fields, ...(ms !== undefined ? { ms } : {}) }, args);
    if (this.options.usage !== undefined && outcome !== 'cancelled') {
      const { counted, errorType } = usageOutcome(tool, outcome, answer);
      this.options.usage.outcome(called, counted, (ms ?? 0) / 1000, errorType);
    }
  }

  private reportMalformed(line: Buffer): void {
    if (this.malformedReported) return;
    this.malformedReported = true;
    const text = line.toString('utf8').trim();
    const shown = text.length > MAX_REPORTED_LINE ? `${text.slice(0, MAX_REPORTED_LINE)}…` : text;
    this.options.warn(`the server wrote a line that is not JSON-RPC to stdout; it is relayed unchanged (only the first is reported): ${JSON.stringify(shown)}`);
  }

  private reportUnchecked(toolName: string, reason: string): void {
    if (this.uncheckedReported.has(toolName)) return;
    this.uncheckedReported.add(toolName);
    this.options.warn(`the input schema of tool ${JSON.stringify(toolName)} cannot be checked (${reason}); its calls go to the server unchecked.`);
  }

  private reportPatternsNotChecked(toolName: string, patterns: readonly string[]): void {
    if (this.uncheckedReported.has(toolName)) return;
    this.uncheckedReported.add(toolName);
    this.options.warn(
      `the input schema of tool ${JSON.stringify(toolName)} has ${patterns.length === 1 ? 'a pattern' : 'patterns'} the linear-time engine will not run (${patterns.join('; ')}); ` +
        'they are not checked (the server checks them), the rest of the schema is.',
    );
  }
}

/** A JSON-RPC response carrying an `isError` tool result: what the model sees. */
function errorAnswer(id: JsonValue, text: string): JsonObject {
  return { jsonrpc: '2.0', id, result: errorResult(text) as unknown as JsonObject };
}

function parse(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    return MALFORMED;
  }
}

/** A JSON-RPC id as a map key: 1 and "1" are different ids. */
export function idKey(id: unknown): string | undefined {
  if (typeof id === 'number') return `n${id}`;
  if (typeof id === 'string') return `s${id}`;
  return undefined;
}

/** Adds a page of entries (tools by default) to a listing; false when the page is not one or the listing grows past any real server's. */
function addPage(chain: Map<string, JsonObject>, items: unknown, key = 'name'): boolean {
  if (!Array.isArray(items)) return false;
  for (const item of items) if (isJsonObject(item) && typeof item[key] === 'string') chain.set(item[key], item);
  return chain.size <= MAX_TOOLS;
}

function textOf(result: JsonObject | undefined): string | undefined {
  const content = result?.content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.map((part) => (isJsonObject(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : undefined));
  return texts.length > 0 && texts.every((text) => text !== undefined) ? texts.join('\n') : undefined;
}

/**
 * A call's end as usage counts it: refused (the proxy's or the server's refusal of its
 * arguments or its tool), another JSON-RPC error, the tool's own error, or success; with
 * OpenTelemetry's `error.type` (the JSON-RPC code, or `tool_error`).
 */
function usageOutcome(tool: string, outcome: CallOutcome, answer: JsonObject | undefined): { counted: UsageOutcome; errorType?: string } {
  switch (outcome) {
    case 'passed':
    case 'routed':
      return { counted: 'ok' };
    case 'blocked':
    case 'explained':
      return { counted: 'invalid-arguments', errorType: '-32602' };
    case 'moved':
      return { counted: 'unknown-tool', errorType: '-32602' };
    case 'held':
      // Refused by the pin (the tool drifted from it): called all the same, so it counts as used.
      return { counted: 'error' };
    default: {
      const error = isJsonObject(answer?.error) ? answer.error : undefined;
      const text = error !== undefined ? error.message : textOf(isJsonObject(answer?.result) ? answer.result : undefined);
      const code = error !== undefined ? error.code : typeof text === 'string' && /^MCP error -32602: /.test(text) ? -32602 : undefined;
      if (code === -32602) return { counted: typeof text === 'string' && isUnknownToolError(tool, text) ? 'unknown-tool' : 'invalid-arguments', errorType: '-32602' };
      if (error !== undefined) return { counted: 'error', ...(typeof code === 'number' ? { errorType: String(code) } : {}) };
      return { counted: 'tool-error', errorType: 'tool_error' };
    }
  }
}

/** The argument paths an explanation names, for the call log. */
function fieldsOf(text: string): string[] {
  return reportedFields(text).map((field) => field.name);
}
