/**
 * `formatValidationError`: turns validator issues (zod 3, zod 4 or ajv) into the
 * `<validation_error>` element of the XML error protocol. One `<field>` per issue says what was
 * sent, what is expected, and a concrete fix derived from the schema constraint, so the model
 * can correct the call without asking anyone.
 */
import {
  describeSchema,
  exampleFor,
  formatSample,
  isSchema,
  nearestName,
  propertyNames,
  numberRange,
  rangePhrase,
  sampleString,
  schemaAt,
  type ArgPath,
  type JsonSchema,
} from './json-schema.js';
import { displayJson, escapeAttr, escapeText, listValues, truncate } from '../protocol/index.js';

/**
 * A zod issue, v3 or v4, read structurally (no zod import). Only the common fields are declared
 * (an index signature would reject zod's own issue interfaces); the code-specific ones
 * (`minimum`, `values`, `keys`, `format`…) are read when present.
 */
export interface ZodIssueLike {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  // Code-specific fields this module reads (zod 4 name / zod 3 name), declared so issue literals type-check.
  readonly expected?: unknown;
  readonly received?: unknown;
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly inclusive?: unknown;
  readonly exact?: unknown;
  readonly origin?: unknown;
  readonly type?: unknown;
  readonly values?: unknown;
  readonly options?: unknown;
  readonly keys?: unknown;
  readonly format?: unknown;
  readonly pattern?: unknown;
  readonly validation?: unknown;
  readonly divisor?: unknown;
  readonly multipleOf?: unknown;
  readonly discriminator?: unknown;
  readonly errors?: unknown;
  readonly unionErrors?: unknown;
  readonly input?: unknown;
}

/** An ajv `ErrorObject`, read structurally (no ajv import). */
export interface AjvErrorLike {
  readonly keyword: string;
  readonly instancePath?: string;
  readonly schemaPath?: string;
  readonly params?: Readonly<Record<string, unknown>>;
  readonly message?: string;
  readonly propertyName?: string;
  readonly schema?: unknown;
  readonly parentSchema?: unknown;
  readonly data?: unknown;
}

/** What the normalizers read: the declared fields plus whatever else the validator put there. */
type ZodIssueFields = ZodIssueLike & Readonly<Record<string, unknown>>;
type AjvErrorFields = AjvErrorLike & Readonly<Record<string, unknown>>;

export type ValidationIssue = ZodIssueLike | AjvErrorLike;

export interface FormatValidationErrorOptions {
  /** The tool that rejected the call (`tool` attribute). */
  toolName?: string;
  /** The failing action of a multi-action tool (`action` attribute). */
  action?: string | null;
  /** The arguments as sent: the source of every "You sent" value. */
  args?: unknown;
  /** The tool's input JSON Schema: the source of expectations, fixes, did-you-mean and the example. */
  schema?: unknown;
  /** Append `<example>` with a minimal valid call generated from `schema` (default false). */
  example?: boolean;
}

type IssueKind =
  | 'missing'
  | 'type'
  | 'too_small'
  | 'too_big'
  | 'enum'
  | 'const'
  | 'format'
  | 'pattern'
  | 'unknown_keys'
  | 'multiple_of'
  | 'union'
  | 'unique'
  | 'other';

/** One issue in validator-neutral form. */
interface FieldIssue {
  kind: IssueKind;
  path: ArgPath;
  message: string;
  expectedType?: string;
  values?: readonly unknown[];
  format?: string;
  pattern?: string;
  keys?: readonly string[];
  limit?: number;
  inclusive?: boolean;
  exact?: boolean;
  /** string, number, array, object… (what the size limit is about). */
  origin?: string;
  divisor?: number;
  discriminator?: string;
}

const MAX_SENT_LENGTH = 100;
const RECOVERY = 'Fix the fields above and call the tool again. Do not explain the error.';

export function formatValidationError(issues: readonly ValidationIssue[] | null | undefined, options: FormatValidationErrorOptions = {}): string {
  const root = isSchema(options.schema) ? options.schema : undefined;
  const args = options.args;
  const normalized = (issues ?? []).map((issue) => normalizeIssue(issue, args));
  if (normalized.length === 0) normalized.push({ kind: 'other', path: [], message: 'The arguments were rejected.' });

  let open = '<validation_error';
  if (options.toolName !== undefined) open += ` tool="${escapeAttr(options.toolName)}"`;
  if (options.action != null) open += ` action="${escapeAttr(options.action)}"`;
  const lines = [`${open}>`];
  const seen = new Set<string>();
  for (const issue of normalized) {
    const line = `<field name="${escapeAttr(pathLabel(issue.path))}">${escapeText(describeIssue(issue, args, root))}</field>`;
    // ajv with allErrors and zod unions can report the same thing twice.
    if (!seen.has(line)) lines.push(line);
    seen.add(line);
  }
  const missing = normalized.filter((issue) => issue.kind === 'missing').map((issue) => `"${pathLabel(issue.path)}"`);
  const recovery = missing.length > 0 ? `Add the missing field${missing.length === 1 ? '' : 's'} ${[...new Set(missing)].join(', ')}. ${RECOVERY}` : RECOVERY;
  lines.push(`<recovery>${escapeText(recovery)}</recovery>`);
  if (options.example === true && root !== undefined) {
    const example = exampleFor(root, root, args);
    // `{}` (every field optional) would teach nothing.
    if (example !== undefined && isSchema(example.value) && Object.keys(example.value).length > 0) {
      lines.push(`<example>${escapeText(JSON.stringify(example.value))}</example>`);
    }
  }
  lines.push('</validation_error>');
  return lines.join('\n');
}

function pathLabel(path: ArgPath): string {
  if (path.length === 0) return '(root)';
  let label = '';
  for (const segment of path) label += typeof segment === 'number' ? `[${segment}]` : label === '' ? segment : `.${segment}`;
  return label;
}

const ABSENT = Symbol('absent');

function valueAt(args: unknown, path: ArgPath): unknown {
  let value: unknown = args;
  for (const segment of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return ABSENT;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value === undefined ? ABSENT : value;
}

// ---------------------------------------------------------------------------------------------
// Normalization

function normalizeIssue(issue: ValidationIssue, args: unknown): FieldIssue {
  if (typeof (issue as ZodIssueLike).code === 'string' && Array.isArray((issue as ZodIssueLike).path)) {
    return normalizeZodIssue(issue as ZodIssueFields, args);
  }
  if (typeof (issue as AjvErrorLike).keyword === 'string') return normalizeAjvError(issue as AjvErrorFields, args);
  const message = typeof (issue as { message?: unknown }).message === 'string' ? (issue as { message: string }).message : 'Invalid value.';
  return { kind: 'other', path: [], message };
}

function zodPath(path: readonly PropertyKey[]): ArgPath {
  return path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
}

function normalizeZodIssue(issue: ZodIssueFields, args: unknown): FieldIssue {
  const path = zodPath(issue.path);
  const base = { path, message: issue.message };
  const absent = valueAt(args, path) === ABSENT && path.length > 0;
  const num = (key: string) => (typeof issue[key] === 'number' ? (issue[key] as number) : typeof issue[key] === 'bigint' ? Number(issue[key]) : undefined);
  switch (issue.code) {
    case 'invalid_type':
      // zod 3 says `received: "undefined"`; zod 4 does not report the input, so look it up.
      if (absent || issue.received === 'undefined') return { ...base, kind: 'missing', expectedType: zodTypeName(issue.expected) };
      return { ...base, kind: 'type', expectedType: zodTypeName(issue.expected) };
    case 'invalid_value': // zod 4: enum, literal
    case 'invalid_enum_value': // zod 3
    case 'invalid_literal': {
      // zod 3
      const values = Array.isArray(issue.values) ? issue.values : Array.isArray(issue.options) ? issue.options : 'expected' in issue ? [issue.expected] : [];
      if (absent) return { ...base, kind: 'missing', values };
      return { ...base, kind: values.length === 1 ? 'const' : 'enum', values };
    }
    case 'too_small':
    case 'too_big': {
      const limit = num(issue.code === 'too_small' ? 'minimum' : 'maximum');
      const origin = typeof issue.origin === 'string' ? issue.origin : typeof issue.type === 'string' ? issue.type : undefined;
      return {
        ...base,
        kind: issue.code,
        ...(limit !== undefined ? { limit } : {}),
        inclusive: issue.inclusive !== false,
        exact: issue.exact === true,
        ...(origin !== undefined ? { origin: origin === 'int' || origin === 'bigint' ? 'number' : origin === 'set' ? 'array' : origin } : {}),
      };
    }
    case 'invalid_format': // zod 4
      if (issue.format === 'regex') return { ...base, kind: 'pattern', ...(typeof issue.pattern === 'string' ? { pattern: regexSource(issue.pattern) } : {}) };
      return { ...base, kind: 'format', format: String(issue.format) };
    case 'invalid_string': // zod 3
      if (issue.validation === 'regex') return { ...base, kind: 'pattern' };
      return { ...base, kind: 'format', format: typeof issue.validation === 'string' ? issue.validation : 'the required' };
    case 'not_multiple_of': {
      const divisor = num('divisor') ?? num('multipleOf');
      return { ...base, kind: 'multiple_of', ...(divisor !== undefined ? { divisor } : {}) };
    }
    case 'unrecognized_keys':
      return { ...base, kind: 'unknown_keys', keys: Array.isArray(issue.keys) ? issue.keys.map(String) : [] };
    case 'invalid_union_discriminator': // zod 3
      return { ...base, kind: 'union', values: Array.isArray(issue.options) ? issue.options : [], discriminator: String(path.at(-1) ?? '') };
    case 'invalid_union': {
      if (typeof issue.discriminator === 'string') {
        // zod 4 discriminated union with no matching branch.
        const values = Array.isArray(issue.options) ? issue.options : [];
        if (absent) return { ...base, kind: 'missing', values };
        return { ...base, kind: 'union', values, discriminator: issue.discriminator };
      }
      const expected = unionExpectations(issue);
      return { ...base, kind: 'union', ...(expected.length > 0 ? { expectedType: expected.join(' | ') } : {}) };
    }
    default:
      return { ...base, kind: 'other' };
  }
}

/** zod names `int`, ajv and JSON Schema `integer`: one name for the model. */
function zodTypeName(expected: unknown): string | undefined {
  if (typeof expected !== 'string') return undefined;
  return expected === 'int' ? 'integer' : expected;
}

/** The types a plain union accepts, from the nested issues zod 3 (`unionErrors`) or 4 (`errors`) report. */
function unionExpectations(issue: ZodIssueFields): string[] {
  const groups: unknown[] = Array.isArray(issue.errors) ? issue.errors : Array.isArray(issue.unionErrors) ? issue.unionErrors.map((e) => (e as { issues?: unknown }).issues) : [];
  const expected = new Set<string>();
  for (const group of groups) {
    if (!Array.isArray(group)) continue;
    for (const nested of group as ZodIssueFields[]) {
      if (nested?.code === 'invalid_type' && Array.isArray(nested.path) && nested.path.length === 0) {
        const name = zodTypeName(nested.expected);
        if (name !== undefined) expected.add(name);
      }
    }
  }
  return [...expected];
}

/** zod 4 reports patterns as regex literals (`/^a$/u`); the model needs the source. */
function regexSource(pattern: string): string {
  const match = /^\/(.*)\/[a-z]*$/s.exec(pattern);
  return match?.[1] ?? pattern;
}

function pointerPath(pointer: string | undefined, args: unknown): ArgPath {
  if (pointer === undefined || pointer === '') return [];
  const path: (string | number)[] = [];
  let value: unknown = args;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const segment = Array.isArray(value) && /^\d+$/.test(key) ? Number(key) : key;
    path.push(segment);
    value = value !== null && typeof value === 'object' ? (value as Record<string | number, unknown>)[segment] : undefined;
  }
  return path;
}

function normalizeAjvError(error: AjvErrorFields, args: unknown): FieldIssue {
  const params = error.params ?? {};
  const path = pointerPath(typeof error.instancePath === 'string' ? error.instancePath : typeof error.dataPath === 'string' ? error.dataPath : '', args);
  const message = capitalize(error.message ?? `failed "${error.keyword}"`);
  const base = { path, message };
  const limit = typeof params.limit === 'number' ? params.limit : undefined;
  const sized = (kind: 'too_small' | 'too_big', origin: string, inclusive = true): FieldIssue => ({ ...base, kind, origin, inclusive, ...(limit !== undefined ? { limit } : {}) });
  switch (error.keyword) {
    case 'required':
      return { kind: 'missing', path: [...path, String(params.missingProperty)], message: `Required field "${String(params.missingProperty)}" is missing.` };
    case 'type':
      return { ...base, kind: 'type', expectedType: Array.isArray(params.type) ? params.type.join(' or ') : String(params.type) };
    case 'minimum':
      return sized('too_small', 'number');
    case 'exclusiveMinimum':
      return sized('too_small', 'number', false);
    case 'maximum':
      return sized('too_big', 'number');
    case 'exclusiveMaximum':
      return sized('too_big', 'number', false);
    case 'minLength':
      return sized('too_small', 'string');
    case 'maxLength':
      return sized('too_big', 'string');
    case 'minItems':
      return sized('too_small', 'array');
    case 'maxItems':
      return sized('too_big', 'array');
    case 'minProperties':
      return sized('too_small', 'object');
    case 'maxProperties':
      return sized('too_big', 'object');
    case 'enum':
      return { ...base, kind: 'enum', values: Array.isArray(params.allowedValues) ? params.allowedValues : [] };
    case 'const':
      return { ...base, kind: 'const', values: [params.allowedValue] };
    case 'format':
      return { ...base, kind: 'format', format: String(params.format) };
    case 'pattern':
      return { ...base, kind: 'pattern', pattern: String(params.pattern) };
    case 'multipleOf':
      return { ...base, kind: 'multiple_of', ...(typeof params.multipleOf === 'number' ? { divisor: params.multipleOf } : {}) };
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const key = params.additionalProperty ?? params.unevaluatedProperty;
      return { ...base, kind: 'unknown_keys', keys: key === undefined ? [] : [String(key)] };
    }
    case 'uniqueItems':
      return { ...base, kind: 'unique' };
    case 'discriminator':
      return { ...base, kind: 'union', ...(typeof params.tag === 'string' ? { discriminator: params.tag } : {}) };
    case 'oneOf':
    case 'anyOf':
      return { ...base, kind: 'union' };
    default:
      return { ...base, kind: 'other' };
  }
}

function capitalize(text: string): string {
  return text.length === 0 ? text : text[0]?.toUpperCase() + text.slice(1);
}

// ---------------------------------------------------------------------------------------------
// Rendering

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The text of one `<field>`: problem, what was sent, what is expected, and the fix. */
function describeIssue(issue: FieldIssue, args: unknown, root: JsonSchema | undefined): string {
  const sent = valueAt(args, issue.path);
  const schema = root === undefined ? undefined : schemaAt(root, issue.path, args);
  const name = pathLabel(issue.path);
  const parts: string[] = [];
  parts.push(sentence(issue.kind === 'missing' ? `Required field "${name}" is missing` : issue.message));
  if (issue.kind === 'unknown_keys') {
    parts.push(`You sent: ${issue.keys?.map((key) => JSON.stringify(key)).join(', ') || 'unknown fields'}.`);
  } else {
    parts.push(`You sent: ${sent === ABSENT ? 'nothing' : truncate(displayJson(sent), MAX_SENT_LENGTH)}.`);
  }
  const expected = expectedText(issue, root, schema, args);
  if (expected !== undefined) parts.push(`Expected: ${sentence(expected)}`);
  parts.push(`Fix: ${sentence(fixText(issue, sent, root, schema, args))}`);
  return parts.join(' ');
}

function expectedText(issue: FieldIssue, root: JsonSchema | undefined, schema: JsonSchema | undefined, args: unknown): string | undefined {
  if (issue.kind === 'unknown_keys') {
    const known = root === undefined ? [] : propertyNames(root, schemaAt(root, issue.path, args), valueAt(args, issue.path));
    return known.length > 0 ? `only the declared fields ${listValues(known, 30)}` : 'no fields other than the declared ones';
  }
  const described = root === undefined ? undefined : describeSchema(root, schema);
  if (described !== undefined) return described;
  switch (issue.kind) {
    case 'enum':
    case 'union':
      return issue.values !== undefined && issue.values.length > 0 ? `one of ${listValues(issue.values)}` : issue.expectedType;
    case 'missing':
      return issue.values !== undefined && issue.values.length > 0 ? `one of ${listValues(issue.values)}` : issue.expectedType;
    case 'const':
      return `exactly ${displayJson(issue.values?.[0])}`;
    case 'type':
      return issue.expectedType;
    case 'too_small':
    case 'too_big':
      return limitPhrase(issue);
    case 'format':
      return `a string in ${issue.format} format`;
    case 'pattern':
      return issue.pattern === undefined ? undefined : `a string matching the pattern ${issue.pattern}`;
    case 'multiple_of':
      return issue.divisor === undefined ? undefined : `a multiple of ${issue.divisor}`;
    default:
      return undefined;
  }
}

/** The bound a size issue reports, in words: `a number of at least 18`, `a string with at least 3 characters`. */
function limitPhrase(issue: FieldIssue): string | undefined {
  if (issue.limit === undefined) return undefined;
  const low = issue.kind === 'too_small';
  const n = issue.limit;
  const exclusive = issue.inclusive === false;
  if (issue.origin === 'number' || issue.origin === undefined) {
    const range = low ? numberRange(exclusive ? undefined : n, exclusive ? n : undefined) : numberRange(undefined, undefined, exclusive ? undefined : n, exclusive ? n : undefined);
    return `a number ${range}`;
  }
  const unit = issue.origin === 'string' ? 'character' : issue.origin === 'object' ? 'propert' : 'item';
  const plural = unit === 'propert' ? (n === 1 ? 'property' : 'properties') : n === 1 ? unit : `${unit}s`;
  const noun = issue.origin === 'string' ? 'a string' : issue.origin === 'object' ? 'an object' : 'an array';
  if (issue.exact === true) return `${noun} with exactly ${n} ${plural}`;
  return `${noun} with ${low ? 'at least' : 'at most'} ${n} ${plural}`;
}

function fixText(issue: FieldIssue, sent: unknown, root: JsonSchema | undefined, schema: JsonSchema | undefined, args: unknown): string {
  const name = pathLabel(issue.path);
  const key = issue.path.at(-1);
  switch (issue.kind) {
    case 'missing': {
      const example = root !== undefined && schema !== undefined ? exampleFor(root, schema, undefined) : undefined;
      const value = example !== undefined ? example.value : issue.values?.[0];
      const described = (root !== undefined ? describeSchema(root, schema) : undefined) ?? expectedText(issue, root, schema, args);
      const description = typeof schema?.description === 'string' ? ` (${schema.description})` : '';
      if (value !== undefined && typeof key === 'string') {
        return `Add ${JSON.stringify(key)} to the arguments, e.g. ${JSON.stringify(key)}: ${truncate(displayJson(value), MAX_SENT_LENGTH)}${description}`;
      }
      return `Add "${name}"${described !== undefined ? ` as ${described}` : ''}${description}`;
    }
    case 'type': {
      const expected = issue.expectedType ?? (schema !== undefined && typeof schema.type === 'string' ? schema.type : undefined);
      if ((expected === 'number' || expected === 'integer') && typeof sent === 'string' && sent.trim() !== '' && Number.isFinite(Number(sent))) {
        return `Send ${Number(sent)} as a JSON number, not as the string ${JSON.stringify(sent)}`;
      }
      if (expected === 'integer' && typeof sent === 'number' && !Number.isInteger(sent)) return `Send a whole number such as ${Math.round(sent)}`;
      if (expected === 'boolean' && (sent === 'true' || sent === 'false')) return `Send ${sent} as a JSON boolean, not as a string`;
      if (expected === 'array' && sent !== ABSENT && !Array.isArray(sent)) return `Wrap the value in an array: [${truncate(displayJson(sent), MAX_SENT_LENGTH)}]`;
      return `Send ${article(expected ?? 'value of the declared type')}${sent === ABSENT ? '' : ` instead of ${article(jsonTypeOf(sent))}`}`;
    }
    case 'too_small':
    case 'too_big': {
      const range = schema !== undefined ? rangePhrase(schema) : undefined;
      const type = schema !== undefined && typeof schema.type === 'string' ? schema.type : issue.origin;
      if (range !== undefined && type !== undefined) {
        return `Provide ${article(type)} ${range}`;
      }
      const phrase = limitPhrase(issue);
      return phrase !== undefined ? `Provide ${phrase}` : 'Provide a value within the allowed range';
    }
    case 'enum':
    case 'const': {
      const values = issue.values ?? (Array.isArray(schema?.enum) ? schema.enum : []);
      const guess = typeof sent === 'string' ? nearestName(sent, values.filter((v): v is string => typeof v === 'string')) : undefined;
      const base = values.length === 1 ? `Use exactly ${displayJson(values[0])}` : `Use one of: ${listValues(values)}`;
      return guess !== undefined ? `${base}. Did you mean ${JSON.stringify(guess)}?` : base;
    }
    case 'format': {
      const format = issue.format ?? (typeof schema?.format === 'string' ? schema.format : 'the required');
      const sample = formatSample(format);
      return `Provide a string in ${format} format${sample !== undefined ? `, e.g. ${JSON.stringify(sample)}` : ''}`;
    }
    case 'pattern': {
      const pattern = issue.pattern ?? (typeof schema?.pattern === 'string' ? schema.pattern : undefined);
      if (pattern === undefined) return 'Provide a string in the format the field description asks for';
      const sample = sampleString({ ...(schema ?? {}), pattern });
      return `Provide a string matching the regular expression ${pattern}${sample !== undefined ? `, e.g. ${JSON.stringify(sample)}` : ''}`;
    }
    case 'multiple_of': {
      const divisor = issue.divisor ?? (typeof schema?.multipleOf === 'number' ? schema.multipleOf : undefined);
      if (divisor === undefined) return 'Provide a multiple of the required step';
      const nearest = typeof sent === 'number' ? Math.max(divisor, Math.round(sent / divisor) * divisor) : divisor;
      return `Provide a multiple of ${divisor}, e.g. ${nearest}`;
    }
    case 'unknown_keys': {
      const container = valueAt(args, issue.path);
      const sentKeys = container !== ABSENT && isSchema(container) ? new Set(Object.keys(container)) : new Set<string>();
      const known = root === undefined ? [] : propertyNames(root, schemaAt(root, issue.path, args), container).filter((k) => !sentKeys.has(k));
      const keys = issue.keys ?? [];
      if (keys.length === 0) return 'Remove the fields the schema does not declare';
      return keys
        .map((unknown) => {
          const guess = nearestName(unknown, known);
          return guess !== undefined ? `rename ${JSON.stringify(unknown)} to ${JSON.stringify(guess)}` : `remove ${JSON.stringify(unknown)}`;
        })
        .join('; ')
        .replace(/^./, (c) => c.toUpperCase());
    }
    case 'union': {
      if (issue.discriminator !== undefined && issue.values !== undefined && issue.values.length > 0) {
        const guess = typeof sent === 'string' ? nearestName(sent, issue.values.filter((v): v is string => typeof v === 'string')) : undefined;
        const base = `Set ${JSON.stringify(issue.discriminator)} to one of: ${listValues(issue.values)}`;
        return guess !== undefined ? `${base}. Did you mean ${JSON.stringify(guess)}?` : base;
      }
      const described = (root !== undefined ? describeSchema(root, schema) : undefined) ?? issue.expectedType?.replace(/ \| /g, ' or ');
      if (described === undefined) return 'Send a value matching one of the allowed shapes';
      return described.startsWith('one of') ? `Send ${described}` : `Send ${article(described)}`;
    }
    case 'unique':
      return 'Remove the duplicate items';
    default: {
      const described = root !== undefined ? describeSchema(root, schema) : undefined;
      return described !== undefined ? `Send ${described}` : 'Correct the value as the tool description asks';
    }
  }
}

function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}
