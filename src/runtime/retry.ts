/**
 * `callWithSelfHealing`: the agent side of self-healing. A tool call rejected for its arguments,
 * or made to a tool that no longer exists under that name, is handed with the (enriched) error
 * text to a caller-supplied `correct` function (an LLM call in practice) and retried with the
 * arguments it returns, or with another tool (`correctedCall`): a renamed tool's error says its
 * new name. Security and authorization failures are never retried, whatever `isRetryable` says.
 */
import { displayJson } from '../protocol/index.js';

/** The parts of a `CallToolResult` read here. */
export interface ToolCallResultLike {
  [key: string]: unknown;
  content?: unknown;
  isError?: boolean;
}

/** Anything with the SDK `Client.callTool` shape. */
export interface ToolCaller {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<ToolCallResultLike>;
}

export interface CorrectionRequest {
  /** The tool of the failed attempt (the one `correct` last chose, after a `correctedCall`). */
  toolName: string;
  /** The arguments of the failed attempt. */
  args: Readonly<Record<string, unknown>>;
  /** The error text the server returned (with `<contract_awareness>` when the server is self-healing). */
  errorText: string;
  /** 1-based number of the failed attempt. */
  attempt: number;
  /** What failed: the arguments, or the tool name (renamed or removed: the error says which). */
  failure: 'invalid-arguments' | 'unknown-tool';
}

const CORRECTED_CALL = Symbol('mcp-contract-guard.correctedCall');

/** A correction that calls another tool: what `correctedCall` makes. */
export interface CorrectedCall {
  readonly [CORRECTED_CALL]: true;
  readonly toolName: string;
  readonly args: Record<string, unknown>;
}

/**
 * What `correct` returns to call `toolName` (a renamed tool's new name) with `args`, rather
 * than the same tool with new arguments. Marked, so it can never be mistaken for arguments that
 * happen to be named `toolName` and `args`.
 */
export function correctedCall(toolName: string, args: Record<string, unknown>): CorrectedCall {
  return { [CORRECTED_CALL]: true, toolName, args };
}

export type Correction = Record<string, unknown> | CorrectedCall | null | undefined;

export interface CallWithSelfHealingOptions {
  /** Returns corrected arguments (same tool), `correctedCall(name, args)` (another tool), or null/undefined to give up. */
  correct: (request: CorrectionRequest) => Promise<Correction> | Correction;
  /** Corrections to try after the first call (default 1). */
  maxRetries?: number;
  /** Which error results are worth correcting (default: validation errors and unknown tools). Security and auth errors never are. */
  isRetryable?: (errorText: string, result: ToolCallResultLike) => boolean;
}

export interface HealingAttempt {
  /** 1-based. */
  attempt: number;
  toolName: string;
  args: Readonly<Record<string, unknown>>;
  errorText: string;
  /** The error result, or undefined when the call threw. */
  result: ToolCallResultLike | undefined;
}

export type SelfHealingFailure =
  /** Every allowed retry was used and the last one still failed. */
  | 'exhausted'
  /** `correct` returned nothing, or the same call again. */
  | 'declined'
  /** `correct` threw (see `cause`). */
  | 'correction-failed'
  /** A retry failed with an error that must not be retried (e.g. authorization). */
  | 'not-retryable';

/** A call that could not be healed. Keeps every attempt's arguments and error text. */
export class SelfHealingError extends Error {
  override readonly name = 'SelfHealingError';

  constructor(
    readonly toolName: string,
    readonly reason: SelfHealingFailure,
    readonly attempts: readonly HealingAttempt[],
    options?: { cause?: unknown },
  ) {
    const summary = attempts.map((a) => `  attempt ${a.attempt}${a.toolName === toolName ? '' : ` (${a.toolName})`}: ${firstLines(a.errorText)}`).join('\n');
    super(`Tool "${toolName}" could not be healed (${reason}) after ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}:\n${summary}`, options);
  }
}

/** True for a validation failure: our `<validation_error>` or the SDK's flat "Input validation error". */
export function isValidationErrorText(errorText: string): boolean {
  return /<validation_error[\s>]/.test(errorText) || /\binput validation error\b/i.test(errorText);
}

/** True for a call to a tool the server does not have: our `UNKNOWN_TOOL` error, or an SDK's "Tool X not found". */
export function isUnknownToolErrorText(errorText: string): boolean {
  return /<tool_error\s[^>]*code="UNKNOWN_TOOL"/.test(errorText) || /^(?:MCP error -?\d+: )*(?:Tool \S+ not found|Unknown tool: \S+)$/.test(errorText.trim());
}

const SECURITY_CODE = /<tool_error\s[^>]*code="[^"]*(?:auth|forbidden|permission|denied|security|credential|token)[^"]*"/i;
const SECURITY_TEXT =
  /\b(?:unauthori[sz]ed|unauthenticated|forbidden|permission denied|access denied|not authori[sz]ed|authentication (?:failed|required|error)|authori[sz]ation (?:failed|required|error)|invalid (?:api[ _-]?key|token|credentials?)|expired token|path traversal|security (?:error|violation|policy))\b/i;

/**
 * True for security and authorization failures, which are never retried: a model must not be
 * asked to "correct" its way past an access check. A `<validation_error>` is never one (its
 * field names, e.g. `auth_token`, would otherwise trip the patterns).
 */
export function isSecurityErrorText(errorText: string): boolean {
  if (/^\s*<validation_error[\s>]/.test(errorText)) return false;
  return SECURITY_CODE.test(errorText) || SECURITY_TEXT.test(errorText);
}

/**
 * Calls tool `name` with `args`; when the result is a retryable error, asks `correct` for a
 * corrected call (new arguments, or another tool with `correctedCall`) and makes it, at most
 * `maxRetries` times.
 *
 * - Success returns the result.
 * - An error on the first call that is not retryable (or a security error) returns the result
 *   unchanged: it is an ordinary tool error for the caller to handle.
 * - Once correction has started, any failure to end in success throws `SelfHealingError` with
 *   every attempt. Errors thrown by the client (transport, protocol) propagate unchanged, except
 *   an `InvalidParams` validation or unknown-tool error, which older SDKs throw instead of
 *   returning.
 */
export async function callWithSelfHealing<C extends ToolCaller>(
  client: C,
  name: string,
  args: Record<string, unknown>,
  options: CallWithSelfHealingOptions,
): Promise<Awaited<ReturnType<C['callTool']>>> {
  const maxRetries = options.maxRetries ?? 1;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(`maxRetries must be a whole number of at least 0, got ${String(maxRetries)}.`);
  }
  const isRetryable = options.isRetryable ?? ((text: string) => isValidationErrorText(text) || isUnknownToolErrorText(text));
  const attempts: HealingAttempt[] = [];
  let current = { toolName: name, args };

  for (;;) {
    const outcome = await callOnce(client, current.toolName, current.args);
    if (outcome.result !== undefined && outcome.result.isError !== true) return outcome.result as Awaited<ReturnType<C['callTool']>>;
    const errorText = outcome.errorText;
    const attempt: HealingAttempt = { attempt: attempts.length + 1, toolName: current.toolName, args: current.args, errorText, result: outcome.result };
    const retryable = !isSecurityErrorText(errorText) && (outcome.result === undefined ? true : isRetryable(errorText, outcome.result));
    if (!retryable) {
      if (attempts.length === 0 && outcome.result !== undefined) return outcome.result as Awaited<ReturnType<C['callTool']>>;
      throw new SelfHealingError(name, 'not-retryable', [...attempts, attempt]);
    }
    attempts.push(attempt);
    if (attempts.length > maxRetries) throw new SelfHealingError(name, 'exhausted', attempts);

    let corrected: Correction;
    try {
      const failure = isUnknownToolErrorText(errorText) ? 'unknown-tool' : 'invalid-arguments';
      corrected = await options.correct({ toolName: current.toolName, args: current.args, errorText, attempt: attempt.attempt, failure });
    } catch (error) {
      throw new SelfHealingError(name, 'correction-failed', attempts, { cause: error });
    }
    const next = callOf(corrected, current.toolName);
    // Nothing, or the same call again, would fail the same way.
    if (next === undefined || (next.toolName === current.toolName && displayJson(next.args) === displayJson(current.args))) {
      throw new SelfHealingError(name, 'declined', attempts);
    }
    current = next;
  }
}

/** The call a correction asks for, or undefined when it asks for none. */
function callOf(corrected: Correction, toolName: string): { toolName: string; args: Record<string, unknown> } | undefined {
  if (corrected === null || corrected === undefined || typeof corrected !== 'object' || Array.isArray(corrected)) return undefined;
  if (CORRECTED_CALL in corrected) {
    const { toolName: next, args } = corrected;
    return typeof next === 'string' && next !== '' && args !== null && typeof args === 'object' && !Array.isArray(args) ? { toolName: next, args } : undefined;
  }
  return { toolName, args: corrected as Record<string, unknown> };
}

type CallOutcome = { result: ToolCallResultLike; errorText: string } | { result: undefined; errorText: string };

async function callOnce(client: ToolCaller, name: string, args: Record<string, unknown>): Promise<CallOutcome> {
  try {
    const result = await client.callTool({ name, arguments: args });
    return { result, errorText: result.isError === true ? textOf(result) : '' };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : String(error);
    if (code === -32602 && (isValidationErrorText(message) || isUnknownToolErrorText(message))) return { result: undefined, errorText: message };
    throw error;
  }
}

function textOf(result: ToolCallResultLike): string {
  if (!Array.isArray(result.content)) return '';
  return result.content
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

function firstLines(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
