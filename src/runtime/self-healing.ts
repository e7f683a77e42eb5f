/**
 * Contract-aware self-healing: a validation error for a tool whose contract changed gets a
 * `<contract_awareness>` block saying what changed, so the model fixes its next call instead of
 * repeating arguments shaped for the old contract.
 *
 * Everything that depends only on the deltas (filtering, sorting, rendering, escaping) happens
 * once per tool in `createToolEnhancer`; a call only looks up a pre-rendered block and splices it
 * into the error text.
 */
import { SEVERITIES, compareDeltas, compareText, escapeAttr, escapeText, renderContractDeltas, type Delta } from '../protocol/index.js';
import type { ToolDeltas } from './delta-map.js';

export interface SelfHealingConfig {
  /** Tool name → deltas, usually from `loadDeltaMap` at start-up. */
  activeDeltas: ReadonlyMap<string, ToolDeltas>;
  /** Also inject SAFE and COSMETIC deltas (default: only BREAKING and RISKY). */
  includeAllSeverities?: boolean;
  /** At most this many deltas per error; the rest are counted as "+N more" (default 5). */
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

export const DEFAULT_MAX_DELTAS_PER_ERROR = 5;
const CLOSING_TAG = '</validation_error>';
const BLOCK_MARKER = '<contract_awareness';
/** Longest rendering of a `previous`/`current` value: a whole schema would flood the context. */
const MAX_VALUE_LENGTH = 400;

interface RenderedBlock {
  readonly text: string;
  /** How many `<delta>` elements the block holds. */
  readonly shown: number;
}

/** The pre-rendered blocks of one tool. */
interface CompiledTool {
  /** For calls without an action, or an action no delta is scoped to: global deltas only. */
  readonly global: RenderedBlock | undefined;
  /** For each action some delta is scoped to: its deltas plus the global ones. */
  readonly byAction: ReadonlyMap<string, RenderedBlock>;
}

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
  const compiled = compileTool(toolName, entry, readOptions(config));
  const block = blockFor(compiled, actionKey);
  if (block === undefined) return unchanged;
  const enrichedError = spliceBlock(originalError, block.text);
  if (enrichedError === originalError) return unchanged;
  return { originalError, enrichedError, injected: true, deltaCount: block.shown, toolName };
}

/**
 * A function pre-scoped to one tool. When no delta of the tool passes the severity filter it is
 * `identityEnhancer` itself; otherwise every block it can inject is rendered now, per action.
 */
export function createToolEnhancer(toolName: string, config: SelfHealingConfig): ToolEnhancer {
  const entry = config.activeDeltas.get(toolName);
  if (entry === undefined || entry.deltas.length === 0) return identityEnhancer;
  const compiled = compileTool(toolName, entry, readOptions(config));
  if (compiled === undefined) return identityEnhancer;

  const globalText = compiled.global?.text;
  const byAction = new Map<string, string>();
  for (const [action, block] of compiled.byAction) byAction.set(action, block.text);

  if (byAction.size === 0) {
    // Global deltas only: every call gets the same block.
    const text = globalText as string;
    return (errorXml) => spliceBlock(errorXml, text);
  }
  return (errorXml, actionKey) => {
    const text = (actionKey == null ? undefined : byAction.get(actionKey)) ?? globalText;
    return text === undefined ? errorXml : spliceBlock(errorXml, text);
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

function blockFor(compiled: CompiledTool | undefined, actionKey: string | null | undefined): RenderedBlock | undefined {
  if (compiled === undefined) return undefined;
  return (actionKey == null ? undefined : compiled.byAction.get(actionKey)) ?? compiled.global;
}

/**
 * Filters and renders a tool's deltas. Scoping compares the delta's `action` with the failing
 * action as a whole value (never a prefix or substring), so `create` does not pick up the
 * deltas of `createAll`; a delta with `action: null` is global and applies to every call.
 */
function compileTool(toolName: string, entry: ToolDeltas, options: EnrichOptions): CompiledTool | undefined {
  const relevant = entry.deltas
    .filter((delta) => options.includeAllSeverities || delta.severity === 'BREAKING' || delta.severity === 'RISKY')
    .sort(compareDeltas);
  if (relevant.length === 0) return undefined;

  const global = relevant.filter((delta) => delta.action === null);
  const actions = [...new Set(relevant.map((delta) => delta.action).filter((action) => action !== null))].sort(compareText);
  const byAction = new Map<string, RenderedBlock>();
  for (const action of actions) {
    const scoped = relevant.filter((delta) => delta.action === null || delta.action === action);
    byAction.set(action, renderBlock(toolName, action, scoped, options.maxDeltasPerError));
  }
  return {
    global: global.length > 0 ? renderBlock(toolName, null, global, options.maxDeltasPerError) : undefined,
    byAction,
  };
}

/** The `<contract_awareness>` block for `deltas` (sorted worst first), at most `max` of them shown. */
export function renderBlock(toolName: string, action: string | null, deltas: readonly Readonly<Delta>[], max: number): RenderedBlock {
  const shown = deltas.slice(0, max);
  const hidden = deltas.slice(max);
  const worst = deltas[0]?.severity ?? 'COSMETIC';
  const tool = escapeText(toolName);
  const lines = [
    `<contract_awareness tool="${escapeAttr(toolName)}">`,
    `  <system_note>IMPORTANT: The contract of tool "${tool}" has changed since your last calibration. These changes may explain why your arguments were rejected.</system_note>`,
  ];
  if (action !== null) lines.push(`  <action>${escapeText(action)}</action>`);
  lines.push(
    `  <change_count>${deltas.length}</change_count>`,
    `  <max_severity>${escapeText(worst)}</max_severity>`,
    '  <instructions>Review the contract changes below and adjust your next call to the current contract. Do not resend arguments shaped for the previous contract.</instructions>',
  );
  let more: { count: number; text: string } | undefined;
  if (hidden.length > 0) {
    const bySeverity = SEVERITIES.map((severity) => [severity, hidden.filter((d) => d.severity === severity).length] as const)
      .filter(([, count]) => count > 0)
      .map(([severity, count]) => `${count} ${severity}`)
      .join(', ');
    const noun = hidden.length === 1 ? 'change' : 'changes';
    more = { count: hidden.length, text: `+${hidden.length} more ${noun} not shown (${bySeverity}). List the tools again to see the current contract.` };
  }
  // The same <contract_deltas> rendering as `diff --format xml`: one format, one implementation.
  lines.push(renderContractDeltas(shown, { indent: '  ', maxValueLength: MAX_VALUE_LENGTH, more }), '</contract_awareness>');
  return { text: lines.join('\n'), shown: shown.length };
}

/**
 * Puts `block` before the last `</validation_error>` (the outermost closing tag; an escaped
 * value can never contain one). Text that already holds a block is returned unchanged, so
 * enriching twice is harmless. Text without the closing tag (a plain-text error, or a truncated
 * one) gets the block appended after a newline: the original stays a byte-exact prefix and the
 * contract context is still delivered.
 */
export function spliceBlock(errorXml: string, block: string): string {
  if (errorXml.includes(BLOCK_MARKER)) return errorXml;
  const at = errorXml.lastIndexOf(CLOSING_TAG);
  if (at === -1) return errorXml.length === 0 || errorXml.endsWith('\n') ? errorXml + block : `${errorXml}\n${block}`;
  const before = errorXml.slice(0, at);
  return `${before}${before.endsWith('\n') ? '' : '\n'}${block}\n${errorXml.slice(at)}`;
}
