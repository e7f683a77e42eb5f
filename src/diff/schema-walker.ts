/**
 * The schema walker: a structural diff of two normalized JSON Schemas that names each change
 * by the rule it falls under (one change per changed keyword), with its location and the
 * previous and current values. It never decides a severity: the rule table does, from the
 * kind and the direction (input or output schema).
 *
 * Recursive schemas terminate: normalization inlines a recursive definition once and leaves
 * the recursive reference inside it as `{"$ref": "#/$defs/Name"}`. Two equal references are
 * not followed (the inlined copy already showed any change in their target, so `$defs` is not
 * walked either), and two different ones are followed at most once per pair.
 */
import type { JsonObject, JsonSchema, JsonValue } from '../contract/model.js';
import { DEFINITION_DESCRIPTION, resolvePointer } from '../contract/schema.js';
import type { Finding } from './finding.js';
import { asSchema, canonicalSet, jsonEqual, isJsonObject, objectOr, ownRecord, stringsOf, without } from './json.js';
import { patternContains } from './patterns.js';
import { pairMembers, withoutAnnotations } from './renames.js';
import { JSON_TYPES, discriminatorValue, isSubtype, typesOverlap, whereOf, type DeltaFacts, type Direction } from '../protocol/index.js';
import { isHarmful, type RuleKind } from '../rules/index.js';
import { liftToUnion, matchBranches, unionKeywordOf, type BranchMatch, type PairHarm, type UnionKeyword } from './unions.js';
import { declaredTypes, isAnnotation, keywordApplies, type JsonType } from './vocabulary.js';

/** One change found by the walker (always directional); the engine turns it into a `Delta`. */
export type SchemaChange = Finding & { direction: Direction };

interface Location {
  segments: string[];
  action: string | null;
  direction: Direction;
  /** True at the top of a tool's schema, where a discriminated union means "actions". */
  atRoot: boolean;
  /**
   * Inside an `allOf` member, a union variant or `then`/`else`: the properties the enclosing
   * schemas declare for the same value. Callers send those, so a member that starts or stops
   * constraining one of them changes what is accepted (it is not a new, unsent property).
   */
  declared?: ReadonlySet<string>;
}

/** The location of a different value (a property's, an item's…): what encloses it says nothing of it. */
function inner(at: Location, ...segments: string[]): Location {
  return { segments: [...at.segments, ...segments], action: at.action, direction: at.direction, atRoot: false };
}

/**
 * The location of another schema for the same value (an allOf member, a variant, then/else).
 * What the enclosing schema declares is declared there too, and so is what any `allOf` member
 * declares: every member applies to the same value, so a constraint moving from one member to
 * another is a change of that constraint, never a property appearing.
 */
function alongside(at: Location, prev: JsonObject, curr: JsonObject, ...segments: string[]): Location {
  const declared = new Set(at.declared);
  const declare = (schema: unknown) => {
    if (isJsonObject(schema) && isJsonObject(schema.properties)) for (const name of Object.keys(schema.properties)) declared.add(name);
  };
  for (const side of [prev, curr]) {
    declare(side);
    if (Array.isArray(side.allOf)) side.allOf.forEach(declare);
  }
  return { segments: [...at.segments, ...segments], action: at.action, direction: at.direction, atRoot: false, declared };
}

export interface WalkOptions {
  /** The walk's step budget (default `MAX_WALK_STEPS`). */
  maxSteps?: number;
  /** The contract field holding the schema: `inputSchema` or `outputSchema`. */
  field: 'inputSchema' | 'outputSchema';
  direction: Direction;
}

/** What a schema walk found, and what it could not judge exactly. */
export interface SchemaComparison {
  changes: SchemaChange[];
  /**
   * Why the keyword rules may have missed something (a `not` that changed, an `allOf`
   * restructured, union branches that found no partner, a `$ref` cycle, a keyword no rule
   * knows, the walk budget), or empty when every difference was judged by a rule exactly.
   * Only such pairs are worth the semantic cross-check.
   */
  uncertain: string[];
  /** How many subschema pairs the walk (trial pairings included) compared: its cost. */
  steps: number;
}

/**
 * Most steps one schema pair may take. Real schemas need a few thousand; the bound only stops a
 * hostile schema, and then the pair gets one conservative verdict and a note (never a hang).
 */
export const MAX_WALK_STEPS = 2_000_000;

export function walkSchemas(previous: JsonSchema, current: JsonSchema, options: WalkOptions): SchemaComparison {
  const maxSteps = options.maxSteps ?? MAX_WALK_STEPS;
  const walker = new Walker(previous, current, options.field, { steps: 0, maxSteps, uncertain: new Set() }, true);
  const at: Location = { segments: [options.field], action: null, direction: options.direction, atRoot: true };
  try {
    walker.walk(asToolRoot(previous), asToolRoot(current), at);
  } catch (error) {
    if (!(error instanceof WalkBudgetExceeded)) throw error;
    const note = `the schemas are too large or too deeply nested to compare keyword by keyword within ${maxSteps.toLocaleString('en-US')} steps`;
    return {
      changes: [{ kind: 'constraint-changed', segments: [options.field], where: whereOf([options.field]), action: null, direction: options.direction, subject: options.field, previous: null, current: null, note: `Not compared keyword by keyword: ${note}; review the whole schema.` }],
      uncertain: [note],
      steps: walker.budget.steps,
    };
  }
  return { changes: walker.changes, uncertain: [...walker.budget.uncertain].sort(), steps: walker.budget.steps };
}

class WalkBudgetExceeded extends Error {}

/** Shared by a walk and every helper walker it starts. */
interface WalkBudget {
  steps: number;
  maxSteps: number;
  uncertain: Set<string>;
}

/**
 * Tool arguments and structured results are JSON objects by protocol, whatever the schema
 * says, so a root that omits `type` means `type: "object"`: declaring it narrows nothing.
 */
export function asToolRoot(schema: unknown): JsonSchema {
  if (schema === true || !isJsonObject(schema)) return schema === false ? false : { type: 'object' };
  if ('type' in schema) return schema;
  return ownRecord(schema, { type: 'object' });
}

/** Keywords handled by a dedicated family below; anything else is an "other keyword". */
const HANDLED = new Set([
  'type', 'enum', 'const', 'minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minContains', 'maxContains',
  'pattern', 'format', 'uniqueItems', 'properties', 'required', 'additionalProperties', 'patternProperties',
  'items', 'prefixItems', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems',
  'dependentRequired', 'dependentSchemas', 'if', 'then', 'else', 'not', 'anyOf', 'oneOf', 'allOf', '$defs', '$ref',
  'title', 'description', 'examples', 'default', 'deprecated', DEFINITION_DESCRIPTION,
]);

/** Count bounds: (min keyword, max keyword, narrowing kind, widening kind). */
const COUNT_BOUNDS: Array<[string, string, RuleKind, RuleKind]> = [
  ['minLength', 'maxLength', 'length-range-narrowed', 'length-range-widened'],
  ['minItems', 'maxItems', 'item-count-range-narrowed', 'item-count-range-widened'],
  ['minProperties', 'maxProperties', 'property-count-range-narrowed', 'property-count-range-widened'],
  ['minContains', 'maxContains', 'item-count-range-narrowed', 'item-count-range-widened'],
];

/** Subschema keywords where a narrower subschema means a narrower schema, absent = `{}`. */
const MONOTONE_SUBSCHEMAS = ['propertyNames', 'unevaluatedProperties', 'unevaluatedItems'];

type Bound = { value: number; exclusive: boolean; keyword: string } | null;

/** Which side of a comparison was a plain schema rewritten as a one-variant union. */
type Lifted = 'previous' | 'current' | null;

/** Pairs of union branches costed with a trial walk at most (beyond, pairing is by resemblance). */
const MAX_COSTED_PAIRS = 144;

class Walker {
  readonly changes: SchemaChange[] = [];

  constructor(
    private readonly previousRoot: JsonSchema,
    private readonly currentRoot: JsonSchema,
    private readonly field: 'inputSchema' | 'outputSchema',
    readonly budget: WalkBudget,
    /**
     * Whether this walker costs union pairings with trial walks. Trial walkers do not: nested
     * unions inside a trial pair by equality and resemblance only, so each union level costs
     * its own pairs once and a walk stays polynomial in the schema's size, whatever its depth.
     */
    private readonly costsUnions: boolean,
    /** References followed so far. Helper walkers (trial pairings, `not`) start from a copy:
     * they inherit what their parent followed, so they terminate, without hiding from the
     * parent what they follow themselves. */
    private readonly followedRefs = new Set<string>(),
  ) {}

  /** A walker for a side question (a trial pairing, the inside of a `not`). */
  private helper(): Walker {
    return new Walker(this.previousRoot, this.currentRoot, this.field, this.budget, false, new Set(this.followedRefs));
  }

  /** Only the main walk's doubts matter: a trial's are about a pairing that may not be chosen. */
  private doubt(reason: string): void {
    if (this.costsUnions) this.budget.uncertain.add(reason);
  }

  private emit(kind: RuleKind, at: Location, extra: string[], facts: { subject?: string; previous: unknown; current: unknown; facts?: DeltaFacts; where?: string }): void {
    this.changes.push({
      kind,
      segments: [...at.segments, ...extra],
      where: facts.where ?? whereOf(at.segments),
      action: at.action,
      direction: at.direction,
      subject: facts.subject ?? extra[extra.length - 1] ?? '',
      previous: facts.previous === undefined ? null : facts.previous,
      current: facts.current === undefined ? null : facts.current,
      ...(facts.facts !== undefined ? { facts: facts.facts } : {}),
    });
  }

  walk(previous: JsonSchema, current: JsonSchema, at: Location): void {
    if (++this.budget.steps > this.budget.maxSteps) throw new WalkBudgetExceeded();
    if (jsonEqual(previous, current)) return;
    if (current === false || previous === false) return this.falseSchema(previous, current, at);
    // `true` accepts everything, exactly like `{}`.
    let prev: JsonObject = previous === true ? ownRecord() : previous;
    let curr: JsonObject = current === true ? ownRecord() : current;
    if (jsonEqual(prev, curr)) return;

    if (typeof prev.$ref === 'string' || typeof curr.$ref === 'string') {
      if (prev.$ref === curr.$ref) {
        // Same target: any change in it showed where it was first inlined; only siblings remain.
        prev = without(prev, ['$ref']);
        curr = without(curr, ['$ref']);
      } else {
        const pair = `${String(prev.$ref)}\u0000${String(curr.$ref)}`;
        if (this.followedRefs.has(pair)) {
          this.doubt('a $ref cycle was compared once, not followed again');
          return;
        }
        this.followedRefs.add(pair);
        const p = this.dereference(prev, this.previousRoot);
        const c = this.dereference(curr, this.currentRoot);
        if (p === undefined || c === undefined) {
          this.emit('constraint-changed', at, ['$ref'], { subject: '$ref', previous: prev.$ref, current: curr.$ref });
          return;
        }
        return this.walk(p, c, at);
      }
    }

    // A union on one side only: rewrite the other side as a one-branch union of equal meaning.
    const pu = unionKeywordOf(prev);
    const cu = unionKeywordOf(curr);
    let lifted: Lifted = null;
    if (pu === null && cu !== null && !Array.isArray(prev.anyOf) && !Array.isArray(prev.oneOf)) {
      prev = liftToUnion(prev, curr, cu);
      lifted = 'previous';
    } else if (cu === null && pu !== null && !Array.isArray(curr.anyOf) && !Array.isArray(curr.oneOf)) {
      curr = liftToUnion(curr, prev, pu);
      lifted = 'current';
    }

    this.types(prev, curr, at);
    this.allowedValues(prev, curr, at);
    this.numberBounds(prev, curr, at);
    for (const [min, max, narrowed, widened] of COUNT_BOUNDS) this.countBounds(prev, curr, at, min, max, narrowed, widened);
    this.multipleOf(prev, curr, at);
    for (const keyword of ['pattern', 'format'] as const) this.stringAssertion(prev, curr, at, keyword);
    this.uniqueItems(prev, curr, at);
    this.objectMembers(prev, curr, at);
    this.arrayMembers(prev, curr, at);
    this.otherSubschemas(prev, curr, at);
    this.unions(prev, curr, at, lifted);
    this.allOf(prev, curr, at);
    this.not(prev, curr, at);
    this.annotations(prev, curr, at);
    this.otherKeywords(prev, curr, at);
  }

  private dereference(schema: JsonObject, root: JsonSchema): JsonObject | undefined {
    if (typeof schema.$ref !== 'string') return schema;
    if (!isJsonObject(root)) return undefined;
    const target = resolvePointer(root, schema.$ref);
    if (!isJsonObject(target) && typeof target !== 'boolean') return undefined;
    const resolved = asSchema(target);
    if (resolved === false) return ownRecord({ not: ownRecord() });
    // The root's `$defs` belong to the root, not to a reference into it.
    return ownRecord(without(resolved, ['$defs']), without(schema, ['$ref']));
  }

  private falseSchema(previous: JsonSchema, current: JsonSchema, at: Location): void {
    const onAdditional = at.segments[at.segments.length - 1] === 'additionalProperties';
    // "undeclared properties are now rejected" is about the object, so the message names it.
    const where = onAdditional ? whereOf(at.segments.slice(0, -1)) : whereOf(at.segments);
    if (current === false) {
      const kind = onAdditional ? 'additional-properties-forbidden' : 'schema-became-false';
      this.emit(kind, at, [], { subject: '', previous, current: false, where });
    } else {
      const kind = onAdditional ? 'additional-properties-allowed' : 'schema-was-false';
      this.emit(kind, at, [], { subject: '', previous: false, current, where });
    }
  }

  /** A keyword change that cannot matter because the keyword does not apply to the type. */
  private inapplicable(prev: JsonObject, curr: JsonObject, keyword: string): JsonType[] | null {
    const p = declaredTypes(prev);
    const c = declaredTypes(curr);
    if (p === null || c === null) return null;
    if (keywordApplies(keyword, p) || keywordApplies(keyword, c)) return null;
    return [...new Set([...p, ...c])].sort();
  }

  private reportInapplicable(prev: JsonObject, curr: JsonObject, at: Location, keyword: string): boolean {
    const types = this.inapplicable(prev, curr, keyword);
    if (types === null) return false;
    this.emit('inapplicable-keyword-changed', at, [keyword], { previous: prev[keyword], current: curr[keyword], facts: { types } });
    return true;
  }

  // ── type ──────────────────────────────────────────────────────────────────────────────

  private types(prev: JsonObject, curr: JsonObject, at: Location): void {
    if (jsonEqual(prev.type, curr.type)) return;
    const p = declaredTypes(prev);
    const c = declaredTypes(curr);
    const covers = (set: Set<JsonType> | null, t: JsonType) => set === null || [...set].some((s) => isSubtype(t, s));
    const lost = [...(p ?? JSON_TYPES)].some((t) => !covers(c, t));
    const gained = [...(c ?? JSON_TYPES)].some((t) => !covers(p, t));
    const kind = lost && gained ? 'type-changed' : lost ? 'type-narrowed' : gained ? 'type-widened' : null;
    if (kind !== null) this.emit(kind, at, ['type'], { previous: prev.type, current: curr.type });
  }

  // ── enum / const ───────────────────────────────────────────────────────────────────────

  private allowedValues(prev: JsonObject, curr: JsonObject, at: Location): void {
    if (jsonEqual(prev.enum, curr.enum) && jsonEqual(prev.const, curr.const) && ('const' in prev) === ('const' in curr)) return;
    const p = allowedValuesOf(prev);
    const c = allowedValuesOf(curr);
    const keyword = 'const' in curr || (!('enum' in curr) && 'const' in prev) ? 'const' : 'enum';
    const previous = restrictionOf(prev, keyword);
    const current = restrictionOf(curr, keyword);
    if (p === null && c === null) return;
    if (p === null && c !== null) {
      this.emit('enum-narrowed', at, [keyword], { previous, current, facts: { restrictedTo: [...c.values()] } });
      return;
    }
    if (c === null && p !== null) {
      this.emit('enum-widened', at, [keyword], { previous, current, facts: { wasRestrictedTo: [...p.values()] } });
      return;
    }
    const removed = [...(p as Map<string, unknown>).entries()].filter(([k]) => !(c as Map<string, unknown>).has(k)).map(([, v]) => v);
    const added = [...(c as Map<string, unknown>).entries()].filter(([k]) => !(p as Map<string, unknown>).has(k)).map(([, v]) => v);
    if (removed.length === 0 && added.length === 0) return;
    const kind = removed.length > 0 && added.length > 0 ? 'enum-changed' : removed.length > 0 ? 'enum-narrowed' : 'enum-widened';
    this.emit(kind, at, [keyword], { previous, current, facts: { removed, added } });
  }

  // ── numeric bounds ─────────────────────────────────────────────────────────────────────

  private numberBounds(prev: JsonObject, curr: JsonObject, at: Location): void {
    for (const side of ['lower', 'upper'] as const) {
      const [inclusive, exclusive] = side === 'lower' ? ['minimum', 'exclusiveMinimum'] : ['maximum', 'exclusiveMaximum'];
      if (jsonEqual(prev[inclusive], curr[inclusive]) && jsonEqual(prev[exclusive], curr[exclusive])) continue;
      const p = boundOf(prev, inclusive, exclusive, side);
      const c = boundOf(curr, inclusive, exclusive, side);
      const order = compareBounds(p, c, side);
      if (order === 0) continue;
      const keyword = (c ?? p)?.keyword ?? inclusive;
      if (this.reportInapplicable(prev, curr, at, keyword)) continue;
      const sameKeyword = p === null || c === null || p.keyword === c.keyword;
      const previous = p === null ? null : sameKeyword ? p.value : { [p.keyword]: p.value };
      const current = c === null ? null : sameKeyword ? c.value : { [c.keyword]: c.value };
      this.emit(order > 0 ? 'number-range-narrowed' : 'number-range-widened', at, [keyword], { previous, current });
    }
  }

  private countBounds(prev: JsonObject, curr: JsonObject, at: Location, min: string, max: string, narrowed: RuleKind, widened: RuleKind): void {
    for (const [keyword, side] of [[min, 'lower'], [max, 'upper']] as const) {
      if (jsonEqual(prev[keyword], curr[keyword])) continue;
      const p = typeof prev[keyword] === 'number' ? { value: prev[keyword] as number, exclusive: false, keyword } : null;
      const c = typeof curr[keyword] === 'number' ? { value: curr[keyword] as number, exclusive: false, keyword } : null;
      const order = compareBounds(p, c, side);
      if (order === 0) continue;
      if (this.reportInapplicable(prev, curr, at, keyword)) continue;
      this.emit(order > 0 ? narrowed : widened, at, [keyword], { previous: prev[keyword], current: curr[keyword] });
    }
  }

  private multipleOf(prev: JsonObject, curr: JsonObject, at: Location): void {
    if (jsonEqual(prev.multipleOf, curr.multipleOf)) return;
    if (this.reportInapplicable(prev, curr, at, 'multipleOf')) return;
    const p = typeof prev.multipleOf === 'number' ? prev.multipleOf : null;
    const c = typeof curr.multipleOf === 'number' ? curr.multipleOf : null;
    let kind: RuleKind;
    if (p === null) kind = 'multiple-of-narrowed';
    else if (c === null) kind = 'multiple-of-widened';
    else if (isMultiple(c, p)) kind = 'multiple-of-narrowed';
    else if (isMultiple(p, c)) kind = 'multiple-of-widened';
    else kind = 'multiple-of-changed';
    this.emit(kind, at, ['multipleOf'], { previous: p, current: c });
  }

  private stringAssertion(prev: JsonObject, curr: JsonObject, at: Location, keyword: 'pattern' | 'format'): void {
    if (jsonEqual(prev[keyword], curr[keyword])) return;
    if (this.reportInapplicable(prev, curr, at, keyword)) return;
    const had = keyword in prev;
    const has = keyword in curr;
    let kind: RuleKind = !had ? `${keyword}-added` : !has ? `${keyword}-removed` : `${keyword}-changed`;
    if (kind === 'pattern-changed' && typeof prev.pattern === 'string' && typeof curr.pattern === 'string') {
      if (patternContains(curr.pattern, prev.pattern)) kind = 'pattern-widened';
      else if (patternContains(prev.pattern, curr.pattern)) kind = 'pattern-narrowed';
    }
    this.emit(kind, at, [keyword], { previous: prev[keyword], current: curr[keyword] });
  }

  private uniqueItems(prev: JsonObject, curr: JsonObject, at: Location): void {
    const p = prev.uniqueItems === true;
    const c = curr.uniqueItems === true;
    if (p === c) return;
    if (this.reportInapplicable(prev, curr, at, 'uniqueItems')) return;
    this.emit(c ? 'unique-items-added' : 'unique-items-removed', at, ['uniqueItems'], { previous: p, current: c });
  }

  // ── objects ────────────────────────────────────────────────────────────────────────────

  private objectMembers(prev: JsonObject, curr: JsonObject, at: Location): void {
    const pp = objectOr(prev.properties);
    const cp = objectOr(curr.properties);
    const preq = new Set(stringsOf(prev.required));
    const creq = new Set(stringsOf(curr.required));
    const pAdditional = prev.additionalProperties;
    const cAdditional = curr.additionalProperties;
    const names = [...new Set([...Object.keys(pp), ...Object.keys(cp), ...preq, ...creq])].sort();
    // In arguments, a required property with a default may be left out: the server fills it in
    // (zod 4 lists `.default()` fields as required). What callers must send is what lacks one.
    const input = at.direction === 'input';
    const defaulted = (schema: JsonValue | undefined) => input && isJsonObject(schema) && 'default' in schema;
    const renames = renamedMembers(pp, cp);
    const renamedFrom = new Set([...renames.values()].map((rename) => rename.from));

    for (const name of names) {
      if (renamedFrom.has(name)) continue;
      const inPrev = Object.hasOwn(pp, name);
      const inCurr = Object.hasOwn(cp, name);
      const member = inner(at, 'properties', name);
      // A name not listed in `properties` is governed by `additionalProperties` (absent = anything).
      const prevSchema = inPrev ? asSchema(pp[name]) : asSchema(pAdditional);
      const currSchema = inCurr ? asSchema(cp[name]) : asSchema(cAdditional);
      const rename = renames.get(name);
      const oldName = rename?.from;
      const wasRequired = preq.has(oldName ?? name);
      const isRequired = creq.has(name);

      if (oldName !== undefined) {
        // The same argument under a new name: one change that names both, not an unrelated
        // removal and addition; its requiredness is judged like any other property's. The facts
        // say how sure: the same schema always (a runtime may serve the old name in its place),
        // and whether the names chose among several candidates of that schema.
        const facts = rename?.byName === true ? { sameSchema: true, pairedByName: true } : { sameSchema: true };
        this.emit('property-renamed', at, ['properties', name], { subject: name, previous: oldName, current: name, facts });
        this.requiredness(at, name, wasRequired && !defaulted(pp[oldName]), isRequired && !defaulted(cp[name]), wasRequired, isRequired);
        continue;
      }
      if (!inPrev && inCurr && at.declared?.has(name)) {
        // Declared by an enclosing schema: not new to callers, only newly constrained here.
        this.walk(prevSchema, currSchema, member);
        this.requiredness(at, name, wasRequired && !defaulted(prevSchema), isRequired && !defaulted(currSchema), wasRequired, isRequired);
        continue;
      }
      if (!inPrev && inCurr) {
        if (isRequired && !wasRequired) {
          if (defaulted(cp[name])) this.emit('defaulted-property-added', at, ['properties', name], { subject: name, previous: null, current: cp[name], facts: { default: (cp[name] as JsonObject).default } });
          else this.emit('required-property-added', at, ['properties', name], { subject: name, previous: null, current: cp[name] });
        } else if (!wasRequired) {
          this.emit('property-added', at, ['properties', name], { subject: name, previous: null, current: cp[name] });
        } else if (!isRequired) {
          this.emit('property-became-optional', at, ['properties', name], { subject: name, previous: true, current: false });
        }
        // Undeclared names were free (absent additionalProperties), and callers only send
        // declared properties: a new optional property narrows nothing they do. A declared map
        // schema, or a name that was already required, did constrain the value: compare with it.
        if (isJsonObject(pAdditional) || wasRequired) this.walk(prevSchema, currSchema, member);
        continue;
      }
      if (inPrev && !inCurr) {
        if (isRequired) {
          // Still required, no longer described: its value is now governed by additionalProperties.
          this.walk(prevSchema, currSchema, member);
          if (!wasRequired) this.emit('property-became-required', at, ['properties', name], { subject: name, previous: false, current: true });
          continue;
        }
        if (at.declared?.has(name)) {
          // Declared by an enclosing schema: this one only stopped constraining it.
          this.walk(prevSchema, currSchema, member);
          continue;
        }
        const closed = cAdditional === false || curr.unevaluatedProperties === false;
        const kind = closed ? 'property-removed' : 'property-removed-ignored';
        this.emit(kind, at, ['properties', name], { subject: name, previous: pp[name], current: null });
        if (isJsonObject(cAdditional)) this.walk(prevSchema, currSchema, member);
        continue;
      }
      if (inPrev && inCurr) this.walk(prevSchema, currSchema, member);
      this.requiredness(at, name, wasRequired && !defaulted(prevSchema), isRequired && !defaulted(currSchema), wasRequired, isRequired);
    }

    if (!jsonEqual(pAdditional, cAdditional)) {
      this.walk(asSchema(pAdditional), asSchema(cAdditional), inner(at, 'additionalProperties'));
    }

    const ppat = objectOr(prev.patternProperties);
    const cpat = objectOr(curr.patternProperties);
    // Names matching a pattern one side does not list are governed by that side's
    // additionalProperties (dropping a pattern from a closed object rejects those names).
    for (const pattern of [...new Set([...Object.keys(ppat), ...Object.keys(cpat)])].sort()) {
      const p = Object.hasOwn(ppat, pattern) ? asSchema(ppat[pattern]) : asSchema(pAdditional);
      const c = Object.hasOwn(cpat, pattern) ? asSchema(cpat[pattern]) : asSchema(cAdditional);
      this.walk(p, c, inner(at, 'patternProperties', pattern));
    }

    this.dependentRequired(prev, curr, at);
    const pdep = objectOr(prev.dependentSchemas);
    const cdep = objectOr(curr.dependentSchemas);
    for (const name of [...new Set([...Object.keys(pdep), ...Object.keys(cdep)])].sort()) {
      this.walk(asSchema(pdep[name]), asSchema(cdep[name]), alongside(at, prev, curr, 'dependentSchemas', name));
    }
  }

  /**
   * A property that stays: whether callers must send it changed (`mustBefore`, `mustNow`: listed
   * as required and, for arguments, without a default), or only its listing did.
   */
  private requiredness(at: Location, name: string, mustBefore: boolean, mustNow: boolean, listedBefore: boolean, listedNow: boolean): void {
    const facts = (before: boolean, now: boolean) => ({ subject: name, previous: before, current: now });
    if (mustNow && !mustBefore) this.emit('property-became-required', at, ['properties', name], facts(false, true));
    else if (mustBefore && !mustNow) this.emit('property-became-optional', at, ['properties', name], facts(true, false));
    else if (listedNow && !listedBefore) this.emit('defaulted-property-became-required', at, ['properties', name], facts(false, true));
    else if (listedBefore && !listedNow && !mustBefore) this.emit('property-became-optional', at, ['properties', name], facts(true, false));
  }

  private dependentRequired(prev: JsonObject, curr: JsonObject, at: Location): void {
    if (jsonEqual(prev.dependentRequired, curr.dependentRequired)) return;
    const p = objectOr(prev.dependentRequired);
    const c = objectOr(curr.dependentRequired);
    for (const name of [...new Set([...Object.keys(p), ...Object.keys(c)])].sort()) {
      const before = new Set(stringsOf(p[name]));
      const after = new Set(stringsOf(c[name]));
      const more = [...after].some((n) => !before.has(n));
      const fewer = [...before].some((n) => !after.has(n));
      if (!more && !fewer) continue;
      const kind = more && fewer ? 'constraint-changed' : more ? 'constraint-added' : 'constraint-removed';
      this.emit(kind, at, ['dependentRequired', name], { subject: `dependentRequired(${name})`, previous: p[name], current: c[name] });
    }
  }

  // ── arrays ─────────────────────────────────────────────────────────────────────────────

  private arrayMembers(prev: JsonObject, curr: JsonObject, at: Location): void {
    const pPrefix = Array.isArray(prev.prefixItems) ? prev.prefixItems : [];
    const cPrefix = Array.isArray(curr.prefixItems) ? curr.prefixItems : [];
    // Position i is governed by prefixItems[i], else by items: compare what governs it on each side.
    for (let i = 0; i < Math.max(pPrefix.length, cPrefix.length); i++) {
      const p = i < pPrefix.length ? asSchema(pPrefix[i]) : asSchema(prev.items);
      const c = i < cPrefix.length ? asSchema(cPrefix[i]) : asSchema(curr.items);
      this.walk(p, c, inner(at, 'prefixItems', String(i)));
    }
    if (!jsonEqual(prev.items, curr.items)) {
      this.walk(asSchema(prev.items), asSchema(curr.items), inner(at, 'items'));
    }
    if (!jsonEqual(prev.contains, curr.contains)) {
      // `contains: {}` still demands a non-empty array, so absence is not `{}` here.
      this.doubt('"contains" changed');
      if (!('contains' in prev)) this.emit('constraint-added', at, ['contains'], { previous: null, current: curr.contains });
      else if (!('contains' in curr)) this.emit('constraint-removed', at, ['contains'], { previous: prev.contains, current: null });
      else this.walk(asSchema(prev.contains), asSchema(curr.contains), inner(at, 'contains'));
    }
  }

  private otherSubschemas(prev: JsonObject, curr: JsonObject, at: Location): void {
    for (const keyword of MONOTONE_SUBSCHEMAS) {
      if (jsonEqual(prev[keyword], curr[keyword])) continue;
      this.walk(asSchema(prev[keyword]), asSchema(curr[keyword]), inner(at, keyword));
    }
    // if/then/else: `then` and `else` are monotone only while `if` selects the same values.
    if (jsonEqual(prev.if, curr.if) && 'if' in prev) {
      for (const keyword of ['then', 'else']) {
        if (jsonEqual(prev[keyword], curr[keyword])) continue;
        this.walk(asSchema(prev[keyword]), asSchema(curr[keyword]), alongside(at, prev, curr, keyword));
      }
    } else if (!jsonEqual(prev.if, curr.if) || !jsonEqual(prev.then, curr.then) || !jsonEqual(prev.else, curr.else)) {
      const previous = conditional(prev);
      const current = conditional(curr);
      const kind = previous === null ? 'constraint-added' : current === null ? 'constraint-removed' : 'constraint-changed';
      if (!jsonEqual(previous, current)) {
        this.doubt('if/then/else changed, which no rule judges exactly');
        this.emit(kind, at, ['if'], { subject: 'if/then/else', previous, current });
      }
    }
  }

  // ── unions ─────────────────────────────────────────────────────────────────────────────

  private unions(prev: JsonObject, curr: JsonObject, at: Location, lifted: Lifted): void {
    const pk = unionKeywordOf(prev);
    const ck = unionKeywordOf(curr);
    if (pk !== null && ck !== null) {
      if (pk !== ck) {
        this.emit(ck === 'oneOf' ? 'union-made-exclusive' : 'union-made-inclusive', at, [ck], { subject: ck, previous: pk, current: ck });
      }
      this.branches(prev[pk] as JsonSchema[], curr[ck] as JsonSchema[], ck, at, lifted, alongside(at, prev, curr).declared ?? new Set());
      return;
    }
    // Both keywords on one side (rare): compare each list with its namesake.
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      if (jsonEqual(prev[keyword], curr[keyword])) continue;
      this.branches(
        Array.isArray(prev[keyword]) ? (prev[keyword] as JsonSchema[]) : [],
        Array.isArray(curr[keyword]) ? (curr[keyword] as JsonSchema[]) : [],
        keyword,
        at,
        null,
        alongside(at, prev, curr).declared ?? new Set(),
      );
    }
  }

  private branches(previous: JsonSchema[], current: JsonSchema[], keyword: UnionKeyword, at: Location, lifted: Lifted, declared: ReadonlySet<string>): void {
    if (jsonEqual(previous, current)) return;
    const harm = this.harmOf(previous, current, at.direction, declared);
    const match = matchBranches(previous, current, harm);
    const d = match.discriminator;
    const isActions = at.atRoot && d !== null;
    const label = (branch: JsonSchema, index: number) => (d !== null ? (discriminatorValue(branch, d) as string) : String(index));
    const locate = (branch: JsonSchema, index: number): Location =>
      isActions
        ? { segments: ['actions', label(branch, index), this.field], action: label(branch, index), direction: at.direction, atRoot: false, declared }
        : { segments: [...at.segments, keyword, label(branch, index)], action: at.action, direction: at.direction, atRoot: false, declared };

    // A plain schema replaced by a union none of whose variants is the old one (`string` →
    // `number | null`) changed type: that is what callers and consumers meet, not "a variant
    // removed" (harmless for a result) plus "variants added".
    const replaced = lifted === 'previous' ? match.removed.length === previous.length : lifted === 'current' ? match.added.length === current.length : false;
    if (replaced && match.pairs.length === 0 && d === null && !this.covered(match, previous, current, harm, at.direction)) {
      this.emit('type-changed', at, ['type'], { previous: typesOf(previous), current: typesOf(current) });
      return;
    }

    const before = this.changes.length;
    for (const [i, j] of match.pairs) this.walk(previous[i] as JsonSchema, current[j] as JsonSchema, locate(current[j] as JsonSchema, j));
    for (const i of match.removed) {
      const branch = previous[i] as JsonSchema;
      // An argument variant folded into a wider one (a | b → a, b widened) lost nothing: say how
      // it changed. (For a result, a removed variant is a narrowing whatever covers it.)
      const cover = d === null && at.direction === 'input' ? current.findIndex((_, j) => harm(i, j) === 0) : -1;
      if (cover >= 0) this.walk(branch, current[cover] as JsonSchema, locate(current[cover] as JsonSchema, cover));
      else if (isActions) this.emit('action-removed', locate(branch, i), [], { subject: label(branch, i), previous: branch, current: null });
      else this.emit('union-branch-removed', at, [keyword, label(branch, i)], { subject: branchName(branch, d, i), previous: branch, current: null });
    }
    for (const j of match.added) {
      const branch = current[j] as JsonSchema;
      // A new result variant inside an old one (a → a', a'' both narrower) gained nothing.
      const cover = d === null && at.direction === 'output' ? previous.findIndex((_, i) => harm(i, j) === 0) : -1;
      if (cover >= 0) this.walk(previous[cover] as JsonSchema, branch, locate(branch, j));
      else if (isActions) this.emit('action-added', locate(branch, j), [], { subject: label(branch, j), previous: null, current: branch });
      else this.emit('union-branch-added', at, [keyword, label(branch, j)], { subject: branchName(branch, d, j), previous: null, current: branch });
    }
    // Variants joining an argument union or leaving a result union only widen what callers may
    // send, or narrow what consumers receive: nothing can hide there. On the other side, values
    // may have moved between variants in ways the pairing does not see.
    const unpairedOnHarmfulSide = at.direction === 'input' ? match.removed.length : match.added.length;
    if (d === null && unpairedOnHarmfulSide > 0) this.doubt('union variants without a partner: values may have moved between variants');
    // oneOf rejects a value that matches two variants. Unless the variants are provably
    // disjoint, any change in what a variant accepts can make a value match two variants (now
    // rejected) or stop matching two (now accepted): the per-variant deltas cannot see that.
    const reshaped =
      match.added.length + match.removed.length > 0 ||
      this.changes.slice(before).some((c) => isHarmful(c.kind, 'input') || isHarmful(c.kind, 'output'));
    if (keyword === 'oneOf' && reshaped && !(pairwiseDisjoint(previous) && pairwiseDisjoint(current))) {
      this.emit('one-of-overlap', at, ['oneOf'], { subject: 'oneOf', previous, current });
    }
  }

  /** Whether every unpaired branch is covered by a harmless partner (then it is not a type change). */
  private covered(match: BranchMatch, previous: readonly JsonSchema[], current: readonly JsonSchema[], harm: PairHarm, direction: Direction): boolean {
    if (direction === 'input') return match.removed.every((i) => current.some((_, j) => harm(i, j) === 0));
    return match.added.every((j) => previous.some((_, i) => harm(i, j) === 0));
  }

  private allOf(prev: JsonObject, curr: JsonObject, at: Location): void {
    if (jsonEqual(prev.allOf, curr.allOf)) return;
    const previous = Array.isArray(prev.allOf) ? (prev.allOf as JsonSchema[]) : [];
    const current = Array.isArray(curr.allOf) ? (curr.allOf as JsonSchema[]) : [];
    const locate = (j: number): Location => alongside(at, prev, curr, 'allOf', String(j));
    const harm = this.harmOf(previous, current, at.direction, locate(0).declared);
    const match = matchBranches(previous, current, harm);
    for (const [i, j] of match.pairs) this.walk(previous[i] as JsonSchema, current[j] as JsonSchema, locate(j));
    for (const i of match.removed) {
      // A dropped result constraint still implied by a remaining one widened nothing.
      const cover = at.direction === 'output' ? current.findIndex((_, j) => harm(i, j) === 0) : -1;
      if (cover >= 0) this.walk(previous[i] as JsonSchema, current[cover] as JsonSchema, locate(cover));
      else this.emit('all-of-branch-removed', at, ['allOf', String(i)], { subject: `#${i}`, previous: previous[i], current: null });
    }
    for (const j of match.added) {
      // A new argument constraint already implied by an old one narrowed nothing.
      const cover = at.direction === 'input' ? previous.findIndex((_, i) => harm(i, j) === 0) : -1;
      if (cover >= 0) this.walk(previous[cover] as JsonSchema, current[j] as JsonSchema, locate(j));
      else this.emit('all-of-branch-added', at, ['allOf', String(j)], { subject: `#${j}`, previous: null, current: current[j] });
    }
    if (match.removed.length + match.added.length > 0) this.doubt('allOf constraints were restructured: one may have moved into another');
  }

  /**
   * `harm(i, j)`: 1 when comparing previous branch i with current branch j would report a
   * change harmful in this direction (`isHarmful`: refusing callers for an input, surprising
   * consumers for an output), 0 when not, null when not costed. What a change does to values is
   * a fact of its kind, never its severity, so re-levelling a rule never changes the pairing.
   * Costed lazily with a trial walker that does not cost nested unions itself (see
   * `costsUnions`); large unions and trial walkers pair by resemblance alone.
   */
  private harmOf(previous: readonly JsonSchema[], current: readonly JsonSchema[], direction: Direction, declared: ReadonlySet<string> | undefined): PairHarm {
    if (!this.costsUnions || previous.length * current.length > MAX_COSTED_PAIRS) return () => null;
    const known = new Map<number, number>();
    return (i, j) => {
      const key = i * current.length + j;
      let harm = known.get(key);
      if (harm === undefined) {
        const trial = this.helper();
        trial.walk(previous[i] as JsonSchema, current[j] as JsonSchema, { segments: [], action: null, direction, atRoot: false, ...(declared ? { declared } : {}) });
        harm = trial.changes.some((c) => isHarmful(c.kind, direction)) ? 1 : 0;
        known.set(key, harm);
      }
      return harm;
    };
  }

  private not(prev: JsonObject, curr: JsonObject, at: Location): void {
    if (jsonEqual(prev.not, curr.not)) return;
    this.doubt('a "not" changed: the walker only judges which way its exclusion moved');
    if (!('not' in prev)) return this.emit('not-added', at, ['not'], { previous: null, current: curr.not });
    if (!('not' in curr)) return this.emit('not-removed', at, ['not'], { previous: prev.not, current: null });
    // Inside `not`, accepting more means the whole accepts less. Rather than invert every
    // kind, walk the inner schemas on their own and report one delta on `not` saying which
    // way the exclusion moved.
    const inner = this.helper();
    inner.walk(asSchema(prev.not), asSchema(curr.not), { segments: [], action: null, direction: 'input', atRoot: false });
    const narrowed = inner.changes.some((c) => isHarmful(c.kind, 'input'));
    const widened = inner.changes.some((c) => isHarmful(c.kind, 'output'));
    const kind = narrowed && widened ? 'not-changed' : widened ? 'not-excludes-more' : narrowed ? 'not-excludes-less' : 'annotation-changed';
    this.emit(kind, at, ['not'], { previous: prev.not, current: curr.not });
  }

  // ── annotations and the rest ───────────────────────────────────────────────────────────

  private annotations(prev: JsonObject, curr: JsonObject, at: Location): void {
    for (const keyword of ['title', 'description'] as const) {
      if (!jsonEqual(prev[keyword], curr[keyword])) this.emit(`${keyword}-changed`, at, [keyword], { previous: prev[keyword], current: curr[keyword] });
    }
    // The description of a referenced definition, kept beside the property's own: text agents read.
    if (!jsonEqual(prev[DEFINITION_DESCRIPTION], curr[DEFINITION_DESCRIPTION])) {
      this.emit('description-changed', at, [DEFINITION_DESCRIPTION], { previous: prev[DEFINITION_DESCRIPTION], current: curr[DEFINITION_DESCRIPTION] });
    }
    if (!jsonEqual(prev.examples, curr.examples)) this.emit('examples-changed', at, ['examples'], { previous: prev.examples, current: curr.examples });
    if (!jsonEqual(prev.default, curr.default)) {
      const kind = !('default' in prev) ? 'default-added' : !('default' in curr) ? 'default-removed' : 'default-changed';
      this.emit(kind, at, ['default'], { previous: prev.default, current: curr.default });
    }
    const wasDeprecated = prev.deprecated === true;
    const isDeprecated = curr.deprecated === true;
    if (wasDeprecated !== isDeprecated) {
      this.emit(isDeprecated ? 'deprecation-added' : 'deprecation-removed', at, ['deprecated'], { previous: wasDeprecated, current: isDeprecated });
    }
  }

  private otherKeywords(prev: JsonObject, curr: JsonObject, at: Location): void {
    for (const keyword of [...new Set([...Object.keys(prev), ...Object.keys(curr)])].sort()) {
      if (HANDLED.has(keyword) || jsonEqual(prev[keyword], curr[keyword])) continue;
      // Unknown keywords are ignored by validators, so they are annotations for our purpose.
      if (isAnnotation(keyword) || !OTHER_ASSERTIONS.has(keyword)) {
        this.emit('annotation-changed', at, [keyword], { previous: prev[keyword], current: curr[keyword] });
        continue;
      }
      const kind = !(keyword in prev) ? 'constraint-added' : !(keyword in curr) ? 'constraint-removed' : 'constraint-changed';
      this.doubt(`"${keyword}" changed, which no rule judges exactly`);
      this.emit(kind, at, [keyword], { previous: prev[keyword], current: curr[keyword] });
    }
  }
}

/** Assertion keywords not handled by a family above (older spellings, dynamic references). */
const OTHER_ASSERTIONS = new Set(['$dynamicRef', '$recursiveRef', 'dependencies', 'additionalItems']);

function conditional(schema: JsonObject): JsonObject | null {
  if (!('if' in schema)) return null;
  const out = ownRecord({ if: schema.if as JsonValue });
  if ('then' in schema) out.then = schema.then as JsonValue;
  if ('else' in schema) out.else = schema.else as JsonValue;
  return out;
}

/** The set of values allowed by `enum`/`const`, by canonical JSON; null = not restricted. */
function allowedValuesOf(schema: JsonObject): Map<string, unknown> | null {
  let values: Map<string, unknown> | null = null;
  if (Array.isArray(schema.enum)) values = canonicalSet(schema.enum);
  if ('const' in schema) {
    const only = canonicalSet([schema.const]);
    values = values === null ? only : new Map([...only].filter(([k]) => (values as Map<string, unknown>).has(k)));
  }
  return values;
}

/** The raw `enum`/`const` of a schema, shaped like the keyword the delta reports. */
function restrictionOf(schema: JsonObject, keyword: 'enum' | 'const'): unknown {
  if ('const' in schema) return keyword === 'const' ? schema.const : [schema.const];
  return schema.enum ?? null;
}

function boundOf(schema: JsonObject, inclusive: string, exclusive: string, side: 'lower' | 'upper'): Bound {
  const a = typeof schema[inclusive] === 'number' ? { value: schema[inclusive] as number, exclusive: false, keyword: inclusive } : null;
  const b = typeof schema[exclusive] === 'number' ? { value: schema[exclusive] as number, exclusive: true, keyword: exclusive } : null;
  if (a === null) return b;
  if (b === null) return a;
  return compareBounds(a, b, side) >= 0 ? b : a;
}

/**
 * +1 when `c` is tighter than `p` (accepts less), -1 when looser, 0 when the same. A missing
 * bound is the loosest; at the same value an exclusive bound is tighter.
 */
function compareBounds(p: Bound, c: Bound, side: 'lower' | 'upper'): number {
  if (p === null && c === null) return 0;
  if (p === null) return 1;
  if (c === null) return -1;
  if (p.value !== c.value) {
    const cHigher = c.value > p.value;
    return side === 'lower' ? (cHigher ? 1 : -1) : cHigher ? -1 : 1;
  }
  if (p.exclusive === c.exclusive) return 0;
  return c.exclusive ? 1 : -1;
}

/** True when every multiple of `step` is a multiple of `base` (`step` is a multiple of `base`). */
function isMultiple(step: number, base: number): boolean {
  if (base === 0) return false;
  const ratio = step / base;
  return Math.abs(ratio - Math.round(ratio)) < 1e-9 && Math.round(ratio) !== 0;
}

/**
 * True when no value can match two of the branches: their declared types are disjoint, or
 * they give different constants to the same property (a discriminated union) or at the root.
 */
function pairwiseDisjoint(branches: readonly JsonSchema[]): boolean {
  for (let i = 0; i < branches.length; i++) {
    for (let j = i + 1; j < branches.length; j++) {
      if (!disjoint(branches[i] as JsonSchema, branches[j] as JsonSchema)) return false;
    }
  }
  return true;
}

function disjoint(a: JsonSchema, b: JsonSchema): boolean {
  if (a === false || b === false) return true;
  if (a === true || b === true) return false;
  const ta = declaredTypes(a);
  const tb = declaredTypes(b);
  if (ta !== null && tb !== null) {
    if (!typesOverlap(ta, tb)) return true;
  }
  const va = allowedValuesOf(a);
  const vb = allowedValuesOf(b);
  if (va !== null && vb !== null && ![...va.keys()].some((k) => vb.has(k))) return true;
  const pa = objectOr(a.properties);
  const pb = objectOr(b.properties);
  const ra = new Set(stringsOf(a.required));
  const rb = new Set(stringsOf(b.required));
  for (const name of Object.keys(pa)) {
    if (!ra.has(name) || !rb.has(name) || !Object.hasOwn(pb, name)) continue;
    const ca = isJsonObject(pa[name]) ? allowedValuesOf(pa[name] as JsonObject) : null;
    const cb = isJsonObject(pb[name]) ? allowedValuesOf(pb[name] as JsonObject) : null;
    if (ca !== null && cb !== null && ![...ca.keys()].some((k) => cb.has(k))) return true;
  }
  return false;
}

function branchName(branch: JsonSchema, discriminator: string | null, index: number): string {
  if (discriminator !== null) return JSON.stringify(discriminatorValue(branch, discriminator));
  const types = isJsonObject(branch) ? declaredTypes(branch) : null;
  return types === null ? `#${index}` : `#${index} (${[...types].sort().join(' | ')})`;
}

/** The JSON types a list of union variants declares: `"string"`, or `["null", "number"]`. */
function typesOf(branches: readonly JsonSchema[]): unknown {
  const types = new Set<string>();
  for (const branch of branches) {
    const declared = isJsonObject(branch) ? declaredTypes(branch) : null;
    if (declared === null) return branches.length === 1 ? branches[0] : branches;
    for (const t of declared) types.add(t);
  }
  const sorted = [...types].sort();
  return sorted.length === 1 ? sorted[0] : sorted;
}

/**
 * Properties renamed in place: a name that disappeared and a name that appeared whose schemas
 * are equal once annotations (title, description, examples…) are set aside, pydantic deriving
 * the title from the name. Each pairing is chosen among every such candidate of the object (see
 * `pairMembers`); one the evidence leaves ambiguous is reported as a removal and an addition.
 * New name → the old name, and whether the names decided among several candidates.
 */
function renamedMembers(previous: JsonObject, current: JsonObject): Map<string, { from: string; byName: boolean }> {
  const gone = Object.keys(previous).filter((name) => !Object.hasOwn(current, name));
  const added = Object.keys(current).filter((name) => !Object.hasOwn(previous, name));
  const renames = new Map<string, { from: string; byName: boolean }>();
  if (gone.length === 0 || added.length === 0) return renames;
  const shapeOf = (schema: JsonValue | undefined) => withoutAnnotations(schema ?? {});
  const textOf = (schema: JsonValue | undefined) => (isJsonObject(schema) && typeof schema.description === 'string' ? schema.description : '');
  const pairs = pairMembers(
    gone.map((name) => ({ name, text: textOf(previous[name]) })),
    added.map((name) => ({ name, text: textOf(current[name]) })),
    (from, to) => jsonEqual(shapeOf(previous[from]), shapeOf(current[to])),
  );
  for (const pair of pairs) renames.set(pair.to, { from: pair.from, byName: pair.byName });
  return renames;
}