/**
 * Contract-aware self-healing: a validation error for a tool whose contract changed gets a
 * `<contract_awareness>` block saying that it changed and how the fields the call got wrong
 * used to be, so the model fixes its next call instead of repeating arguments shaped for the
 * old contract.
 *
 * The block adds only what the `<field>` lines cannot say: that the contract changed, and what
 * each relevant field was before. The current contract is on the field lines already, so a
 * delta shows neither its message nor its current value; deltas about other fields are only
 * counted. Everything that depends only on the deltas (filtering, sorting, rendering,
 * escaping) happens once per tool in `createToolEnhancer`; a call only reads the field names
 * off the error and joins pre-rendered lines.
 *
 * `createExplainer` puts it together for a rejected `tools/call`, once for `withSelfHealing`
 * (inside a TypeScript server) and the proxy (in front of any server): the `<validation_error>`
 * of the call's issues with the block for the tool and action, and the `<tool_error
 * code="UNKNOWN_TOOL">` of a call to a tool the artifact says was renamed or removed.
 */
import { argumentLocationOf, compareDeltas, compareText, entryRenameOf, escapeText, flaggedFieldsOf, flagsText, memberRenameOf, removesEntry, renderContractDelta, type Delta } from '../protocol/index.js';
import { isFrozenDeltaMap, type DeltaMap, type ToolDeltas } from './delta-map.js';
import { discriminatorOf, isSchema, type JsonSchema } from './json-schema.js';
import { toolError } from './protocol.js';
import type { CallDecision } from './routing.js';
import { formatValidationError, reportedFields, type ValidationIssue } from './validation-error.js';

export interface SelfHealingConfig {
  /** Tool name → deltas, usually from `loadDeltaMap` at start-up. */
  activeDeltas: ReadonlyMap<string, ToolDeltas>;
  /** Also inject SAFE and COSMETIC deltas (default: only BREAKING and RISKY). */
  includeAllSeverities?: boolean;
  /** At most this many deltas per error; the rest are counted in `<more>` (default 5). */
  maxDeltasPerError?: number;
}

export interface SelfHealingResult {
  /** The error exactly as given. */
  originalError: string;
  /** The error with the `<contract_awareness>` block, or `originalError` when nothing was injected. */
  enrichedError: string;
  injected: boolean;
  /** How many `<delta>` elements were injected (0 when `injected` is false). */
  deltaCount: number;
  toolName: string;
}

/** Enriches one tool's validation error; `actionKey` is the failing action of a multi-action tool. */
export type ToolEnhancer = (errorXml: string, actionKey?: string | null) => string;

/**
 * What `createToolEnhancer` returns when no delta can ever apply to the tool: the one shared
 * identity function, so callers can compare against it and the JIT can inline it.
 */
export const identityEnhancer: ToolEnhancer = (errorXml) => errorXml;

const DEFAULT_MAX_DELTAS_PER_ERROR = 5;
const CLOSING_TAG = '</validation_error>';
const BLOCK_MARKER = '<contract_awareness';
/** Longest rendering of a previous value: a whole schema would flood the context. */
const MAX_VALUE_LENGTH = 120;
const SYSTEM_NOTE = 'Contract changed since you last read it.';
const INSTRUCTIONS = 'Do not resend old arguments.';
const MORE = 'List the tools again to see them.';

/** Keywords about an object's set of members rather than about the object's value. */
const MEMBER_KEYWORDS = new Set(['additionalProperties', 'unevaluatedProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties']);

/**
 * Keywords that constrain a value as a whole (its length, range, pattern, allowed values): a
 * change to one is about that argument's own line, not about the lines of its members
 * (`items` accepting fewer items says nothing to `items[0].qty`).
 */
const VALUE_KEYWORDS = new Set([
  'minItems',
  'maxItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'pattern',
  'format',
  'enum',
  'const',
  'default',
]);

/** One delta, rendered, with the arguments it is about. */
interface CompiledDelta {
  readonly xml: string;
  /** The argument paths it is about, as `pathKey`s (two for a renamed argument); none for the tool as a whole. */
  readonly paths: readonly string[];
  /**
   * Which failing fields it is about: `holding` the arguments at `paths` and anything inside
   * them; `members` the undeclared members sent into the objects at `paths` (and those objects);
   * `value` the values at `paths` themselves (a bound, an allowed value), not what they hold.
   */
  readonly reach: 'holding' | 'members' | 'value';
}

/** The block for one scope (a tool's global deltas, or one action's), split where a call's deltas go. */
interface CompiledScope {
  /** Up to and including `<contract_deltas>`. */
  readonly head: string;
  readonly deltas: readonly CompiledDelta[];
}

interface CompiledTool {
  /** For calls without an action, or an action no delta is scoped to: global deltas only. */
  readonly global: CompiledScope | undefined;
  /** For each action some delta is scoped to: its deltas plus the global ones. */
  readonly byAction: ReadonlyMap<string, CompiledScope>;
}

/** An argument path as one string, segments joined by a character no name has: the request path compares strings. */
const SEPARATOR = '\u0000';
const pathKey = (path: readonly string[]) => path.join(SEPARATOR);

/**
 * Enriches `originalError` with the deltas of `toolName` that apply to `actionKey`. Pure: one
 * `Map.get` and an immediate return when the tool has no deltas. For a hot path, prefer
 * `createToolEnhancer`, which does the filtering and rendering once; both give the same bytes.
 */
export function enrichValidationError(
  originalError: string,
  toolName: string,
  actionKey: string | null | undefined,
  config: SelfHealingConfig,
): SelfHealingResult {
  const entry = config.activeDeltas.get(toolName);
  const unchanged = { originalError, enrichedError: originalError, injected: false, deltaCount: 0, toolName };
  if (entry === undefined || entry.deltas.length === 0) return unchanged;
  const options = readOptions(config);
  const scope = scopeFor(compileTool(entry, options), actionKey);
  if (scope === undefined) return unchanged;
  const block = blockFor(scope, originalError, options.maxDeltasPerError);
  const enrichedError = spliceBlock(originalError, block.text);
  if (enrichedError === originalError) return unchanged;
  return { originalError, enrichedError, injected: true, deltaCount: block.shown, toolName };
}

/**
 * A function pre-scoped to one tool. When no delta of the tool passes the severity filter it is
 * `identityEnhancer` itself; otherwise every delta it can inject is rendered now, per action.
 */
export function createToolEnhancer(toolName: string, config: SelfHealingConfig): ToolEnhancer {
  const entry = config.activeDeltas.get(toolName);
  if (entry === undefined || entry.deltas.length === 0) return identityEnhancer;
  const options = readOptions(config);
  const compiled = compileTool(entry, options);
  if (compiled === undefined) return identityEnhancer;
  return (errorXml, actionKey) => {
    const scope = scopeFor(compiled, actionKey);
    return scope === undefined ? errorXml : spliceBlock(errorXml, blockFor(scope, errorXml, options.maxDeltasPerError).text);
  };
}

interface EnrichOptions {
  readonly includeAllSeverities: boolean;
  readonly maxDeltasPerError: number;
}

function readOptions(config: SelfHealingConfig): EnrichOptions {
  const max = config.maxDeltasPerError ?? DEFAULT_MAX_DELTAS_PER_ERROR;
  if (!Number.isInteger(max) || max < 0) {
    throw new RangeError(`maxDeltasPerError must be a whole number of at least 0, got ${String(max)}.`);
  }
  return { includeAllSeverities: config.includeAllSeverities === true, maxDeltasPerError: max };
}

function scopeFor(compiled: CompiledTool | undefined, actionKey: string | null | undefined): CompiledScope | undefined {
  if (compiled === undefined) return undefined;
  return (actionKey == null ? undefined : compiled.byAction.get(actionKey)) ?? compiled.global;
}

/**
 * Filters and renders a tool's deltas. Scoping compares the delta's `action` with the failing
 * action as a whole value (never a prefix or substring), so `create` does not pick up the
 * deltas of `createAll`; a delta with `action: null` is global and applies to every call.
 */
function compileTool(entry: ToolDeltas, options: EnrichOptions): CompiledTool | undefined {
  const relevant = entry.deltas
    .filter((delta) => options.includeAllSeverities || delta.severity === 'BREAKING' || delta.severity === 'RISKY')
    .sort(compareDeltas);
  if (relevant.length === 0) return undefined;
  // Flagged text is withheld from every delta of its field, whichever of them is shown.
  const flagged = flaggedFieldsOf(entry.deltas);
  const rendered = new Map(relevant.map((delta) => [delta, compileDelta(delta, flagged)]));

  const global = relevant.filter((delta) => delta.action === null);
  const actions = [...new Set(relevant.map((delta) => delta.action).filter((action) => action !== null))].sort(compareText);
  const byAction = new Map<string, CompiledScope>();
  for (const action of actions) {
    const scoped = relevant.filter((delta) => delta.action === null || delta.action === action);
    byAction.set(action, compileScope(action, scoped, rendered));
  }
  return { global: global.length > 0 ? compileScope(null, global, rendered) : undefined, byAction };
}

function compileDelta(delta: Readonly<Delta>, flagged: ReadonlySet<string>): CompiledDelta {
  const xml = renderContractDelta(delta, { brief: true, maxValueLength: MAX_VALUE_LENGTH, flaggedFields: flagged });
  const location = argumentLocationOf(delta.field);
  if (location === undefined) return { xml, paths: [], reach: 'holding' };
  const renamed = memberRenameOf(delta);
  if (renamed !== undefined) {
    const last = location.path.at(-1);
    const parent = last === renamed.from || last === renamed.to ? location.path.slice(0, -1) : location.path;
    return { xml, paths: [pathKey([...parent, renamed.from]), pathKey([...parent, renamed.to])], reach: 'holding' };
  }
  const keyword = location.keyword ?? '';
  return { xml, paths: [pathKey(location.path)], reach: MEMBER_KEYWORDS.has(keyword) ? 'members' : VALUE_KEYWORDS.has(keyword) ? 'value' : 'holding' };
}

function compileScope(action: string | null, deltas: readonly Readonly<Delta>[], rendered: ReadonlyMap<Readonly<Delta>, CompiledDelta>): CompiledScope {
  const lines = ['<contract_awareness>', `<system_note>${SYSTEM_NOTE}</system_note>`];
  if (action !== null) lines.push(`<action>${escapeText(action)}</action>`);
  lines.push(
    `<change_count>${deltas.length}</change_count>`,
    `<max_severity>${escapeText(deltas[0]?.severity ?? 'COSMETIC')}</max_severity>`,
    `<instructions>${INSTRUCTIONS}</instructions>`,
    '<contract_deltas>',
  );
  return { head: lines.join('\n'), deltas: deltas.map((delta) => rendered.get(delta) as CompiledDelta) };
}

/** A field line of the error: its argument path (a `pathKey`), and whether it reports an undeclared member. */
interface FailingField {
  readonly path: string;
  readonly unknown: boolean;
}

/** The fields an error reports, as argument paths (`items[0].sku` → `items`, `[]`, `sku`). */
function failingFields(errorXml: string): FailingField[] {
  return reportedFields(errorXml).map(({ name, undeclared }) => ({
    path: name === '(root)' ? '' : name.replace(/\[\d*\]/g, `${SEPARATOR}[]`).replace(/\./g, SEPARATOR),
    unknown: undeclared,
  }));
}

/** `path` is `prefix` or lies under it; a `*` segment of the prefix (an additionalProperties schema) stands for any name. */
function under(path: string, prefix: string): boolean {
  if (prefix === '') return true;
  if (path === prefix || path.startsWith(prefix + SEPARATOR)) return true;
  if (!prefix.includes('*')) return false;
  const segments = path.split(SEPARATOR);
  const wanted = prefix.split(SEPARATOR);
  return wanted.length <= segments.length && wanted.every((segment, i) => segment === '*' || segment === segments[i]);
}

/** The path of the object holding `path`. */
function parentOf(path: string): string {
  const at = path.lastIndexOf(SEPARATOR);
  return at === -1 ? '' : path.slice(0, at);
}

/**
 * Whether a delta is about a field the call got wrong: the same argument, or an object holding
 * it (its type or shape changed, not one of its own bounds or values). A delta about an
 * object's members (`additionalProperties`) is about the undeclared members sent into it. An
 * error about the arguments as a whole (a field `(root)`) may be about anything.
 */
function isAbout(delta: CompiledDelta, field: FailingField): boolean {
  if (field.path === '') return delta.paths.length > 0;
  return delta.paths.some((path) => reaches(delta.reach, path, field));
}

function reaches(reach: CompiledDelta['reach'], path: string, field: FailingField): boolean {
  switch (reach) {
    case 'value':
      return field.path === path;
    case 'members':
      return field.path === path || (field.unknown && under(parentOf(field.path), path) && under(path, parentOf(field.path)));
    case 'holding':
      return under(field.path, path);
  }
}

/**
 * The block for one call: the deltas about its failing fields (at most `max`), else the most
 * severe ones; the others counted.
 */
function blockFor(scope: CompiledScope, errorXml: string, max: number): { text: string; shown: number } {
  const fields = failingFields(errorXml);
  const shown: string[] = [];
  for (const delta of scope.deltas) {
    // Two deltas can read the same in brief (two flagged texts of one field): said once.
    if (shown.length < max && !shown.includes(delta.xml) && fields.some((field) => isAbout(delta, field))) shown.push(delta.xml);
  }
  // No failing field is one a delta is about: the tool's most severe changes (they come first), never a bare count.
  if (shown.length === 0) for (const delta of scope.deltas) if (shown.length < max && !shown.includes(delta.xml)) shown.push(delta.xml);
  const hidden = scope.deltas.length - shown.length;
  const lines = [scope.head, ...shown];
  if (hidden > 0) lines.push(`<more count="${hidden}">${MORE}</more>`);
  lines.push('</contract_deltas>', '</contract_awareness>');
  return { text: lines.join('\n'), shown: shown.length };
}

/**
 * Puts `block` before the last `</validation_error>` (the outermost closing tag; an escaped
 * value can never contain one). Text that already holds a block is returned unchanged, so
 * enriching twice is harmless. Text without the closing tag (a plain-text error, or a truncated
 * one) gets the block appended after a newline: the original stays a byte-exact prefix and the
 * contract context is still delivered.
 */
function spliceBlock(errorXml: string, block: string): string {
  if (errorXml.includes(BLOCK_MARKER)) return errorXml;
  const at = errorXml.lastIndexOf(CLOSING_TAG);
  if (at === -1) return errorXml.length === 0 || errorXml.endsWith('\n') ? errorXml + block : `${errorXml}\n${block}`;
  const before = errorXml.slice(0, at);
  return `${before}${before.endsWith('\n') ? '' : '\n'}${block}\n${errorXml.slice(at)}`;
}

// ---------------------------------------------------------------------------------------------
// The explainer

export interface ExplainerOptions {
  /** Tool name → deltas, usually `loadDeltaMap(path)`. */
  deltas: DeltaMap;
  /** Also inject SAFE and COSMETIC deltas (default: only BREAKING and RISKY). */
  includeAllSeverities?: boolean;
  /** At most this many deltas per error (default 5). */
  maxDeltasPerError?: number;
  /** Append a minimal valid `<example>` call generated from the input schema (default true). */
  example?: boolean;
  /**
   * Explain the input-validation errors of every tool (default true), not only of the tools
   * with deltas: the `<validation_error>` names each wrong field with what it expects, where the
   * SDK's one line leaves the model to guess. False: only tools with a delta to show (and calls
   * to tools the artifact says moved) are explained; every other answer stays the server's.
   */
  explainAll?: boolean;
  /**
   * The failing action of a multi-action tool, used to scope action-specific deltas. Default:
   * the value of the property that discriminates the tool's union (as the artifact records it,
   * else as the input schema shows it), else of an `action` argument, else none.
   */
  resolveAction?: (toolName: string, args: Readonly<Record<string, unknown>> | undefined) => string | null | undefined;
}

export interface Explainer {
  /** False when there is nothing to explain: `explainAll` is off and no delta passes the severity filter. */
  readonly active: boolean;
  /** Whether the input-validation errors of `toolName` are explained (see `explainAll`). */
  explains(toolName: string): boolean;
  /** The error text for a call whose arguments were rejected with `issues`. */
  invalidArguments(toolName: string, schema: unknown, args: unknown, issues: readonly ValidationIssue[]): string;
  /** The error text for a call to `toolName` when the artifact says it was renamed or removed; undefined for any other name. */
  movedTool(toolName: string): string | undefined;
  /**
   * The error text for a call refused for its old-shaped arguments (see `CallRouter`): each as
   * an argument the tool does not take (renamed to what, or removed), beside what else
   * `issues` (the contract's check of the arguments) finds wrong, then the notice of a tool
   * the call was routed to.
   */
  refusedCall(refusal: Extract<CallDecision, { kind: 'refuse' }>, schema: unknown, issues: readonly ValidationIssue[]): string;
}

/** Explainers built from an immutable (loaded) map, per option set. */
const cache = new WeakMap<object, Map<string, Prepared>>();

interface Prepared {
  readonly active: boolean;
  readonly enhancers: ReadonlyMap<string, ToolEnhancer>;
  readonly moved: ReadonlyMap<string, string>;
}

/** Prepares the explanations of `options.deltas`; a bad option throws here, at start-up, never in a request. */
export function createExplainer(options: ExplainerOptions): Explainer {
  const prepared = prepare(options);
  const example = options.example !== false;
  const explainAll = options.explainAll !== false;
  const { deltas, resolveAction } = options;
  const invalidArguments: Explainer['invalidArguments'] = (toolName, schema, args, issues) => {
    const entry = deltas.get(toolName);
    const jsonSchema = isSchema(schema) ? schema : undefined;
    const record = isSchema(args) ? (args as Readonly<Record<string, unknown>>) : undefined;
    const action = (resolveAction !== undefined ? resolveAction(toolName, record) : defaultAction(entry?.discriminator, jsonSchema, record)) ?? null;
    const xml = formatValidationError(issues, {
      toolName,
      action,
      args,
      schema: jsonSchema,
      example,
      ...(entry !== undefined ? { deltas: entry.deltas } : {}),
      ...(deltas.release !== undefined ? { release: deltas.release } : {}),
    });
    return (prepared.enhancers.get(toolName) ?? identityEnhancer)(xml, action);
  };
  return {
    active: explainAll || prepared.active,
    explains: (toolName) => explainAll || prepared.enhancers.has(toolName),
    invalidArguments,
    movedTool: (toolName) => prepared.moved.get(toolName),
    refusedCall(refusal, schema, issues) {
      const oldShaped = refusal.fields.map((field): ValidationIssue => ({ code: 'unrecognized_keys', path: field.at, keys: [field.name], message: `Unrecognized key: "${field.name}"` }));
      const text = invalidArguments(refusal.name, schema, refusal.args, [...issues, ...oldShaped]);
      return refusal.notice === undefined ? text : `${text}\n${refusal.notice.text}`;
    },
  };
}

function prepare(options: ExplainerOptions): Prepared {
  const cacheable = isFrozenDeltaMap(options.deltas);
  const key = `${options.includeAllSeverities === true}:${options.maxDeltasPerError ?? ''}`;
  const cached = cacheable ? cache.get(options.deltas)?.get(key) : undefined;
  if (cached !== undefined) return cached;

  const config: SelfHealingConfig = {
    activeDeltas: options.deltas,
    ...(options.includeAllSeverities !== undefined ? { includeAllSeverities: options.includeAllSeverities } : {}),
    ...(options.maxDeltasPerError !== undefined ? { maxDeltasPerError: options.maxDeltasPerError } : {}),
  };
  // Built eagerly so a bad option (maxDeltasPerError) fails at start-up, not in a request.
  const enhancers = new Map<string, ToolEnhancer>();
  for (const toolName of options.deltas.keys()) {
    const enhancer = createToolEnhancer(toolName, config);
    if (enhancer !== identityEnhancer) enhancers.set(toolName, enhancer);
  }
  const moved = movedToolErrors(options.deltas);
  const prepared: Prepared = { active: enhancers.size > 0 || moved.size > 0, enhancers, moved };
  if (cacheable) {
    let byOptions = cache.get(options.deltas);
    if (byOptions === undefined) cache.set(options.deltas, (byOptions = new Map()));
    byOptions.set(key, prepared);
  }
  return prepared;
}

/**
 * Old tool name → the error for a call to it, from the deltas of tools renamed and removed:
 * one `<tool_error code="UNKNOWN_TOOL">` saying where the tool went, in a sentence each for
 * what happened and what to do. A new name the contract lint flagged is not repeated.
 */
function movedToolErrors(deltas: ReadonlyMap<string, ToolDeltas>): Map<string, string> {
  const errors = new Map<string, string>();
  for (const [name, entry] of deltas) {
    for (const delta of entry.deltas) {
      const renamed = entryRenameOf(delta);
      if (renamed !== undefined) {
        const flagged = entry.deltas.some((d) => flagsText(d) && d.current === name);
        const error = flagged
          ? toolError('UNKNOWN_TOOL', { message: `The tool "${renamed.from}" was renamed.`, suggestion: 'List the tools again and call it under its new name.' })
          : toolError('UNKNOWN_TOOL', { message: `The tool "${renamed.from}" was renamed to "${name}".`, suggestion: `Call "${name}" instead.` });
        errors.set(renamed.from, error.content[0].text);
      } else if (removesEntry(delta)) {
        const error = toolError('UNKNOWN_TOOL', { message: `The tool "${name}" was removed.`, suggestion: 'Do not call it again; list the tools and use one that exists.' });
        errors.set(name, error.content[0].text);
      }
    }
  }
  return errors;
}

/**
 * The action of a call: the value of the property the artifact says discriminates the tool's
 * union (the diff's own choice), else the one the schema's root union is discriminated by, else
 * an `action` argument.
 */
function defaultAction(recorded: string | undefined, schema: JsonSchema | undefined, args: Readonly<Record<string, unknown>> | undefined): string | null {
  if (args === undefined) return null;
  const discriminator = recorded ?? (schema !== undefined ? discriminatorOf(schema) : undefined) ?? 'action';
  const value = Object.hasOwn(args, discriminator) ? args[discriminator] : undefined;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
}
