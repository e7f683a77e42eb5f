/** Small pure helpers over JSON values shared by the detectors. */
import { canonicalJson } from '../contract/canonical.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../contract/model.js';

export { isJsonObject };

/** Structural equality of JSON values (key order does not matter). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  for (const key of ka) {
    if (!Object.hasOwn(b as object, key)) return false;
    if (!deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/** A schema as an object: `true`/absent are `{}`; `false` stays false. */
export function asSchema(value: unknown): JsonObject | false {
  if (value === false) return false;
  if (isJsonObject(value)) return value;
  return {};
}

export function objectOr(value: JsonValue | undefined): JsonObject {
  return isJsonObject(value) ? value : {};
}

export function stringsOf(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Set membership by canonical JSON, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one value. */
export function canonicalSet(values: readonly unknown[]): Map<string, unknown> {
  return new Map(values.map((v) => [canonicalJson(v), v]));
}

export function without(object: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(object)) if (!keys.includes(key)) out[key] = value;
  return out;
}
