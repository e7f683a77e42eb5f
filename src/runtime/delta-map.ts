/**
 * Loads the delta artifact (a `DiffReport` written by `diff --artifact`) once at server start-up
 * and turns it into the frozen, per-tool map every request handler shares. All validation
 * happens here, so a corrupt artifact stops the server at boot with a message naming the file
 * and the problem, never later in a request.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Delta, Severity } from '../diff/types.js';

/** The deltas of one tool, as the artifact lists them. Deeply frozen once loaded. */
export interface ToolDeltas {
  readonly maxSeverity: Severity | null;
  readonly deltas: readonly Readonly<Delta>[];
}

/** Tool name → its deltas. The map returned by `loadDeltaMap` rejects `set`, `delete`, `clear`. */
export type DeltaMap = ReadonlyMap<string, ToolDeltas>;

export interface LoadDeltaMapOptions {
  /** A missing file gives an empty map instead of an error (a corrupt file still throws). */
  optional?: boolean;
}

/** The artifact could not be read or is not a version-1 diff report. */
export class DeltaArtifactError extends Error {
  override readonly name = 'DeltaArtifactError';

  constructor(
    /** The file path, or `(inline JSON)` / `(object)` when no file was involved. */
    readonly source: string,
    /** What is wrong, without the source. */
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(`Delta artifact ${source}: ${problem}`, options);
  }
}

/** The artifact versions this runtime reads. */
const SUPPORTED_VERSION = 1;
const SEVERITY_NAMES: readonly string[] = ['BREAKING', 'RISKY', 'SAFE', 'COSMETIC'];
const SECTIONS = ['prompts', 'resources', 'resourceTemplates'] as const;
const OPTIONAL_DELTA_STRINGS = ['hint', 'renamedFrom', 'renamedTo', 'match', 'note'] as const;

/**
 * A Map whose mutators throw once constructed. `Object.freeze` cannot do this for a Map (its
 * entries live in internal slots), and users hold on to the map for the server's lifetime.
 */
class FrozenMap<K, V> extends Map<K, V> {
  readonly #sealed: boolean;

  constructor(entries: Iterable<readonly [K, V]>) {
    super();
    for (const [key, value] of entries) super.set(key, value);
    this.#sealed = true;
    Object.freeze(this);
  }

  override set(key: K, value: V): this {
    if (this.#sealed) throw new TypeError('The delta map is frozen; load a new one instead.');
    return super.set(key, value);
  }

  override delete(_key: K): boolean {
    throw new TypeError('The delta map is frozen; load a new one instead.');
  }

  override clear(): void {
    throw new TypeError('The delta map is frozen; load a new one instead.');
  }
}

/** True for maps made by `loadDeltaMap`: immutable, so anything derived from them can be cached. */
export function isFrozenDeltaMap(map: unknown): boolean {
  return map instanceof FrozenMap;
}

const EMPTY_MAP: DeltaMap = new FrozenMap<string, ToolDeltas>([]);

/**
 * Reads and validates a delta artifact.
 *
 * `pathOrJson` is a file path or `file:` URL, the artifact's JSON text (anything starting with
 * `{` or `[`), or the already-parsed report object. Only `tools` end up in the map: validation errors
 * are about tool input. The other sections are still checked, because a malformed section means
 * the file is not what it claims to be.
 */
export function loadDeltaMap(pathOrJson: string | URL | object, options: LoadDeltaMapOptions = {}): DeltaMap {
  const { source, report } = readArtifact(pathOrJson, options.optional === true);
  if (report === undefined) return EMPTY_MAP;
  const fail = (problem: string): never => {
    throw new DeltaArtifactError(source, problem);
  };

  if (!isRecord(report)) return fail(`expected a JSON object (a diff report), got ${kindOf(report)}.`);
  if (!('version' in report)) return fail('has no "version"; it is not a diff report written by mcp-contract-guard.');
  if (report.version !== SUPPORTED_VERSION) {
    return fail(
      `unknown version ${JSON.stringify(report.version)}; this runtime reads version ${SUPPORTED_VERSION}. ` +
        'Regenerate the artifact with the same mcp-contract-guard version as the runtime.',
    );
  }
  if ('summary' in report && !isRecord(report.summary)) fail(`"summary" must be an object, got ${kindOf(report.summary)}.`);
  if (!isRecord(report.tools)) return fail(`"tools" must be an object, got ${kindOf(report.tools)}.`);
  for (const section of SECTIONS) {
    const value = report[section];
    if (value === undefined) continue;
    if (!isRecord(value)) fail(`"${section}" must be an object, got ${kindOf(value)}.`);
    for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
      readEntry(entry, `${section}[${JSON.stringify(name)}]`, fail);
    }
  }

  const entries: [string, ToolDeltas][] = [];
  for (const [name, entry] of Object.entries(report.tools)) {
    entries.push([name, readEntry(entry, `tools[${JSON.stringify(name)}]`, fail)]);
  }
  return new FrozenMap(entries);
}

function readArtifact(input: string | URL | object, optional: boolean): { source: string; report: unknown } {
  if (input instanceof URL || typeof input === 'string') {
    const isInlineJson = typeof input === 'string' && /^\s*[{[]/.test(input);
    const source = isInlineJson ? '(inline JSON)' : input instanceof URL ? fileURLToPath(input) : input;
    let text: string;
    if (isInlineJson) {
      text = input as string;
    } else {
      try {
        text = readFileSync(source, 'utf8');
      } catch (error) {
        if (optional && (error as NodeJS.ErrnoException).code === 'ENOENT') return { source, report: undefined };
        const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String((error as Error).message);
        throw new DeltaArtifactError(source, `cannot be read (${reason}).`, { cause: error });
      }
    }
    try {
      return { source, report: JSON.parse(text) };
    } catch (error) {
      throw new DeltaArtifactError(source, `is not valid JSON (${(error as Error).message}).`, { cause: error });
    }
  }
  // A JSON round trip copies the caller's object (freezing happens on the copy) and drops what
  // a file could not hold anyway.
  try {
    return { source: '(object)', report: JSON.parse(JSON.stringify(input)) };
  } catch (error) {
    throw new DeltaArtifactError('(object)', `is not JSON-serializable (${(error as Error).message}).`, { cause: error });
  }
}

function readEntry(entry: unknown, where: string, fail: (problem: string) => never): ToolDeltas {
  if (!isRecord(entry)) return fail(`${where} must be an object, got ${kindOf(entry)}.`);
  const { maxSeverity, deltas } = entry;
  if (maxSeverity !== null && !isSeverity(maxSeverity)) {
    fail(`${where}.maxSeverity must be null or one of ${SEVERITY_NAMES.join(', ')}, got ${describe(maxSeverity)}.`);
  }
  if (!Array.isArray(deltas)) return fail(`${where}.deltas must be an array, got ${kindOf(deltas)}.`);
  const read = deltas.map((delta, index) => readDelta(delta, `${where}.deltas[${index}]`, fail));
  return Object.freeze({ maxSeverity: maxSeverity as Severity | null, deltas: Object.freeze(read) });
}

function readDelta(delta: unknown, where: string, fail: (problem: string) => never): Readonly<Delta> {
  if (!isRecord(delta)) return fail(`${where} must be an object, got ${kindOf(delta)}.`);
  if (!isSeverity(delta.severity)) {
    fail(`${where}.severity must be one of ${SEVERITY_NAMES.join(', ')}, got ${describe(delta.severity)}.`);
  }
  for (const key of ['kind', 'field', 'message', 'fingerprint'] as const) {
    if (typeof delta[key] !== 'string') fail(`${where}.${key} must be a string, got ${describe(delta[key])}.`);
  }
  if (delta.action !== null && typeof delta.action !== 'string') {
    fail(`${where}.action must be a string or null, got ${describe(delta.action)}.`);
  }
  for (const key of ['previous', 'current'] as const) {
    if (!(key in delta)) fail(`${where} has no "${key}" (use null for "none").`);
  }
  const read: Delta = {
    severity: delta.severity as Severity,
    kind: delta.kind as string,
    field: delta.field as string,
    action: delta.action as string | null,
    message: delta.message as string,
    previous: deepFreeze(delta.previous),
    current: deepFreeze(delta.current),
    fingerprint: delta.fingerprint as string,
  };
  for (const key of OPTIONAL_DELTA_STRINGS) {
    const value = delta[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') fail(`${where}.${key} must be a string when present, got ${describe(value)}.`);
    read[key] = value as string;
  }
  return Object.freeze(read);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && SEVERITY_NAMES.includes(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'nothing';
  return `a ${typeof value}`;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 60)}…` : json;
}
