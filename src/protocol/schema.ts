/**
 * How the report speaks of schemas:
 *
 * - the JSON Schema type vocabulary, with its one subtlety written once: `integer` is the only
 *   type inside another (every integer is a number). The diff reads it to tell a narrowed type
 *   from a changed one, the runtime to say what a value is and what a field expects;
 * - a delta's `field` read back: the dotted path the diff writes (`inputSchema.properties.items
 *   .items.properties.sku.maxLength`, a member name that is not a plain identifier written as a
 *   JSON string in brackets: `properties["a.b"]`), and the tool argument it is about
 *   (`items[].sku`), which is how a validation error names the same place;
 * - the one definition of a discriminated union, shared by the diff (which scopes a delta to the
 *   branch it sits in: `action: "create"`) and the runtime (which reads the failing call's action
 *   to pick the deltas to show): if they chose differently, a change to one action would never
 *   be shown to the model calling it. A union is discriminated by a property when every branch
 *   declares it with a constant (`const` or a one-value `enum`) and no two branches share the
 *   value. When several properties qualify, the first in code-unit order is the discriminator, so
 *   the choice never depends on key order.
 */
import { fieldSegments } from './field-path.js';
import { isJsonObject } from './json.js';

export const JSON_TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] as const;
export type JsonType = (typeof JSON_TYPES)[number];

/**
 * The tokens of a local JSON pointer reference (`#/$defs/Item` → `["$defs", "Item"]`; `#` and
 * `#/` → the root, `[]`), each URI-unescaped then pointer-unescaped (RFC 6901). Undefined for a
 * reference that is not a local pointer, or whose escapes are malformed (`#/%`): a schema a
 * server sent may say anything, and reading it must not fail.
 */
export function pointerTokens(ref: string): string[] | undefined {
  if (ref === '#' || ref === '#/') return [];
  if (!ref.startsWith('#/')) return undefined;
  const tokens: string[] = [];
  for (const raw of ref.slice(2).split('/')) {
    let token = raw;
    if (raw.includes('%')) {
      try {
        token = decodeURIComponent(raw);
      } catch {
        return undefined;
      }
    }
    tokens.push(token.includes('~') ? token.replace(/~1/g, '/').replace(/~0/g, '~') : token);
  }
  return tokens;
}

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

/** An argument path: member names, with `[]` for "any item of the array". */
export type ArgumentPath = readonly string[];

/** Where a schema delta sits among the arguments, and the keyword it is about (`enum`, `pattern`…; undefined for the member itself). */
export interface ArgumentLocation {
  readonly path: ArgumentPath;
  readonly keyword: string | undefined;
}

/** Keywords whose next segment is a member name or an index, skipped on the way to the argument. */
const BRANCHES = new Set(['anyOf', 'oneOf', 'allOf']);

/**
 * The argument a delta of a tool's input schema is about: `inputSchema.properties.currency.enum`
 * is `currency` (keyword `enum`), `actions.create.inputSchema.properties.email` is `email`,
 * `inputSchema.additionalProperties` is the root (keyword `additionalProperties`). Undefined for
 * anything else: output schemas, the tool's name, description or annotations, `$defs`.
 */
export function argumentLocationOf(field: string): ArgumentLocation | undefined {
  const segments = fieldSegments(field);
  if (segments === undefined) return undefined;
  const start = segments.indexOf('inputSchema');
  if (start !== 0 && !(start === 2 && segments[0] === 'actions')) return undefined;
  const path: string[] = [];
  for (let i = start + 1; i < segments.length; i++) {
    const segment = segments[i] as string;
    const last = i === segments.length - 1;
    if (segment === 'properties' && !last) path.push(segments[++i] as string);
    else if (segment === 'items' && !last) path.push('[]');
    else if (segment === 'prefixItems' && !last) {
      path.push('[]');
      i++;
    } else if (segment === 'additionalProperties' && !last) path.push('*');
    else if (BRANCHES.has(segment) && !last) i++;
    else if (segment === '$defs' || segment === 'definitions' || segment === 'not') return undefined;
    else return { path, keyword: segment };
  }
  return { path, keyword: undefined };
}

/** `items[].sku`, `address.zip`, `(root)` for the arguments object itself. */
export function argumentLabel(path: ArgumentPath): string {
  if (path.length === 0) return '(root)';
  let label = '';
  for (const segment of path) label += segment === '[]' ? '[]' : label === '' ? segment : `.${segment}`;
  return label;
}

type Schema = Readonly<Record<string, unknown>>;

/** Follows a `$ref` (or returns the schema itself); undefined when it does not resolve. */
export type ResolveSchema = (schema: unknown) => Schema | undefined;

const asIs: ResolveSchema = (schema) => (isJsonObject(schema) ? schema : undefined);

/** The constant `branch` gives to `property`, as a label (`"create"` → `create`), if any. */
export function discriminatorValue(branch: unknown, property: string, resolve: ResolveSchema = asIs): string | undefined {
  const schema = resolve(branch);
  if (schema === undefined || !isJsonObject(schema.properties) || !Object.hasOwn(schema.properties, property)) return undefined;
  const member = resolve(schema.properties[property]);
  if (member === undefined) return undefined;
  const value = 'const' in member ? member.const : Array.isArray(member.enum) && member.enum.length === 1 ? member.enum[0] : undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The property that discriminates `branches`, or null (see the module comment). */
export function discriminatorOf(branches: readonly unknown[], resolve: ResolveSchema = asIs): string | null {
  if (branches.length < 2) return null;
  const first = resolve(branches[0]);
  if (first === undefined || !isJsonObject(first.properties)) return null;
  for (const candidate of Object.keys(first.properties).sort()) {
    const values = new Set<string>();
    for (const branch of branches) {
      const value = discriminatorValue(branch, candidate, resolve);
      if (value === undefined || values.has(value)) break;
      values.add(value);
    }
    if (values.size === branches.length) return candidate;
  }
  return null;
}
