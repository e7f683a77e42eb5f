/**
 * Unions (`anyOf` / `oneOf` / `allOf`): which branch of the old schema became which branch of
 * the new one. Normalization sorts branches by their text, so a changed branch can move; we
 * pair them by discriminator value when the union is discriminated (`action: "create"`), else
 * by equality, then by least harm (a pairing that reports a narrowing of an input when another
 * pairing reports none is the wrong pairing), then by resemblance.
 */
import { discriminatorOf, discriminatorValue, typesOverlap } from '../protocol/index.js';
import type { JsonObject, JsonSchema, JsonValue } from '../contract/model.js';
import { jsonEqual, isJsonObject, ownRecord, shapeHash } from './json.js';
import { declaredTypes, isAnnotation, restrictToType, type JsonType } from './vocabulary.js';

export type UnionKeyword = 'anyOf' | 'oneOf';

export interface BranchMatch {
  /** Pairs of (previous index, current index). */
  pairs: Array<[number, number]>;
  removed: number[];
  added: number[];
  /** The discriminating property when both sides are discriminated by it, else null. */
  discriminator: string | null;
}

/**
 * `harm(i, j)`: how many harmful changes pairing previous branch i with current branch j would
 * report (null when not computed). Zero-harm pairs are taken first, even between branches that
 * look nothing alike; harmful pairs only between branches that resemble each other.
 */
export type PairHarm = (i: number, j: number) => number | null;

export function matchBranches(previous: readonly JsonSchema[], current: readonly JsonSchema[], harm: PairHarm = () => null): BranchMatch {
  const discriminator = sharedDiscriminator(previous, current);
  if (discriminator !== null) {
    const currentByValue = new Map(current.map((b, j) => [discriminatorValue(b, discriminator) as string, j]));
    const pairs: Array<[number, number]> = [];
    const removed: number[] = [];
    const matched = new Set<number>();
    previous.forEach((b, i) => {
      const j = currentByValue.get(discriminatorValue(b, discriminator) as string);
      if (j === undefined) removed.push(i);
      else {
        pairs.push([i, j]);
        matched.add(j);
      }
    });
    const added = current.map((_, j) => j).filter((j) => !matched.has(j));
    return { pairs, removed, added, discriminator };
  }

  const pairs: Array<[number, number]> = [];
  const freePrev = new Set(previous.map((_, i) => i));
  const freeCurr = new Set(current.map((_, j) => j));
  // Unchanged branches first: they are certainly the same variant.
  const byShape = new Map<number, number[]>();
  current.forEach((b, j) => byShape.set(shapeHash(b), [...(byShape.get(shapeHash(b)) ?? []), j]));
  previous.forEach((b, i) => {
    const candidates = byShape.get(shapeHash(b));
    const j = candidates?.find((c) => freeCurr.has(c) && jsonEqual(b, current[c]));
    if (j !== undefined) {
      pairs.push([i, j]);
      freePrev.delete(i);
      freeCurr.delete(j);
    }
  });
  // Then as many harmless pairs as possible (a maximum matching on zero-harm pairs, preferring
  // the most alike: greedy would pair a with b' and leave b with only a harmful partner), then
  // the least harmful, most alike remaining pairs, greedily. A harmful pair with nothing in
  // common stays apart (reported as a removed and an added branch).
  const scored: Array<{ i: number; j: number; score: number; cost: number }> = [];
  for (const i of freePrev) {
    for (const j of freeCurr) {
      const score = resemblance(previous[i] as JsonSchema, current[j] as JsonSchema);
      const cost = harm(i, j) ?? 1;
      if (score > 0 || cost === 0) scored.push({ i, j, score, cost });
    }
  }
  scored.sort((a, b) => a.cost - b.cost || b.score - a.score || a.i - b.i || a.j - b.j);
  const harmless = new Map<number, number[]>();
  for (const { i, j, cost } of scored) if (cost === 0) harmless.set(i, [...(harmless.get(i) ?? []), j]);
  const ownerOf = new Map<number, number>();
  const augment = (i: number, seen: Set<number>): boolean => {
    for (const j of harmless.get(i) ?? []) {
      if (seen.has(j)) continue;
      seen.add(j);
      const owner = ownerOf.get(j);
      if (owner === undefined || augment(owner, seen)) {
        ownerOf.set(j, i);
        return true;
      }
    }
    return false;
  };
  for (const i of [...harmless.keys()].sort((a, b) => a - b)) augment(i, new Set());
  for (const [j, i] of [...ownerOf.entries()].sort((a, b) => a[1] - b[1])) {
    pairs.push([i, j]);
    freePrev.delete(i);
    freeCurr.delete(j);
  }
  for (const { i, j, cost } of scored) {
    if (cost === 0 || !freePrev.has(i) || !freeCurr.has(j)) continue;
    pairs.push([i, j]);
    freePrev.delete(i);
    freeCurr.delete(j);
  }
  pairs.sort((a, b) => a[1] - b[1]);
  return { pairs, removed: [...freePrev].sort((a, b) => a - b), added: [...freeCurr].sort((a, b) => a - b), discriminator: null };
}

function sharedDiscriminator(previous: readonly JsonSchema[], current: readonly JsonSchema[]): string | null {
  const p = discriminatorOf(previous);
  const c = discriminatorOf(current);
  if (p !== null && p === c) return p;
  // A union that grew from one branch is still discriminated by its only branch's const.
  if (c !== null && previous.length === 1 && discriminatorValue(previous[0] as JsonSchema, c) !== undefined) return c;
  if (p !== null && current.length === 1 && discriminatorValue(current[0] as JsonSchema, p) !== undefined) return p;
  return null;
}

/** How alike two branches look: shared types and shared property names. 0 = nothing shared. */
function resemblance(a: JsonSchema, b: JsonSchema): number {
  if (!isJsonObject(a) || !isJsonObject(b)) return jsonEqual(a, b) ? 1 : 0;
  const ta = declaredTypes(a);
  const tb = declaredTypes(b);
  let score = 0;
  if (ta === null || tb === null) score += 0.5;
  else if (typesOverlap(ta, tb)) score += 1;
  else return 0; // declared, disjoint types: different variants, not one variant that changed
  // What a branch is about: the members it describes or requires.
  const members = (schema: Record<string, unknown>) => new Set([...Object.keys(isJsonObject(schema.properties) ? schema.properties : {}), ...(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [])]);
  const pa = [...members(a)];
  const pb = members(b);
  const shared = pa.filter((k) => pb.has(k)).length;
  const all = new Set([...pa, ...pb]).size;
  if (all > 0) score += (2 * shared) / all;
  return score;
}

/**
 * Rewrite a union-free schema as a one-branch union of the same meaning, so it can be
 * compared branch by branch with a schema that has a union (`{type: string}` →
 * `{anyOf: [{type: string}, {type: null}]}` becomes "a variant was added", not "type removed
 * plus anyOf added"). Assertion keywords that the other side's root does not also carry move
 * into the branch; a multi-type branch splits into one branch per type, which is exact.
 */
export function liftToUnion(plain: JsonObject, other: JsonObject, keyword: UnionKeyword): JsonObject {
  const root = ownRecord();
  const moved = ownRecord();
  for (const [key, value] of Object.entries(plain)) {
    if (isAnnotation(key) || (Object.hasOwn(other, key) && jsonEqual(other[key], value))) root[key] = value;
    else moved[key] = value;
  }
  root[keyword] = splitByType(moved) as JsonValue;
  return root;
}

function splitByType(schema: JsonObject): JsonObject[] {
  const types = declaredTypes(schema);
  if (types === null || types.size < 2) return [schema];
  return [...types].sort().map((t) => restrictToType(schema, t as JsonType));
}

/** The union keyword a schema uses, when it uses exactly one of anyOf / oneOf. */
export function unionKeywordOf(schema: JsonObject): UnionKeyword | null {
  const any = Array.isArray(schema.anyOf);
  const one = Array.isArray(schema.oneOf);
  if (any === one) return null;
  return any ? 'anyOf' : 'oneOf';
}
