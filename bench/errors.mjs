// What an agent calibrated on the old contract gets from the new release (issues 12 and 22):
//   node bench/errors.mjs            print the tables
//   node bench/errors.mjs --strict   also exit 1 when a target is missed
//   node bench/errors.mjs --show     also print every case's answers
// Build first (`npm run build`).
//
// Two sets of changes to a tool's input:
// - real published releases: the reviewed input deltas of test/fixtures/real-world/verdicts/
//   (consecutive versions of published servers) that break an old-shaped call or can drop part
//   of one without a word (BREAKING ones, renamed tools and arguments, arguments removed or no
//   longer declared), with the artifact the diff writes for the pair;
// - random schema pairs: seeded random tools, each changed by one mutation (breaking ones, and a
//   renamed or removed *optional* argument, which the SDK accepts and drops), diffed.
// For each delta an old-shaped call is built: one the old schema accepts that uses what the
// delta changed (a value the new schema refuses, the old name of a renamed argument or tool, a
// removed argument). It is made against a real McpServer (the newest SDK, the devDependency)
// with the new tools (zod from the published JSON Schema), through a real Client, three ways:
// bare; with withSelfHealing and the artifact (`explain`, the default); and with
// `renames: 'route'` within the deprecation window. Every handler records what it was given.
//
// Each call is classified by what happened:
// - served: the handler ran with the arguments the agent meant (under the new names);
// - explained: the call was refused with every repair fact of its delta (see `factsOf`), or ran
//   with a notice naming what was ignored (a removed argument, in `route`);
// - refused without every fact: an error the agent can act on, but not completely;
// - silently wrong: the handler ran without what the agent meant, and nothing said so.
//
// A repair fact is what a caller must know to fix that call, by kind of delta: the argument's
// name; for a new required argument its type, allowed values, bounds, pattern and format; the
// allowed values of a narrowed enum; the new type, bound or pattern; the name of an undeclared
// argument sent; the new name of a renamed argument or tool; that an argument or tool was
// removed. A fact about an argument counts only on a line about that argument (a `<field>` line
// of the runtime's error; a `… at <path>` line of the SDK's), a fact about the call or the tool
// anywhere in the text. The second table compares, on the calls both refuse, the length and the
// completeness of the bare SDK error and of the runtime's.
import { readFileSync, readdirSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
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
    const wanted = verdicts.deltas.filter((d) => d.entry.startsWith('tools/') && !d.field.startsWith('outputSchema') && (d.expectedSeverity === 'BREAKING' || DROPPING.has(d.expectedKind)));
    if (wanted.length === 0) continue;
    pairs.push({ name: file.replace(/\.json$/, ''), before, after, wanted: wanted.map((d) => ({ tool: d.entry.slice('tools/'.length), field: d.field, kind: d.expectedKind })) });
  }
  return pairs;
}

/** Kinds that can drop part of an old-shaped call without an error: measured whatever their severity. */
const DROPPING = new Set(['property-renamed', 'property-removed', 'property-removed-ignored', 'tool-renamed']);
const RENAMES = new Set(['property-renamed', 'tool-renamed']);
const REMOVALS = new Set(['property-removed', 'property-removed-ignored']);

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
  // An optional argument renamed in an object that does not forbid others: the SDK accepts the
  // old name and drops it (the @playwright/mcp `ref` → `target` case).
  function renameOptional(tool) {
    const optional = propertiesOf(tool).filter(([name]) => !tool.inputSchema.required.includes(name));
    if (optional.length === 0 || tool.inputSchema.additionalProperties === false) return undefined;
    const [name, schema] = optional[0];
    const next = clone(tool);
    delete next.inputSchema.properties[name];
    next.inputSchema.properties[`${name}_new`] = schema;
    return next;
  },
  // An optional argument removed from an open object: accepted and dropped.
  function removeOptional(tool) {
    const optional = propertiesOf(tool).map(([name]) => name).filter((name) => !tool.inputSchema.required.includes(name));
    if (optional.length === 0 || tool.inputSchema.additionalProperties === false) return undefined;
    const next = clone(tool);
    delete next.inputSchema.properties[optional[0]];
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

/** The artifact's release: the routed calls are made a month after it, inside the deprecation window. */
const RELEASE = { version: '2.0.0', date: '2025-06-01' };
const WITHIN_WINDOW = () => Date.parse('2025-07-01T12:00:00Z');

/** Every case of a pair: the deltas wanted (or every BREAKING or dropping input delta), each with a call. */
async function casesOf(pair) {
  const report = await diffContracts(contractsOf(pair.before), contractsOf(pair.after), { release: RELEASE });
  const engine = Object.entries(report.tools).flatMap(([tool, entry]) => entry.deltas.map((delta) => ({ tool, delta })));
  const wanted =
    pair.wanted ??
    engine
      .filter(({ delta }) => (delta.severity === 'BREAKING' && (delta.direction === 'input' || delta.kind === 'tool-renamed' || delta.kind === 'tool-removed')) || (DROPPING.has(delta.kind) && delta.direction !== 'output'))
      .map(({ tool, delta }) => ({ tool, field: delta.field, kind: delta.kind }));
  const oldTools = new Map(pair.before.tools.map((tool) => [tool.name, tool]));
  const newTools = new Map(pair.after.tools.map((tool) => [tool.name, tool]));
  const cases = [];
  for (const want of wanted) {
    const delta = engine.find(({ tool, delta }) => tool === want.tool && delta.field === want.field && delta.kind === want.kind)?.delta;
    // A tool renamed in the same release is found under its old name in the old dump.
    const renamedFrom = engine.find(({ tool, delta }) => tool === want.tool && delta.kind === 'tool-renamed')?.delta.renamedFrom;
    const oldName = renamedFrom ?? want.tool;
    const oldTool = oldTools.get(oldName);
    const newTool = newTools.get(want.tool);
    const renames = engine.filter(({ tool, delta }) => tool === want.tool && delta.kind === 'property-renamed').map(({ delta }) => delta);
    const call = oldTool === undefined ? undefined : oldShapedCall(want, delta, oldTool, newTool, renames);
    cases.push({ pair: pair.name, ...want, oldName, newTool, call, facts: call === undefined ? [] : factsOf(want, delta, newTool, oldTool, call) });
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

/** `args` with every member the property renames `renames` retired moved to its new name, at any depth. */
function renamedAll(args, renames) {
  const copy = clone(args);
  for (const delta of renames) {
    const path = argumentLocationOf(delta.field).path;
    const visit = (node, depth) => {
      if (node === null || typeof node !== 'object') return;
      if (depth === path.length - 1) {
        if (!Array.isArray(node) && Object.hasOwn(node, delta.previous)) {
          node[delta.current] = node[delta.previous];
          delete node[delta.previous];
        }
        return;
      }
      const segment = path[depth];
      if (segment === '[]') for (const item of Array.isArray(node) ? node : []) visit(item, depth + 1);
      else visit(node[segment], depth + 1);
    };
    visit(copy, 0);
  }
  return copy;
}

/**
 * An old-shaped call for `want`, with the call its agent meant (`intended`: under the new names;
 * for a removed argument the call as sent, which no release can serve any more): for a renamed
 * or removed argument, a minimal valid call of the old tool sending it; for a renamed or removed
 * tool, a minimal valid call of the old one; else a call the old tool accepts and the new one
 * refuses because of `want` (the same call with a value the new schema accepts at the delta's
 * argument goes through). Undefined when none is found. It starts from a minimal valid call of
 * both versions where one exists, so a release with several changes refuses it for the one measured.
 */
function oldShapedCall(want, delta, oldTool, newTool, renames = []) {
  const oldRoot = oldTool.inputSchema;
  const oldBase = exampleFor(oldRoot, oldRoot, undefined)?.value ?? {};
  if (want.kind === 'tool-renamed' || want.kind === 'tool-removed') {
    return accepts(oldRoot, oldBase) ? { name: oldTool.name, args: oldBase, intended: { name: newTool?.name ?? oldTool.name, args: oldBase } } : undefined;
  }
  if (newTool === undefined) return undefined;
  const newRoot = newTool.inputSchema;
  const newBase = exampleFor(newRoot, newRoot, undefined)?.value ?? {};
  const location = argumentLocationOf(want.field);
  if (location === undefined) return undefined;
  const path = location.path.filter((segment) => segment !== '*');
  if (want.kind === 'property-renamed' || REMOVALS.has(want.kind)) {
    const renamed = want.kind === 'property-renamed' && typeof delta?.previous === 'string' ? { from: delta.previous, to: delta.current } : undefined;
    if (want.kind === 'property-renamed' && renamed === undefined) return undefined;
    const oldPath = renamed === undefined ? path : [...path.slice(0, -1), renamed.from];
    const newPath = renamed === undefined ? path : [...path.slice(0, -1), renamed.to];
    const value = exampleFor(oldRoot, subschema(oldRoot, oldPath), undefined)?.value ?? 'value';
    // Only what the old tool takes: the agent does not know the new names.
    for (const base of [oldBase]) {
      const args = setAt(base, oldPath, value, oldRoot);
      if (!accepts(oldRoot, args)) continue;
      // Meant under every new name: the other arguments of the tool this call uses that were renamed too.
      const intended = renamed === undefined ? args : renamedAll(args, renames);
      return { name: newTool.name, args, intended: { name: newTool.name, args: intended }, ...(renamed === undefined ? { removed: path.at(-1) } : {}) };
    }
    return undefined;
  }
  const bases = [{ ...newBase, ...oldBase }, oldBase].filter((base) => accepts(oldRoot, base));
  const refused = (args) => accepts(oldRoot, args) && !accepts(newRoot, args);
  const shaped = (args, extra = {}) => ({ name: newTool.name, args, intended: { name: newTool.name, args }, ...extra });
  for (const base of bases) {
    if (want.kind === 'required-property-added' || want.kind === 'property-became-required') {
      const args = clone(base);
      delete args[path[0]];
      if (path.length === 1 && refused(args)) return shaped(args);
      continue;
    }
    if (want.kind === 'additional-properties-forbidden') {
      const args = setAt(base, [...path, 'extra_field'], 'value', oldRoot);
      if (refused(args)) return shaped(args, { extraKey: [...path, 'extra_field'] });
      continue;
    }
    const oldSub = subschema(oldRoot, path);
    const newSub = subschema(newRoot, path);
    const fine = newSub === undefined ? undefined : exampleFor(newRoot, newSub, undefined);
    const becauseOfPath = (args) => fine === undefined || accepts(newRoot, setAt(args, path, fine.value, newRoot));
    for (const value of candidates(oldSub, newSub)) {
      const args = setAt(base, path, value, oldRoot);
      if (refused(args) && becauseOfPath(args)) return shaped(args);
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
function factsOf(want, delta, newTool, oldTool, call) {
  const facts = [];
  const add = (what, about, pattern) => facts.push({ what, about, test: (text) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) });
  if (want.kind === 'tool-renamed') return (add('new tool name', null, literal(newTool.name)), facts);
  if (want.kind === 'tool-removed') return (add('tool removed', null, /\bremoved\b|\bnot found\b|does not exist/), facts);
  const location = argumentLocationOf(want.field);
  const label = argumentLabel(location.path);
  const name = location.path.at(-1);
  const newRoot = newTool.inputSchema;
  if (want.kind === 'additional-properties-forbidden') return (add('undeclared argument named', null, literal(call.extraKey.at(-1))), facts);
  if (REMOVALS.has(want.kind)) return (add('removed argument named', null, literal(name)), facts);
  if (want.kind === 'property-renamed') return (add('new argument name', null, literal(String(delta?.current))), facts);
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

/**
 * `args` as a zod-authored tool receives them: the schema's defaults filled in, and the members
 * an object does not declare dropped (zod's objects strip them; the converted schema below
 * passes them through, as JSON Schema's default reads).
 */
function asReceived(schema, args) {
  const parsed = zodOf(schema)?.safeParse(args);
  return stripUndeclared(schema, parsed?.success ? parsed.data : args);
}

function stripUndeclared(schema, value) {
  if (schema === null || typeof schema !== 'object') return value;
  if (Array.isArray(value)) return schema.items === undefined || Array.isArray(schema.items) ? value : value.map((item) => stripUndeclared(schema.items, item));
  if (value === null || typeof value !== 'object') return value;
  const properties = schema.properties ?? {};
  const open = (schema.additionalProperties !== undefined && schema.additionalProperties !== false) || schema.patternProperties !== undefined || ['anyOf', 'oneOf', 'allOf'].some((k) => schema[k] !== undefined);
  const out = {};
  for (const [key, child] of Object.entries(value)) {
    if (Object.hasOwn(properties, key)) out[key] = stripUndeclared(properties[key], child);
    else if (open) out[key] = child;
  }
  return out;
}

/**
 * A release-2 server, bare or with `healing` options: it lists the published tools as they are,
 * validates with zod converted from them, and each handler records what it was given (as a
 * zod-authored tool gets it, see `asReceived`).
 */
async function serve(dump, healing) {
  const server = new McpServer({ name: dump.server.name, version: dump.server.version ?? '0' });
  const seen = [];
  for (const tool of dump.tools) {
    const schema = zodOf(tool.inputSchema) ?? z.object({}).passthrough();
    server.registerTool(tool.name, { description: tool.description, inputSchema: schema }, async (args) => {
      seen.push({ name: tool.name, args: stripUndeclared(tool.inputSchema, args) });
      return { content: [{ type: 'text', text: 'ok' }] };
    });
  }
  // What clients see is the published contract, not its round trip through zod.
  server.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: dump.tools }));
  if (healing !== undefined) withSelfHealing(server, healing);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '1' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    /** What became of one call: the text the agent read, whether it was an error, and what the handler was given (if it ran). */
    async call(name, args) {
      seen.length = 0;
      const result = await client.callTool({ name, arguments: args });
      return { error: result.isError === true, text: result.content.map((part) => part.text ?? '').join('\n'), ran: seen[0] };
    },
    close: () => client.close(),
  };
}

const MODES = ['bare', 'explain', 'route'];

/** Served, explained, refused without every fact, or silently wrong (see the module comment). */
function classify(one, answer) {
  if (answer.ran !== undefined) {
    // A removed argument cannot be served: running without it is right only when the answer says so.
    if (one.call.removed !== undefined) return missingFacts(one.facts, answer.text).length === 0 ? 'explained' : 'silently wrong';
    const served = answer.ran.name === one.call.intended.name && isDeepStrictEqual(answer.ran.args, asReceived(one.newTool.inputSchema, one.call.intended.args));
    return served ? 'served' : 'silently wrong';
  }
  return missingFacts(one.facts, answer.text).length === 0 ? 'explained' : 'refused without every fact';
}

async function measureSet(pairs) {
  const rows = [];
  const unmeasured = [];
  for (const pair of pairs) {
    const { report, cases } = await casesOf(pair);
    const deltas = loadDeltaMap(report);
    const servers = {
      bare: await serve(pair.after),
      explain: await serve(pair.after, { deltas }),
      route: await serve(pair.after, { deltas, renames: 'route', now: WITHIN_WINDOW }),
    };
    for (const one of cases) {
      if (one.call === undefined) {
        unmeasured.push(`${one.pair} ${one.tool} ${one.kind} ${one.field}`);
        continue;
      }
      const answers = {};
      for (const mode of MODES) answers[mode] = await servers[mode].call(one.call.name, one.call.args);
      const row = { ...one, answers, outcome: Object.fromEntries(MODES.map((mode) => [mode, classify(one, answers[mode])])) };
      row.bareMissing = missingFacts(one.facts, answers.bare.text);
      row.healedMissing = missingFacts(one.facts, answers.explain.text);
      rows.push(row);
      if (show) {
        console.log(`\n=== ${one.pair} ${one.tool} ${one.kind} ${one.field} ${JSON.stringify(one.call.args)}`);
        for (const mode of MODES) console.log(`--- ${mode}: ${row.outcome[mode]}${answers[mode].ran ? ` (handler got ${JSON.stringify(answers[mode].ran.args)})` : ''}\n${answers[mode].text}`);
      }
    }
    for (const server of Object.values(servers)) await server.close();
  }
  return { rows, unmeasured };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
}

const OUTCOMES = ['served', 'explained', 'refused without every fact', 'silently wrong'];

/** The outcome table's rows for one set: every call in each mode, and the renames served on the first call. */
function outcomes(label, { rows, unmeasured }) {
  const count = (mode, outcome, filter = () => true) => rows.filter((row) => filter(row) && row.outcome[mode] === outcome).length;
  const renames = rows.filter((row) => RENAMES.has(row.kind));
  const kinds = `${renames.length} renamed, ${rows.filter((row) => REMOVALS.has(row.kind)).length} removed, ${rows.length - renames.length - rows.filter((row) => REMOVALS.has(row.kind)).length} other`;
  const table = [[`${label}: old-shaped calls (${kinds}; no call found: ${unmeasured.length})`, String(rows.length), '', '']];
  for (const mode of MODES) {
    const result = OUTCOMES.map((outcome) => `${count(mode, outcome)} ${outcome}`).join(', ');
    const wrong = count(mode, 'silently wrong');
    table.push([`${label}, ${mode}`, result, mode === 'bare' ? '(reference)' : '0 silently wrong', mode === 'bare' ? '' : wrong === 0]);
  }
  const served = count('route', 'served', (row) => RENAMES.has(row.kind));
  table.push([`${label}, route: renames served on the first call`, `${served}/${renames.length}`, `${renames.length}/${renames.length}`, served === renames.length]);
  return {
    rows: table,
    misses: [
      ...rows.filter((row) => row.outcome.explain === 'silently wrong' || row.outcome.route === 'silently wrong').map((row) => `silently wrong: ${label}: ${row.pair} ${row.tool} ${row.kind} ${row.field}`),
      ...renames.filter((row) => row.outcome.route !== 'served').map((row) => `rename not served (route: ${row.outcome.route}): ${label}: ${row.pair} ${row.tool} ${row.kind} ${row.field}`),
      ...unmeasured.map((text) => `not measured (no old-shaped call found): ${label}: ${text}`),
    ],
  };
}

/** The length and completeness table, on the calls both the bare SDK and the runtime refuse. */
function completeness(label, { rows }) {
  const refused = rows.filter((row) => row.answers.bare.error && row.answers.explain.error && row.answers.explain.ran === undefined);
  const facts = refused.reduce((sum, row) => sum + row.facts.length, 0);
  const stated = (key) => refused.reduce((sum, row) => sum + row.facts.length - row[key].length, 0);
  const complete = (key) => refused.filter((row) => row[key].length === 0).length;
  const bareMedian = median(refused.map((row) => row.answers.bare.text.length));
  const healedMedian = median(refused.map((row) => row.answers.explain.text.length));
  return {
    rows: [
      [`${label}: calls both refuse`, String(refused.length), '', ''],
      [`${label}: median length, bare SDK error`, `${bareMedian} chars`, '(reference)', ''],
      [`${label}: median length, enriched error`, `${healedMedian} chars`, `≤ ${BUDGET}`, healedMedian <= BUDGET],
      [`${label}: complete errors, bare SDK error`, `${complete('bareMissing')}/${refused.length} (facts ${stated('bareMissing')}/${facts})`, '(reference)', ''],
      [`${label}: complete errors, enriched error`, `${complete('healedMissing')}/${refused.length} (facts ${stated('healedMissing')}/${facts})`, `${refused.length}/${refused.length}`, complete('healedMissing') === refused.length],
    ],
    misses: refused.filter((row) => row.healedMissing.length > 0).map((row) => `incomplete: ${label}: ${row.pair} ${row.tool} ${row.kind} ${row.field}: missing ${row.healedMissing.map((f) => f.what).join(', ')}`),
  };
}

const realSet = await measureSet(await realWorldPairs());
const randomSet = await measureSet(randomPairs(72));
const real = outcomes('real releases', realSet);
const synthetic = outcomes('random pairs', randomSet);
printTargets('Old-shaped calls: what the agent gets from the new release, bare, explained (default) and routed (McpServer, SDK devDependency)', [...real.rows, ...synthetic.rows], { strict });
for (const miss of [...real.misses, ...synthetic.misses]) console.log(`  ${miss}`);
const realErrors = completeness('real releases', realSet);
const syntheticErrors = completeness('random pairs', randomSet);
printTargets('\nRuntime error: length and repair-fact completeness, enriched vs the bare SDK error', [...realErrors.rows, ...syntheticErrors.rows], { strict });
for (const miss of [...realErrors.misses, ...syntheticErrors.misses]) console.log(`  ${miss}`);
