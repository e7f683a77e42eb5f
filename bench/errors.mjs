// How long and how complete the runtime's error is (issue 12), against the bare SDK error:
//   node bench/errors.mjs            print the table
//   node bench/errors.mjs --strict   also exit 1 when a target is missed
//   node bench/errors.mjs --show     also print every case's two errors
// Build first (`npm run build`).
//
// Two sets of breaking changes to a tool's input:
// - real published releases: the reviewed BREAKING input deltas of test/fixtures/real-world/
//   verdicts/ (consecutive versions of published servers), with the artifact the diff writes
//   for the pair;
// - random schema pairs: seeded random tools, each changed by one breaking mutation, diffed.
// For each delta, a call that the old schema accepts and the new one refuses ("old-shaped")
// is searched for among candidate values at the delta's argument. Both errors come from a real
// McpServer (the newest SDK, the devDependency) with the new tools (zod from the published JSON
// Schema), called through a real Client: bare, and with withSelfHealing and the artifact.
//
// A repair fact is what a caller must know to fix that call, by kind of delta (see `factsOf`):
// the argument's name; for a new required argument its type, allowed values, bounds, pattern
// and format; the allowed values of a narrowed enum; the new type, bound or pattern; the name
// of an undeclared argument sent; the new name of a renamed argument or tool; that a tool was
// removed. A fact about an argument counts only on a line about that argument (a `<field>` line
// of the runtime's error; a `… at <path>` line of the SDK's), a fact about the call or the tool
// anywhere in the text. An error is complete when it states all the facts of its delta.
import { readFileSync, readdirSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { normalizeCapture } from '../lib/contract/normalize.js';
import { diffContracts } from '../lib/diff/index.js';
import { argumentLabel, argumentLocationOf, fieldSegments } from '../lib/protocol/index.js';
import { exampleFor, sampleString } from '../lib/runtime/json-schema.js';
import { loadDeltaMap, withSelfHealing } from '../lib/runtime/index.js';
import { printTargets } from './measure.mjs';
import { random } from './synthetic.mjs';

const strict = process.argv.includes('--strict');
const show = process.argv.includes('--show');
const FIXTURES = new URL('../test/fixtures/real-world/', import.meta.url);
const BUDGET = 700;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

// ── the two sets ────────────────────────────────────────────────────────────────────────

/** Consecutive published releases and their reviewed BREAKING input deltas. */
async function realWorldPairs() {
  const pairs = [];
  for (const file of readdirSync(new URL('verdicts/', FIXTURES)).sort()) {
    const verdicts = JSON.parse(readFileSync(new URL(`verdicts/${file}`, FIXTURES), 'utf8'));
    const [before, after] = verdicts.pair.map((name) => JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')));
    const wanted = verdicts.deltas.filter((d) => d.expectedSeverity === 'BREAKING' && d.entry.startsWith('tools/') && !d.field.startsWith('outputSchema'));
    if (wanted.length === 0) continue;
    pairs.push({ name: file.replace(/\.json$/, ''), before, after, wanted: wanted.map((d) => ({ tool: d.entry.slice('tools/'.length), field: d.field, kind: d.expectedKind })) });
  }
  return pairs;
}

const WORDS = ['order', 'currency', 'status', 'region', 'limit', 'owner', 'due', 'total', 'unit', 'label', 'page', 'query'];
const STATUSES = ['draft', 'open', 'paid', 'void', 'archived'];

/** A random leaf schema: the shapes real tools use. */
function leaf(rand) {
  const pick = Math.floor(rand() * 8);
  if (pick === 0) return { type: 'string', minLength: 1, maxLength: 40 };
  if (pick === 1) return { type: 'integer', minimum: 0, maximum: 1000 };
  if (pick === 2) return { type: 'string', enum: STATUSES.slice(0, 3 + Math.floor(rand() * 3)) };
  if (pick === 3) return { type: 'boolean' };
  if (pick === 4) return { type: 'number' };
  if (pick === 5) return { type: 'array', items: { type: 'string' }, maxItems: 10 };
  if (pick === 6) return { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string' } }, required: ['city'] };
  return { type: 'string' };
}

function randomTool(rand, index) {
  const properties = {};
  const count = 2 + Math.floor(rand() * 4);
  for (let i = 0; i < count; i++) properties[`${WORDS[Math.floor(rand() * WORDS.length)]}_${i}`] = leaf(rand);
  const names = Object.keys(properties);
  const inputSchema = { type: 'object', properties, required: names.slice(0, Math.ceil(names.length / 2)) };
  if (rand() < 0.5) inputSchema.additionalProperties = false;
  return { name: `tool_${index}`, description: `Tool ${index}.`, inputSchema };
}

const clone = (value) => structuredClone(value);
const propertiesOf = (tool) => Object.entries(tool.inputSchema.properties);
const pick = (rand, list) => list[Math.floor(rand() * list.length)];

/** Breaking changes to a tool's input, each returning the new tool or undefined when it does not apply. */
const MUTATIONS = [
  function addRequired(tool, rand) {
    const next = clone(tool);
    const name = `new_${WORDS[Math.floor(rand() * WORDS.length)]}`;
    next.inputSchema.properties[name] = pick(rand, [{ type: 'string', enum: ['USD', 'EUR', 'GBP'] }, { type: 'integer', minimum: 1, maximum: 100 }, { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' }, { type: 'string', format: 'email' }, { type: 'boolean' }, { type: 'string', minLength: 3 }]);
    next.inputSchema.required = [...(next.inputSchema.required ?? []), name];
    return next;
  },
  function makeRequired(tool) {
    const optional = propertiesOf(tool).map(([name]) => name).filter((name) => !tool.inputSchema.required.includes(name));
    if (optional.length === 0) return undefined;
    const next = clone(tool);
    next.inputSchema.required.push(optional[0]);
    return next;
  },
  function narrowEnum(tool) {
    const found = propertiesOf(tool).find(([, schema]) => Array.isArray(schema.enum) && schema.enum.length > 2);
    if (found === undefined) return undefined;
    const next = clone(tool);
    next.inputSchema.properties[found[0]].enum = found[1].enum.slice(0, -1);
    return next;
  },
  function tightenNumber(tool, rand) {
    const found = propertiesOf(tool).find(([, schema]) => schema.type === 'integer' || schema.type === 'number');
    if (found === undefined) return undefined;
    const next = clone(tool);
    if (rand() < 0.5) next.inputSchema.properties[found[0]].minimum = 10;
    else next.inputSchema.properties[found[0]].maximum = 50;
    return next;
  },
  function tightenLength(tool) {
    const found = propertiesOf(tool).find(([, schema]) => schema.type === 'string' && schema.enum === undefined && schema.pattern === undefined);
    if (found === undefined) return undefined;
    const next = clone(tool);
    next.inputSchema.properties[found[0]].maxLength = 5;
    return next;
  },
  function addPattern(tool) {
    const found = propertiesOf(tool).find(([, schema]) => schema.type === 'string' && schema.enum === undefined && schema.pattern === undefined);
    if (found === undefined) return undefined;
    const next = clone(tool);
    next.inputSchema.properties[found[0]].pattern = '^[a-z]+-[0-9]+$';
    return next;
  },
  function changeType(tool) {
    const found = propertiesOf(tool).find(([, schema]) => schema.type === 'string' && schema.enum === undefined);
    if (found === undefined) return undefined;
    const next = clone(tool);
    next.inputSchema.properties[found[0]] = { type: 'integer', minimum: 0 };
    return next;
  },
  function forbidAdditional(tool) {
    if (tool.inputSchema.additionalProperties === false) return undefined;
    const next = clone(tool);
    next.inputSchema.additionalProperties = false;
    return next;
  },
  function removeProperty(tool) {
    const optional = propertiesOf(tool).map(([name]) => name).filter((name) => !tool.inputSchema.required.includes(name));
    if (optional.length === 0) return undefined;
    const next = clone(tool);
    delete next.inputSchema.properties[optional[0]];
    next.inputSchema.additionalProperties = false;
    return next;
  },
  function renameProperty(tool) {
    const [name, schema] = propertiesOf(tool)[0];
    const next = clone(tool);
    delete next.inputSchema.properties[name];
    next.inputSchema.properties[`${name}_id`] = schema;
    next.inputSchema.required = next.inputSchema.required.map((n) => (n === name ? `${name}_id` : n));
    if (!next.inputSchema.required.includes(`${name}_id`)) next.inputSchema.required.push(`${name}_id`);
    next.inputSchema.additionalProperties = false;
    return next;
  },
  function renameTool(tool) {
    return { ...clone(tool), name: `${tool.name}_v2` };
  },
  function nestedRequired(tool) {
    const found = propertiesOf(tool).find(([, schema]) => schema.type === 'object' && schema.properties?.zip !== undefined);
    if (found === undefined) return undefined;
    const next = clone(tool);
    next.inputSchema.properties[found[0]].required = ['city', 'zip'];
    next.inputSchema.properties[found[0]].properties.zip = { type: 'string', pattern: '^\\d{5}$' };
    return next;
  },
];

function randomPairs(count, seed = 12) {
  const rand = random(seed);
  const pairs = [];
  for (let i = 0; pairs.length < count && i < count * 20; i++) {
    const tool = randomTool(rand, i);
    const mutation = MUTATIONS[i % MUTATIONS.length];
    const changed = mutation(tool, rand);
    if (changed === undefined) continue;
    const dump = (tools, version) => ({ server: { name: 'random', version }, tools, prompts: [], resources: [], resourceTemplates: [] });
    pairs.push({ name: `${mutation.name} #${i}`, before: dump([tool], '1'), after: dump([changed], '2'), wanted: undefined });
  }
  return pairs;
}

// ── cases: a delta and an old-shaped call the new release refuses ──────────────────────────

const contractsOf = (dump) => normalizeCapture(dump).contracts;

/** Every case of a pair: the deltas wanted (or every BREAKING input delta), each with a call. */
async function casesOf(pair) {
  const report = await diffContracts(contractsOf(pair.before), contractsOf(pair.after));
  const engine = Object.entries(report.tools).flatMap(([tool, entry]) => entry.deltas.map((delta) => ({ tool, delta })));
  const wanted =
    pair.wanted ??
    engine
      .filter(({ delta }) => delta.severity === 'BREAKING' && (delta.direction === 'input' || delta.kind === 'tool-renamed' || delta.kind === 'tool-removed'))
      .map(({ tool, delta }) => ({ tool, field: delta.field, kind: delta.kind }));
  const oldTools = new Map(pair.before.tools.map((tool) => [tool.name, tool]));
  const newTools = new Map(pair.after.tools.map((tool) => [tool.name, tool]));
  const cases = [];
  for (const want of wanted) {
    // A tool renamed in the same release is found under its old name in the old dump.
    const renamedFrom = engine.find(({ tool, delta }) => tool === want.tool && delta.kind === 'tool-renamed')?.delta.renamedFrom;
    const oldName = renamedFrom ?? want.tool;
    const oldTool = oldTools.get(oldName);
    const newTool = newTools.get(want.tool);
    const call = oldTool === undefined ? undefined : oldShapedCall(want, oldTool, newTool);
    cases.push({ pair: pair.name, ...want, oldName, newTool, call, facts: call === undefined ? [] : factsOf(want, newTool, oldTool, call) });
  }
  return { report, cases };
}

function zodOf(schema) {
  try {
    return z.fromJSONSchema(schema);
  } catch {
    return undefined;
  }
}

function accepts(schema, args) {
  return zodOf(schema)?.safeParse(args).success === true;
}

/** The value at the end of `segments` in a raw schema (for a delta's field), or undefined. */
function walk(value, segments) {
  let node = value;
  for (const segment of segments) {
    if (node === null || typeof node !== 'object') return undefined;
    node = node[segment];
  }
  return node;
}

function subschema(root, path) {
  let schema = root;
  for (const segment of path) {
    if (schema === undefined) return undefined;
    if (segment === '[]') schema = schema.items;
    else schema = schema.properties?.[segment] ?? (Array.isArray(schema.anyOf) ? schema.anyOf.map((b) => b.properties?.[segment]).find(Boolean) : undefined);
  }
  return schema;
}

function setAt(args, path, value, schema) {
  const copy = clone(args);
  let node = copy;
  let sub = schema;
  for (let i = 0; i < path.length - 1; i++) {
    const segment = path[i];
    sub = segment === '[]' ? sub?.items : sub?.properties?.[segment];
    const key = segment === '[]' ? 0 : segment;
    if (node[key] === null || typeof node[key] !== 'object') {
      const example = sub === undefined ? undefined : exampleFor(schema, sub, undefined)?.value;
      node[key] = path[i + 1] === '[]' ? (Array.isArray(example) ? example : []) : example !== null && typeof example === 'object' && !Array.isArray(example) ? example : {};
    }
    node = node[key];
  }
  const last = path.at(-1);
  node[last === '[]' ? 0 : last] = value;
  return copy;
}

/** Values worth trying at an argument: around every bound, the old enum, samples, every type. */
function candidates(oldSub, newSub) {
  const out = [];
  for (const schema of [oldSub, newSub]) {
    if (schema === undefined) continue;
    if (Array.isArray(schema.enum)) out.push(...schema.enum);
    if ('const' in schema) out.push(schema.const);
    for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
      if (typeof schema[key] === 'number' && Math.abs(schema[key]) < MAX_SAFE) out.push(schema[key] - 1, schema[key] - 0.5, schema[key], schema[key] + 0.5, schema[key] + 1);
    }
    for (const key of ['minLength', 'maxLength']) if (typeof schema[key] === 'number') out.push('x'.repeat(Math.max(0, schema[key] - 1)), 'x'.repeat(schema[key] + 1));
    if (Array.isArray(schema.anyOf)) for (const branch of schema.anyOf) out.push(...candidates(branch, undefined));
  }
  const sample = oldSub === undefined ? undefined : sampleString(oldSub);
  if (sample !== undefined) out.push(sample, sample.toLowerCase(), sample.toUpperCase());
  out.push('example', 'abc', 'ABC', '', 'a-1', 1, 0, -1, 2.5, 1000, true, null, {}, [], ['example'], 'd', 'pd', '2024-01-01to2024-02-01');
  return out;
}

/**
 * A call the old tool accepts and the new one refuses because of `want` (the same call with a
 * value the new schema accepts at the delta's argument goes through); undefined when none is
 * found. It starts from a minimal valid call of both versions where one exists, so a release
 * with several changes refuses it for the one measured.
 */
function oldShapedCall(want, oldTool, newTool) {
  const oldRoot = oldTool.inputSchema;
  const oldBase = exampleFor(oldRoot, oldRoot, undefined)?.value ?? {};
  if (want.kind === 'tool-renamed' || want.kind === 'tool-removed') return accepts(oldRoot, oldBase) ? { name: oldTool.name, args: oldBase } : undefined;
  if (newTool === undefined) return undefined;
  const newRoot = newTool.inputSchema;
  const newBase = exampleFor(newRoot, newRoot, undefined)?.value ?? {};
  const bases = [{ ...newBase, ...oldBase }, oldBase].filter((base) => accepts(oldRoot, base));
  const refused = (args) => accepts(oldRoot, args) && !accepts(newRoot, args);
  const location = argumentLocationOf(want.field);
  if (location === undefined) return undefined;
  const path = location.path.filter((segment) => segment !== '*');
  for (const base of bases) {
    if (want.kind === 'required-property-added' || want.kind === 'property-became-required') {
      const args = clone(base);
      delete args[path[0]];
      if (path.length === 1 && refused(args)) return { name: newTool.name, args };
      continue;
    }
    if (want.kind === 'additional-properties-forbidden') {
      const args = setAt(base, [...path, 'extra_field'], 'value', oldRoot);
      if (refused(args)) return { name: newTool.name, args, extraKey: [...path, 'extra_field'] };
      continue;
    }
    const oldSub = subschema(oldRoot, path);
    const newSub = subschema(newRoot, path);
    const fine = newSub === undefined ? undefined : exampleFor(newRoot, newSub, undefined);
    const becauseOfPath = (args) => fine === undefined || want.kind === 'property-removed' || want.kind === 'property-renamed' || accepts(newRoot, setAt(args, path, fine.value, newRoot));
    const tries = want.kind === 'property-removed' || want.kind === 'property-renamed' ? [exampleFor(oldRoot, oldSub, undefined)?.value ?? 'value', ...candidates(oldSub, undefined)] : candidates(oldSub, newSub);
    for (const value of tries) {
      const args = setAt(base, path, value, oldRoot);
      if (refused(args) && becauseOfPath(args)) return { name: newTool.name, args };
    }
  }
  return undefined;
}

// ── repair facts ──────────────────────────────────────────────────────────────────────────

const TYPE_WORDS = { integer: /\b(?:integer|int)\b/, number: /\bnumber\b/, string: /\bstring\b/, boolean: /\bboolean\b/, array: /\barray\b/, object: /\bobject\b/ };
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A name as a whole word; a number not inside another (5 is not in 1.5 or 50). */
const literal = (text) => new RegExp(`(?<![\\w])${escapeRegExp(text)}(?![\\w])`);
const numeral = (value) => new RegExp(`(?<![\\d.])${escapeRegExp(String(value))}(?![\\d])`);

/** The facts of a case: `{ what, about, test }`, `about` an argument label (its lines) or null (anywhere). */
function factsOf(want, newTool, oldTool, call) {
  const facts = [];
  const add = (what, about, pattern) => facts.push({ what, about, test: (text) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) });
  if (want.kind === 'tool-renamed') return (add('new tool name', null, literal(newTool.name)), facts);
  if (want.kind === 'tool-removed') return (add('tool removed', null, /\bremoved\b|\bnot found\b|does not exist/), facts);
  const location = argumentLocationOf(want.field);
  const label = argumentLabel(location.path);
  const name = location.path.at(-1);
  const newRoot = newTool.inputSchema;
  if (want.kind === 'additional-properties-forbidden') return (add('undeclared argument named', null, literal(call.extraKey.at(-1))), facts);
  if (want.kind === 'property-removed') return (add('removed argument named', null, literal(name)), facts);
  if (want.kind === 'property-renamed') {
    const renamed = renamedTo(oldTool, newTool, name);
    if (renamed !== undefined) add('new argument name', null, literal(renamed));
    return facts;
  }
  const schema = subschema(newRoot, location.path);
  const segments = fieldSegments(want.field);
  const at = walk(newTool, segments);
  add('argument named', label, '');
  switch (want.kind) {
    case 'required-property-added':
    case 'property-became-required':
      for (const fact of schemaFacts(schema)) add(fact.what, label, fact.pattern);
      break;
    case 'enum-narrowed':
    case 'enum-changed':
      for (const value of (Array.isArray(at) ? at : at === undefined ? [] : [at]).slice(0, 20)) add('allowed value', label, JSON.stringify(value));
      break;
    case 'type-narrowed':
    case 'type-changed':
      for (const type of [at].flat().filter((t) => t !== 'null')) add('type', label, TYPE_WORDS[type] ?? literal(type));
      break;
    case 'number-range-narrowed':
    case 'length-range-narrowed':
      if (typeof at === 'number' && Math.abs(at) < MAX_SAFE) add('bound', label, numeral(at));
      break;
    case 'pattern-added':
    case 'pattern-changed':
      if (typeof at === 'string') add('pattern', label, at);
      break;
    default:
      break;
  }
  return facts;
}

/** The facts a schema states: type (an enum's too), allowed values, bounds, pattern, format. */
function schemaFacts(schema) {
  if (schema === undefined) return [];
  const facts = [];
  const types = [schema.type ?? (Array.isArray(schema.enum) ? [...new Set(schema.enum.map((v) => (Number.isInteger(v) ? 'integer' : typeof v)))] : [])].flat().filter((t) => t !== 'null');
  for (const type of types) facts.push({ what: 'type', pattern: TYPE_WORDS[type] ?? literal(type) });
  for (const value of (schema.enum ?? []).slice(0, 20)) facts.push({ what: 'allowed value', pattern: JSON.stringify(value) });
  if ('const' in schema) facts.push({ what: 'allowed value', pattern: JSON.stringify(schema.const) });
  for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems']) {
    if (typeof schema[key] === 'number' && Math.abs(schema[key]) < MAX_SAFE) facts.push({ what: 'bound', pattern: numeral(schema[key]) });
  }
  if (typeof schema.format === 'string') facts.push({ what: 'format', pattern: schema.format });
  else if (typeof schema.pattern === 'string') facts.push({ what: 'pattern', pattern: schema.pattern });
  return facts;
}

/** The name a property has in the new tool when the same schema moved to a new name. */
function renamedTo(oldTool, newTool, name) {
  const plain = (schema) => JSON.stringify(schema, (key, value) => (key === 'title' || key === 'description' ? undefined : value));
  const before = plain(oldTool.inputSchema.properties?.[name]);
  return Object.entries(newTool.inputSchema.properties ?? {}).find(([key, schema]) => !(key in (oldTool.inputSchema.properties ?? {})) && plain(schema) === before)?.[0];
}

const ENTITIES = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&amp;': '&' };
const unescape = (text) => text.replace(/&(?:lt|gt|quot|apos|amp);/g, (entity) => ENTITIES[entity]);

/** The lines of an error about argument `label`: its `<field>` lines, or the SDK's `… at label` lines. */
function linesAbout(text, label) {
  const fields = [...text.matchAll(/<field name="([^"]*)">([^<]*)<\/field>/g)].filter((m) => unescape(m[1]).replace(/\[\d+\]/g, '[]') === label).map((m) => unescape(m[2]));
  if (fields.length > 0) return fields;
  return text.split('\n').filter((line) => line.replace(/\[\d+\]/g, '[]').endsWith(` at ${label}`));
}

function missingFacts(facts, text) {
  return facts.filter((fact) => {
    if (fact.about === null) return !fact.test(unescape(text));
    const lines = linesAbout(text, fact.about);
    return lines.length === 0 || !lines.some((line) => fact.test(line));
  });
}

// ── the servers ───────────────────────────────────────────────────────────────────────────

async function serve(dump, artifact) {
  const server = new McpServer({ name: dump.server.name, version: dump.server.version ?? '0' });
  for (const tool of dump.tools) {
    const schema = zodOf(tool.inputSchema) ?? z.object({}).passthrough();
    server.registerTool(tool.name, { description: tool.description, inputSchema: schema }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
  }
  if (artifact !== undefined) withSelfHealing(server, { deltas: artifact });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '1' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      return result.isError === true ? result.content.map((part) => part.text ?? '').join('\n') : undefined;
    },
    close: () => client.close(),
  };
}

async function measureSet(pairs) {
  const rows = [];
  const notRefused = [];
  for (const pair of pairs) {
    const { report, cases } = await casesOf(pair);
    const bare = await serve(pair.after);
    const healed = await serve(pair.after, loadDeltaMap(report));
    for (const one of cases) {
      const bareText = one.call === undefined ? undefined : await bare.call(one.call.name, one.call.args);
      const healedText = one.call === undefined ? undefined : await healed.call(one.call.name, one.call.args);
      if (bareText === undefined || healedText === undefined) {
        notRefused.push(`${one.pair} ${one.tool} ${one.kind} ${one.field}`);
        continue;
      }
      const row = { ...one, bare: bareText, healed: healedText, bareMissing: missingFacts(one.facts, bareText), healedMissing: missingFacts(one.facts, healedText) };
      rows.push(row);
      if (show) console.log(`\n=== ${one.pair} ${one.tool} ${one.kind} ${one.field} ${JSON.stringify(one.call.args)}\n--- bare (${bareText.length})\n${bareText}\n--- enriched (${healedText.length})\n${healedText}`);
    }
    await bare.close();
    await healed.close();
  }
  return { rows, notRefused };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
}

function summary(label, { rows, notRefused }) {
  const facts = rows.reduce((sum, row) => sum + row.facts.length, 0);
  const stated = (key) => rows.reduce((sum, row) => sum + row.facts.length - row[key].length, 0);
  const complete = (key) => rows.filter((row) => row[key].length === 0).length;
  const bareMedian = median(rows.map((row) => row.bare.length));
  const healedMedian = median(rows.map((row) => row.healed.length));
  return {
    rows: [
      [`${label}: breaking changes measured (no old-shaped call refused: ${notRefused.length})`, String(rows.length), '', ''],
      [`${label}: median length, bare SDK error`, `${bareMedian} chars`, '(reference)', ''],
      [`${label}: median length, enriched error`, `${healedMedian} chars`, `≤ ${BUDGET}`, healedMedian <= BUDGET],
      [`${label}: complete errors, bare SDK error`, `${complete('bareMissing')}/${rows.length} (facts ${stated('bareMissing')}/${facts})`, '(reference)', ''],
      [`${label}: complete errors, enriched error`, `${complete('healedMissing')}/${rows.length} (facts ${stated('healedMissing')}/${facts})`, `${rows.length}/${rows.length}`, complete('healedMissing') === rows.length],
    ],
    misses: [
      ...rows.filter((row) => row.healedMissing.length > 0).map((row) => `incomplete: ${label}: ${row.pair} ${row.tool} ${row.kind} ${row.field}: missing ${row.healedMissing.map((f) => f.what).join(', ')}`),
      ...notRefused.map((text) => `not measured (no old-shaped call the new release refuses): ${label}: ${text}`),
    ],
  };
}

const real = summary('real releases', await measureSet(await realWorldPairs()));
const synthetic = summary('random pairs', await measureSet(randomPairs(60)));
printTargets('Runtime error: length and repair-fact completeness, enriched vs the bare SDK error (McpServer, SDK devDependency)', [...real.rows, ...synthetic.rows], { strict });
for (const miss of [...real.misses, ...synthetic.misses]) console.log(`  ${miss}`);
