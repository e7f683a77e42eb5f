import { canonicalJson, hasSortedKeys, jsonEqual, pointerTokens, sortedInPlace, sortedKeys, withSortedKeys } from '../protocol/index.js';
import { isJsonObject, nameRecord, type JsonObject, type JsonSchema, type JsonValue } from './model.js';

/**
 * JSON Schema normalization: rewrite a schema so that two schemas which differ only in
 * notation become byte-identical, while anything that changes what the schema accepts is kept.
 *
 * - draft-07 / 2019-09 spellings become 2020-12 ones (`definitions` → `$defs`, array `items` →
 *   `prefixItems`, `dependencies` → `dependentRequired` / `dependentSchemas`, draft-04 boolean
 *   `exclusiveMinimum`), `$schema` is lifted out and returned as `dialect`.
 * - set-like keywords are sorted (`type`, `required`, `enum`, union branches); a one-value
 *   `enum` becomes `const`; keywords set to their no-op default are dropped.
 * - local `$ref`s are inlined. A reference that would recurse is kept as `{"$ref": "#/$defs/N"}`
 *   and `N` is emitted once under the root `$defs`, so recursive schemas stay finite. When a
 *   property's own description sits beside a `$ref`, the definition's description (which agents
 *   also read, in `$defs`) is kept too, as `x-definition-description`, so nothing agent-visible
 *   escapes the lockfile or the poisoning lint.
 * - the conventions of the generators servers are built with (zod 3 and 4, pydantic) are
 *   written one way (`GENERATOR_CONVENTIONS`, each with its reason).
 *
 * One pass per schema: each node is read once and written once, with its keys in canonical
 * order (values a schema carries as data, like `default` or `examples`, included), so the
 * result is its own canonical form: `JSON.stringify` of it is its canonical JSON, and hashing
 * it needs no sorted copy.
 */

export interface NormalizedSchema {
  schema: JsonSchema;
  /** The `$schema` the root declared, if any. */
  dialect?: string;
  /** Things worth telling the author (unresolvable `$ref`s); never fatal. */
  problems: string[];
}

/** What `keywords` does with a keyword's value (a keyword not listed is data, kept as sent). */
type KeywordRole = 'dropped' | 'schema map' | 'schema' | 'schema list' | 'unordered schema list';

interface Keyword {
  role?: KeywordRole;
  /** The value that means the same as leaving the keyword out (dropped when the keyword has it). */
  noOp?: JsonValue;
  /** A subschema keyword for which the accept-everything schema `{}` is the same as absence. */
  anythingIsNoOp?: true;
  /** What a node with this keyword (and this value) needs once written: see `Pending`. */
  pending?: Pending | ((value: JsonValue) => Pending);
}

/**
 * What a node needs once its keywords are written: nothing (most nodes), its sets tidied, or the
 * generator conventions applied and then its sets tidied. Each step is a no-op on a node without
 * a keyword that calls for it, so skipping it there changes nothing and saves reading a dozen
 * keywords the node does not have.
 */
type Pending = typeof NOTHING | typeof TIDY_SETS | typeof CONVENTIONS;
const NOTHING = 0;
const TIDY_SETS = 1;
const CONVENTIONS = 2;

/** Each keyword's treatment: one lookup per keyword of every node. */
const KEYWORDS = new Map<string, Keyword>([
  // Mean nothing for acceptance or identity (definitions are inlined where referenced).
  ...['$schema', '$comment', '$defs', 'definitions'].map((k) => [k, { role: 'dropped' }] as const),
  ...['properties', 'patternProperties', 'dependentSchemas'].map((k) => [k, { role: 'schema map' }] as const),
  ...['contains', 'not', 'if', 'contentSchema'].map((k) => [k, { role: 'schema' }] as const),
  ...['additionalProperties', 'items', 'unevaluatedProperties', 'unevaluatedItems', 'then', 'else'].map((k) => [k, { role: 'schema', anythingIsNoOp: true }] as const),
  ['propertyNames', { role: 'schema', anythingIsNoOp: true, pending: CONVENTIONS }],
  ['prefixItems', { role: 'schema list' }],
  // Unions whose branch order carries no meaning: sorted so reordering is not a change.
  ...['anyOf', 'oneOf', 'allOf'].map((k) => [k, { role: 'unordered schema list', pending: CONVENTIONS }] as const),
  ...(
    [
      ['uniqueItems', false],
      ['minLength', 0],
      ['minItems', 0],
      ['minProperties', 0],
      ['minContains', 1],
      ['deprecated', false],
      ['readOnly', false],
      ['writeOnly', false],
    ] as const
  ).map(([k, noOp]) => [k, { noOp }] as const),
  // An integer's bounds are rewritten, a list of types read against the listed values and sorted;
  // a single other type (`"type": "string"`) needs neither.
  ['type', { pending: (type) => (typeof type === 'string' && type !== 'integer' ? NOTHING : CONVENTIONS) }],
  ...['required', 'enum', 'dependentRequired'].map((k) => [k, { pending: TIDY_SETS }] as const),
] as Array<[string, Keyword]>);

/** Where a referenced definition's own description is kept when the referring property has one. */
export const DEFINITION_DESCRIPTION = 'x-definition-description';

/** The largest integer a JSON number carries exactly (2^53 − 1). */
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/**
 * Conventions of the schema generators MCP servers are built with: each writes the same
 * contract its own way, and a server that changes generator (zod 3 → 4, hand-written →
 * pydantic) must not look as if it changed its contract. Each rule rewrites one notation into
 * the other; what a schema accepts never changes. Found on published servers (see
 * test/fixtures/real-world/README.md).
 */
const GENERATOR_CONVENTIONS: ReadonlyArray<{ name: string; why: string; apply: (schema: JsonObject) => void }> = [
  {
    name: 'object parts are one object',
    why: 'intersections (zod .and(), TypeScript &) are written as allOf members that each list some properties and required names; every member applies to the same object, so together they are one object',
    apply: plainObjectParts,
  },
  {
    name: 'integer bounds as integers',
    why: 'pydantic writes gt=0 as exclusiveMinimum 0, others write minimum 1: for integers both admit exactly 1, 2, 3…',
    apply: integerBounds,
  },
  {
    name: 'safe-integer bounds',
    why: 'zod 4 writes minimum/maximum ±(2^53 − 1) on every integer: no integer a JSON number carries exactly lies outside, so it bounds nothing',
    apply: (schema) => {
      if (!integerOnly(schema)) return;
      if (schema.minimum === -SAFE_INTEGER) delete schema.minimum;
      if (schema.maximum === SAFE_INTEGER) delete schema.maximum;
    },
  },
  {
    name: 'listed values decide the type',
    why: 'nullable enums are often written type [T, "null"] beside an enum that never lists null: a value must be listed, so a type no listed value has admits nothing',
    apply: typeOfListedValues,
  },
  {
    name: 'a union of constants is an enum',
    why: 'zod 3 (zod-to-json-schema) writes z.union([z.literal(…)]) as enum, zod 4 as anyOf of const branches',
    apply: constantUnions,
  },
  {
    name: 'string keys need no propertyNames',
    why: 'zod 4 writes propertyNames: {type: "string"} on records; every JSON object key is a string',
    apply: (schema) => {
      if (isJsonObject(schema.propertyNames) && jsonKeys(schema.propertyNames) === 'type' && schema.propertyNames.type === 'string') delete schema.propertyNames;
    },
  },
];

function jsonKeys(value: JsonObject): string {
  return Object.keys(value).join(',');
}

/** The schema admits integers and no other numbers (bounds then read as integer intervals). */
function integerOnly(schema: JsonObject): boolean {
  const type = schema.type;
  return type === 'integer' || (Array.isArray(type) && type.includes('integer') && !type.includes('number'));
}

function integerBounds(schema: JsonObject): void {
  if (!integerOnly(schema)) return;
  const minimum = finite(schema.minimum);
  const exclusiveMinimum = finite(schema.exclusiveMinimum);
  const low = higher(minimum === undefined ? undefined : Math.ceil(minimum), exclusiveMinimum === undefined ? undefined : Math.floor(exclusiveMinimum) + 1);
  if (low !== undefined) {
    if (exclusiveMinimum !== undefined) delete schema.exclusiveMinimum;
    schema.minimum = low;
  }
  const maximum = finite(schema.maximum);
  const exclusiveMaximum = finite(schema.exclusiveMaximum);
  const high = lower(maximum === undefined ? undefined : Math.floor(maximum), exclusiveMaximum === undefined ? undefined : Math.ceil(exclusiveMaximum) - 1);
  if (high !== undefined) {
    if (exclusiveMaximum !== undefined) delete schema.exclusiveMaximum;
    schema.maximum = high;
  }
}

function finite(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The higher of two bounds, either of which may be missing. */
function higher(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

function lower(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** A schema whose subschemas are normalized, with the generator conventions applied and its sets tidied. */
function withConventions(schema: JsonObject): JsonObject {
  for (let i = 0; i < GENERATOR_CONVENTIONS.length; i++) GENERATOR_CONVENTIONS[i]!.apply(schema);
  return tidySetKeywords(schema);
}

/** Keywords whose meaning depends on the object's own `properties`: merging parts into it would change them. */
const SCOPED_TO_OWN_PROPERTIES = ['additionalProperties', 'patternProperties', 'unevaluatedProperties'];

/**
 * An intersection of object types (zod `.and()`, TypeScript `&`) written as `allOf` members that
 * each only list properties and required names is one object: merge them into the schema. All
 * or nothing, and only when no two parts describe the same property, so that the same contract
 * written either way meets in one form and a partial merge never makes two notations differ.
 */
function plainObjectParts(schema: JsonObject): void {
  const members = schema.allOf;
  if (!Array.isArray(members) || SCOPED_TO_OWN_PROPERTIES.some((k) => k in schema)) return;
  const isPart = (m: JsonValue) => isJsonObject(m) && Object.keys(m).every((k) => k === 'properties' || k === 'required' || (k === 'type' && m.type === 'object'));
  if (!members.every(isPart) || (schema.type !== undefined && schema.type !== 'object' && members.some((m) => (m as JsonObject).type === 'object'))) return;
  const properties: JsonObject = Object.assign(nameRecord(), isJsonObject(schema.properties) ? schema.properties : {});
  const required = Array.isArray(schema.required) ? [...schema.required] : [];
  for (const member of members as JsonObject[]) {
    for (const [name, property] of Object.entries(isJsonObject(member.properties) ? member.properties : {})) {
      if (Object.hasOwn(properties, name)) return;
      properties[name] = property as JsonValue;
    }
    if (Array.isArray(member.required)) required.push(...member.required);
    if (member.type === 'object') schema.type = 'object';
  }
  delete schema.allOf;
  // A new record: in canonical order like every node the walker built.
  if (Object.keys(properties).length > 0) schema.properties = inCanonicalOrder(properties);
  if (required.length > 0) schema.required = required;
}

/** With `enum` or `const`, a `type` list keeps only the types some listed value has (never none). */
function typeOfListedValues(schema: JsonObject): void {
  if (!Array.isArray(schema.type)) return;
  const values = 'const' in schema ? [schema.const as JsonValue] : Array.isArray(schema.enum) ? schema.enum : undefined;
  if (values === undefined) return;
  const has = new Set(values.map(jsonTypeOf));
  const kept = schema.type.filter((t) => has.has(t as string) || (t === 'number' && has.has('integer')));
  if (kept.length === 0 || kept.length === schema.type.length) return;
  schema.type = kept.length === 1 ? kept[0]! : kept;
}

/**
 * `anyOf`/`oneOf` branches that each only list values (`{const: v}`, `{enum: [...]}`, or either
 * with a `type` every listed value has) become one `enum` branch; when every branch is one, the
 * union becomes the enum itself. A value any branch lists is accepted either way; under `oneOf`
 * a value two branches list is refused, so such a union is left as written.
 */
const CONSTANT_UNIONS = ['anyOf', 'oneOf'] as const;

function constantUnions(schema: JsonObject): void {
  for (let i = 0; i < CONSTANT_UNIONS.length; i++) {
    const keyword = CONSTANT_UNIONS[i]!;
    const branches = schema[keyword];
    if (!Array.isArray(branches) || branches.length < 2) continue;
    const lists = branches.filter(isValueList) as JsonObject[];
    if (lists.length < 2) continue;
    if (keyword === 'oneOf' && sharesAValue(lists)) continue;
    const values = lists.flatMap(listedValues);
    // The type goes with the enum only when every branch declared it (zod 4's `{type, const}`,
    // as zod 3 writes `{type, enum}`); untyped constants make an untyped enum.
    const types = new Set(lists.map((branch) => (typeof branch.type === 'string' ? branch.type : undefined)));
    const merged: JsonObject = nameRecord();
    const [type] = types;
    if (types.size === 1 && type !== undefined) merged.type = type;
    merged.enum = values;
    const rest = branches.filter((branch) => !isValueList(branch));
    const compatible = merged.type === undefined || !('type' in schema) || jsonEqual(schema.type, merged.type);
    if (rest.length === 0 && !('enum' in schema) && !('const' in schema) && compatible) {
      delete schema[keyword];
      if (merged.type !== undefined) schema.type = merged.type;
      schema.enum = values;
    } else {
      // A new node: in canonical order like every node the walker built.
      schema[keyword] = sortByCanonical([...rest, inCanonicalOrder(tidySetKeywords(merged))]);
    }
  }
}

/** A branch that only lists values: `const` or `enum`, and at most a `type` each value has. */
function isValueList(branch: JsonValue): boolean {
  if (!isJsonObject(branch)) return false;
  if (('const' in branch) === Array.isArray(branch.enum)) return false;
  const keys = Object.keys(branch);
  if (keys.length === 1) return true;
  if (keys.length !== 2 || typeof branch.type !== 'string') return false;
  const type = branch.type;
  return listedValues(branch).every((value) => {
    const own = jsonTypeOf(value);
    return own === type || (type === 'number' && own === 'integer');
  });
}

function listedValues(branch: JsonObject): JsonValue[] {
  return 'const' in branch ? [branch.const as JsonValue] : (branch.enum as JsonValue[]);
}

/** Whether two of the lists hold the same value. */
function sharesAValue(lists: JsonObject[]): boolean {
  const seen = new Set<string>();
  for (const list of lists) {
    const own = new Set(listedValues(list).map((value) => canonicalJson(value)));
    for (const value of own) if (seen.has(value)) return true;
    for (const value of own) seen.add(value);
  }
  return false;
}

function jsonTypeOf(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Annotation keywords that may sit beside a `$ref` and be merged into the inlined target. */
const ANNOTATION_KEYWORDS = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

export function normalizeSchema(input: unknown): NormalizedSchema {
  const problems: string[] = [];
  if (typeof input === 'boolean') return { schema: input ? {} : false, problems };
  if (!isJsonObject(input)) {
    problems.push(`schema is ${describe(input)}, not a JSON Schema object`);
    return { schema: {}, problems };
  }
  const dialect = typeof input.$schema === 'string' ? input.$schema : undefined;
  const walker = new SchemaWalker(input, problems);
  const schema = walker.normalizeRoot();
  return dialect === undefined ? { schema, problems } : { schema, dialect, problems };
}

class SchemaWalker {
  // Both maps are made when first needed: most schemas have no `$ref`, and a server has thousands of schemas.
  /** Recursive targets found so far: output `$defs` name → JSON pointer in the input. */
  private recursive: Map<string, string> | undefined;
  /** Each pointer is resolved once, however many `$ref`s name it. */
  private targets: Map<string, unknown> | undefined;

  constructor(
    private readonly root: JsonObject,
    private readonly problems: string[],
  ) {}

  normalizeRoot(): JsonSchema {
    const schema = this.node(this.root, ['#']);
    const recursive = this.recursive;
    if (recursive === undefined || !isJsonObject(schema)) return schema;
    // Emit each recursive target once. Normalizing one may discover another, hence the loop.
    const defs: JsonObject = nameRecord();
    for (let done = 0; done < recursive.size; ) {
      const entries = [...recursive.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
      for (const [name, pointer] of entries) {
        if (name in defs) continue;
        const target = this.resolve(pointer);
        defs[name] = this.node(target as JsonValue, [pointer]);
      }
      done = Object.keys(defs).length;
    }
    return inCanonicalOrder(Object.assign(nameRecord(), schema, { $defs: defs }));
  }

  /** `stack` holds the pointers being inlined on the way here, to detect recursion. */
  private node(value: JsonValue, stack: string[]): JsonSchema {
    if (value === true) return {};
    if (value === false) return false;
    if (!isJsonObject(value)) {
      this.problems.push(`a subschema is ${describe(value)}, not a JSON Schema`);
      return {};
    }
    if (typeof value.$ref === 'string' && value.$ref.startsWith('#')) return this.reference(value, value.$ref, stack);
    return this.keywords(value, stack);
  }

  private reference(value: JsonObject, ref: string, stack: string[]): JsonSchema {
    const pointer = canonicalPointer(ref);
    const siblings: JsonObject = nameRecord();
    let hasSiblings = false;
    for (const key of Object.keys(value)) {
      if (key === '$ref') continue;
      siblings[key] = value[key] as JsonValue;
      hasSiblings = true;
    }
    let target: JsonSchema;
    if (stack.includes(pointer)) {
      target = { $ref: this.placeholderFor(pointer) };
    } else {
      const resolved = this.resolve(pointer);
      if (resolved === undefined) {
        this.problems.push(`$ref "${ref}" does not resolve inside the schema; kept as is`);
        return this.keywords(value, stack);
      }
      target = this.node(resolved as JsonValue, [...stack, pointer]);
    }
    if (!hasSiblings) return target;
    const rest = this.keywords(siblings, stack);
    const onlyAnnotations = Object.keys(siblings).every((k) => ANNOTATION_KEYWORDS.has(k));
    if (onlyAnnotations && isJsonObject(target) && isJsonObject(rest)) {
      const merged = Object.assign(nameRecord(), target, rest);
      if (typeof target.description === 'string' && typeof rest.description === 'string' && target.description !== rest.description) {
        merged[DEFINITION_DESCRIPTION] = target.description;
      }
      return inCanonicalOrder(merged);
    }
    return this.keywords({ allOf: [target, rest] }, stack);
  }

  private resolve(pointer: string): unknown {
    const targets = (this.targets ??= new Map());
    if (!targets.has(pointer)) targets.set(pointer, resolvePointer(this.root, pointer));
    return targets.get(pointer);
  }

  private placeholderFor(pointer: string): string {
    if (pointer === '#') return '#';
    const name = defName(pointer);
    (this.recursive ??= new Map()).set(name, pointer);
    return `#/$defs/${escapePointerToken(name)}`;
  }

  private keywords(value: JsonObject, stack: string[]): JsonSchema {
    // Null-prototype records throughout: a property (or keyword) named `__proto__` is data.
    const out: JsonObject = nameRecord();
    const input = upgradeDraftKeywords(value);
    let pending: Pending = NOTHING;
    // Indexed loops on this path: a for…of allocates an iterator and a result per step until
    // the code is optimized, and one run of the CLI normalizes each node once, mostly unoptimized.
    const keys = sortedKeys(input);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k] as string;
      const child = input[key] as JsonValue;
      const keyword = KEYWORDS.get(key);
      if (keyword === undefined) {
        // Data the schema carries (`default`, `const`, `examples`, extensions…).
        out[key] = withSortedKeys(child) as JsonValue;
        continue;
      }
      const role = keyword.role;
      if (role === 'dropped' || (keyword.noOp !== undefined && child === keyword.noOp)) continue;
      if (role === 'schema map' && isJsonObject(child)) {
        const names = sortedKeys(child);
        if (names.length === 0) continue;
        const map = memberRecord();
        for (let n = 0; n < names.length; n++) map[names[n] as string] = this.node(child[names[n] as string] as JsonValue, stack);
        out[key] = map;
      } else if (role === 'schema') {
        const sub = this.node(child, stack);
        // `additionalProperties: {}`, `items: {}`… accept anything: the same as leaving them out.
        if (keyword.anythingIsNoOp === true && isEmptyObject(sub)) continue;
        out[key] = sub;
      } else if ((role === 'schema list' || role === 'unordered schema list') && Array.isArray(child)) {
        const list = child.map((c) => this.node(c, stack));
        out[key] = role === 'unordered schema list' ? sortByCanonical(list) : list;
      } else {
        // Data in a keyword's place (`enum`, `type`, a malformed `properties`…).
        out[key] = withSortedKeys(child) as JsonValue;
      }
      const needs = typeof keyword.pending === 'function' ? keyword.pending(child) : (keyword.pending ?? NOTHING);
      if (needs > pending) pending = needs;
    }
    // Written in canonical order; only a rewrite can add a keyword out of place (`enum` → `const`).
    if (pending === NOTHING) return out;
    return inCanonicalOrder(pending === CONVENTIONS ? withConventions(out) : tidySetKeywords(out));
  }
}

/**
 * The record of a schema map's members (`properties`…), keyed by the server's own names. Made by
 * `Object.create(null)`, in V8's dictionary layout, unlike a node's record of keywords
 * (`nameRecord`): nodes repeat a few sequences of keywords, whose fast layouts are made once and
 * shared, where each new sequence of a server's property names would make layouts of its own,
 * used once. Measured on Node 20, cold, a 1,000-tool server: normalization about 12% faster;
 * writing the lockfile costs the same.
 */
function memberRecord(): JsonObject {
  return Object.create(null) as JsonObject;
}

/**
 * The record with its keys in canonical order. Nodes are built in that order; only a rewrite
 * that adds a keyword (a convention, `$defs`, a merged `$ref`) can leave one out of place, and
 * then this one node is re-keyed, its values kept.
 */
function inCanonicalOrder(record: JsonObject): JsonObject {
  if (hasSortedKeys(record)) return record;
  const sorted: JsonObject = nameRecord();
  for (const key of sortedKeys(record)) sorted[key] = record[key] as JsonValue;
  return sorted;
}

function isEmptyObject(value: JsonSchema): boolean {
  if (!isJsonObject(value)) return false;
  for (const _ in value) return false;
  return true;
}

/** Rewrite draft-04/06/07 and 2019-09 spellings into their 2020-12 equivalents. */
function upgradeDraftKeywords(value: JsonObject): JsonObject {
  const current =
    !Array.isArray(value.items) &&
    !('additionalItems' in value) &&
    !('dependencies' in value) &&
    typeof value.exclusiveMinimum !== 'boolean' &&
    typeof value.exclusiveMaximum !== 'boolean';
  if (current) return value;
  const out: JsonObject = Object.assign(nameRecord(), value);
  if (Array.isArray(out.items)) {
    out.prefixItems = out.items;
    if ('additionalItems' in out) out.items = out.additionalItems as JsonValue;
    else delete out.items;
    delete out.additionalItems;
  } else {
    // Without an array `items`, `additionalItems` has no effect.
    delete out.additionalItems;
  }
  if (isJsonObject(out.dependencies)) {
    const required: JsonObject = Object.assign(nameRecord(), isJsonObject(out.dependentRequired) ? out.dependentRequired : {});
    const schemas: JsonObject = Object.assign(nameRecord(), isJsonObject(out.dependentSchemas) ? out.dependentSchemas : {});
    for (const [name, dep] of Object.entries(out.dependencies)) {
      if (Array.isArray(dep)) required[name] = dep;
      else schemas[name] = dep as JsonValue;
    }
    delete out.dependencies;
    if (Object.keys(required).length > 0) out.dependentRequired = required;
    if (Object.keys(schemas).length > 0) out.dependentSchemas = schemas;
  }
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound] as number;
      delete out[bound];
    } else {
      delete out[exclusive];
    }
  }
  return out;
}

/** Sort and de-duplicate the keywords whose values are sets. */
function tidySetKeywords(out: JsonObject): JsonObject {
  if (Array.isArray(out.type)) {
    const types = sortedStrings(out.type);
    if (types.length === 1) out.type = types[0] as string;
    else out.type = types;
  }
  if (Array.isArray(out.required)) {
    const required = sortedStrings(out.required);
    if (required.length === 0) delete out.required;
    else out.required = required;
  }
  if (Array.isArray(out.enum)) {
    const values = dedupeByCanonical(out.enum);
    if (values.length === 1 && !('const' in out)) {
      out.const = values[0] as JsonValue;
      delete out.enum;
    } else {
      out.enum = values;
    }
  }
  if (isJsonObject(out.dependentRequired)) {
    for (const [name, deps] of Object.entries(out.dependentRequired)) {
      if (Array.isArray(deps)) out.dependentRequired[name] = sortedStrings(deps);
    }
  }
  return out;
}

/** The strings of a list, sorted, each once; a list that already is (most are) is kept, not copied. */
function sortedStrings(values: JsonValue[]): string[] {
  let tidy = true;
  for (let i = 0; tidy && i < values.length; i++) tidy = typeof values[i] === 'string' && (i === 0 || (values[i - 1] as string) < (values[i] as string));
  if (tidy) return values as string[];
  const strings: string[] = [];
  for (let i = 0; i < values.length; i++) if (typeof values[i] === 'string') strings.push(values[i] as string);
  return withoutRepeats(sortedInPlace(strings));
}

/** A sorted list with each item once: what `[...new Set(list)].sort()` gives, without the copies. */
function withoutRepeats(sorted: string[]): string[] {
  let kept = 0;
  for (let i = 0; i < sorted.length; i++) if (kept === 0 || sorted[i] !== sorted[kept - 1]) sorted[kept++] = sorted[i] as string;
  sorted.length = kept;
  return sorted;
}

/** Normalized schemas sorted by their canonical JSON (which, being normalized, `JSON.stringify` writes). */
function sortByCanonical<T>(values: T[]): T[] {
  return values
    .map((value) => ({ value, key: JSON.stringify(value) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((e) => e.value);
}

function dedupeByCanonical(values: JsonValue[]): JsonValue[] {
  if (values.every(isPlainString)) return inQuotedOrder(values as string[]) ? values : withoutRepeats(sortedInPlace(values.slice() as string[], compareQuoted));
  const seen = new Map<string, JsonValue>();
  for (const value of values) seen.set(canonicalJson(value), value);
  return [...seen.keys()].sort().map((k) => seen.get(k) as JsonValue);
}

/**
 * Most `enum`s list plain strings, which JSON writes without an escape (no quote, backslash,
 * control character or surrogate): their JSON texts are the strings between quotes, so they
 * sort and compare as such (`compareQuoted`) without writing each as JSON.
 */
function isPlainString(value: JsonValue): boolean {
  return typeof value === 'string' && !NEEDS_ESCAPE.test(value);
}

const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Each once, in canonical order already (as many are): kept, not copied. */
function inQuotedOrder(values: string[]): boolean {
  for (let i = 1; i < values.length; i++) if (compareQuoted(values[i - 1] as string, values[i] as string) >= 0) return false;
  return true;
}

/**
 * The order of two plain strings' JSON texts. Where one string is a prefix of the other, the
 * shorter one's closing quote meets the longer one's next character: `"a b"` comes before `"a"`
 * (a space is below the quote), `"a"` before `"ab"`.
 */
function compareQuoted(a: string, b: string): number {
  const shorter = Math.min(a.length, b.length);
  for (let i = 0; i < shorter; i++) {
    const difference = a.charCodeAt(i) - b.charCodeAt(i);
    if (difference !== 0) return difference;
  }
  if (a.length === b.length) return 0;
  return a.length < b.length ? QUOTE - b.charCodeAt(shorter) : a.charCodeAt(shorter) - QUOTE;
}

const QUOTE = 0x22;

/** `#/definitions/X` and `#/$defs/X` name the same thing across dialects. */
function canonicalPointer(ref: string): string {
  if (ref === '#' || ref === '#/') return '#';
  return ref.startsWith('#/definitions/') ? `#/$defs/${ref.slice('#/definitions/'.length)}` : ref;
}

function defName(pointer: string): string {
  const tokens = pointer.slice(2).split('/').map(unescapePointerToken);
  const start = tokens[0] === '$defs' && tokens.length > 1 ? 1 : 0;
  return tokens.slice(start).join('.');
}

export function resolvePointer(root: JsonObject, pointer: string): unknown {
  const tokens = pointerTokens(pointer);
  if (tokens === undefined) return undefined;
  let node: unknown = root;
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    // The input may spell the container either way; try both.
    let next = childOf(node, token);
    if (next === undefined && index === 0 && token === '$defs') next = childOf(node, 'definitions');
    if (next === undefined) return undefined;
    node = next;
  }
  return node;
}

function childOf(node: unknown, token: string): unknown {
  if (Array.isArray(node)) return /^\d+$/.test(token) ? node[Number(token)] : undefined;
  if (isJsonObject(node) && Object.hasOwn(node, token)) return node[token];
  return undefined;
}

function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
