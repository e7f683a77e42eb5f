/**
 * Short renderings of a delta's previous/current values for people and LLMs: a schema reads
 * as a TypeScript-like type (`{ amount: number, currency?: "EUR" | "USD" }`), as in the
 * runtime's `<contract_awareness>` block; anything else as compact JSON.
 */
import { canonicalJson, isJsonObject } from './json.js';

const SCHEMA_MARKERS = ['type', 'properties', 'anyOf', 'oneOf', 'allOf', 'items', 'enum', 'const', '$ref', 'not', 'prefixItems'];

export function looksLikeSchema(value: unknown): value is Record<string, unknown> {
  return isJsonObject(value) && !('name' in value && 'inputSchema' in value) && SCHEMA_MARKERS.some((k) => k in value);
}

/** A one-line rendering, at most `max` characters. */
export function summarize(value: unknown, max = 200): string {
  const text = value === null || value === undefined ? '(none)' : looksLikeSchema(value) ? typeOf(value, 3) : compactJson(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A delta's previous or current value, at most `max` characters. The format writes `null` both
 * for a value that is absent and for the value null; the delta's message knows which ("default
 * changed from null to 5"): a null facing a value, that the message quotes, reads "null", any
 * other "(none)". (When both sides are null, the message cannot say which is which.)
 */
export function deltaValue(delta: DeltaValues, side: 'previous' | 'current', max = 200): string {
  const value = delta[side];
  const other = side === 'previous' ? delta.current : delta.previous;
  return value === null && other !== null && other !== undefined && quotes(delta.message, 'null') ? 'null' : summarize(value, max);
}

interface DeltaValues {
  readonly message: string;
  readonly previous: unknown;
  readonly current: unknown;
}

/** `text` quotes `value` as a whole, not inside a longer word or number ("1" is not quoted by "raised to 10"). */
export function quotes(text: string, value: string): boolean {
  for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
    const before = text.slice(Math.max(0, at - 2), at);
    const after = text.slice(at + value.length, at + value.length + 2);
    if (!/(\w|\d\.)$/.test(before) && !/^(\w|\.\d)/.test(after)) return true;
  }
  return false;
}

/** Compact JSON with sorted keys: the same value renders the same whatever its key order. */
export function compactJson(value: unknown): string {
  // JSON has no text for undefined (nor for a function, which no delta should ever hold).
  return canonicalJson(value) ?? 'undefined';
}

/** A value a schema holds where a name belongs (a type, a required name): a string as it is, anything else as JSON. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : compactJson(value);
}

/** A TypeScript-like type for a schema, `depth` levels deep. */
export function typeOf(schema: unknown, depth: number): string {
  if (schema === true || (isJsonObject(schema) && Object.keys(schema).length === 0)) return 'any';
  if (schema === false) return 'never';
  if (!isJsonObject(schema)) return compactJson(schema);
  if ('const' in schema) return compactJson(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => compactJson(v)).join(' | ');
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return union.map((b) => typeOf(b, depth - 1)).join(' | ');
  if (typeof schema.$ref === 'string') return schema.$ref === '#' ? '(recursive)' : schema.$ref.split('/').pop() ?? 'ref';
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type.map(textOf) : [];
  const rendered = (types.length === 0 ? [isJsonObject(schema.properties) ? 'object' : 'any'] : types).map((t) => {
    if (t === 'object' && isJsonObject(schema.properties)) {
      if (depth <= 0) return '{…}';
      const required = new Set(Array.isArray(schema.required) ? schema.required.map(textOf) : []);
      const members = Object.entries(schema.properties).map(
        ([name, sub]) => `${/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)}${required.has(name) ? '' : '?'}: ${typeOf(sub, depth - 1)}`,
      );
      return `{ ${members.join(', ')} }`;
    }
    if (t === 'array') {
      const item = schema.items === undefined ? 'any' : depth <= 0 ? '…' : typeOf(schema.items, depth - 1);
      return item.includes(' ') ? `(${item})[]` : `${item}[]`;
    }
    return t;
  });
  return rendered.join(' | ');
}
