/**
 * The JSON Schema type vocabulary, and its one subtlety written once: `integer` is the only
 * type inside another (every integer is a number). The diff reads it to tell a narrowed type
 * from a changed one, the runtime to say what a value is and what a field expects.
 */

export const JSON_TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] as const;
export type JsonType = (typeof JSON_TYPES)[number];

/** Every value of `type` is a value of `of`: the same type, or an integer where a number is expected. */
export function isSubtype(type: string, of: string): boolean {
  return type === of || (type === 'integer' && of === 'number');
}

/** Whether a value exists of some type in `a` and some type in `b`. */
export function typesOverlap(a: Iterable<string>, b: ReadonlySet<string>): boolean {
  for (const type of a) {
    if (b.has(type) || (type === 'integer' && b.has('number')) || (type === 'number' && b.has('integer'))) return true;
  }
  return false;
}

/** The JSON type of a value; whole numbers are `integer`. */
export function jsonTypeOf(value: unknown): JsonType | 'undefined' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number';
    case 'bigint':
      return 'integer';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'object':
      return 'object';
    default:
      return 'undefined';
  }
}

/** A type as validators name it, in JSON Schema's words (zod says `int`, JSON Schema `integer`). */
export function jsonTypeName(name: string): string {
  return name === 'int' || name === 'bigint' ? 'integer' : name;
}
