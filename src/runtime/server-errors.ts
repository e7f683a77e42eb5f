/**
 * The input-validation errors of MCP frameworks, recognised in a server's answer to
 * `tools/call` so `withSelfHealing` (inside a TypeScript server) and the proxy (in front of any
 * server) can explain them. Only these shapes are recognised; any other error passes through
 * exactly as the server wrote it:
 *
 * - TypeScript SDK `McpServer` (1.18 and later), as an `isError` result or a JSON-RPC error:
 *   `MCP error -32602: Input validation error: Invalid arguments for tool NAME: ` then one
 *   `<message> at <path>` line per zod issue;
 * - TypeScript SDK before that: `MCP error -32602: Invalid arguments for tool NAME: ` then
 *   the zod issues as JSON. The SDK's `McpError` always begins so: the same words without it
 *   are a tool's own text (a handler's thrown `Error`), which is the tool's business;
 * - pydantic, as FastMCP and the Python SDK (FastMCP, MCPServer) report a call whose arguments
 *   do not fit the tool's signature: `[Error executing tool NAME: ]N validation error(s) for
 *   call[NAME]` (or `NAMEArguments`), then a location line and an indented message line with
 *   `[type=…]` per error. The model name must be the tool's: a pydantic error about some other
 *   model is the tool's own business, not its arguments.
 *
 * The issues come back in zod's shape, which `formatValidationError` reads; what a message does
 * not say (allowed values, bounds) the formatter takes from the tool's schema.
 */
import type { Explainer } from './self-healing.js';
import type { ValidationIssue, ZodIssueLike } from './validation-error.js';

/**
 * A server's own error for a call, explained: a recognised input-validation error as the
 * runtime's `<validation_error>` (with `readIssues` asked when the message names no issue it
 * can read) when the explainer explains the tool, and a "tool not found" for a tool the
 * artifact says moved as its `UNKNOWN_TOOL` error, only when the server's current listing
 * lacks the tool (`listed` false): a listed tool ran, and "not found" was its own answer.
 * Undefined for any other error: it passes through as the server wrote it.
 */
export function explainServerError(
  explainer: Explainer,
  toolName: string,
  text: string,
  call: {
    readonly schema: unknown;
    readonly args: unknown;
    /** Whether the server's current listing has the tool; undefined when the listing is not known. */
    readonly listed: boolean | undefined;
    /**
     * What the contract's own check of the arguments finds wrong (the listed input schema,
     * strictly): when it finds anything, that is explained rather than the server's message,
     * so a TypeScript server (whose zod 3 or zod 4 messages say different things) and the
     * proxy in front of any server give the same lines for the same call.
     */
    readonly contractIssues?: () => readonly ValidationIssue[];
    /** The issues to explain when the message names none it can read. */
    readonly readIssues?: () => readonly ValidationIssue[];
  },
): { text: string; outcome: 'moved' | 'explained' } | undefined {
  const moved = explainer.movedTool(toolName);
  if (moved !== undefined && call.listed === false && isUnknownToolError(toolName, text)) return { text: moved, outcome: 'moved' };
  if (!explainer.explains(toolName)) return undefined;
  let issues: readonly ValidationIssue[] | undefined = serverValidationIssues(toolName, text, call.args);
  if (issues === undefined) return undefined;
  const contract = call.contractIssues?.() ?? [];
  if (contract.length > 0) issues = contract;
  // What the message did not let us read, the schema tells.
  else if (issues.length === 0 && call.readIssues !== undefined) issues = call.readIssues();
  if (issues.length === 0) issues = [{ code: 'custom', path: [], message: text.replace(/^MCP error -?\d+: /, '') }];
  return { text: explainer.invalidArguments(toolName, call.schema, call.args, issues), outcome: 'explained' };
}

/** "Tool X not found" (TypeScript SDK), "Unknown tool: X" (Python SDK), "Unknown tool: 'X'" (FastMCP). */
export function isUnknownToolError(toolName: string, text: string): boolean {
  const body = text.replace(/^MCP error -?\d+: /, '');
  return body === `Tool ${toolName} not found` || body === `Unknown tool: ${toolName}` || body === `Unknown tool: '${toolName}'`;
}

/**
 * The issues a recognised validation error reports (possibly none it could read), or undefined
 * when `text` is not a validation error of `toolName` in a known shape.
 */
export function serverValidationIssues(toolName: string, text: string, args?: unknown): ZodIssueLike[] | undefined {
  const sdk = `${SDK_INVALID_PARAMS}Input validation error: Invalid arguments for tool ${toolName}: `;
  if (text.startsWith(sdk)) return sdkIssues(text.slice(sdk.length));
  const legacy = `${SDK_INVALID_PARAMS}Invalid arguments for tool ${toolName}: `;
  if (text.startsWith(legacy)) {
    const issues = zodIssuesJson(text.slice(legacy.length));
    if (issues !== undefined) return issues;
  }
  return pydanticIssues(toolName, text.replace(/^MCP error -?\d+: /, ''), args);
}

/** How the TypeScript SDK's `McpError` for invalid parameters begins its message. */
const SDK_INVALID_PARAMS = 'MCP error -32602: ';

function zodIssuesJson(text: string): ZodIssueLike[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  const valid = parsed.every(
    (issue) => issue !== null && typeof issue === 'object' && typeof issue.code === 'string' && typeof issue.message === 'string' && Array.isArray(issue.path),
  );
  return valid ? (parsed as ZodIssueLike[]) : undefined;
}

/** `Invalid input: expected string, received undefined at items[0].name`, one per line. */
function sdkIssues(details: string): ZodIssueLike[] {
  const json = zodIssuesJson(details);
  if (json !== undefined) return json;
  return details
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const at = line.lastIndexOf(' at ');
      const message = at === -1 ? line : line.slice(0, at);
      const path = at === -1 ? [] : dotPath(line.slice(at + 4));
      const type = /^Invalid input: expected (\w+), received \w+$/.exec(message);
      if (type !== null) return { code: 'invalid_type', path, message, expected: type[1] };
      const size = /^Too (big|small): expected (\w+) to (?:have|be) ([<>]=?)(-?\d+(?:\.\d+)?)/.exec(message);
      if (size !== null) {
        const [, which, origin, operator, limit] = size as unknown as [string, string, string, string, string];
        const bound = which === 'big' ? { code: 'too_big', maximum: Number(limit) } : { code: 'too_small', minimum: Number(limit) };
        return { ...bound, path, message, origin, inclusive: operator.endsWith('=') };
      }
      const option = /^Invalid option: expected one of (.+)$/.exec(message);
      if (option !== null) return { code: 'invalid_value', path, message, values: [...(option[1] as string).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]) };
      const literal = /^Invalid input: expected ("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)$/.exec(message);
      if (literal !== null) return { code: 'invalid_value', path, message, values: [JSON.parse(literal[1] as string)] };
      const keys = /^Unrecognized keys?: (.+)$/.exec(message);
      if (keys !== null) return { code: 'unrecognized_keys', path, message, keys: [...(keys[1] as string).matchAll(/"([^"]*)"/g)].map((m) => m[1]) };
      const pattern = /^Invalid string: must match pattern \/(.*)\/[a-z]*$/.exec(message);
      if (pattern !== null) return { code: 'invalid_format', path, message, format: 'regex', pattern: pattern[1] };
      const step = /^Invalid number: must be a multiple of (-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)$/.exec(message);
      if (step !== null) return { code: 'not_multiple_of', path, message, divisor: Number(step[1]) };
      // A discriminated union's branch chosen by nothing sent (zod's discriminatedUnion).
      const branch = /^Invalid discriminator value\. Expected (.+)$/.exec(message);
      if (branch !== null) return { code: 'invalid_union_discriminator', path, message, options: [...(branch[1] as string).matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((m) => m[1]) };
      return zod3Issue(path, message) ?? { code: 'custom', path, message };
    });
}

/** The values of a zod 3 list, `'open' | 'shipped'`. */
const quotedValues = (text: string) => [...text.matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((m) => m[1]);

/**
 * The default messages of zod 3 (a server whose schemas are zod 3, through SDK 1.18 and later,
 * which prints messages rather than issues): read back into issues, so a line says what a zod 4
 * server's would, once.
 */
function zod3Issue(path: (string | number)[], message: string): ZodIssueLike | undefined {
  if (message === 'Required') return { code: 'invalid_type', path, message, received: 'undefined' };
  const type = /^Expected (\w+), received (\w+)$/.exec(message);
  if (type !== null) return { code: 'invalid_type', path, message, expected: type[1], received: type[2] };
  const option = /^Invalid enum value\. Expected (.+), received '(?:[^'\\]|\\.)*'$/.exec(message);
  if (option !== null) return { code: 'invalid_value', path, message, values: quotedValues(option[1] as string) };
  const literal = /^Invalid literal value, expected (.+)$/.exec(message);
  if (literal !== null) {
    try {
      return { code: 'invalid_value', path, message, values: [JSON.parse(literal[1] as string)] };
    } catch {
      return undefined;
    }
  }
  const size = /^(String|Array|Number) must (?:contain|be) (at least|at most|exactly|greater than or equal to|greater than|less than or equal to|less than) (-?\d+(?:\.\d+)?)/.exec(message);
  if (size !== null) {
    const [, what, how, limit] = size as unknown as [string, string, string, string];
    const origin = what.toLowerCase();
    const low = how === 'at least' || how === 'exactly' || how.startsWith('greater');
    const inclusive = !(how === 'greater than' || how === 'less than');
    return low
      ? { code: 'too_small', path, message, origin, minimum: Number(limit), inclusive, exact: how === 'exactly' }
      : { code: 'too_big', path, message, origin, maximum: Number(limit), inclusive };
  }
  const keys = /^Unrecognized key\(s\) in object: (.+)$/.exec(message);
  if (keys !== null) return { code: 'unrecognized_keys', path, message, keys: quotedValues(keys[1] as string) };
  const format = /^Invalid (email|url|uuid|cuid2?|ulid|datetime|date|time|duration|ip|cidr|emoji|base64|nanoid)$/.exec(message);
  if (format !== null) return { code: 'invalid_format', path, message, format: format[1] };
  if (message === 'Invalid') return { code: 'invalid_format', path, message, format: 'regex' };
  const step = /^Number must be a multiple of (-?\d+(?:\.\d+)?)$/.exec(message);
  if (step !== null) return { code: 'not_multiple_of', path, message, divisor: Number(step[1]) };
  return undefined;
}

/** The SDK's `getDotPath`: `items[0].name`. */
function dotPath(text: string): (string | number)[] {
  const path: (string | number)[] = [];
  for (const match of text.matchAll(/\[(\d+)\]|([^.[\]]+)/g)) path.push(match[1] !== undefined ? Number(match[1]) : (match[2] as string));
  return path;
}

const PYDANTIC_HEADER = /^(?:Error executing tool [^\n]*?: )?\d+ validation errors? for ([^\n]+)\n/;
const TYPE_OPEN = ' [type=';
/** The error type after `TYPE_OPEN`, where the line's `]` or a `,` (then input_value…) follows it. */
const TYPE_NAME = /\w+(?=,|\]$)/y;
/** pydantic's type-error prefixes and the JSON type each one expects. */
const PYDANTIC_TYPES: Readonly<Record<string, string>> = {
  string: 'string',
  int: 'integer',
  float: 'number',
  decimal: 'number',
  bool: 'boolean',
  list: 'array',
  tuple: 'array',
  set: 'array',
  dict: 'object',
  model: 'object',
};

function pydanticIssues(toolName: string, text: string, args: unknown): ZodIssueLike[] | undefined {
  const header = PYDANTIC_HEADER.exec(text);
  const model = header?.[1]?.trim();
  if (header === null || (model !== `call[${toolName}]` && model !== `${toolName}Arguments` && model !== toolName)) return undefined;
  const issues: ZodIssueLike[] = [];
  const lines = text.slice(header[0].length).split('\n');
  for (let i = 0; i + 1 < lines.length; i += 1) {
    const location = lines[i] as string;
    const detail = pydanticMessage(lines[i + 1] as string);
    if (location === '' || location.startsWith(' ') || detail === undefined) continue;
    const path = argumentPath(
      location.split('.').map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment)),
      args,
    );
    issues.push(pydanticIssue(path, detail.message, detail.type));
    i += 1;
  }
  return issues;
}

/**
 * The message line under a location, `  Field required [type=missing, input_value={}, …]`: the
 * message up to the first ` [type=NAME` that ends the line's bracket. Read by scanning, not by
 * one regex: a lazy message before an optional tail backtracks over a server's long line with
 * many ` [type=` in it (quadratic: seconds for a few hundred kilobytes).
 */
function pydanticMessage(line: string): { message: string; type: string } | undefined {
  if (!line.startsWith('  ') || line.length === 2 || /\s/.test(line[2] as string) || /[\r\u2028\u2029]/.test(line)) return undefined;
  if (line.endsWith(']')) {
    for (let at = line.indexOf(TYPE_OPEN, 3); at !== -1; at = line.indexOf(TYPE_OPEN, at + 1)) {
      TYPE_NAME.lastIndex = at + TYPE_OPEN.length;
      const type = TYPE_NAME.exec(line)?.[0];
      if (type !== undefined) return { message: line.slice(2, at), type };
    }
  }
  return { message: line.slice(2), type: '' };
}

/**
 * pydantic names the branch of a union in a location (`method.card.cvc` for the `card` branch of
 * `method`, `amount.int` for a union of types): a segment the arguments do not have, inside a
 * value that has other members (or none at all). The location as the arguments spell it.
 */
function argumentPath(location: readonly (string | number)[], args: unknown): (string | number)[] {
  if (args === undefined) return [...location];
  const path: (string | number)[] = [];
  let value: unknown = args;
  for (const [index, segment] of location.entries()) {
    const holder = value !== null && typeof value === 'object' ? (value as Record<string | number, unknown>) : undefined;
    const branch = typeof segment === 'string' && index > 0 && (holder !== undefined ? index < location.length - 1 && !Object.hasOwn(holder, segment) : value !== undefined);
    if (branch) continue;
    path.push(segment);
    value = holder !== undefined && Object.hasOwn(holder, segment) ? holder[segment] : undefined;
  }
  return path;
}

function pydanticIssue(path: (string | number)[], message: string, type: string): ZodIssueLike {
  const number = (pattern: RegExp) => {
    const match = pattern.exec(message);
    return match === null ? undefined : Number(match[1]);
  };
  if (type.startsWith('missing')) return { code: 'invalid_type', path, message };
  if (type === 'unexpected_keyword_argument' || type === 'extra_forbidden') {
    return { code: 'unrecognized_keys', path: path.slice(0, -1), message, keys: [String(path.at(-1))] };
  }
  const typed = /^([a-z]+)_(?:type|parsing|from_float)$/.exec(type);
  if (typed !== null && PYDANTIC_TYPES[typed[1] as string] !== undefined) return { code: 'invalid_type', path, message, expected: PYDANTIC_TYPES[typed[1] as string] };
  switch (type) {
    case 'greater_than':
    case 'greater_than_equal':
      return { code: 'too_small', path, message, origin: 'number', minimum: number(/than (?:or equal to )?(-?[\d.e+-]+)/), inclusive: type.endsWith('equal') };
    case 'less_than':
    case 'less_than_equal':
      return { code: 'too_big', path, message, origin: 'number', maximum: number(/than (?:or equal to )?(-?[\d.e+-]+)/), inclusive: type.endsWith('equal') };
    case 'string_too_short':
    case 'too_short':
      return { code: 'too_small', path, message, origin: type === 'too_short' ? 'array' : 'string', minimum: number(/at least (\d+)/), inclusive: true };
    case 'string_too_long':
    case 'too_long':
      return { code: 'too_big', path, message, origin: type === 'too_long' ? 'array' : 'string', maximum: number(/at most (\d+)/), inclusive: true };
    case 'literal_error':
    case 'enum':
      return { code: 'invalid_value', path, message, values: [] };
    case 'union_tag_invalid':
    case 'union_tag_not_found': {
      // "Input tag 'x' found using 'type' does not match any of the expected tags: 'a', 'b'" / "Unable to extract tag using discriminator 'type'"
      const name = /using (?:discriminator )?'((?:[^'\\]|\\.)*)'/.exec(message)?.[1];
      if (name === undefined) return { code: 'custom', path, message };
      const options = [.../expected tags: (.*)$/.exec(message)?.[1]?.matchAll(/'((?:[^'\\]|\\.)*)'/g) ?? []].map((m) => m[1]);
      return { code: 'invalid_union_discriminator', path: [...path, name], message, options };
    }
    case 'string_pattern_mismatch':
      return { code: 'invalid_format', path, message, format: 'regex', pattern: /pattern '(.*)'$/.exec(message)?.[1] };
    case 'multiple_of':
      return { code: 'not_multiple_of', path, message, divisor: number(/multiple of (-?[\d.e+-]+)/) };
    default:
      return { code: 'custom', path, message };
  }
}
