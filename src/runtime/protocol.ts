/**
 * The XML error protocol for tool handlers: every failure a model can see is one `<tool_error>`
 * (or `<validation_error>`, see validation-error.ts) element with a machine-matchable `code`, a
 * message, and where possible a `<recovery>` line telling it exactly what to do next.
 */
import { displayJson, escapeAttr, escapeText } from '../protocol/index.js';

/**
 * A `CallToolResult` with `isError: true`. Declared here rather than imported from the SDK so
 * handlers of any SDK copy can return it; it is structurally a `CallToolResult`.
 */
export interface ToolErrorResult {
  [key: string]: unknown;
  content: [{ type: 'text'; text: string }];
  isError: true;
}

export interface ToolErrorOptions {
  /** What went wrong, in one or two sentences. */
  message: string;
  /** The next step for the model, rendered as `<recovery>`. */
  suggestion?: string;
  /** Tools or actions the model can call instead, rendered as `<available_actions>`. */
  availableActions?: readonly string[];
  /** Machine-readable context, one `<detail key="…">` each, in the object's key order. */
  details?: Readonly<Record<string, unknown>>;
  /** Seconds to wait before retrying (rate limits, locks), rendered as `<retry_after>`. */
  retryAfter?: number;
}

/** Wraps text in an MCP tool result with `isError: true`. */
export function errorResult(text: string): ToolErrorResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A plain failure: `<tool_error><message>…</message></tool_error>`. */
export function error(message: string): ToolErrorResult {
  return errorResult(`<tool_error>\n<message>${escapeText(message)}</message>\n</tool_error>`);
}

/** A missing argument, with the recovery step spelled out. */
export function required(field: string): ToolErrorResult {
  return toolError('MISSING_REQUIRED_FIELD', {
    message: `Required field "${field}" is missing.`,
    suggestion: `Provide the "${field}" parameter and retry.`,
  });
}

/** A recoverable failure with a code the model can match and the next step it should take. */
export function toolError(code: string, options: ToolErrorOptions): ToolErrorResult {
  const lines = [`<tool_error code="${escapeAttr(code)}">`, `<message>${escapeText(options.message)}</message>`];
  if (options.suggestion !== undefined) lines.push(`<recovery>${escapeText(options.suggestion)}</recovery>`);
  if (options.availableActions !== undefined && options.availableActions.length > 0) {
    lines.push(`<available_actions>${escapeText(options.availableActions.join(', '))}</available_actions>`);
  }
  if (options.retryAfter !== undefined) {
    if (!Number.isFinite(options.retryAfter) || options.retryAfter < 0) {
      throw new RangeError(`retryAfter must be a number of seconds of at least 0, got ${String(options.retryAfter)}.`);
    }
    lines.push(`<retry_after seconds="${options.retryAfter}">Wait ${options.retryAfter} seconds before calling again.</retry_after>`);
  }
  const details = options.details === undefined ? [] : Object.entries(options.details);
  if (details.length > 0) {
    lines.push('<details>');
    for (const [key, value] of details) {
      const text = typeof value === 'string' ? value : displayJson(value);
      lines.push(`<detail key="${escapeAttr(key)}">${escapeText(text)}</detail>`);
    }
    lines.push('</details>');
  }
  lines.push('</tool_error>');
  return errorResult(lines.join('\n'));
}
