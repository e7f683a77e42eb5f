/** Small pure helpers over JSON values shared by the detectors. */
import { canonicalJson, jsonEqual as deepEqual } from '../protocol/index.js';
import { isJsonObject, nameRecord, objectOr, type JsonObject, type JsonValue } from '../contract/model.js';

export { isJsonObject, objectOr };

/**
 * A structural hash of a JSON value, memoized per object: contracts are immutable once
 * normalized, so each subtree is hashed once, bottom-up, and a walk that compares a subtree at
 * every level of an enclosing union pays O(1) there instead of re-reading the subtree. Key
 * order does not matter (members are combined by addition); two values with different
 * hashes differ, equal hashes are confirmed with `jsonEqual`.
 */
export function shapeHash(value: unknown): number {
  // A string is hashed as it is (with a seed of its own: "1" the string is not 1 the number),
  // not as a new string made for the purpose, which would copy every text of the contract.
  if (typeof value === 'string') return hashText(value, STRING_SEED);
  if (typeof value !== 'object' || value === null) return hashText(`${typeof value}:${String(value)}`);
  const known = hashes.get(value);
  if (known !== undefined) return known;
  let hash: number;
  if (Array.isArray(value)) {
    hash = 0x9e3779b1;
    for (const item of value) hash = mix(hash, shapeHash(item));
  } else {
    // Members combined by addition: independent of key order without sorting the keys.
    let sum = 0x85ebca6b;
    const record = value as Record<string, unknown>;
    for (const key in record) if (record[key] !== undefined) sum = (sum + mix(hashText(key), shapeHash(record[key]))) >>> 0;
    hash = mix(sum, 0x27d4eb2d);
  }
  hashes.set(value, hash);
  return hash;
}

const hashes = new WeakMap<object, number>();

const STRING_SEED = 0x2f3a1c5b;

function hashText(text: string, seed = 0x811c9dc5): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

function mix(hash: number, value: number): number {
  return (Math.imul(hash ^ value, 0x5bd1e995) + 0x6b43a9b5) >>> 0;
}

/** Structural equality of JSON values (key order does not matter), rejecting most differences by hash. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && shapeHash(a) !== shapeHash(b)) return false;
  return deepEqual(a, b);
}

/**
 * A record of the members of `parts`, without a prototype: a member it lacks (`constructor`,
 * `toString`) reads as undefined, and `__proto__` is a member like any other. Every object the
 * diff builds from a schema is one: the names in a schema are the server's.
 */
export function ownRecord(...parts: JsonObject[]): JsonObject {
  return Object.assign(nameRecord<JsonValue>(), ...parts);
}

/** A schema as an object: `true`/absent are `{}`; `false` stays false. */
export function asSchema(value: unknown): JsonObject | false {
  if (value === false) return false;
  if (isJsonObject(value)) return value;
  return ownRecord();
}

export function stringsOf(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Set membership by canonical JSON, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one value. */
export function canonicalSet(values: readonly unknown[]): Map<string, unknown> {
  return new Map(values.map((v) => [canonicalJson(v), v]));
}

export function without(object: JsonObject, keys: readonly string[]): JsonObject {
  const out = ownRecord();
  for (const [key, value] of Object.entries(object)) if (!keys.includes(key)) out[key] = value;
  return out;
}

/**
 * The keys whose values differ between two objects (present on either side), sorted. Each pair
 * is compared once, so by a plain walk that stops at the first difference: hashing both whole
 * subtrees first (`jsonEqual`) pays only where the same subtrees are compared again and again.
 */
export function changedKeys(previous: JsonObject, current: JsonObject): string[] {
  return [...new Set([...Object.keys(previous), ...Object.keys(current)])].filter((key) => !deepEqual(previous[key], current[key])).sort();
}
