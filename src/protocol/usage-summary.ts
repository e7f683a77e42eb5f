/**
 * The usage summary (`usage summarize … --out usage.json`): the recordings of many replicas and
 * days merged into one canonical document, which `check --usage`, `diff --usage` and the
 * Action's `usage` input read. It says which server it is about (the name its recordings give),
 * the window it covers (first and last day, and the days in between no recorder wrote for), the
 * calls seen, and per tool what usage can show: calls, argument fields sent, enum and const
 * values sent, refusals and routed calls, each with how much was past the caps (overflow: an
 * absence proves nothing there).
 *
 * `UsageSummaryBuilder` folds records into a summary (pure, bounded); `renderUsageSummary`
 * writes it in canonical order; `readUsageSummaryText` is the one reader, with caps, and checks
 * that the counts add up (a hand-edited or hostile summary is refused, never half-read).
 */
import { canonicalJson, isJsonObject } from './json.js';
import { describe, parseWithin } from './read.js';
import { REFUSALS, USAGE_CAPS, isCount, isDay, type Counts, type UsageRecord, type UsageServer } from './usage.js';

/** The window a summary must cover for the gate to read it, by default (`--unused-days`, the Action's `unused-days`). */
export const DEFAULT_UNUSED_DAYS = 30;

export const USAGE_SUMMARY_FORMAT = 'mcp-contract-guard/usage-summary';
export const USAGE_SUMMARY_VERSION = 1;

/** What a summary keeps, merged over every day and replica (beyond, counted as overflow). */
export const SUMMARY_CAPS = {
  tools: 10_000,
  fields: 1_024,
  values: 1_024,
  routes: 64,
  versions: 20,
  missingDays: 100,
  /** The longest summary text read. */
  length: 64 * 1024 * 1024,
} as const;

export interface ToolUsage {
  /** Calls of the tool (under this name) in the window. */
  calls: number;
  /** The client was shown the tool (a `tools/list` answer) on at least one day of the window. */
  listed: boolean;
  fields: Counts;
  values: Record<string, Counts>;
  refused: Counts;
  routed: Counts;
  overflow: { fields: number; values: number };
}

export interface UsageSummary {
  format: typeof USAGE_SUMMARY_FORMAT;
  version: typeof USAGE_SUMMARY_VERSION;
  /** The server, as its recordings name it (`null` when none did), and the versions they saw. */
  server: { name: string | null; versions: string[] };
  window: {
    from: string;
    to: string;
    /** Days from `from` to `to`, both included. */
    days: number;
    /** Days in the window no recorder wrote for (at most 100 listed; `missingCount` counts them all). */
    missing: string[];
    missingCount: number;
  };
  calls: number;
  refused: Counts;
  tools: Record<string, ToolUsage>;
  /** Tools past the cap: how many, and their calls (the tools listed above are then not all that were called). */
  overflow: { tools: number; calls: number };
  /** The records merged, and the lines skipped (unreadable) by `usage summarize`. */
  records: { read: number; skipped: number };
}

/** The data is not a usage summary of this version; `problems` says where and why. */
export class UsageSummaryError extends Error {
  override readonly name = 'UsageSummaryError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('; '));
  }
}

const DAY_MS = 86_400_000;

/** Days from `from` to `to` (YYYY-MM-DD), both included. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** `day` plus `n` days (n may be negative), YYYY-MM-DD. */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** Sums that must stay exact: past 2^53 the summary would lie, so merging stops there. */
function add(a: number, b: number, what: string): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) throw new UsageSummaryError([`${what} adds up past 2^53 (9,007,199,254,740,991): the recordings cannot all be true`]);
  return sum;
}

function addInto(target: Counts, source: Counts, max: number, what: string): number {
  let dropped = 0;
  for (const key of Object.keys(source)) {
    const n = source[key] as number;
    if (key in target) target[key] = add(target[key] as number, n, what);
    else if (Object.keys(target).length < max) target[key] = n;
    else dropped = add(dropped, n, what);
  }
  return dropped;
}

function emptyTool(): ToolUsage {
  return { calls: 0, listed: false, fields: Object.create(null), values: Object.create(null), refused: Object.create(null), routed: Object.create(null), overflow: { fields: 0, values: 0 } };
}

/**
 * Folds recordings into a summary. `server`: keep only the records of this server (records
 * naming another are counted in `otherServers`); without it, every record must name the same
 * server (or none). `since`: keep only days from this one on.
 */
export class UsageSummaryBuilder {
  private readonly days = new Set<string>();
  private readonly versions = new Set<string>();
  private readonly tools: Record<string, ToolUsage> = Object.create(null);
  private readonly refused: Counts = Object.create(null);
  private serverName: string | null = null;
  private calls = 0;
  private overflowTools = 0;
  private overflowCalls = 0;
  private read = 0;
  /** Records of another server than the one summarized (with `server`), by name. */
  readonly otherServers = new Map<string, number>();
  /** Records before `since`. */
  olderRecords = 0;
  /** Records that named no server. */
  unnamedRecords = 0;

  constructor(private readonly options: { server?: string; since?: string } = {}) {
    if (options.server !== undefined) this.serverName = options.server;
  }

  add(record: UsageRecord): void {
    if (this.options.since !== undefined && record.day < this.options.since) {
      this.olderRecords++;
      return;
    }
    const name = record.server?.name;
    if (name === undefined) this.unnamedRecords++;
    else if (this.serverName === null) this.serverName = name;
    else if (name !== this.serverName) {
      if (this.options.server === undefined) {
        throw new UsageSummaryError([`the recordings are of more than one server ("${this.serverName}" and "${name}"): summarize each with --server NAME`]);
      }
      this.otherServers.set(name, (this.otherServers.get(name) ?? 0) + 1);
      return;
    }
    if (record.server?.version !== undefined && this.versions.size < SUMMARY_CAPS.versions) this.versions.add(record.server.version);
    this.read++;
    this.days.add(record.day);
    if (record.type === 'day') {
      this.calls = add(this.calls, record.overflowCalls, 'the calls');
      this.overflowTools = add(this.overflowTools, record.overflowTools, 'the tools past the cap');
      this.overflowCalls = add(this.overflowCalls, record.overflowCalls, 'the calls of tools past the cap');
      for (const tool of record.listed) {
        const usage = this.tool(tool, 0);
        if (usage !== undefined) usage.listed = true;
      }
      return;
    }
    const usage = this.tool(record.tool, record.calls);
    if (usage === undefined) {
      this.calls = add(this.calls, record.calls, 'the calls');
      return;
    }
    usage.calls = add(usage.calls, record.calls, `the calls of "${record.tool}"`);
    this.calls = add(this.calls, record.calls, 'the calls');
    usage.overflow.fields = add(usage.overflow.fields, record.overflowFields + addInto(usage.fields, record.fields, SUMMARY_CAPS.fields, 'a field count'), 'a field count');
    let dropped = record.overflowValues;
    for (const field of Object.keys(record.values)) {
      const values = record.values[field] as Counts;
      const target = usage.values[field] ?? (Object.keys(usage.values).length < SUMMARY_CAPS.values ? (usage.values[field] = Object.create(null) as Counts) : undefined);
      if (target === undefined) for (const n of Object.values(values)) dropped = add(dropped, n, 'a value count');
      else dropped = add(dropped, addInto(target, values, SUMMARY_CAPS.values, 'a value count'), 'a value count');
    }
    usage.overflow.values = add(usage.overflow.values, dropped, 'a value count');
    addInto(usage.refused, record.refused, REFUSALS.length + 8, 'a refusal count');
    addInto(this.refused, record.refused, REFUSALS.length + 8, 'a refusal count');
    addInto(usage.routed, record.routed, SUMMARY_CAPS.routes, 'a routed count');
  }

  /** The tool's entry; undefined past the cap (its calls then count as overflow). */
  private tool(name: string, calls: number): ToolUsage | undefined {
    const known = this.tools[name];
    if (known !== undefined) return known;
    if (Object.keys(this.tools).length >= SUMMARY_CAPS.tools) {
      this.overflowTools = add(this.overflowTools, 1, 'the tools past the cap');
      this.overflowCalls = add(this.overflowCalls, calls, 'the calls of tools past the cap');
      return undefined;
    }
    return (this.tools[name] = emptyTool());
  }

  /** Whether any record was kept. */
  get empty(): boolean {
    return this.days.size === 0;
  }

  summary(skipped = 0): UsageSummary {
    if (this.days.size === 0) throw new UsageSummaryError(['no record to summarize']);
    const days = [...this.days].sort();
    const from = days[0] as string;
    const to = days[days.length - 1] as string;
    const span = daysBetween(from, to);
    const missing: string[] = [];
    let missingCount = 0;
    for (let i = 0; i < span; i++) {
      const day = addDays(from, i);
      if (this.days.has(day)) continue;
      missingCount++;
      if (missing.length < SUMMARY_CAPS.missingDays) missing.push(day);
    }
    return {
      format: USAGE_SUMMARY_FORMAT,
      version: USAGE_SUMMARY_VERSION,
      server: { name: this.serverName, versions: [...this.versions].sort() },
      window: { from, to, days: span, missing, missingCount },
      calls: this.calls,
      refused: this.refused,
      tools: this.tools,
      overflow: { tools: this.overflowTools, calls: this.overflowCalls },
      records: { read: this.read, skipped },
    };
  }
}

/** The summary as written to `--out`: canonical JSON (sorted keys, 2-space indent, newline). */
export function renderUsageSummary(summary: UsageSummary): string {
  return canonicalJson(summary, true);
}

/**
 * Reads a usage summary, refusing anything that is not one of this version exactly: sizes and
 * nesting capped before parsing, every count a whole number below 2^53, names in null-prototype
 * records, the calls of the tools adding up to the calls seen, the window's days consistent.
 * `source` names it in the errors.
 */
export function readUsageSummaryText(text: string): UsageSummary {
  // A summary nests 5 levels; 8 leaves room and no more.
  return readUsageSummary(parseWithin(text, { maxLength: SUMMARY_CAPS.length, maxDepth: 8 }, (problem) => new UsageSummaryError([problem])));
}

export function readUsageSummary(data: unknown): UsageSummary {
  const problems: string[] = [];
  const problem = (text: string) => void (problems.length < 20 && problems.push(text));
  if (!isJsonObject(data) || data.format !== USAGE_SUMMARY_FORMAT) {
    throw new UsageSummaryError([`is not a usage summary (no "format": "${USAGE_SUMMARY_FORMAT}")`]);
  }
  if (data.version !== USAGE_SUMMARY_VERSION) {
    const newer = typeof data.version === 'number' && data.version > USAGE_SUMMARY_VERSION;
    throw new UsageSummaryError([`has version ${describe(data.version)}; this mcp-contract-guard reads version ${USAGE_SUMMARY_VERSION}${newer ? ' (a newer mcp-contract-guard wrote it)' : ''}`]);
  }
  const counted = (value: unknown, at: string): number => {
    if (isCount(value)) return value;
    problem(`${at} must be a whole number from 0 to 2^53, got ${describe(value)}`);
    return 0;
  };
  const countsOf = (value: unknown, at: string, max: number): Counts => {
    const out: Counts = Object.create(null);
    if (!isJsonObject(value)) {
      problem(`${at} must be an object of counts`);
      return out;
    }
    const keys = Object.keys(value);
    if (keys.length > max) problem(`${at} holds ${keys.length} names; at most ${max}`);
    for (const key of keys.slice(0, max)) out[key] = counted(value[key], `${at}[${JSON.stringify(key.slice(0, 60))}]`);
    return out;
  };

  const server = isJsonObject(data.server) ? data.server : {};
  const name = server.name === null || (typeof server.name === 'string' && server.name.length <= USAGE_CAPS.serverLength) ? (server.name as string | null) : undefined;
  if (name === undefined) problem(`server.name must be a name or null, got ${describe(server.name)}`);
  const versions = Array.isArray(server.versions) && server.versions.length <= SUMMARY_CAPS.versions && server.versions.every((v) => typeof v === 'string' && v.length <= USAGE_CAPS.serverLength) ? (server.versions as string[]) : undefined;
  if (versions === undefined) problem(`server.versions must be at most ${SUMMARY_CAPS.versions} version strings`);

  const window = isJsonObject(data.window) ? data.window : {};
  const { from, to } = window;
  if (!isDay(from) || !isDay(to) || from > to) problem(`window must run from one day (YYYY-MM-DD) to the same or a later one, got ${describe(from)} to ${describe(to)}`);
  const days = counted(window.days, 'window.days');
  if (isDay(from) && isDay(to) && days !== daysBetween(from, to)) problem(`window.days must be ${daysBetween(from, to)} (from ${from} to ${to}), got ${describe(window.days)}`);
  const missingCount = counted(window.missingCount, 'window.missingCount');
  const missing = Array.isArray(window.missing) && window.missing.length <= SUMMARY_CAPS.missingDays && window.missing.every((d) => isDay(d) && (!isDay(from) || d > from) && (!isDay(to) || d < to)) ? (window.missing as string[]) : undefined;
  if (missing === undefined) problem(`window.missing must list at most ${SUMMARY_CAPS.missingDays} days inside the window`);
  else if (missingCount < missing.length || missingCount >= days) problem(`window.missingCount ${missingCount} does not fit the days listed and the window`);

  const calls = counted(data.calls, 'calls');
  const refused = countsOf(data.refused, 'refused', REFUSALS.length + 8);
  const overflow = isJsonObject(data.overflow) ? data.overflow : {};
  const overflowTools = counted(overflow.tools, 'overflow.tools');
  const overflowCalls = counted(overflow.calls, 'overflow.calls');
  const records = isJsonObject(data.records) ? data.records : {};

  const tools: Record<string, ToolUsage> = Object.create(null);
  if (!isJsonObject(data.tools)) problem('tools must be an object');
  else {
    const names = Object.keys(data.tools);
    if (names.length > SUMMARY_CAPS.tools) problem(`tools holds ${names.length} tools; at most ${SUMMARY_CAPS.tools}`);
    let sum = overflowCalls;
    for (const toolName of names.slice(0, SUMMARY_CAPS.tools)) {
      const at = `tools[${JSON.stringify(toolName.slice(0, 60))}]`;
      const raw = data.tools[toolName];
      if (!isJsonObject(raw)) {
        problem(`${at} must be an object`);
        continue;
      }
      const toolCalls = counted(raw.calls, `${at}.calls`);
      sum += toolCalls;
      const fields = countsOf(raw.fields, `${at}.fields`, SUMMARY_CAPS.fields);
      for (const [field, n] of Object.entries(fields)) if (n > toolCalls) problem(`${at}.fields[${JSON.stringify(field.slice(0, 60))}] counts ${n} calls, more than the tool's ${toolCalls}`);
      const values: Record<string, Counts> = Object.create(null);
      if (!isJsonObject(raw.values)) problem(`${at}.values must be an object`);
      else {
        const fieldNames = Object.keys(raw.values);
        if (fieldNames.length > SUMMARY_CAPS.values) problem(`${at}.values holds ${fieldNames.length} fields; at most ${SUMMARY_CAPS.values}`);
        for (const field of fieldNames.slice(0, SUMMARY_CAPS.values)) {
          values[field] = countsOf(raw.values[field], `${at}.values[${JSON.stringify(field.slice(0, 60))}]`, SUMMARY_CAPS.values);
          for (const n of Object.values(values[field] as Counts)) if (n > toolCalls) problem(`${at}.values counts ${n} calls, more than the tool's ${toolCalls}`);
        }
      }
      const toolOverflow = isJsonObject(raw.overflow) ? raw.overflow : {};
      if (typeof raw.listed !== 'boolean') problem(`${at}.listed must be true or false`);
      tools[toolName] = {
        calls: toolCalls,
        listed: raw.listed === true,
        fields,
        values,
        refused: countsOf(raw.refused, `${at}.refused`, REFUSALS.length + 8),
        routed: countsOf(raw.routed, `${at}.routed`, SUMMARY_CAPS.routes),
        overflow: { fields: counted(toolOverflow.fields, `${at}.overflow.fields`), values: counted(toolOverflow.values, `${at}.overflow.values`) },
      };
      if (!Number.isSafeInteger(sum)) break;
    }
    if (problems.length === 0 && sum !== calls) problem(`the calls of the tools (and past the cap) add up to ${sum}, but "calls" says ${calls}`);
  }
  if (problems.length > 0) throw new UsageSummaryError(problems);
  return {
    format: USAGE_SUMMARY_FORMAT,
    version: USAGE_SUMMARY_VERSION,
    server: { name: name as string | null, versions: versions as string[] },
    window: { from: from as string, to: to as string, days, missing: missing as string[], missingCount },
    calls,
    refused,
    tools,
    overflow: { tools: overflowTools, calls: overflowCalls },
    records: { read: isCount(records.read) ? records.read : 0, skipped: isCount(records.skipped) ? records.skipped : 0 },
  };
}

export type { UsageServer };
