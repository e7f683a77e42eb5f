/**
 * The usage recorder: counts what each `tools/call` used (the tool, the argument fields present,
 * the enum and const values sent, refusals, renames routed), per UTC day, and appends it to a
 * file in the background (format: protocol/usage.ts). `withSelfHealing(server, { usage })` and
 * `proxy --usage FILE` feed it from the messages they already watch.
 *
 * The request path pays a walk over the call's arguments against a small tree of the fields seen
 * (no string is built once a field is known) and a few counter increments; nothing waits on I/O.
 * Memory is bounded per day by `USAGE_CAPS` (past them, names and values are counted as
 * overflow, never kept). Lines go out every `flushIntervalMs` with an asynchronous write of a
 * file opened with O_APPEND, one `write` per line, and synchronously when the process exits (a
 * natural exit, `process.exit`, SIGTERM or SIGINT) or when `close()` is called. A line still in
 * flight when the process exits is written again: usage errs toward "used" (counted twice),
 * never toward "unused" (lost), since "unused" is what lets the gate downgrade a break.
 *
 * The same counts go to OpenTelemetry through `@opentelemetry/api` (a no-op unless the
 * application registered a meter provider), loaded in the background when the recorder is made,
 * never on the import path of the runtime.
 */
import { closeSync, openSync, write, writeSync } from 'node:fs';
import {
  OTHER_VALUE,
  USAGE_CAPS,
  canonicalJson,
  fieldOf,
  isJsonObject,
  pointerTokens,
  usageRecordLine,
  type Counts,
  type Refusal,
  type UsageRecord,
  type UsageServer,
} from '../protocol/index.js';

/** What a recorder needs of an OpenTelemetry `Meter` (`@opentelemetry/api`'s, or any with this shape). */
export interface MeterLike {
  createHistogram(name: string, options?: { description?: string; unit?: string; advice?: { explicitBucketBoundaries?: number[] } }): { record(value: number, attributes?: Attributes): void };
  createCounter(name: string, options?: { description?: string; unit?: string }): { add(value: number, attributes?: Attributes): void };
}
type Attributes = Record<string, string | number | boolean>;

export interface UsageRecorderOptions {
  /** The recording: JSON Lines appended (created if missing). Several processes may share it. */
  file: string;
  /** How often counts are appended in the background (default 60 s; they are also written at exit). */
  flushIntervalMs?: number;
  /**
   * OpenTelemetry: `'global'` (default) records through `@opentelemetry/api`'s global meter
   * provider, a no-op unless the application registered one; a `Meter` records there; `false`
   * records none.
   */
  metrics?: 'global' | MeterLike | false;
  /** How a failure to write is reported, once (default: a line on stderr). */
  warn?: (message: string) => void;
  /** The clock, in ms since the epoch (tests). */
  now?: () => number;
}

/** How a call ended, as the recorder counts it. */
export type CallOutcome = 'ok' | 'tool-error' | Refusal;

const DEFAULT_FLUSH_MS = 60_000;
const DAY_MS = 86_400_000;
/** The MCP semantic conventions' buckets for `mcp.server.operation.duration`, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** One argument field of one tool, and what was sent there today. */
class FieldNode {
  children: Map<string, FieldNode> | undefined;
  items: FieldNode | undefined;
  /** Calls that sent it since the last line; the call that last did (each call counts once). */
  sent = 0;
  lastCall = 0;
  /** Value (JSON text) → calls, for a field the schema constrains. */
  values: Map<string, { n: number; lastCall: number }> | undefined;
  allowed: ReadonlySet<string> | undefined;
  attributes: Attributes | undefined;

  constructor(
    readonly segments: readonly string[],
    /** The field path (protocol codec), e.g. `inputSchema.properties.items.items.properties.sku`. */
    readonly field: string,
    /** The argument path as `allowedValues` keys it: names, `[]` for items, joined by NUL. */
    readonly key: string,
    /** An object member (counted as sent), or array items (not counted, only walked). */
    readonly member: boolean,
  ) {}
}

/** One tool's counts for the current day. */
class ToolDay {
  calls = 0;
  readonly root = new FieldNode(['inputSchema'], 'inputSchema', '', false);
  fieldCount = 0;
  valueCount = 0;
  overflowFields = 0;
  overflowValues = 0;
  readonly refused = new Map<string, number>();
  readonly routed = new Map<string, number>();
  /** Counted since the last line. */
  dirty = false;
  attributes: Attributes;

  constructor(
    readonly name: string,
    public allowed: ReadonlyMap<string, ReadonlySet<string>> | undefined,
  ) {
    this.attributes = { 'gen_ai.tool.name': name };
  }
}

interface DayState {
  readonly day: string;
  readonly start: number;
  readonly tools: Map<string, ToolDay>;
  /** Tools listed to a client today, not yet written. */
  readonly listedPending: Set<string>;
  readonly listedWritten: Set<string>;
  overflowTools: number;
  overflowCalls: number;
  overflowNames: Set<string>;
  /** A `day` line was written for today. */
  announced: boolean;
}

interface Instruments {
  duration: ReturnType<MeterLike['createHistogram']>;
  fields: ReturnType<MeterLike['createCounter']>;
  values: ReturnType<MeterLike['createCounter']>;
  routed: ReturnType<MeterLike['createCounter']>;
}

/** Recorders alive in this process, flushed synchronously when it exits. */
const live = new Set<UsageRecorder>();
let exitHooked = false;

export class UsageRecorder {
  readonly file: string;
  private fd: number | undefined;
  private readonly now: () => number;
  private readonly warn: (message: string) => void;
  private state: DayState;
  private server: UsageServer | undefined;
  /** Tool name → allowed values per argument path, from the last listing the client was shown. */
  private readonly allowed = new Map<string, ReadonlyMap<string, ReadonlySet<string>>>();
  private callSeq = 0;
  private readonly timer: NodeJS.Timeout;
  /** Lines queued for the background writer, in order, until their `write` calls back; `started` once it was issued. */
  private pending: Array<{ readonly text: string; started: boolean }> = [];
  private writing: Promise<void> = Promise.resolve();
  private instruments: Instruments | undefined;
  private transport: string | undefined;
  private closed = false;
  private followsGlobal = false;
  /** The global meter provider the instruments come from (`metrics: 'global'`). */
  private provider: unknown;

  constructor(options: UsageRecorderOptions) {
    if (typeof options.file !== 'string' || options.file === '') throw new TypeError('usage.file must be the path of the recording to append to.');
    const interval = options.flushIntervalMs ?? DEFAULT_FLUSH_MS;
    if (!Number.isFinite(interval) || interval < 10 || interval > 2 ** 31 - 1) throw new RangeError(`usage.flushIntervalMs must be from 10 ms to about 24 days, got ${String(interval)}.`);
    this.file = options.file;
    this.now = options.now ?? Date.now;
    this.warn = options.warn ?? ((message) => void process.stderr.write(`mcp-contract-guard usage: ${message}\n`));
    // Opened now, at start-up: a path that cannot be written fails here, not in a request.
    this.fd = openSync(this.file, 'a');
    this.state = this.newDay(this.now());
    this.timer = setInterval(() => void this.flush(), interval);
    this.timer.unref();
    live.add(this);
    hookExit();
    const metrics = options.metrics ?? 'global';
    if (metrics === 'global') {
      this.followsGlobal = true;
      void loadApi().then(() => this.followGlobalMeter());
    } else if (metrics !== false) this.useMeter(metrics);
  }

  /**
   * Uses the meter provider registered with `@opentelemetry/api` now (a no-op one until the
   * application registers its SDK, which it may do after the server is made): checked again at
   * every flush, so a provider registered later is picked up.
   */
  private followGlobalMeter(): void {
    if (!this.followsGlobal || this.closed || api === undefined) return;
    const provider = api.metrics.getMeterProvider();
    if (provider === this.provider) return;
    this.provider = provider;
    this.useMeter(provider.getMeter('mcp-contract-guard') as unknown as MeterLike);
  }

  /** The server the calls are to, as it names itself (its `initialize` answer). */
  setServer(server: { name?: unknown; version?: unknown } | undefined): void {
    if (server === undefined || typeof server.name !== 'string' || server.name === '') return;
    const name = server.name.slice(0, USAGE_CAPS.serverLength);
    const version = typeof server.version === 'string' && server.version !== '' ? server.version.slice(0, USAGE_CAPS.serverLength) : undefined;
    if (this.server?.name === name && this.server.version === version) return;
    // Lines name the server they are about: what was counted under the old name goes out first.
    if (this.server !== undefined) this.take().forEach((line) => this.enqueue(line));
    this.server = version === undefined ? { name } : { name, version };
  }

  /** How the calls arrive, for OpenTelemetry's `network.transport` (`pipe` for stdio, `tcp` for HTTP). */
  setTransport(transport: 'pipe' | 'tcp'): void {
    this.transport = transport;
  }

  /** The tools a client was shown (a `tools/list` answer): which arguments take only listed values. */
  listed(tools: Iterable<unknown>): void {
    const state = this.today();
    for (const tool of tools) {
      if (!isJsonObject(tool) || typeof tool.name !== 'string' || tool.name === '' || tool.name.length > USAGE_CAPS.nameLength) continue;
      const allowed = allowedValues(tool.inputSchema);
      this.allowed.set(tool.name, allowed);
      if (this.allowed.size > USAGE_CAPS.tools * 2) this.allowed.delete(this.allowed.keys().next().value as string);
      const day = state.tools.get(tool.name);
      if (day !== undefined) {
        day.allowed = allowed;
        reassign(day.root, allowed);
      }
      if (!state.listedWritten.has(tool.name) && state.listedPending.size + state.listedWritten.size < USAGE_CAPS.tools) state.listedPending.add(tool.name);
    }
  }

  /** A `tools/call` arrived: its tool and arguments. */
  call(toolName: string, args: unknown): void {
    const tool = this.tool(toolName);
    if (tool === undefined) return;
    tool.calls++;
    tool.dirty = true;
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return;
    const budget = { nodes: USAGE_CAPS.nodes };
    this.walk(tool, tool.root, args as Record<string, unknown>, 1, ++this.callSeq, budget);
  }

  /** How a call ended, and how long it took (for OpenTelemetry's `mcp.server.operation.duration`). */
  outcome(toolName: string, outcome: CallOutcome, seconds?: number, errorType?: string): void {
    const tool = this.known(toolName);
    if (outcome !== 'ok' && outcome !== 'tool-error' && tool !== undefined) {
      tool.refused.set(outcome, (tool.refused.get(outcome) ?? 0) + 1);
      tool.dirty = true;
    }
    if (this.instruments === undefined || seconds === undefined) return;
    const attributes: Attributes = { 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool === undefined ? '_OTHER' : toolName };
    if (this.transport !== undefined) attributes['network.transport'] = this.transport;
    if (outcome !== 'ok') attributes['error.type'] = errorType ?? (outcome === 'tool-error' ? 'tool_error' : '_OTHER');
    if (outcome !== 'ok' && outcome !== 'tool-error') attributes['mcp_contract_guard.refusal'] = outcome;
    this.instruments.duration.record(seconds, attributes);
  }

  /** A call to `from` (an old name) that a rename served as `to`. */
  routed(from: string, to: string): void {
    const tool = this.known(from) ?? this.tool(from);
    if (tool === undefined) return;
    if (tool.routed.has(to) || tool.routed.size < USAGE_CAPS.routes) {
      tool.routed.set(to, (tool.routed.get(to) ?? 0) + 1);
      tool.dirty = true;
      this.instruments?.routed.add(1, { 'gen_ai.tool.name': from, 'mcp_contract_guard.tool.routed_to': to.slice(0, USAGE_CAPS.nameLength) });
    }
  }

  /** Appends what was counted since the last lines, in the background. Resolves once written. */
  flush(): Promise<void> {
    if (this.closed) return this.writing;
    this.followGlobalMeter();
    this.today();
    for (const line of this.take()) this.enqueue(line);
    return this.writing;
  }

  /**
   * Stops: what was counted, and lines still queued, are written now, synchronously. A line whose
   * background write is under way is left to it (written again only if the process exits first),
   * so a call is not counted twice; the file is closed once it is done, when the promise
   * resolves. Idempotent.
   */
  close(): Promise<void> {
    if (this.closed) return this.writing;
    this.closed = true;
    clearInterval(this.timer);
    const queued = this.pending.filter((line) => !line.started);
    this.pending = this.pending.filter((line) => line.started);
    for (const text of [...queued.map((line) => line.text), ...this.take()]) this.writeNow(text);
    return (this.writing = this.writing.then(() => this.release()));
  }

  /** Closes the file, and leaves the exit hooks. */
  private release(): void {
    live.delete(this);
    this.closeFile();
  }

  /** Closes the file once; nothing more is written. */
  private closeFile(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd === undefined) return;
    try {
      closeSync(fd);
    } catch {
      // Nothing more can be written anyway.
    }
  }

  /** What the recorder holds now (tests: its memory stays within the caps). */
  sizes(): { tools: number; fields: number; values: number; allowed: number } {
    let fields = 0;
    let values = 0;
    for (const tool of this.state.tools.values()) {
      fields += tool.fieldCount;
      values += tool.valueCount;
    }
    return { tools: this.state.tools.size, fields, values, allowed: this.allowed.size };
  }

  /**
   * Synchronously writes what is counted and every line not yet confirmed written, a write under
   * way included (at exit, when it may never complete).
   */
  flushSync(): void {
    const lines = [...this.pending.map((line) => line.text), ...this.take()];
    this.pending = [];
    for (const line of lines) this.writeNow(line);
  }

  // ── counting ──────────────────────────────────────────────────────────────────────────────

  private today(): DayState {
    const now = this.now();
    if (now >= this.state.start + DAY_MS || now < this.state.start) {
      // A new day: yesterday's counts go out under yesterday.
      for (const line of this.take()) this.enqueue(line);
      this.state = this.newDay(now);
    }
    return this.state;
  }

  private newDay(now: number): DayState {
    const start = Math.floor(now / DAY_MS) * DAY_MS;
    return {
      day: new Date(start).toISOString().slice(0, 10),
      start,
      tools: new Map(),
      listedPending: new Set(),
      listedWritten: new Set(),
      overflowTools: 0,
      overflowCalls: 0,
      overflowNames: new Set(),
      announced: false,
    };
  }

  /** The tool's counts for today; undefined past the cap (counted as overflow). */
  private tool(name: string): ToolDay | undefined {
    const state = this.today();
    const known = state.tools.get(name);
    if (known !== undefined) return known;
    if (typeof name !== 'string' || name === '' || name.length > USAGE_CAPS.nameLength || state.tools.size >= USAGE_CAPS.tools) {
      state.overflowCalls++;
      if (state.overflowNames.size < USAGE_CAPS.tools && !state.overflowNames.has(name)) {
        state.overflowNames.add(name);
        state.overflowTools++;
      }
      return undefined;
    }
    const tool = new ToolDay(name, this.allowed.get(name));
    state.tools.set(name, tool);
    return tool;
  }

  private known(name: string): ToolDay | undefined {
    return this.today().tools.get(name);
  }

  private walk(tool: ToolDay, node: FieldNode, value: Record<string, unknown> | unknown[], depth: number, seq: number, budget: { nodes: number }): void {
    if (Array.isArray(value)) {
      const items = node.items ?? (node.items = this.child(tool, node, '[]', false));
      if (items === undefined) return;
      for (let i = 0; i < value.length && budget.nodes-- > 0; i++) this.visit(tool, items, value[i], depth, seq, budget);
      return;
    }
    for (const key in value) {
      if (budget.nodes-- <= 0) return;
      let child = node.children?.get(key);
      if (child === undefined) {
        child = this.child(tool, node, key, true);
        if (child === undefined) continue;
        (node.children ??= new Map()).set(key, child);
      }
      if (child.lastCall !== seq) {
        child.lastCall = seq;
        child.sent++;
        if (child.attributes !== undefined) this.instruments?.fields.add(1, child.attributes);
      }
      this.visit(tool, child, value[key], depth, seq, budget);
    }
  }

  private visit(tool: ToolDay, node: FieldNode, value: unknown, depth: number, seq: number, budget: { nodes: number }): void {
    if (node.allowed !== undefined) this.value(tool, node, value, seq);
    if (value !== null && typeof value === 'object' && depth < USAGE_CAPS.depth) this.walk(tool, node, value as Record<string, unknown>, depth + 1, seq, budget);
  }

  /** A new field under `parent`: a member `name`, or the items (`[]`) of an array. Undefined past the caps. */
  private child(tool: ToolDay, parent: FieldNode, name: string, member: boolean): FieldNode | undefined {
    if (member && (tool.fieldCount >= USAGE_CAPS.fields || name.length > USAGE_CAPS.nameLength)) {
      tool.overflowFields++;
      return undefined;
    }
    const segments = member ? [...parent.segments, 'properties', name] : [...parent.segments, 'items'];
    const field = fieldOf(segments);
    if (field.length > USAGE_CAPS.fieldLength) {
      tool.overflowFields++;
      return undefined;
    }
    const key = parent.key === '' && parent.segments.length === 1 ? name : `${parent.key}\u0000${name}`;
    const node = new FieldNode(segments, field, key, member);
    node.allowed = tool.allowed?.get(key);
    if (member) {
      tool.fieldCount++;
      node.attributes = { 'gen_ai.tool.name': tool.name, 'mcp_contract_guard.argument.field': field };
    }
    return node;
  }

  private value(tool: ToolDay, node: FieldNode, value: unknown, seq: number): void {
    const text = valueText(value);
    const key = text !== undefined && (node.allowed as ReadonlySet<string>).has(text) ? text : OTHER_VALUE;
    const values = (node.values ??= new Map());
    let counted = values.get(key);
    if (counted === undefined) {
      if (tool.valueCount >= USAGE_CAPS.values) {
        tool.overflowValues++;
        return;
      }
      tool.valueCount++;
      values.set(key, (counted = { n: 0, lastCall: 0 }));
    }
    if (counted.lastCall === seq) return;
    counted.lastCall = seq;
    counted.n++;
    this.instruments?.values.add(1, { 'gen_ai.tool.name': tool.name, 'mcp_contract_guard.argument.field': node.field, 'mcp_contract_guard.argument.value': key });
  }

  // ── writing ───────────────────────────────────────────────────────────────────────────────

  /** The lines for what was counted since the last ones; the counters start again from zero. */
  private take(): string[] {
    const state = this.state;
    const server = this.server;
    const lines: string[] = [];
    const base = { day: state.day, ...(server !== undefined ? { server } : {}) };
    if (!state.announced || state.listedPending.size > 0 || state.overflowCalls > 0) {
      const record: UsageRecord = { type: 'day', ...base, listed: [...state.listedPending], overflowTools: state.overflowTools, overflowCalls: state.overflowCalls };
      lines.push(usageRecordLine(record));
      for (const name of state.listedPending) state.listedWritten.add(name);
      state.listedPending.clear();
      state.overflowTools = 0;
      state.overflowCalls = 0;
      state.announced = true;
    }
    for (const tool of state.tools.values()) {
      if (!tool.dirty) continue;
      const fields: Counts = Object.create(null);
      const values: Record<string, Counts> = Object.create(null);
      collect(tool.root, fields, values);
      lines.push(
        usageRecordLine({
          type: 'tool',
          ...base,
          tool: tool.name,
          calls: tool.calls,
          fields,
          values,
          refused: countsOf(tool.refused),
          routed: countsOf(tool.routed),
          overflowFields: tool.overflowFields,
          overflowValues: tool.overflowValues,
        }),
      );
      tool.calls = 0;
      tool.overflowFields = 0;
      tool.overflowValues = 0;
      tool.refused.clear();
      tool.routed.clear();
      tool.dirty = false;
    }
    return lines;
  }

  /** One asynchronous append per line, in order. */
  private enqueue(text: string): void {
    if (this.fd === undefined) return;
    const line = { text: `${text}\n`, started: false };
    this.pending.push(line);
    this.writing = this.writing.then(
      () =>
        new Promise<void>((resolve) => {
          const fd = this.fd;
          // Already written synchronously (close, exit) or dropped after a failure.
          if (fd === undefined || !this.pending.includes(line)) return resolve();
          line.started = true;
          const bytes = Buffer.from(line.text);
          write(fd, bytes, 0, bytes.length, null, (error, written) => {
            const at = this.pending.indexOf(line);
            if (at >= 0) this.pending.splice(at, 1);
            if (error) this.fail(error);
            else if (written !== bytes.length) this.fail(new Error(`only ${written} of ${bytes.length} bytes were written`));
            resolve();
          });
        }),
    );
  }

  private writeNow(text: string): void {
    if (this.fd === undefined) return;
    try {
      writeSync(this.fd, text.endsWith('\n') ? text : `${text}\n`);
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.fd === undefined) return;
    this.warn(`cannot append to ${this.file} (${(error as Error).message}); usage is no longer recorded.`);
    this.closeFile();
  }

  private useMeter(meter: MeterLike): void {
    this.instruments = {
      duration: meter.createHistogram('mcp.server.operation.duration', {
        description: 'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
        unit: 's',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      }),
      fields: meter.createCounter('mcp_contract_guard.tool.argument.calls', { description: 'Tool calls that sent an argument field (mcp_contract_guard.argument.field).', unit: '{call}' }),
      values: meter.createCounter('mcp_contract_guard.tool.argument.value.calls', {
        description: 'Tool calls that sent a value (mcp_contract_guard.argument.value) for an argument constrained to an enum or const.',
        unit: '{call}',
      }),
      routed: meter.createCounter('mcp_contract_guard.tool.routed.calls', { description: 'Calls of a renamed tool served under its new name (mcp_contract_guard.tool.routed_to).', unit: '{call}' }),
    };
  }
}

/** Field path → calls, value → calls, from the tree; the counters start again from zero. */
function collect(node: FieldNode, fields: Counts, values: Record<string, Counts>): void {
  if (node.member && node.sent > 0) fields[node.field] = node.sent;
  node.sent = 0;
  if (node.values !== undefined) {
    let counts: Counts | undefined;
    for (const [value, counted] of node.values) {
      if (counted.n === 0) continue;
      (counts ??= values[node.field] = Object.create(null) as Counts)[value] = counted.n;
      counted.n = 0;
    }
  }
  if (node.children !== undefined) for (const child of node.children.values()) collect(child, fields, values);
  if (node.items !== undefined) collect(node.items, fields, values);
}

/** Gives the nodes of a tree their allowed values from a new listing. */
function reassign(node: FieldNode, allowed: ReadonlyMap<string, ReadonlySet<string>>): void {
  node.allowed = node.segments.length > 1 ? allowed.get(node.key) : undefined;
  if (node.children !== undefined) for (const child of node.children.values()) reassign(child, allowed);
  if (node.items !== undefined) reassign(node.items, allowed);
}

function countsOf(map: ReadonlyMap<string, number>): Counts {
  const out: Counts = Object.create(null);
  for (const [key, n] of map) out[key] = n;
  return out;
}

/** A value as the recording keys it: its JSON text, if it is short and plain (a longer one is never an allowed value). */
function valueText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value.length + 2 > USAGE_CAPS.valueLength ? undefined : JSON.stringify(value);
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    default:
      return value === null ? 'null' : undefined;
  }
}

/** The most schema nodes read for one tool's allowed values, and how deep. */
const MAX_SCHEMA_NODES = 2_000;
const MAX_SCHEMA_DEPTH = 16;

/**
 * Argument path (names and `[]`, joined by NUL) → the values the schema allows there, as JSON
 * texts: every `enum` and `const` met on the way, through `properties`, `items`, `prefixItems`,
 * the branches of `anyOf`/`oneOf`/`allOf` and local `$ref`s. Only these values are ever
 * recorded; anything else sent there is `(other)`.
 */
export function allowedValues(schema: unknown): ReadonlyMap<string, ReadonlySet<string>> {
  const out = new Map<string, Set<string>>();
  let budget = MAX_SCHEMA_NODES;
  const visit = (node: unknown, key: string | null, depth: number, seen: ReadonlySet<unknown>): void => {
    if (!isJsonObject(node) || depth > MAX_SCHEMA_DEPTH || budget-- <= 0 || seen.has(node)) return;
    const path = new Set(seen).add(node);
    if (typeof node.$ref === 'string') {
      const tokens = pointerTokens(node.$ref);
      let target: unknown = tokens === undefined ? undefined : schema;
      for (const token of tokens ?? []) target = isJsonObject(target) ? target[token] : Array.isArray(target) ? target[Number(token)] : undefined;
      visit(target, key, depth + 1, path);
    }
    if (key !== null) {
      const texts: unknown[] = 'const' in node ? [node.const] : [];
      if (Array.isArray(node.enum)) texts.push(...node.enum);
      for (const value of texts) {
        const text = typeof value === 'object' && value !== null ? canonicalJson(value) : JSON.stringify(value);
        if (text === undefined || text.length > USAGE_CAPS.valueLength) continue;
        let set = out.get(key);
        if (set === undefined) out.set(key, (set = new Set()));
        if (set.size < USAGE_CAPS.values) set.add(text);
      }
    }
    for (const branches of [node.anyOf, node.oneOf, node.allOf]) if (Array.isArray(branches)) for (const branch of branches) visit(branch, key, depth + 1, path);
    if (isJsonObject(node.properties)) {
      for (const name of Object.keys(node.properties)) visit(node.properties[name], key === null ? name : `${key}\u0000${name}`, depth + 1, path);
    }
    const itemKey = key === null ? '[]' : `${key}\u0000[]`;
    if (Array.isArray(node.prefixItems)) for (const item of node.prefixItems) visit(item, itemKey, depth + 1, path);
    if (Array.isArray(node.items)) for (const item of node.items) visit(item, itemKey, depth + 1, path);
    else visit(node.items, itemKey, depth + 1, path);
  };
  visit(schema, null, 0, new Set());
  return out;
}

/** The recorder of each file, for `{ file }` options given to several servers of one process. */
const byFile = new Map<string, UsageRecorder>();

/**
 * A recorder appending to `options.file`. One per file per process: servers made per session
 * or per request (stateless HTTP) share it, and so one set of exit hooks and one file handle.
 */
export function createUsageRecorder(options: UsageRecorderOptions): UsageRecorder {
  const known = byFile.get(options.file);
  if (known !== undefined && live.has(known)) return known;
  const recorder = new UsageRecorder(options);
  byFile.set(options.file, recorder);
  return recorder;
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const recorder of live) recorder.flushSync();
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const onSignal = () => {
      for (const recorder of live) recorder.flushSync();
      // Alone on the signal, this listener took Node's default (exit) away: give it back.
      if (process.listenerCount(signal) === 1) {
        process.off(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}

type OpenTelemetryApi = typeof import('@opentelemetry/api');
let api: OpenTelemetryApi | undefined;
let loading: Promise<void> | undefined;

/** `@opentelemetry/api`, loaded once, in the background (it stays unloaded when it is not installed). */
function loadApi(): Promise<void> {
  loading ??= import('@opentelemetry/api').then(
    (module) => void (api = module),
    () => undefined,
  );
  return loading;
}
