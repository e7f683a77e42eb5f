/**
 * What each JSON Schema keyword is, as far as classification cares: which ones only
 * annotate (no validator rejects anything because of them), and which instance type an
 * assertion keyword applies to (a `maxLength` on a number schema constrains nothing).
 */
import { nameRecord, type JsonObject } from '../contract/model.js';
import { typesOverlap, type JsonType } from '../protocol/index.js';

export { JSON_TYPES, type JsonType } from '../protocol/index.js';

/** Keywords that never make a validator reject a value. */
export const ANNOTATION_KEYWORDS = new Set([
  'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment',
  '$id', '$anchor', '$dynamicAnchor', 'contentMediaType', 'contentEncoding', 'contentSchema', '$defs',
]);

/** Vendor extensions (`x-…`) are annotations by convention. */
export function isAnnotation(keyword: string): boolean {
  return ANNOTATION_KEYWORDS.has(keyword) || keyword.startsWith('x-');
}

/** Assertion keywords that only constrain values of one type. */
export const KEYWORD_TYPE: Record<string, JsonType> = Object.assign(nameRecord<JsonType>(), {
  minLength: 'string', maxLength: 'string', pattern: 'string', format: 'string',
  minimum: 'number', maximum: 'number', exclusiveMinimum: 'number', exclusiveMaximum: 'number', multipleOf: 'number',
  items: 'array', prefixItems: 'array', minItems: 'array', maxItems: 'array', uniqueItems: 'array',
  contains: 'array', minContains: 'array', maxContains: 'array', unevaluatedItems: 'array',
  properties: 'object', required: 'object', additionalProperties: 'object', patternProperties: 'object',
  minProperties: 'object', maxProperties: 'object', propertyNames: 'object', dependentRequired: 'object',
  dependentSchemas: 'object', unevaluatedProperties: 'object',
});

/** The declared types of a schema, or null when it declares none (any type). */
export function declaredTypes(schema: JsonObject): Set<JsonType> | null {
  const type = schema.type;
  if (typeof type === 'string') return new Set([type as JsonType]);
  if (Array.isArray(type)) return new Set(type.filter((t): t is JsonType => typeof t === 'string') as JsonType[]);
  return null;
}

/** Whether a set of declared types admits values of `type` (`number` admits integers). */
export function admits(types: Set<JsonType> | null, type: JsonType): boolean {
  // Overlap, not inclusion: number keywords apply to integers, and to numbers that are whole.
  return types === null || typesOverlap([type], types);
}

/** True when `keyword` can constrain some value of the schema's declared types. */
export function keywordApplies(keyword: string, types: Set<JsonType> | null): boolean {
  const type = KEYWORD_TYPE[keyword];
  return type === undefined || admits(types, type);
}

/**
 * The same schema restricted to one type: keywords that only apply to other types are
 * dropped. `{type: [string, null], maxLength: 5}` is exactly the union of
 * `{type: string, maxLength: 5}` and `{type: null}`.
 */
export function restrictToType(schema: JsonObject, type: JsonType): JsonObject {
  const out: JsonObject = nameRecord();
  for (const [key, value] of Object.entries(schema)) {
    const only = KEYWORD_TYPE[key];
    if (only !== undefined && !admits(new Set([type]), only)) continue;
    out[key] = value;
  }
  out.type = type;
  return out;
}
