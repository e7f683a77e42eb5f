// Deterministic synthetic MCP servers for benchmarks: tools with realistic nested schemas
// (objects inside arrays inside objects, enums, bounds, patterns, $defs references).

/** A small seeded PRNG (mulberry32), so every run benchmarks the same server. */
export function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['order', 'invoice', 'customer', 'item', 'sku', 'price', 'currency', 'status', 'region', 'note', 'limit', 'cursor', 'address', 'city', 'zip', 'tag', 'owner', 'due', 'total', 'unit'];

function leaf(rand, depth) {
  const pick = Math.floor(rand() * 7);
  const description = `The ${WORDS[Math.floor(rand() * WORDS.length)]} to use.`;
  if (pick === 0) return { type: 'string', minLength: 1, maxLength: 200, description };
  if (pick === 1) return { type: 'integer', minimum: 0, maximum: 10_000, description };
  if (pick === 2) return { type: 'string', enum: ['draft', 'open', 'paid', 'void', 'archived'].slice(0, 2 + Math.floor(rand() * 4)), description };
  if (pick === 3) return { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$', description };
  if (pick === 4) return { type: 'boolean', default: false, description };
  if (pick === 5 && depth < 2) return { type: 'array', items: object(rand, depth + 1, 3), maxItems: 50, description };
  if (depth < 2) return object(rand, depth + 1, 3);
  return { type: 'number', exclusiveMinimum: 0, description };
}

function object(rand, depth, width) {
  const properties = {};
  const count = 2 + Math.floor(rand() * width);
  for (let i = 0; i < count; i++) properties[`${WORDS[Math.floor(rand() * WORDS.length)]}_${i}`] = leaf(rand, depth);
  const names = Object.keys(properties);
  return { type: 'object', properties, required: names.slice(0, Math.ceil(names.length / 2)), additionalProperties: false };
}

/** A tools/list answer of `count` tools, as a server would send it (draft-07, with $defs). */
export function syntheticTools(count, seed = 42) {
  const rand = random(seed);
  const tools = [];
  for (let i = 0; i < count; i++) {
    const inputSchema = object(rand, 0, 5);
    inputSchema.$schema = 'http://json-schema.org/draft-07/schema#';
    inputSchema.definitions = { Money: { type: 'object', properties: { amount: { type: 'number' }, currency: { type: 'string', enum: ['USD', 'EUR'] } }, required: ['amount', 'currency'] } };
    inputSchema.properties.price = { $ref: '#/definitions/Money' };
    tools.push({
      name: `tool_${String(i).padStart(4, '0')}`,
      title: `Tool ${i}`,
      description: `Does thing number ${i} with the ${WORDS[i % WORDS.length]}. Returns a summary.`,
      inputSchema,
      outputSchema: object(rand, 1, 3),
      annotations: { readOnlyHint: i % 3 === 0 },
    });
  }
  return tools;
}

/** The realistic edits a release makes, by name (deterministic). */
export const EDITS = [
  ['optional argument added', (t) => { t.inputSchema.properties.note_x = { type: 'string', maxLength: 500 }; }],
  ['required argument added', (t) => { t.inputSchema.properties.tenant_x = { type: 'string' }; t.inputSchema.required = [...t.inputSchema.required, 'tenant_x']; }],
  ['description reworded', (t) => { t.description = `${t.description} Results are paginated.`; }],
  ['enum value added', (t) => { t.inputSchema.properties.status_x = { type: 'string', enum: ['open', 'paid', 'void'] }; }],
  ['bound tightened', (t) => { t.inputSchema.definitions.Money.properties.amount.maximum = 1000; }],
  ['nested field widened', (t) => { const p = Object.values(t.outputSchema.properties)[0]; if (p) p.description = 'renamed in docs'; t.inputSchema.definitions.Money.properties.currency.enum.push('GBP'); }],
  ['output field added', (t) => { t.outputSchema.properties.etag_x = { type: 'string' }; }],
  ['now destructive', (t) => { t.annotations = { ...t.annotations, destructiveHint: true, readOnlyHint: false }; }],
  ['argument made nullable', (t) => { t.inputSchema.properties.price = { anyOf: [t.inputSchema.properties.price, { type: 'null' }] }; }],
  ['argument removed (required shrinks)', (t) => { const name = Object.keys(t.inputSchema.properties)[0]; delete t.inputSchema.properties[name]; t.inputSchema.required = t.inputSchema.required.filter((r) => r !== name); }],
];

/**
 * A release of a synthetic server: `count` tools before, and after with `changed` of them edited
 * (one in every `count / changed`, the edits taken in turn). `edited` maps each edited tool's
 * name to its edit.
 */
export function syntheticRelease(count, changed) {
  const before = syntheticTools(count);
  const after = structuredClone(before);
  const rand = random(7);
  const edited = new Map();
  for (let i = 0; i < changed; i++) {
    const index = i * (count / changed) + Math.floor(rand() * (count / changed));
    const [name, edit] = EDITS[i % EDITS.length];
    edit(after[index]);
    edited.set(after[index].name, name);
  }
  return { before, after, edited };
}

/**
 * An input schema of unions nested `depth` deep, `width` variants each, with a length bound at
 * every leaf: the shape that makes union pairing exponential when done naively.
 */
export function nestedUnions(depth, width, maxLength) {
  const nest = (level) =>
    level === 0
      ? { type: 'string', maxLength }
      : { anyOf: Array.from({ length: width }, (_, i) => ({ type: 'object', properties: { [`k${i}`]: nest(level - 1) }, required: [`k${i}`] })) };
  return { type: 'object', properties: { x: nest(depth) } };
}
