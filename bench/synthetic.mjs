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
