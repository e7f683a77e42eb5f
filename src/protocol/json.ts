/**
 * Canonical JSON: object keys in sorted order, `undefined` members left out, 2-space indent and
 * a trailing newline when `pretty`. The same value always gives the same bytes, whatever order
 * it was built in, so digests, lockfiles, reports and runtime errors are reproducible.
 *
 * Keys follow JavaScript's own property order once sorted: integer-like keys ("2", "10") first
 * in numeric order, then the others by code unit. That order is fixed for a given set of keys,
 * and it lets the native `JSON.stringify` do the writing (three times faster than a
 * hand-written serializer on lockfiles of thousands of tools). A bigint, which JSON cannot
 * hold, is written as the decimal string it stands for.
 */
export function canonicalJson(value: unknown, pretty = false): string {
  const ordered = withSortedKeys(value);
  return pretty ? `${JSON.stringify(ordered, null, 2)}\n` : JSON.stringify(ordered);
}

/**
 * A record without inherited members: a key named `__proto__`, `constructor` or `toString` is
 * data like any other. Made by `Object.create` of a prototype that itself has no prototype,
 * rather than by `Object.create(null)`, which V8 makes a hash table (measured on Node 20: 5×
 * slower to build, 6× slower to iterate and 1.6× slower to serialize; normalization builds one
 * per schema node). `Object.create` of an object gives the layout of `{}`: room for four
 * members inside the object. A constructor (`new Record()`) would not: V8 sizes its objects by
 * the first few it builds, here records of one member, so every schema node's second keyword
 * went to a separate array, grown as more came (measured on Node 20, a 1,000-tool server: its
 * contracts serialized some 10% faster without, and normalization allocates less).
 */
const RECORD_PROTOTYPE = Object.create(null) as object;

export function nullPrototypeRecord<T>(): Record<string, T> {
  return Object.create(RECORD_PROTOTYPE) as Record<string, T>;
}

/** Values known to be canonical throughout (see `markCanonical`): written as they are. */
const knownCanonical = new WeakSet<object>();

/**
 * Vouch that `value` is, at every level, what `withSortedKeys` would return for it (keys in
 * canonical order, no `undefined` member, no bigint), and that it will not be changed: its
 * builder made it so (normalization builds every contract in canonical form). Writing it then
 * skips the walk over it: a lockfile of thousands of contracts is written without checking
 * each of their keys again.
 */
export function markCanonical(value: object): void {
  knownCanonical.add(value);
}

/**
 * `value` with every object's keys in canonical order (what `canonicalJson` writes), so that
 * `JSON.stringify` of the result is its canonical JSON, and every object a record without a
 * prototype. Parts already so are reused, not copied.
 */
export function withSortedKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return typeof value === 'bigint' ? value.toString() : value;
  if (knownCanonical.has(value)) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const child = withSortedKeys(value[i]);
      if (child !== value[i]) (copy ??= value.slice())[i] = child;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  // A record with a prototype (JSON.parse makes them) is copied too: reading a member it lacks
  // (`constructor`, `toString`) would find the prototype's, and the names are a server's.
  if (!isBare(record) || !hasSortedKeys(record)) {
    // Null prototype: a key named "__proto__" stays a key.
    const sorted = nullPrototypeRecord<unknown>();
    const keys = sortedKeys(record);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      if (record[key] !== undefined) sorted[key] = withSortedKeys(record[key]);
    }
    return sorted;
  }
  let copy: Record<string, unknown> | undefined;
  for (const key in record) {
    const child = record[key];
    if (child === undefined) {
      copy ??= copyOf(record);
      delete copy[key];
      continue;
    }
    const ordered = withSortedKeys(child);
    if (ordered !== child) (copy ??= copyOf(record))[key] = ordered;
  }
  return copy ?? value;
}

/** A record without inherited members (see `nullPrototypeRecord`). */
function isBare(record: object): boolean {
  const prototype = Object.getPrototypeOf(record) as object | null;
  return prototype === null || prototype === RECORD_PROTOTYPE;
}

function copyOf(record: Record<string, unknown>): Record<string, unknown> {
  return Object.assign(nullPrototypeRecord<unknown>(), record);
}

/**
 * The record's keys come in canonical order. Checked with for…in rather than Object.keys: this
 * runs on every object, so no allocation.
 */
export function hasSortedKeys(record: Record<string, unknown>): boolean {
  let previous: string | undefined;
  for (const key in record) {
    if (previous !== undefined && previous > key) return false;
    previous = key;
  }
  return true;
}

/** The record's own keys in canonical order: `Object.keys(record).sort()`, by code unit. */
export function sortedKeys(record: object): string[] {
  return sortedInPlace(Object.keys(record));
}

/**
 * `list.sort(compare)` (by code unit when no `compare` is given). Most lists sorted here are
 * short (a schema node's keywords, its `required` names, an `enum`), and normalization sorts
 * several per node: for a handful, an insertion sort costs a fraction of `Array.prototype.sort`,
 * which sets up and allocates its work space on every call (measured on Node 20, cold: 33,000
 * schema nodes' keys in 3 ms instead of 15, and 4 MB less garbage normalizing a 1,000-tool
 * server). Longer lists (a server's hundred properties) are left to `sort`, whose time does not
 * grow quadratically.
 */
export function sortedInPlace<T>(list: T[], compare?: (a: T, b: T) => number): T[] {
  if (list.length > SHORT_LIST) return list.sort(compare);
  for (let i = 1; i < list.length; i++) {
    const item = list[i] as T;
    let j = i - 1;
    for (; j >= 0 && (compare === undefined ? (list[j] as T) > item : compare(list[j] as T, item) > 0); j--) list[j + 1] = list[j] as T;
    list[j + 1] = item;
  }
  return list;
}

const SHORT_LIST = 16;

/** Structural equality of two JSON values (key order ignored; own keys only). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let count = 0;
  for (const key in left) {
    if (left[key] === undefined) continue;
    // No hasOwn on this hot path: a key missing from `right` (even `__proto__`, whose read
    // yields the prototype) leaves the key counts unequal, so the result is still false.
    if (!jsonEqual(left[key], right[key])) return false;
    count++;
  }
  for (const key in right) if (right[key] !== undefined) count--;
  return count === 0;
}

/** A JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The text without its byte order mark: Windows editors and PowerShell write one, it is not
 * part of the JSON, and `JSON.parse` refuses it.
 */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The value a JSON text holds; undefined when it is not JSON (a peer's answer may be anything). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
