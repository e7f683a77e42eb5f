/**
 * `callWithSelfHealing`: the agent side of self-healing. A tool call rejected for its arguments
 * is handed, with the (enriched) error text, to a caller-supplied `correct` function (an LLM
 * call in practice) and retried with the arguments it returns. Security and authorization
 * failures are never retried, whatever `isRetryable` says.
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
  toolName: string;
  /** The arguments of the failed attempt. */
  args: Readonly<Record<string, unknown>>;
  /** The error text the server returned (with `<contract_awareness>` when the server is self-healing). */
  errorText: string;
  /** 1-based number of the failed attempt. */
  attempt: number;
}

export interface CallWithSelfHealingOptions {
  /** Returns corrected arguments, or null/undefined to give up. */
  correct: (request: CorrectionRequest) => Promise<Record<string, unknown> | null | undefined> | Record<string, unknown> | null | undefined;
  /** Corrections to try after the first call (default 1). */
  maxRetries?: number;
  /** Which error results are worth correcting (default: validation errors). Security and auth errors never are. */
  isRetryable?: (errorText: string, result: ToolCallResultLike) => boolean;
}

export interface HealingAttempt {
  /** 1-based. */
  attempt: number;
  args: Readonly<Record<string, unknown>>;
  errorText: string;
  /** The error result, or undefined when the call threw. */
  result: ToolCallResultLike | undefined;
}

export type SelfHealingFailure =
  /** Every allowed retry was used and the last one still failed. */
  | 'exhausted'
  /** `correct` returned nothing, or the same arguments again. */
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
    const summary = attempts.map((a) => `  attempt ${a.attempt}: ${firstLines(a.errorText)}`).join('\n');
    super(`Tool "${toolName}" could not be healed (${reason}) after ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}:\n${summary}`, options);
  }
}

/** True for a validation failure: our `<validation_error>` or the SDK's flat "Input validation error". */
export function isValidationErrorText(errorText: string): boolean {
  return /<validation_error[\s>]/.test(errorText) || /\binput validation error\b/i.test(errorText);
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
 * Calls tool `name` with `args`; when the result is a retryable error, asks `correct` for new
 * arguments and calls again, at most `maxRetries` times.
 *
 * - Success returns the result.
 * - An error on the first call that is not retryable (or a security error) returns the result
 *   unchanged: it is an ordinary tool error for the caller to handle.
 * - Once correction has started, any failure to end in success throws `SelfHealingError` with
 *   every attempt. Errors thrown by the client (transport, protocol) propagate unchanged, except
 *   an `InvalidParams` input-validation error, which older SDKs throw instead of returning.
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
  const isRetryable = options.isRetryable ?? ((text: string) => isValidationErrorText(text));
  const attempts: HealingAttempt[] = [];
  let current = args;

  for (;;) {
    const outcome = await callOnce(client, name, current);
    if (outcome.result !== undefined && outcome.result.isError !== true) return outcome.result as Awaited<ReturnType<C['callTool']>>;
    const errorText = outcome.errorText;
    const attempt: HealingAttempt = { attempt: attempts.length + 1, args: current, errorText, result: outcome.result };
    const retryable = !isSecurityErrorText(errorText) && (outcome.result === undefined ? true : isRetryable(errorText, outcome.result));
    if (!retryable) {
      if (attempts.length === 0 && outcome.result !== undefined) return outcome.result as Awaited<ReturnType<C['callTool']>>;
      throw new SelfHealingError(name, 'not-retryable', [...attempts, attempt]);
    }
    attempts.push(attempt);
    if (attempts.length > maxRetries) throw new SelfHealingError(name, 'exhausted', attempts);

    let corrected: Record<string, unknown> | null | undefined;
    try {
      corrected = await options.correct({ toolName: name, args: current, errorText, attempt: attempt.attempt });
    } catch (error) {
      throw new SelfHealingError(name, 'correction-failed', attempts, { cause: error });
    }
    if (corrected === null || corrected === undefined || typeof corrected !== 'object' || Array.isArray(corrected)) {
      throw new SelfHealingError(name, 'declined', attempts);
    }
    // The same arguments again would fail the same way.
    if (displayJson(corrected) === displayJson(current)) throw new SelfHealingError(name, 'declined', attempts);
    current = corrected;
  }
}

type CallOutcome = { result: ToolCallResultLike; errorText: string } | { result: undefined; errorText: string };

async function callOnce(client: ToolCaller, name: string, args: Record<string, unknown>): Promise<CallOutcome> {
  try {
    const result = await client.callTool({ name, arguments: args });
    return { result, errorText: result.isError === true ? textOf(result) : '' };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : String(error);
    if (code === -32602 && isValidationErrorText(message)) return { result: undefined, errorText: message };
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
