/**
 * Rename detection: a removed entry and an added entry that take the same (or nearly the same)
 * arguments are most likely one entry under a new name. Reporting them as one BREAKING rename,
 * with the hint to keep an alias, is more useful than an unrelated removal and addition.
 *
 * The evidence, weighted: the argument shape (half of the score; an equal shape counts more
 * when it has more members, since `{id}` is shared by unrelated tools), the name's words
 * (`getTinyImage` ~ `get-tiny-image`) and the description's words. Pairs are taken greedily,
 * best first, so each entry is renamed at most once.
 */
import { digestOf } from '../contract/canonical.js';
import { isJsonObject, nameRecord, type JsonObject, type JsonValue } from '../contract/model.js';
import { isAnnotation } from './vocabulary.js';

export interface Shape {
  /** Digest of what the arguments accept (annotations removed). */
  digest: string;
  /** Argument names. */
  members: string[];
}

export interface RenameCandidate {
  key: string;
  contract: JsonObject;
}

export interface Rename {
  from: string;
  to: string;
  /** How sure (0..1); shown in the message. */
  score: number;
  /** True when the argument shapes are identical. */
  sameShape: boolean;
  /** The names are the same words in another notation (`getTinyImage` → `get-tiny-image`). */
  sameName: boolean;
  /** The description (and title) did not change. */
  sameDescription: boolean;
}

export const RENAME_THRESHOLD = 0.45;

export function detectRenames(
  removed: readonly RenameCandidate[],
  added: readonly RenameCandidate[],
  shapeOf: (contract: JsonObject) => Shape,
): Rename[] {
  if (removed.length === 0 || added.length === 0) return [];
  const before = removed.map((c) => ({ ...c, shape: shapeOf(c.contract), name: words(c.key), text: words(describe(c.contract)) }));
  const after = added.map((c) => ({ ...c, shape: shapeOf(c.contract), name: words(c.key), text: words(describe(c.contract)) }));
  const scored: Rename[] = [];
  for (const b of before) {
    for (const a of after) {
      const sameShape = b.shape.digest === a.shape.digest;
      const shape = shapeSimilarity(b.shape, a.shape);
      const score = 0.5 * shape + 0.3 * jaccard(b.name, a.name) + 0.2 * jaccard(b.text, a.text);
      if (score < RENAME_THRESHOLD) continue;
      const sameName = b.name.size > 0 && sameWords(b.name, a.name);
      const sameDescription = describe(b.contract) !== '' && describe(b.contract) === describe(a.contract);
      scored.push({ from: b.key, to: a.key, score, sameShape, sameName, sameDescription });
    }
  }
  scored.sort((x, y) => y.score - x.score || (x.from < y.from ? -1 : x.from > y.from ? 1 : x.to < y.to ? -1 : x.to > y.to ? 1 : 0));
  const taken = new Set<string>();
  const renames: Rename[] = [];
  for (const pair of scored) {
    if (taken.has(`from:${pair.from}`) || taken.has(`to:${pair.to}`)) continue;
    taken.add(`from:${pair.from}`);
    taken.add(`to:${pair.to}`);
    renames.push(pair);
  }
  return renames.sort((x, y) => (x.to < y.to ? -1 : x.to > y.to ? 1 : 0));
}

function shapeSimilarity(a: Shape, b: Shape): number {
  const trivial = a.members.length === 0 && b.members.length === 0;
  // No arguments on either side: weak evidence, many tools take none.
  if (trivial) return 0.5;
  if (a.digest === b.digest) return Math.min(1, (a.members.length + 1) / 3);
  return 0.8 * jaccard(new Set(a.members), new Set(b.members));
}

/** Shape of a tool: its input schema's top-level properties and what the schema accepts. */
export function toolShape(contract: JsonObject): Shape {
  const schema = contract.inputSchema;
  const members = isJsonObject(schema) && isJsonObject(schema.properties) ? Object.keys(schema.properties).sort() : [];
  return { digest: digestOf(withoutAnnotations(schema ?? {})), members };
}

/** Shape of a prompt: its arguments' names and which are required. */
export function promptShape(contract: JsonObject): Shape {
  const args = Array.isArray(contract.arguments) ? contract.arguments.filter(isJsonObject) : [];
  const members = args.map((a) => String(a.name)).sort();
  return { digest: digestOf(args.map((a) => [a.name, a.required === true])), members };
}

/**
 * A value with every annotation keyword (title, description, examples, default…) removed, at
 * every depth. Contracts are immutable once normalized, so each schema is stripped once: the
 * walker compares stripped subschemas at every level of nested unions, and a stable result
 * keeps its structural hash memoized (measured: 2.2 of 7 s on unions nested 8 deep).
 */
export function withoutAnnotations(value: JsonValue): JsonValue {
  if (typeof value !== 'object' || value === null) return value;
  let out = stripped.get(value);
  if (out === undefined) {
    out = Array.isArray(value) ? value.map(withoutAnnotations) : objectWithoutAnnotations(value);
    stripped.set(value, out);
  }
  return out;
}

const stripped = new WeakMap<object, JsonValue>();

function objectWithoutAnnotations(value: JsonObject): JsonObject {
  const out: JsonObject = nameRecord();
  for (const [key, child] of Object.entries(value)) {
    if (isAnnotation(key)) continue;
    out[key] = key === 'properties' && isJsonObject(child)
      ? Object.fromEntries(Object.entries(child).map(([k, v]) => [k, withoutAnnotations(v)]))
      : withoutAnnotations(child);
  }
  return out;
}

function describe(contract: JsonObject): string {
  return [contract.title, contract.description].filter((t) => typeof t === 'string').join(' ');
}

/** Lower-case words, splitting camelCase, snake_case and kebab-case. */
export function words(text: string): Set<string> {
  const spaced = text.slice(0, 2_000).replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  return new Set(spaced.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 2 && w !== 'the' && w !== 'an'));
}

function sameWords(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((word) => b.has(word));
}

/** A member of an object on one side of a change: its name and its description. */
export interface MemberCandidate {
  name: string;
  text: string;
}

/** How much closer the chosen pairing must be than every other open pairing of its two names. */
const MEMBER_MARGIN = 0.1;
/** Below this, two names and descriptions have nothing in common worth choosing by. */
const MEMBER_MIN_SIMILARITY = 0.2;
/** Gone × added members compared at most, per object (a hostile schema lists thousands). */
const MAX_MEMBER_PAIRS = 10_000;

/**
 * Members renamed in place: among every gone × added pair that `same` says holds the same
 * schema, a pair whose two names have no other candidate is a rename; where a name has several,
 * the pair closest by name and description words (`startRef` ~ `startTarget`, `ref` ~ `target`
 * by their descriptions) is one when it is clearly closer than every other pair still open for
 * either name. Anything closer to a tie is left as it is: a removal and an addition. Best first,
 * so each name is paired once; deterministic (ties broken by name).
 */
export function pairMembers(
  gone: readonly MemberCandidate[],
  added: readonly MemberCandidate[],
  same: (from: string, to: string) => boolean,
): Array<{ from: string; to: string; byName: boolean }> {
  if (gone.length === 0 || added.length === 0 || gone.length * added.length > MAX_MEMBER_PAIRS) return [];
  const pairs: Array<{ from: string; to: string; score: number }> = [];
  for (const g of gone) {
    for (const a of added) {
      if (!same(g.name, a.name)) continue;
      pairs.push({ from: g.name, to: a.name, score: 0.6 * jaccard(words(g.name), words(a.name)) + 0.4 * jaccard(words(g.text), words(a.text)) });
    }
  }
  pairs.sort((x, y) => y.score - x.score || (x.from < y.from ? -1 : x.from > y.from ? 1 : x.to < y.to ? -1 : x.to > y.to ? 1 : 0));
  const from = new Set<string>();
  const to = new Set<string>();
  const chosen: Array<{ from: string; to: string; byName: boolean }> = [];
  for (const pair of pairs) {
    if (from.has(pair.from) || to.has(pair.to)) continue;
    const rivals = pairs.filter((other) => other !== pair && !from.has(other.from) && !to.has(other.to) && (other.from === pair.from || other.to === pair.to));
    const clear = rivals.length === 0 || (pair.score >= MEMBER_MIN_SIMILARITY && rivals.every((other) => other.score <= pair.score - MEMBER_MARGIN));
    if (!clear) continue;
    from.add(pair.from);
    to.add(pair.to);
    chosen.push({ from: pair.from, to: pair.to, byName: pairs.some((other) => other !== pair && (other.from === pair.from || other.to === pair.to)) });
  }
  return chosen;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}
