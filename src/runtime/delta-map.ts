/**
 * Loads the delta artifact (a `DiffReport` written by `diff --artifact`) once at server start-up
 * and turns it into the frozen, per-tool map every request handler shares. All validation
 * happens here, so a corrupt artifact stops the server at boot with a message naming the file
 * and the problem, never later in a request.
 */
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_READ_LIMITS, ReportFormatError, readReportText, type Delta, type ReadLimits, type Release, type Severity } from '../protocol/index.js';

/** The deltas of one tool, as the artifact lists them. Deeply frozen once loaded. */
export interface ToolDeltas {
  readonly maxSeverity: Severity | null;
  readonly deltas: readonly Readonly<Delta>[];
  /** The property whose value names the action of a call (the tool's discriminated union), if any. */
  readonly discriminator?: string;
}

/** Tool name → its deltas. The map returned by `loadDeltaMap` rejects `set`, `delete`, `clear`. */
export interface DeltaMap extends ReadonlyMap<string, ToolDeltas> {
  /** When the artifact's changes were released (its `release`): the deprecation window of renames counts from `date`. */
  readonly release?: Readonly<Release>;
}

export interface LoadDeltaMapOptions extends ReadLimits {
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

/**
 * A Map whose mutators throw once constructed. `Object.freeze` cannot do this for a Map (its
 * entries live in internal slots), and users hold on to the map for the server's lifetime.
 */
class FrozenMap<K, V> extends Map<K, V> {
  readonly #sealed: boolean;
  readonly release?: Readonly<Release>;

  constructor(entries: Iterable<readonly [K, V]>, release?: Release) {
    super();
    for (const [key, value] of entries) super.set(key, value);
    if (release !== undefined) this.release = Object.freeze({ ...release });
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
 * Reads and validates a delta artifact, once, at start-up.
 *
 * `pathOrJson` is a file path or `file:` URL, the artifact's JSON text (anything starting with
 * `{` or `[`), or the already-parsed report object. The artifact is read leniently (an older
 * mcp-contract-guard's artifact loads) but within limits: `maxLength` characters (default
 * 32 MiB) and `maxDepth` levels of nesting (default 64), so a hostile or broken file stops the
 * server at boot with a message, never a crash or a runaway allocation. Only `tools` end up in
 * the map: validation errors are about tool input.
 */
export function loadDeltaMap(pathOrJson: string | URL | object, options: LoadDeltaMapOptions = {}): DeltaMap {
  const limits = { ...DEFAULT_READ_LIMITS, ...withoutUndefined({ maxLength: options.maxLength, maxDepth: options.maxDepth }) };
  const source = sourceOf(pathOrJson);
  let report;
  try {
    if (typeof pathOrJson === 'object' && !(pathOrJson instanceof URL)) {
      report = readReportText(jsonOf(pathOrJson), 'lenient', limits);
    } else {
      const text = source === INLINE ? (pathOrJson as string) : readArtifactFile(source, options.optional === true, limits.maxLength);
      if (text === undefined) return EMPTY_MAP;
      report = readReportText(text, 'lenient', limits);
    }
  } catch (error) {
    if (error instanceof DeltaArtifactError) throw error;
    if (error instanceof ReportFormatError) throw new DeltaArtifactError(source, `${error.problems.join('; ')}.`, { cause: error });
    throw new DeltaArtifactError(source, `cannot be read (${error instanceof Error ? error.message : String(error)}).`, { cause: error });
  }
  const entries: [string, ToolDeltas][] = [];
  for (const [name, entry] of Object.entries(report.tools)) {
    const tool: ToolDeltas = entry.discriminator === undefined ? { maxSeverity: entry.maxSeverity, deltas: entry.deltas } : { maxSeverity: entry.maxSeverity, deltas: entry.deltas, discriminator: entry.discriminator };
    entries.push([name, deepFreeze(tool)]);
  }
  return new FrozenMap(entries, report.release);
}

const INLINE = '(inline JSON)';
const OBJECT = '(object)';

function sourceOf(input: string | URL | object): string {
  if (input instanceof URL) return fileURLToPath(input);
  if (typeof input === 'string') return /^\s*[{[]/.test(input) ? INLINE : input;
  return OBJECT;
}

function readArtifactFile(path: string, optional: boolean, maxLength: number): string | undefined {
  try {
    // Checked before reading: a huge file is refused without being loaded.
    const { size } = statSync(path);
    if (size > maxLength * 3) throw new DeltaArtifactError(path, `is ${size.toLocaleString('en-US')} bytes; the limit is about ${maxLength.toLocaleString('en-US')} characters (option maxLength).`);
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof DeltaArtifactError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (optional && code === 'ENOENT') return undefined;
    throw new DeltaArtifactError(path, `cannot be read (${code === 'ENOENT' ? 'file not found' : (error as Error).message}).`, { cause: error });
  }
}

/** An object handed in directly: copied through JSON (freezing happens on the copy). */
function jsonOf(input: object): string {
  try {
    return JSON.stringify(input) ?? 'null';
  } catch (error) {
    throw new DeltaArtifactError(OBJECT, `is not JSON-serializable (${(error as Error).message}).`, { cause: error });
  }
}

function withoutUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
