/**
 * The one explanation of a rejected `tools/call`, shared by `withSelfHealing` (inside a
 * TypeScript server) and the proxy (in front of any server): the `<validation_error>` of the
 * call's issues with the artifact's `<contract_awareness>` for the tool and action, and the
 * `<tool_error code="UNKNOWN_TOOL">` of a call to a tool the artifact says was renamed or
 * removed. Everything that depends only on the artifact is prepared once per delta map and
 * option set, so servers built per request (stateless HTTP) reuse it.
 */
import { isFrozenDeltaMap, type DeltaMap, type ToolDeltas } from './delta-map.js';
import { discriminatorOf, isSchema, type JsonSchema } from './json-schema.js';
import { toolError } from './protocol.js';
import { createToolEnhancer, identityEnhancer, type SelfHealingConfig, type ToolEnhancer } from './self-healing.js';
import { formatValidationError, type ValidationIssue } from './validation-error.js';

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
   * The failing action of a multi-action tool, used to scope action-specific deltas. Default:
   * the value of the property that discriminates the tool's union (as the artifact records it,
   * else as the input schema shows it), else of an `action` argument, else none.
   */
  resolveAction?: (toolName: string, args: Readonly<Record<string, unknown>> | undefined) => string | null | undefined;
}

export interface Explainer {
  /** False when no delta of the map passes the severity filter: there is nothing to add to any error. */
  readonly active: boolean;
  /** The error text for a call whose arguments were rejected with `issues`. */
  invalidArguments(toolName: string, schema: unknown, args: unknown, issues: readonly ValidationIssue[]): string;
  /** The error text for a call to `toolName` when the artifact says it was renamed or removed; undefined for any other name. */
  movedTool(toolName: string): string | undefined;
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
  const { deltas, resolveAction } = options;
  return {
    active: prepared.active,
    invalidArguments(toolName, schema, args, issues) {
      const entry = deltas.get(toolName);
      const jsonSchema = isSchema(schema) ? schema : undefined;
      const record = isSchema(args) ? (args as Readonly<Record<string, unknown>>) : undefined;
      const action = (resolveAction !== undefined ? resolveAction(toolName, record) : defaultAction(entry?.discriminator, jsonSchema, record)) ?? null;
      const xml = formatValidationError(issues, { toolName, action, args, schema: jsonSchema, example, ...(entry !== undefined ? { deltas: entry.deltas } : {}) });
      return (prepared.enhancers.get(toolName) ?? identityEnhancer)(xml, action);
    },
    movedTool: (toolName) => prepared.moved.get(toolName),
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
 * Old tool name → the error for a call to it, from `tool-renamed` and `tool-removed` deltas:
 * one `<tool_error code="UNKNOWN_TOOL">` saying where the tool went, in a sentence each for
 * what happened and what to do. A new name the contract lint flagged is not repeated.
 */
export function movedToolErrors(deltas: ReadonlyMap<string, ToolDeltas>): Map<string, string> {
  const errors = new Map<string, string>();
  for (const [name, entry] of deltas) {
    for (const delta of entry.deltas) {
      if (delta.kind === 'tool-renamed' && delta.renamedFrom !== undefined) {
        const flagged = entry.deltas.some((d) => d.kind === 'suspicious-text' && d.current === name);
        const error = flagged
          ? toolError('UNKNOWN_TOOL', { message: `The tool "${delta.renamedFrom}" was renamed.`, suggestion: 'List the tools again and call it under its new name.' })
          : toolError('UNKNOWN_TOOL', { message: `The tool "${delta.renamedFrom}" was renamed to "${name}".`, suggestion: `Call "${name}" instead.` });
        errors.set(delta.renamedFrom, error.content[0].text);
      } else if (delta.kind === 'tool-removed') {
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
export function defaultAction(recorded: string | undefined, schema: JsonSchema | undefined, args: Readonly<Record<string, unknown>> | undefined): string | null {
  if (args === undefined) return null;
  const discriminator = recorded ?? (schema !== undefined ? discriminatorOf(schema) : undefined) ?? 'action';
  const value = Object.hasOwn(args, discriminator) ? args[discriminator] : undefined;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
}
