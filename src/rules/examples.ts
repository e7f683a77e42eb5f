/**
 * The building blocks of the rules' examples: a weather tool most tool examples change one thing
 * in, a code-review prompt, a README resource, an action-discriminated union. Small on purpose:
 * each example is the smallest realistic change that makes the diff report its rule.
 */
import type { JsonObject } from '../contract/model.js';
import type { EntryExample, SchemaExample, SchemaExamples } from './rule.js';

/** An object schema with these properties (and these required). */
export function object(properties: JsonObject, required: string[] = []): JsonObject {
  return required.length === 0 ? { type: 'object', properties } : { type: 'object', properties, required };
}

/** The same pair read both ways: as arguments and as a result. */
export function both(example: SchemaExample): SchemaExamples {
  return { input: example, output: example };
}

/** A tool most entry examples change one thing in. */
export const forecast = (extra: JsonObject = {}): JsonObject => ({
  name: 'get_forecast',
  description: 'Weather forecast for a city.',
  inputSchema: object({ city: { type: 'string' } }, ['city']),
  ...extra,
});

/** The forecast tool with its `annotations` going from one value to another. */
export const annotated = (shows: string, from: JsonObject, to: JsonObject): EntryExample => ({
  shows,
  previous: { tools: [forecast({ annotations: from })] },
  current: { tools: [forecast({ annotations: to })] },
});

/** The forecast tool with its `execution` going from one value to another. */
export const executed = (shows: string, from: JsonObject, to: JsonObject): EntryExample => ({
  shows,
  previous: { tools: [forecast({ execution: from })] },
  current: { tools: [forecast({ execution: to })] },
});

export const review = (args: JsonObject[], name = 'code_review'): JsonObject => ({ name, description: 'Review a piece of code.', arguments: args });
export const readme: JsonObject = { uri: 'file:///README.md', name: 'README', mimeType: 'text/markdown' };
export const fileTemplate: JsonObject = { uriTemplate: 'file:///{path}', name: 'file' };

/** One branch of a tool's `action`-discriminated union. */
export const action = (name: string, fields: JsonObject): JsonObject => object({ action: { const: name }, ...fields }, ['action', ...Object.keys(fields)]);
export const create = action('create', { name: { type: 'string' } });
export const archive = action('archive', { id: { type: 'string' } });
export const remove = action('delete', { id: { type: 'string' } });

/** Why the cross-check's kinds exist in one direction only. */
export const ONE_SIDED_CROSS_CHECK =
  'the cross-check asks json-schema-diff only for what can hurt: values lost in an inputSchema (callers refused), values gained in an outputSchema (consumers surprised); the other way is never asked';

