/**
 * `withSelfHealing`: one call that makes an `McpServer` (from `@modelcontextprotocol/sdk`) answer
 * input-validation failures with the enriched `<validation_error>` instead of the SDK's flat text.
 *
 * Where it hooks, and why. In SDK 1.x the `tools/call` handler validates arguments by calling
 * `this.validateToolInput(tool, args, toolName)` and turns anything that method throws into
 * `{ content: [{ type: 'text', text: error.message }], isError: true }`. We shadow that one
 * method on the server instance:
 * - it is looked up on every request, so tools registered before or after `withSelfHealing`, and
 *   handlers installed in the constructor or lazily on the first `registerTool`, are all covered
 *   (wrapping the `tools/call` handler would need the Protocol's private handler map, and
 *   replacing it would mean re-implementing task support and output validation);
 * - it is reached only when validation fails: successful calls run the SDK's own code and pay
 *   one extra `await`; servers whose artifact has no applicable delta are not touched at all;
 * - results other than input-validation failures (tool errors, output validation) never pass
 *   through it.
 * A call to a tool the artifact says was renamed or removed never reaches validation: the SDK
 * answers "Tool X not found" through `createToolError(message)`, which is shadowed the same way,
 * only for those names, to say where the tool went (`<tool_error code="UNKNOWN_TOOL">`).
 * The method is private in the SDK's types, so its presence is checked here at start-up: an SDK
 * that renamed it makes `withSelfHealing` throw immediately rather than silently do nothing.
 *
 * The SDK's error keeps only a flattened message, so on failure the arguments are parsed again
 * with the tool's own zod schema (`safeParseAsync`, present on zod 3, zod 4 and zod 4 mini
 * objects) to get the structured issues. The JSON Schema for hints and the example comes from
 * the same converter the SDK uses for `tools/list`, so the model is told the constraints it was
 * shown; that module is imported lazily, off the import path of `mcp-contract-guard/runtime`.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { isFrozenDeltaMap, type ToolDeltas } from './delta-map.js';
import { discriminatorOf, isSchema, type JsonSchema } from './json-schema.js';
import { toolError } from './protocol.js';
import { DEFAULT_MAX_DELTAS_PER_ERROR, createToolEnhancer, identityEnhancer, renderBlock, type SelfHealingConfig, type ToolEnhancer } from './self-healing.js';
import { formatValidationError, type ValidationIssue } from './validation-error.js';

export interface WithSelfHealingOptions {
  /** Tool name → deltas, usually `loadDeltaMap(path)`. */
  deltas: ReadonlyMap<string, ToolDeltas>;
  /** Also inject SAFE and COSMETIC deltas (default: only BREAKING and RISKY). */
  includeAllSeverities?: boolean;
  /** At most this many deltas per error (default 5). */
  maxDeltasPerError?: number;
  /** Append a minimal valid `<example>` call generated from the input schema (default true). */
  example?: boolean;
  /**
   * The failing action of a multi-action tool, used to scope action-specific deltas. Default:
   * the value of the property that discriminates a root `oneOf`/`anyOf` in the input schema,
   * else of an `action` argument, else none (only global deltas apply).
   */
  resolveAction?: (toolName: string, args: Readonly<Record<string, unknown>> | undefined) => string | null | undefined;
}

/** The parts of an SDK `RegisteredTool` read here. */
interface RegisteredToolLike {
  inputSchema?: unknown;
}

/** The private SDK method shadowed here (see the module comment). */
type ValidateToolInput = (tool: RegisteredToolLike, args: unknown, toolName: string) => Promise<unknown>;

/** The private SDK method that turns a failure of `tools/call` into an `isError` result. */
type CreateToolError = (message: string) => unknown;

interface ServerInternals {
  validateToolInput?: ValidateToolInput;
  createToolError?: CreateToolError;
}

interface HealingState {
  readonly deltas: ReadonlyMap<string, ToolDeltas>;
  readonly enhancerFor: (toolName: string) => ToolEnhancer;
  readonly example: boolean;
  readonly resolveAction: WithSelfHealingOptions['resolveAction'];
}

interface EnhancerSet {
  /** False when no delta of any tool passes the severity filter: nothing to install. */
  readonly any: boolean;
  readonly enhancerFor: (toolName: string) => ToolEnhancer;
}

const states = new WeakMap<object, HealingState>();
const WRAPPED = Symbol('mcp-contract-guard.selfHealing');
/** Enhancers built from an immutable (loaded) map, per option set: HTTP servers built per request reuse them. */
const enhancerCache = new WeakMap<object, Map<string, EnhancerSet>>();
/** Per zod schema object: its JSON Schema (or null when it cannot be converted). */
const jsonSchemaCache = new WeakMap<object, JsonSchema | null>();

type JsonSchemaConverter = (schema: unknown) => unknown;
let converter: Promise<JsonSchemaConverter | undefined> | undefined;

function loadConverter(): Promise<JsonSchemaConverter | undefined> {
  converter ??= import('@modelcontextprotocol/sdk/server/zod-json-schema-compat.js').then(
    (module) => (schema: unknown) =>
      module.toJsonSchemaCompat(schema as Parameters<typeof module.toJsonSchemaCompat>[0], { strictUnions: true, pipeStrategy: 'input' }),
    () => undefined,
  );
  return converter;
}

/**
 * Makes `server` answer input-validation failures with `<validation_error>` plus the
 * `<contract_awareness>` block of the tool's deltas, and returns the same server. Call it
 * before or after registering tools, before or after `connect`. Calling it again replaces the
 * configuration. With no applicable delta in `deltas`, the server is returned untouched.
 */
export function withSelfHealing<T extends McpServer>(server: T, options: WithSelfHealingOptions): T {
  const internals = server as unknown as ServerInternals;
  const config: SelfHealingConfig = {
    activeDeltas: options.deltas,
    ...(options.includeAllSeverities !== undefined ? { includeAllSeverities: options.includeAllSeverities } : {}),
    ...(options.maxDeltasPerError !== undefined ? { maxDeltasPerError: options.maxDeltasPerError } : {}),
  };
  const enhancers = enhancerSetFor(config);
  if (!enhancers.any) {
    states.delete(server);
    return server;
  }
  const original = internals.validateToolInput;
  if (typeof original !== 'function') {
    throw new TypeError(
      'withSelfHealing: this McpServer has no validateToolInput method, so its input validation cannot be hooked. ' +
        'It supports @modelcontextprotocol/sdk 1.x McpServer (tested with 1.32); check the installed SDK version.',
    );
  }
  states.set(server, { deltas: options.deltas, enhancerFor: enhancers.enhancerFor, example: options.example !== false, resolveAction: options.resolveAction });
  void loadConverter();
  if (!(WRAPPED in original)) {
    const healing: ValidateToolInput = async function (this: object, tool, args, toolName) {
      try {
        return await original.call(this, tool, args, toolName);
      } catch (error) {
        const state = states.get(this);
        if (state === undefined || !isInvalidParams(error)) throw error;
        const enriched = await enrichedValidationError(state, tool, args, toolName, error).catch(() => undefined);
        // The SDK turns a thrown error's message into the result text, verbatim.
        throw enriched === undefined ? error : new Error(enriched);
      }
    };
    Object.defineProperty(healing, WRAPPED, { value: true });
    Object.defineProperty(server, 'validateToolInput', { value: healing, writable: true, configurable: true, enumerable: false });
  }
  explainMovedTools(server, internals, movedToolErrors(options.deltas, options.maxDeltasPerError));
  return server;
}

/** The SDK's message for an unknown tool (an McpError's message carries its code first). */
const NOT_FOUND = /^(?:MCP error -?\d+: )?Tool (.+) not found$/;

/**
 * Calls to tools that were renamed or removed get a `<tool_error code="UNKNOWN_TOOL">` naming
 * the new name (or the removal) with its `<contract_awareness>` block, instead of the SDK's bare
 * "Tool X not found". Optional: an SDK without `createToolError` just keeps its own message.
 */
function explainMovedTools(server: object, internals: ServerInternals, errors: ReadonlyMap<string, string>): void {
  movedErrors.set(server, errors);
  const original = internals.createToolError;
  // Already wrapped (a second withSelfHealing): the wrapper reads the map just replaced.
  if (errors.size === 0 || typeof original !== 'function' || WRAPPED in original) return;
  const explaining: CreateToolError = function (this: object, message) {
    const name = NOT_FOUND.exec(message)?.[1];
    const text = name === undefined ? undefined : movedErrors.get(this)?.get(name);
    return text === undefined ? original.call(this, message) : { content: [{ type: 'text', text }], isError: true };
  };
  Object.defineProperty(explaining, WRAPPED, { value: true });
  Object.defineProperty(server, 'createToolError', { value: explaining, writable: true, configurable: true, enumerable: false });
}

const movedErrors = new WeakMap<object, ReadonlyMap<string, string>>();

/** Old tool name → the pre-rendered error for a call to it, from `tool-renamed` and `tool-removed` deltas. */
export function movedToolErrors(deltas: ReadonlyMap<string, ToolDeltas>, maxDeltasPerError = DEFAULT_MAX_DELTAS_PER_ERROR): Map<string, string> {
  const errors = new Map<string, string>();
  for (const [name, entry] of deltas) {
    for (const delta of entry.deltas) {
      const oldName = delta.kind === 'tool-renamed' ? delta.renamedFrom : delta.kind === 'tool-removed' ? name : undefined;
      if (oldName === undefined) continue;
      const recovery =
        delta.kind === 'tool-renamed'
          ? `Call "${name}" instead: it is this tool under its new name.`
          : 'This tool was removed. List the tools again and use one that exists; do not retry this name.';
      const error = toolError('UNKNOWN_TOOL', { message: `The tool "${oldName}" does not exist any more.`, suggestion: recovery });
      const block = renderBlock(oldName, null, [delta], maxDeltasPerError).text;
      const text = (error.content[0] as { text: string }).text.replace('</tool_error>', `${block}\n</tool_error>`);
      errors.set(oldName, text);
    }
  }
  return errors;
}

function enhancerSetFor(config: SelfHealingConfig): EnhancerSet {
  const cacheable = isFrozenDeltaMap(config.activeDeltas);
  const key = `${config.includeAllSeverities === true}:${config.maxDeltasPerError ?? ''}`;
  const cached = cacheable ? enhancerCache.get(config.activeDeltas)?.get(key) : undefined;
  if (cached !== undefined) return cached;

  // Built eagerly so a bad option (maxDeltasPerError) fails at start-up, not in a request.
  const enhancers = new Map<string, ToolEnhancer>();
  for (const toolName of config.activeDeltas.keys()) {
    const enhancer = createToolEnhancer(toolName, config);
    if (enhancer !== identityEnhancer) enhancers.set(toolName, enhancer);
  }
  const set: EnhancerSet = { any: enhancers.size > 0, enhancerFor: (toolName) => enhancers.get(toolName) ?? identityEnhancer };
  if (cacheable) {
    let byOptions = enhancerCache.get(config.activeDeltas);
    if (byOptions === undefined) enhancerCache.set(config.activeDeltas, (byOptions = new Map()));
    byOptions.set(key, set);
  }
  return set;
}

function isInvalidParams(error: unknown): boolean {
  // McpError(ErrorCode.InvalidParams), read structurally so any SDK copy matches.
  return error !== null && typeof error === 'object' && (error as { code?: unknown }).code === -32602;
}

interface SafeParseResult {
  success: boolean;
  error?: { issues?: unknown };
}

async function enrichedValidationError(
  state: HealingState,
  tool: RegisteredToolLike,
  args: unknown,
  toolName: string,
  error: unknown,
): Promise<string | undefined> {
  const schema = tool?.inputSchema as { safeParseAsync?: (value: unknown) => Promise<SafeParseResult> } | undefined;
  if (schema === undefined || schema === null) return undefined;
  let issues: readonly ValidationIssue[] | undefined;
  if (typeof schema.safeParseAsync === 'function') {
    const parsed = await schema.safeParseAsync(args ?? {});
    // The arguments match the schema: the SDK rejected them for another reason (e.g. the
    // maxToolInputElements limit), which is not ours to rewrite.
    if (parsed.success) return undefined;
    if (Array.isArray(parsed.error?.issues)) issues = parsed.error.issues as ValidationIssue[];
  }
  if (issues === undefined) {
    const message = error instanceof Error ? error.message.replace(/^MCP error -32602: /, '') : String(error);
    issues = [{ code: 'custom', path: [], message }];
  }
  const jsonSchema = await jsonSchemaOf(schema);
  const record = isSchema(args) ? (args as Readonly<Record<string, unknown>>) : undefined;
  const recorded = state.deltas.get(toolName)?.discriminator;
  const action = (state.resolveAction !== undefined ? state.resolveAction(toolName, record) : defaultAction(recorded, jsonSchema, record)) ?? null;
  const xml = formatValidationError(issues, { toolName, action, args, schema: jsonSchema, example: state.example });
  return state.enhancerFor(toolName)(xml, action);
}

async function jsonSchemaOf(schema: object): Promise<JsonSchema | undefined> {
  const cached = jsonSchemaCache.get(schema);
  if (cached !== undefined) return cached ?? undefined;
  const convert = await loadConverter();
  let json: JsonSchema | null = null;
  try {
    const converted = convert?.(schema);
    if (isSchema(converted)) json = converted;
  } catch {
    // Unrepresentable schemas (transforms, custom types): explain from the issues alone.
  }
  jsonSchemaCache.set(schema, json);
  return json ?? undefined;
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
