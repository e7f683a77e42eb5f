/** Small pure helpers over JSON values shared by the detectors. */
import { canonicalJson, jsonEqual } from '../contract/canonical.js';
import { isJsonObject, objectOr, type JsonObject, type JsonValue } from '../contract/model.js';

/** Structural equality of JSON values (key order does not matter). */
export { isJsonObject, jsonEqual, objectOr };

/** A schema as an object: `true`/absent are `{}`; `false` stays false. */
export function asSchema(value: unknown): JsonObject | false {
  if (value === false) return false;
  if (isJsonObject(value)) return value;
  return {};
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

/** The keys whose values differ between two objects (present on either side), sorted. */
export function changedKeys(previous: JsonObject, current: JsonObject): string[] {
  return [...new Set([...Object.keys(previous), ...Object.keys(current)])].filter((key) => !jsonEqual(previous[key], current[key])).sort();
}
