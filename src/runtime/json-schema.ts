/**
 * Just enough JSON Schema reading to explain a validation failure: find the subschema at an
 * argument path, say what it expects, and build a minimal value it accepts. Local `$ref`s are
 * followed with a hop limit, so a recursive schema cannot hang an error path.
 */
import { linearPattern, type LinearPattern } from './patterns.js';
import { discriminatorOf as discriminatorOfBranches, displayJson, isSubtype, jsonTypeOf, listValues, pointerTokens } from '../protocol/index.js';

export type JsonSchema = Readonly<Record<string, unknown>>;
export type ArgPath = readonly (string | number)[];

const MAX_REF_HOPS = 32;
const MAX_EXAMPLE_DEPTH = 8;
/** zod and others write these as integer bounds; to a model they are noise, not a constraint. */
const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

export function isSchema(value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Follows local `$ref`s (`#`, `#/$defs/x`, `#/definitions/x`, any JSON pointer into the root). */
function resolveRef(root: JsonSchema, schema: unknown): JsonSchema | undefined {
  let current = schema;
  for (let hops = 0; isSchema(current) && typeof current.$ref === 'string'; hops += 1) {
    if (hops >= MAX_REF_HOPS) return undefined;
    current = lookupPointer(root, current.$ref);
  }
  return isSchema(current) ? current : undefined;
}

function lookupPointer(root: JsonSchema, ref: string): unknown {
  const tokens = pointerTokens(ref);
  if (tokens === undefined) return undefined;
  let node: unknown = root;
  for (const key of tokens) {
    // Own members only: `#/__proto__` names nothing in a schema.
    if ((!isSchema(node) && !Array.isArray(node)) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function branchesOf(schema: JsonSchema): readonly unknown[] {
  const oneOf = Array.isArray(schema.oneOf) ? schema.oneOf : [];
  const anyOf = Array.isArray(schema.anyOf) ? schema.anyOf : [];
  return [...oneOf, ...anyOf];
}

/** The value a property must have in a union branch (`const` or a one-value `enum`). */
function constOf(schema: JsonSchema | undefined): { value: unknown } | undefined {
  if (schema === undefined) return undefined;
  if ('const' in schema) return { value: schema.const };
  if (Array.isArray(schema.enum) && schema.enum.length === 1) return { value: schema.enum[0] };
  return undefined;
}

/**
 * The branch of a `oneOf`/`anyOf` whose constant properties all match `value` (how a
 * discriminated union picks its branch); the first branch when none can be told apart.
 */
function pickBranch(root: JsonSchema, schema: JsonSchema, value: unknown): JsonSchema | undefined {
  const branches = branchesOf(schema)
    .map((branch) => resolveRef(root, branch))
    .filter((branch): branch is JsonSchema => branch !== undefined);
  if (branches.length === 0) return undefined;
  if (isSchema(value)) {
    for (const branch of branches) {
      const properties = isSchema(branch.properties) ? branch.properties : {};
      const constants = Object.entries(properties)
        .map(([name, property]) => [name, constOf(resolveRef(root, property))] as const)
        .filter(([, constant]) => constant !== undefined);
      if (constants.length > 0 && constants.every(([name, constant]) => displayJson(value[name]) === displayJson(constant?.value))) {
        return branch;
      }
    }
  }
  return undefined;
}

/**
 * The property that discriminates a root union (e.g. `action` for `oneOf: [{action: {const:
 * "create"}}, {action: {const: "list"}}]`), by the protocol's one definition, the one the diff
 * scoped the deltas with.
 */
export function discriminatorOf(root: JsonSchema): string | undefined {
  const schema = resolveRef(root, root);
  if (schema === undefined) return undefined;
  return discriminatorOfBranches(branchesOf(schema), (branch) => resolveRef(root, branch)) ?? undefined;
}

/**
 * The `oneOf`/`anyOf` list at `pointer` (a validator's schema path, `#/properties/method/oneOf`):
 * the index of the branch whose constant properties match `value`, else of the one branch of
 * its type (none when neither picks one), the property that discriminates the branches, and each branch's value of it.
 */
export function unionAt(root: JsonSchema, pointer: string, value: unknown): { chosen: number | undefined; discriminator: string | undefined; values: unknown[] } | undefined {
  const branches = lookupPointer(root, pointer);
  if (!Array.isArray(branches) || branches.length === 0) return undefined;
  const picked = pickBranch(root, { oneOf: branches }, value);
  let chosen = picked === undefined ? -1 : branches.findIndex((branch) => resolveRef(root, branch) === picked);
  if (chosen === -1) {
    // Else the one branch of the value's type (the string branch of `string | null`).
    const admitting = branches.flatMap((branch, index) => {
      const resolved = resolveRef(root, branch);
      return resolved !== undefined && admitsTypeOf(resolved, value) ? [index] : [];
    });
    if (admitting.length === 1) chosen = admitting[0] as number;
  }
  const discriminator = discriminatorOfBranches(branches, (branch) => resolveRef(root, branch)) ?? undefined;
  const values = discriminator === undefined ? [] : branchValues(root, branches, discriminator);
  return { chosen: chosen === -1 ? undefined : chosen, discriminator, values };
}

/** The values the property `name` has in the branches of the union `schema` (its discriminator's values). */
export function discriminatorValues(root: JsonSchema, schema: JsonSchema | undefined, name: string): unknown[] {
  return schema === undefined ? [] : branchValues(root, branchesOf(schema), name);
}

function branchValues(root: JsonSchema, branches: readonly unknown[], name: string): unknown[] {
  const values: unknown[] = [];
  for (const branch of branches) {
    const properties = resolveRef(root, branch)?.properties;
    const constant = isSchema(properties) ? constOf(resolveRef(root, properties[name])) : undefined;
    if (constant !== undefined) values.push(constant.value);
  }
  return values;
}

/** The subschema describing the argument at `path`, choosing union branches by `args`. */
export function schemaAt(root: JsonSchema, path: ArgPath, args: unknown): JsonSchema | undefined {
  let schema = resolveRef(root, root);
  let value: unknown = args;
  for (const segment of path) {
    if (schema === undefined) return undefined;
    schema = childSchema(root, schema, segment, value);
    value = isSchema(value) || Array.isArray(value) ? (value as Record<string | number, unknown>)[segment] : undefined;
  }
  return schema;
}

function childSchema(root: JsonSchema, schema: JsonSchema, segment: string | number, value: unknown): JsonSchema | undefined {
  if (isSchema(schema.properties) && typeof segment === 'string' && segment in schema.properties) {
    return resolveRef(root, schema.properties[segment]);
  }
  if (typeof segment === 'number') {
    if (Array.isArray(schema.prefixItems) && segment < schema.prefixItems.length) return resolveRef(root, schema.prefixItems[segment]);
    if (Array.isArray(schema.items) && segment < schema.items.length) return resolveRef(root, schema.items[segment]);
    if (isSchema(schema.items)) return resolveRef(root, schema.items);
  }
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) {
      const resolved = resolveRef(root, part);
      const child = resolved === undefined ? undefined : childSchema(root, resolved, segment, value);
      if (child !== undefined) return child;
    }
  }
  if (branchesOf(schema).length > 0) {
    const branch = pickBranch(root, schema, value);
    const candidates = branch !== undefined ? [branch] : branchesOf(schema).map((b) => resolveRef(root, b));
    for (const candidate of candidates) {
      const child = candidate === undefined ? undefined : childSchema(root, candidate, segment, value);
      if (child !== undefined) return child;
    }
  }
  if (typeof segment === 'string' && isSchema(schema.additionalProperties)) return resolveRef(root, schema.additionalProperties);
  return undefined;
}

/** Property names an object schema declares (across `allOf` and the matching union branch). */
export function propertyNames(root: JsonSchema, schema: JsonSchema | undefined, value: unknown): string[] {
  if (schema === undefined) return [];
  const names = new Set<string>(isSchema(schema.properties) ? Object.keys(schema.properties) : []);
  const parts = [...(Array.isArray(schema.allOf) ? schema.allOf : [])];
  const branch = branchesOf(schema).length > 0 ? pickBranch(root, schema, value) : undefined;
  if (branch !== undefined) parts.push(branch);
  for (const part of parts) for (const name of propertyNames(root, resolveRef(root, part), value)) names.add(name);
  return [...names].sort();
}

/**
 * Whether the object schema at hand takes a member called `name` (for the value `value` it
 * holds): a declared property (across `allOf` and union branches: every branch when the value
 * picks none), a `patternProperties` pattern it matches, or any name at all when it is a map
 * (`additionalProperties` a schema that says something of its values). A passthrough object
 * (`additionalProperties` `{}` or `true`, zod's `looseObject`) accepts a member without taking
 * it: what it does not declare, a handler has no reason to read. An unknown schema (undefined)
 * takes anything: what cannot be told is the server's business.
 */
export function takesMember(root: JsonSchema, schema: JsonSchema | undefined, value: unknown, name: string): boolean {
  return schema === undefined || declaresMember(root, schema, value, name, 0);
}

/** Keywords that describe a schema without constraining it. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);

function declaresMember(root: JsonSchema, schema: JsonSchema, value: unknown, name: string, depth: number): boolean {
  if (depth > MAX_REF_HOPS) return true;
  if (isSchema(schema.properties) && Object.hasOwn(schema.properties, name)) return true;
  if (isSchema(schema.additionalProperties) && Object.keys(schema.additionalProperties).some((keyword) => !ANNOTATIONS.has(keyword))) return true;
  if (isSchema(schema.patternProperties)) {
    for (const pattern of Object.keys(schema.patternProperties)) {
      // The server's pattern, run in linear time; one that cannot be run may match it.
      const verdict = linearPattern(pattern);
      if (!('pattern' in verdict) || verdict.pattern.test(name)) return true;
    }
  }
  const parts = [...(Array.isArray(schema.allOf) ? schema.allOf : [])];
  if (branchesOf(schema).length > 0) {
    const branch = pickBranch(root, schema, value);
    parts.push(...(branch !== undefined ? [branch] : branchesOf(schema)));
  }
  return parts.some((part) => {
    const resolved = resolveRef(root, part);
    return resolved !== undefined && declaresMember(root, resolved, value, name, depth + 1);
  });
}

/** The type names a schema's `type` lists (a member that is not a string names none). */
function typesOf(schema: JsonSchema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  return Array.isArray(schema.type) ? schema.type.filter((type): type is string => typeof type === 'string') : [];
}

/**
 * Whether `value` has a type the schema admits: any, without `type`; else one it names. A
 * `type` that names none (`[]`, `5`) admits nothing, as the validators that accept it read it
 * (Python's jsonschema fails every value against `type: []`).
 */
export function admitsTypeOf(schema: JsonSchema, value: unknown): boolean {
  if (schema.type === undefined) return true;
  const type = jsonTypeOf(value);
  return typesOf(schema).some((t) => isSubtype(type, t));
}

/** The type a schema is read as: the first it names besides null, else an object's when it has properties. */
function typeOf(schema: JsonSchema): string | undefined {
  const types = typesOf(schema);
  if (types.length > 0) return types.find((type) => type !== 'null') ?? types[0];
  if (isSchema(schema.properties)) return 'object';
  return undefined;
}

function bound(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && !SAFE_INTEGER_BOUNDS.has(value) ? value : undefined;
}

/**
 * The bounds of a number, string, array or object schema in words: `between 18 and 120
 * (inclusive)`, `of at least 1`, `greater than 0 and at most 5`, `with at least 3 characters`.
 * Words rather than `>=`/`<=`, which would reach the model as `&lt;=` inside XML.
 */
export function rangePhrase(schema: JsonSchema): string | undefined {
  const type = typeOf(schema);
  if (type !== undefined && isSubtype(type, 'number')) {
    const min = bound(schema.minimum);
    const exclusiveMin = typeof schema.exclusiveMinimum === 'boolean' ? (schema.exclusiveMinimum ? min : undefined) : bound(schema.exclusiveMinimum);
    const max = bound(schema.maximum);
    const exclusiveMax = typeof schema.exclusiveMaximum === 'boolean' ? (schema.exclusiveMaximum ? max : undefined) : bound(schema.exclusiveMaximum);
    return numberRange(exclusiveMin === undefined ? min : undefined, exclusiveMin, exclusiveMax === undefined ? max : undefined, exclusiveMax);
  }
  const [minKey, maxKey, unit] =
    type === 'string' ? (['minLength', 'maxLength', 'character'] as const)
    : type === 'array' ? (['minItems', 'maxItems', 'item'] as const)
    : type === 'object' ? (['minProperties', 'maxProperties', 'property'] as const)
    : [undefined, undefined, undefined];
  if (unit === undefined) return undefined;
  const min = bound(schema[minKey]);
  const max = bound(schema[maxKey]);
  const plural = (n: number) => (n === 1 ? unit : unit === 'property' ? 'properties' : `${unit}s`);
  if (min !== undefined && max !== undefined) {
    return min === max ? `with exactly ${min} ${plural(min)}` : `with at least ${min} and at most ${max} ${plural(max)}`;
  }
  if (min !== undefined) return `with at least ${min} ${plural(min)}`;
  if (max !== undefined) return `with at most ${max} ${plural(max)}`;
  return undefined;
}

/** `between 1 and 5 (inclusive)`, `of at least 1`, `greater than 0 and at most 5`, … */
export function numberRange(min?: number, exclusiveMin?: number, max?: number, exclusiveMax?: number): string | undefined {
  if (min !== undefined && max !== undefined) return `between ${min} and ${max} (inclusive)`;
  const parts: string[] = [];
  if (exclusiveMin !== undefined) parts.push(`greater than ${exclusiveMin}`);
  else if (min !== undefined) parts.push(`at least ${min}`);
  if (exclusiveMax !== undefined) parts.push(`less than ${exclusiveMax}`);
  else if (max !== undefined) parts.push(`at most ${max}`);
  if (parts.length === 0) return undefined;
  const text = parts.join(' and ');
  return text.startsWith('at ') ? `of ${text}` : text;
}

/**
 * What a schema accepts, type first: `integer of at least 1`, `string, one of "USD", "EUR"`,
 * `string matching the pattern ^[A-Z]{3}$`, `(string, one of "pd", "pw") or (string in date
 * format)`. The type of an enum is said too (from `type`, else from its values), since "one of
 * 1, 2" and "one of \"1\", \"2\"" differ only by it.
 */
export function describeSchema(root: JsonSchema, schema: JsonSchema | undefined): string | undefined {
  if (schema === undefined) return undefined;
  const constant = constOf(schema);
  if (constant !== undefined) return `exactly ${displayJson(constant.value)}`;
  const type = typeOf(schema);
  if (Array.isArray(schema.enum)) {
    const valueType = type ?? sharedTypeOf(schema.enum);
    return valueType === undefined ? `one of ${listValues(schema.enum)}` : `${valueType}, one of ${listValues(schema.enum)}`;
  }
  if (type === undefined) {
    const branches = branchesOf(schema).map((branch) => describeSchema(root, resolveRef(root, branch)));
    if (branches.length === 0 || !branches.every((text) => text !== undefined)) return undefined;
    const distinct = [...new Set(branches)];
    return distinct.length === 1 ? distinct[0] : distinct.map((text) => `(${text})`).join(' or ');
  }
  // `type: ["string", "number"]` is how converters write a union of primitives.
  const types = typesOf(schema);
  const item = type === 'array' && isSchema(schema.items) ? (describeSchema(root, resolveRef(root, schema.items)) ?? 'values') : undefined;
  // An item's own constraints in parentheses, so they do not read as the array's.
  const head = item === undefined ? type : `array of ${item.includes(' with ') ? `(${item})` : item}`;
  const parts: string[] = [[head, ...types.filter((t) => t !== type)].join(' or ')];
  // What a missing or mistyped object must hold: its required members, by name (their own lines say the rest).
  const required = type === 'object' && Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  if (required.length > 0) parts.push(`with required properties ${listValues(required, 10)}`);
  if (typeof schema.format === 'string') parts.push(`in ${schema.format} format`);
  const range = rangePhrase(schema);
  if (range !== undefined) parts.push(range);
  // A format's own regular expression (zod writes both) says nothing the format name does not.
  if (typeof schema.pattern === 'string' && typeof schema.format !== 'string') parts.push(`${range !== undefined ? 'and ' : ''}matching the pattern ${schema.pattern}`);
  if (typeof schema.multipleOf === 'number') parts.push(`that is a multiple of ${schema.multipleOf}`);
  if (schema.uniqueItems === true) parts.push('with unique items');
  return parts.join(' ');
}

/** The one JSON type all `values` have (integers among numbers read as `number`), if any. */
function sharedTypeOf(values: readonly unknown[]): string | undefined {
  const types = new Set(values.map((value) => jsonTypeOf(value)));
  if (types.size === 2 && types.has('integer') && types.has('number')) return 'number';
  return types.size === 1 ? [...types][0] : undefined;
}

/**
 * `schema` with every string in `texts` (text the contract lint flagged) taken out: members of
 * arrays (enum values, required names) and properties so named dropped, other values replaced
 * by a placeholder, so no explanation built from the schema can repeat them.
 */
export function withoutText(schema: JsonSchema, texts: ReadonlySet<string>): JsonSchema {
  if (texts.size === 0) return schema;
  return scrub(schema, texts, 0) as JsonSchema;
}

const WITHHELD = '(flagged text withheld)';

function scrub(value: unknown, texts: ReadonlySet<string>, depth: number): unknown {
  if (typeof value === 'string') return texts.has(value) ? WITHHELD : value;
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  // An enum value, a required name or an example that was flagged is left out, not replaced.
  if (Array.isArray(value)) return value.filter((item) => !(typeof item === 'string' && texts.has(item))).map((item) => scrub(item, texts, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) if (!texts.has(key)) out[key] = scrub(child, texts, depth + 1);
  return out;
}

const FORMAT_SAMPLES: Readonly<Record<string, string>> = {
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  uri: 'https://example.com',
  url: 'https://example.com',
  'uri-reference': 'https://example.com',
  iri: 'https://example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  date: '2024-01-31',
  'date-time': '2024-01-31T12:00:00Z',
  datetime: '2024-01-31T12:00:00Z',
  time: '12:00:00',
  duration: 'P1D',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  guid: '123e4567-e89b-42d3-a456-426614174000',
  cuid: 'cjld2cjxh0000qzrmn831i7rn',
  emoji: '🙂',
};

/** Strings tried in order against a schema's pattern and length: covers most real patterns. */
const STRING_CANDIDATES = ['example', 'EXAMPLE', 'Example', 'abc', 'ABC', 'a', 'A', 'x1', '1', '123', 'a1b2', 'example-1', 'example_1', 'example.1', '0'];

/** A sample string in `format` (used for the fix text as well as the example). */
function formatSample(format: string): string | undefined {
  return FORMAT_SAMPLES[format];
}

/**
 * A string the schema accepts, found by trying format samples and common candidates against
 * its length bounds and pattern; undefined when none fits (the example is then left out rather
 * than shown wrong). The pattern is the server's: it runs in linear time (patterns.ts), and one
 * that cannot is not run at all (no example then).
 */
export function sampleString(schema: JsonSchema): string | undefined {
  const min = bound(schema.minLength) ?? 0;
  const max = bound(schema.maxLength) ?? Infinity;
  let pattern: LinearPattern | undefined;
  if (typeof schema.pattern === 'string') {
    const verdict = linearPattern(schema.pattern);
    if (!('pattern' in verdict)) return undefined;
    pattern = verdict.pattern;
  }
  const format = typeof schema.format === 'string' ? formatSample(schema.format) : undefined;
  const candidates = format !== undefined ? [format] : STRING_CANDIDATES;
  for (const candidate of candidates) {
    const sized = fitLength(candidate, min, max);
    if (sized !== undefined && (pattern === undefined || pattern.test(sized))) return sized;
  }
  return undefined;
}

/** Longest example string worth showing; past it the example is left out (and no pattern runs on it). */
const MAX_EXAMPLE_LENGTH = 200;

function fitLength(candidate: string, min: number, max: number): string | undefined {
  if (max < min || min > MAX_EXAMPLE_LENGTH) return undefined;
  let text = candidate;
  if (text.length < min) text = text.padEnd(min, text.at(-1) ?? 'x');
  if (text.length > max) text = text.slice(0, max);
  return text;
}

function sampleNumber(schema: JsonSchema, integer: boolean): number | undefined {
  const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : integer ? 1 : undefined;
  let low = bound(schema.minimum);
  let high = bound(schema.maximum);
  const exclusiveLow = typeof schema.exclusiveMinimum === 'boolean' ? (schema.exclusiveMinimum ? low : undefined) : bound(schema.exclusiveMinimum);
  const exclusiveHigh = typeof schema.exclusiveMaximum === 'boolean' ? (schema.exclusiveMaximum ? high : undefined) : bound(schema.exclusiveMaximum);
  if (exclusiveLow !== undefined) low = exclusiveLow + (step ?? 1) * (integer || step !== undefined ? 1 : 0.5);
  if (exclusiveHigh !== undefined) high = exclusiveHigh - (step ?? 1) * (integer || step !== undefined ? 1 : 0.5);
  let value = low ?? (high !== undefined && high < 1 ? high : 1);
  if (step !== undefined) value = Math.ceil(value / step) * step;
  if (integer) value = Math.ceil(value);
  if ((low !== undefined && value < low) || (high !== undefined && value > high)) return undefined;
  return value;
}

/**
 * A minimal value the schema accepts: constants, defaults and declared examples first, then only
 * required properties and the fewest array items allowed. `hint` (what the caller sent) steers
 * union branch choice, so a failing `create` call gets a `create` example. Undefined when no
 * valid value can be built with confidence.
 */
export function exampleFor(root: JsonSchema, schema: unknown, hint: unknown, depth = 0): { value: unknown } | undefined {
  if (schema === true) return { value: 'example' };
  const resolved = resolveRef(root, schema);
  if (resolved === undefined || depth > MAX_EXAMPLE_DEPTH) return undefined;
  const constant = constOf(resolved);
  if (constant !== undefined) return constant;
  if (Array.isArray(resolved.enum)) return resolved.enum.length > 0 ? { value: resolved.enum[0] } : undefined;
  if (resolved.default !== undefined) return { value: resolved.default };
  if (Array.isArray(resolved.examples) && resolved.examples.length > 0) return { value: resolved.examples[0] };

  const type = typeOf(resolved);
  switch (type) {
    case 'string': {
      const value = sampleString(resolved);
      return value === undefined ? undefined : { value };
    }
    case 'integer':
    case 'number': {
      const value = sampleNumber(resolved, type === 'integer');
      return value === undefined ? undefined : { value };
    }
    case 'boolean':
      return { value: true };
    case 'null':
      return { value: null };
    case 'array':
      return exampleArray(root, resolved, hint, depth);
    case 'object':
      return exampleObject(root, resolved, hint, depth);
    default:
      break;
  }
  if (Array.isArray(resolved.allOf) && resolved.allOf.length > 0) {
    return exampleObject(root, mergeAllOf(root, resolved), hint, depth);
  }
  const branches = branchesOf(resolved);
  if (branches.length > 0) {
    // The branch the caller chose, or none: an example of another branch would switch its call to that one.
    const preferred = pickBranch(root, resolved, hint);
    for (const branch of preferred !== undefined ? [preferred] : branches) {
      const value = exampleFor(root, branch, hint, depth + 1);
      if (value !== undefined) return value;
    }
    return undefined;
  }
  // `{}` accepts anything.
  return Object.keys(resolved).every((key) => key === 'description' || key === 'title' || key === '$schema') ? { value: 'example' } : undefined;
}

function exampleArray(root: JsonSchema, schema: JsonSchema, hint: unknown, depth: number): { value: unknown } | undefined {
  const min = bound(schema.minItems) ?? 0;
  const max = bound(schema.maxItems) ?? Infinity;
  const itemHint = (index: number) => (Array.isArray(hint) ? hint[index] : undefined);
  // Tuples: `prefixItems` + `items` (2020-12) or `items: [...]` + `additionalItems` (draft-07).
  const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
  const rest = tuple === undefined ? schema.items : Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
  const items: unknown[] = [];
  for (const [index, itemSchema] of (tuple ?? []).entries()) {
    const item = exampleFor(root, itemSchema, itemHint(index), depth + 1);
    if (item === undefined) return undefined;
    items.push(item.value);
  }
  // One item shows the element shape; more only when minItems asks for them.
  const wanted = tuple !== undefined ? min : Math.min(Math.max(min, 1), max);
  while (items.length < wanted) {
    if (rest === false) return undefined;
    const item = rest === undefined || rest === true ? { value: 'example' } : exampleFor(root, rest, itemHint(items.length), depth + 1);
    if (item === undefined) return items.length >= min ? { value: items } : undefined;
    items.push(item.value);
  }
  if (schema.uniqueItems === true && new Set(items.map((item) => displayJson(item))).size !== items.length) {
    return min <= 1 ? { value: items.slice(0, min) } : undefined;
  }
  return { value: items };
}

function exampleObject(root: JsonSchema, schema: JsonSchema, hint: unknown, depth: number): { value: unknown } | undefined {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const requiredNames = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  const value: Record<string, unknown> = {};
  for (const name of requiredNames) {
    const propertySchema = properties[name] ?? (isSchema(schema.additionalProperties) ? schema.additionalProperties : true);
    const property = exampleFor(root, propertySchema, isSchema(hint) ? hint[name] : undefined, depth + 1);
    if (property === undefined) return undefined;
    value[name] = property.value;
  }
  return { value };
}

function mergeAllOf(root: JsonSchema, schema: JsonSchema): JsonSchema {
  const properties: Record<string, unknown> = { ...(isSchema(schema.properties) ? schema.properties : {}) };
  const requiredNames = new Set<string>(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const resolved = resolveRef(root, part);
    if (resolved === undefined) continue;
    Object.assign(properties, isSchema(resolved.properties) ? resolved.properties : {});
    for (const name of Array.isArray(resolved.required) ? resolved.required : []) requiredNames.add(String(name));
  }
  return { type: 'object', properties, required: [...requiredNames] };
}

/**
 * The candidate closest to `name` when it is close enough to be a likely typo: same letters
 * ignoring case, `_` and `-`, or within an edit distance of a third of the length (adjacent
 * transpositions count as one edit). Ties go to the alphabetically first, for stable output.
 */
export function nearestName(name: string, candidates: readonly string[]): string | undefined {
  const normalized = normalizeName(name);
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of [...candidates].sort()) {
    if (candidate === name) continue;
    const distance = normalizeName(candidate) === normalized ? 0 : editDistance(name.toLowerCase(), candidate.toLowerCase());
    const limit = Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 3));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, '');
}

/** Optimal string alignment distance (Levenshtein plus adjacent transposition). */
function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i += 1) {
    for (let j = 1; j < cols; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const above = d[i - 1] as number[];
      let value = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = value;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}
