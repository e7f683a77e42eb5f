/**
 * Usage: what the runtime and the proxy record of the calls they see, and the summary the gate
 * reads. Two formats, both owned here:
 *
 * - **Recordings** (`withSelfHealing(…, { usage: { file } })`, `proxy --usage FILE`): JSON
 *   Lines, appended. One `day` line per UTC day a recorder ran (its calls, the tools it saw
 *   listed), one `tool` line per tool called that day (argument fields sent, enum and const
 *   values sent, calls refused and why, calls a rename routed). A recorder appends its lines
 *   in the background, each in one `write` of a file opened with O_APPEND and each of bounded
 *   size (the caps below), so several processes can append to one file: their lines never
 *   interleave, and a line cut short by a crash spoils only itself (the reader skips it and
 *   says so).
 * - **The summary** (`usage summarize`, usage-summary.ts): the recordings of many replicas and
 *   days merged into one document, which `check`, `diff` and the Action read.
 *
 * What is recorded is names and counts, never free text: the argument *fields* present (as
 * field paths of this module's codec, `inputSchema.properties.items.items.properties.sku`, so the
 * gate matches them to the fields of deltas), and values only of arguments the schema the client
 * was shown constrains to an `enum` or a `const` (each as its JSON text; any other value sent
 * there counts as `(other)`).
 */
import { isJsonObject, parseJson } from './json.js';
import { describe, nestingDepth } from './read.js';

/** Written in every line of a recording. */
export const USAGE_RECORD_FORMAT = 'mcp-contract-guard/usage';
export const USAGE_RECORD_VERSION = 1;

/** Why a call was refused: a category, never the error's text. */
export const REFUSALS = ['invalid-arguments', 'unknown-tool', 'error'] as const;
export type Refusal = (typeof REFUSALS)[number];

/** The key of a value sent where the schema allows only some: not one of them (never its text). */
export const OTHER_VALUE = '(other)';

/**
 * The bounds of what one recorder keeps per UTC day, and so of a line's size: past them, names
 * and values are counted as overflow, never kept. They bound a recorder's memory whatever its
 * clients send, and keep each line within `MAX_RECORD_LENGTH` (one atomic append).
 */
export const USAGE_CAPS = {
  /** Distinct tool names per day (a client may call names the server never had). */
  tools: 512,
  /** Argument fields per tool per day. */
  fields: 128,
  /** Distinct (field, value) pairs per tool per day. */
  values: 128,
  /** Rename targets per tool per day. */
  routes: 16,
  /** The longest tool name kept (MCP's own limit is 128). */
  nameLength: 128,
  /** The longest field path kept, encoded. */
  fieldLength: 256,
  /** The longest value kept, as JSON text (a longer enum value is `(other)`). */
  valueLength: 128,
  /** The server's name and version as kept. */
  serverLength: 256,
  /** How deep into the arguments fields are recorded, and how many nodes of one call are visited. */
  depth: 8,
  nodes: 512,
} as const;

/** The longest line a reader accepts: every line a recorder writes is shorter, by the caps. */
export const MAX_RECORD_LENGTH = 256 * 1024;

/** The server a recording is about, as it names itself (`serverInfo`). */
export interface UsageServer {
  name: string;
  version?: string;
}

/** Counts by name, without inherited members: a name like `__proto__` is data. */
export type Counts = Record<string, number>;

/**
 * A `day` line: one recorder was running that UTC day (written at least once a day it runs, so
 * a day without calls still counts as recorded), and what it saw beyond the tools' own lines.
 */
export interface UsageDayRecord {
  type: 'day';
  /** YYYY-MM-DD, UTC. */
  day: string;
  server?: UsageServer;
  /** Tools the client was shown (a `tools/list` answer) that day, not yet written that day. */
  listed: string[];
  /** Distinct tool names past the cap, and their calls. */
  overflowTools: number;
  overflowCalls: number;
}

/** A `tool` line: the calls of one tool in one UTC day, since the recorder's last line about it. */
export interface UsageToolRecord {
  type: 'tool';
  day: string;
  server?: UsageServer;
  tool: string;
  calls: number;
  /** Field path → calls that sent it. */
  fields: Counts;
  /** Field path → value (JSON text, or `(other)`) → calls that sent it. */
  values: Record<string, Counts>;
  /** Refusal → calls refused so. */
  refused: Counts;
  /** New name → calls of this (old) name a rename routed there. */
  routed: Counts;
  /** Fields and values not kept (past the caps): their absence above proves nothing. */
  overflowFields: number;
  overflowValues: number;
}

export type UsageRecord = UsageDayRecord | UsageToolRecord;

/** One line of a recording (no newline), keys in a fixed order. */
export function usageRecordLine(record: UsageRecord): string {
  const head = { format: USAGE_RECORD_FORMAT, version: USAGE_RECORD_VERSION, type: record.type, day: record.day, ...(record.server ? { server: record.server } : {}) };
  if (record.type === 'day') {
    const { listed, overflowTools, overflowCalls } = record;
    return JSON.stringify({ ...head, listed, overflowTools, overflowCalls });
  }
  const { tool, calls, fields, values, refused, routed, overflowFields, overflowValues } = record;
  return JSON.stringify({ ...head, tool, calls, fields, values, refused, routed, overflowFields, overflowValues });
}

/** A line that is not a record of this version: `newer` when a later mcp-contract-guard wrote it (never read as if it were ours). */
export class UsageRecordError extends Error {
  override readonly name = 'UsageRecordError';
  constructor(
    message: string,
    readonly newer = false,
  ) {
    super(message);
  }
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `text` is a real calendar day, YYYY-MM-DD. */
export function isDay(text: unknown): text is string {
  return typeof text === 'string' && DAY.test(text) && new Date(`${text}T00:00:00Z`).toISOString().startsWith(text);
}

/** A count as a recording or a summary holds it: a whole number JavaScript adds exactly. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Reads one line of a recording. Throws `UsageRecordError` for anything else: not JSON, too
 * long or deep, another format, a newer version (`newer`), a field of the wrong type, a count
 * that is not a whole number below 2^53, a name past the caps.
 */
export function readUsageRecordLine(line: string): UsageRecord {
  if (line.length > MAX_RECORD_LENGTH) throw new UsageRecordError(`is ${line.length.toLocaleString('en-US')} characters long; the longest record is ${MAX_RECORD_LENGTH.toLocaleString('en-US')}`);
  if (nestingDepth(line) > 6) throw new UsageRecordError('nests deeper than a record does');
  const data = parseJson(line);
  if (!isJsonObject(data)) throw new UsageRecordError('is not a JSON object (a line cut short?)');
  if (data.format !== USAGE_RECORD_FORMAT) throw new UsageRecordError(`is not a usage record (its "format" is ${describe(data.format)})`);
  if (data.version !== USAGE_RECORD_VERSION) {
    const newer = typeof data.version === 'number' && data.version > USAGE_RECORD_VERSION;
    throw new UsageRecordError(`has version ${describe(data.version)}; this mcp-contract-guard reads version ${USAGE_RECORD_VERSION}${newer ? ' (it was written by a newer one: summarize with that version)' : ''}`, newer);
  }
  if (!isDay(data.day)) throw new UsageRecordError(`has no valid "day" (YYYY-MM-DD), got ${describe(data.day)}`);
  const server = data.server === undefined ? undefined : serverOf(data.server);
  const base = { day: data.day, ...(server ? { server } : {}) };
  if (data.type === 'day') {
    const listed = data.listed;
    if (!Array.isArray(listed) || listed.length > USAGE_CAPS.tools || !listed.every((name) => isName(name, USAGE_CAPS.nameLength))) {
      throw new UsageRecordError(`"listed" must be at most ${USAGE_CAPS.tools} tool names`);
    }
    return { type: 'day', ...base, listed: listed as string[], overflowTools: count(data.overflowTools, 'overflowTools'), overflowCalls: count(data.overflowCalls, 'overflowCalls') };
  }
  if (data.type !== 'tool') throw new UsageRecordError(`has unknown "type" ${describe(data.type)}`);
  if (!isName(data.tool, USAGE_CAPS.nameLength)) throw new UsageRecordError(`"tool" must be a name of 1 to ${USAGE_CAPS.nameLength} characters`);
  const values: Record<string, Counts> = Object.create(null);
  const rawValues = data.values;
  if (!isJsonObject(rawValues)) throw new UsageRecordError('"values" must be an object');
  const fieldsWithValues = Object.keys(rawValues);
  if (fieldsWithValues.length > USAGE_CAPS.values) throw new UsageRecordError(`"values" holds more than ${USAGE_CAPS.values} fields`);
  let pairs = 0;
  for (const field of fieldsWithValues) {
    if (!isName(field, USAGE_CAPS.fieldLength)) throw new UsageRecordError('"values" holds a field that is not one');
    values[field] = counts(rawValues[field], `values[${JSON.stringify(field)}]`, USAGE_CAPS.values, USAGE_CAPS.valueLength);
    pairs += Object.keys(values[field]).length;
  }
  if (pairs > USAGE_CAPS.values) throw new UsageRecordError(`"values" holds more than ${USAGE_CAPS.values} values`);
  const record: UsageToolRecord = {
    type: 'tool',
    ...base,
    tool: data.tool as string,
    calls: count(data.calls, 'calls'),
    fields: counts(data.fields, 'fields', USAGE_CAPS.fields, USAGE_CAPS.fieldLength),
    values,
    refused: counts(data.refused, 'refused', REFUSALS.length + 8, 40),
    routed: counts(data.routed, 'routed', USAGE_CAPS.routes, USAGE_CAPS.nameLength),
    overflowFields: count(data.overflowFields, 'overflowFields'),
    overflowValues: count(data.overflowValues, 'overflowValues'),
  };
  // Each count is of calls of the tool: none can exceed them.
  const most = Math.max(0, ...Object.values(record.fields), ...Object.values(record.refused), ...Object.values(record.routed), ...Object.values(values).flatMap((v) => Object.values(v)));
  if (most > record.calls) throw new UsageRecordError(`counts ${most} calls of something, more than the ${record.calls} calls of the tool`);
  return record;
}

function serverOf(value: unknown): UsageServer {
  if (!isJsonObject(value) || !isName(value.name, USAGE_CAPS.serverLength)) throw new UsageRecordError('"server" must be { name, version? }');
  if (value.version !== undefined && !isName(value.version, USAGE_CAPS.serverLength)) throw new UsageRecordError('"server.version" must be a short string');
  return typeof value.version === 'string' ? { name: value.name as string, version: value.version } : { name: value.name as string };
}

function count(value: unknown, at: string): number {
  if (!isCount(value)) throw new UsageRecordError(`"${at}" must be a whole number from 0 to 2^53, got ${describe(value)}`);
  return value;
}

function counts(value: unknown, at: string, max: number, maxKey: number): Counts {
  if (!isJsonObject(value)) throw new UsageRecordError(`"${at}" must be an object of counts`);
  const keys = Object.keys(value);
  if (keys.length > max) throw new UsageRecordError(`"${at}" holds more than ${max} names`);
  const out: Counts = Object.create(null);
  for (const key of keys) {
    if (key.length === 0 || key.length > maxKey) throw new UsageRecordError(`"${at}" holds a name of ${key.length} characters`);
    out[key] = count(value[key], `${at}[${JSON.stringify(key.slice(0, 40))}]`);
  }
  return out;
}

function isName(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}
