/**
 * `formatValidationError`: turns validator issues (zod 3, zod 4 or ajv) into the
 * `<validation_error>` element of the XML error protocol. One `<field>` per wrong argument says
 * what was sent and what is expected, with every fact the model needs to correct the call
 * without asking anyone, and nothing twice: agents pay for every token on every retry.
 */
import {
  admitsTypeOf,
  describeSchema,
  discriminatorValues,
  exampleFor,
  isSchema,
  nearestName,
  propertyNames,
  numberRange,
  rangePhrase,
  sampleString,
  schemaAt,
  unionAt,
  withoutText,
  type ArgPath,
  type JsonSchema,
} from './json-schema.js';
import {
  argumentLocationOf,
  displayJson,
  escapeAttr,
  escapeText,
  flagsText,
  isSubtype,
  jsonTypeName,
  memberRemovalOf,
  memberRenameOf,
  listValues,
  truncate,
  type ArgumentPath,
  type Delta,
  type Release,
} from '../protocol/index.js';

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
  /**
   * The tool's deltas from the artifact (`loadDeltaMap(…).get(toolName)?.deltas`): an argument
   * sent under a name a property rename retired is reported as renamed, with its new name, and
   * text the contract lint flagged is never repeated.
   */
  deltas?: readonly Readonly<Delta>[];
  /** When those deltas were released (the artifact's `release`): a removed argument's line names the version. */
  release?: Readonly<Release>;
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
  /** The validator's own words: shown only for an issue of no kind known here (`other`); the others are said from their kind. */
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
/** An example longer than this costs more than it teaches; the field lines already say every constraint. */
const MAX_EXAMPLE_LENGTH = 200;
const RECOVERY = 'Fix the fields above and call the tool again. Do not explain the error.';
/**
 * How the line of an argument the tool does not declare (or declares under a new name) begins:
 * `reportedFields` reads it back, so the enhancer can show the deltas about the object holding
 * it (`additionalProperties`…).
 */
const UNKNOWN_FIELD = 'Not a field of this tool.';
const REMOVED_FIELD = 'No longer a field of this tool';
const RENAMED_FIELD = 'Renamed to ';

const FIELD_OPEN = '<field name="';
const ENTITIES: Readonly<Record<string, string>> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&amp;': '&', '&#9;': '\t', '&#10;': '\n', '&#13;': '\r' };

/**
 * The fields a `<validation_error>` reports, read back off its `<field name="…">` lines: the
 * argument's label (`items[0].sku`), and whether the line is about an argument the tool does
 * not declare (or declares under a new name). On the request path of every enriched error, so
 * a scan with `indexOf`, not a regular expression.
 */
export function reportedFields(errorXml: string): Array<{ readonly name: string; readonly undeclared: boolean }> {
  const fields = [];
  for (let at = errorXml.indexOf(FIELD_OPEN); at !== -1; at = errorXml.indexOf(FIELD_OPEN, at)) {
    const start = at + FIELD_OPEN.length;
    const end = errorXml.indexOf('">', start);
    if (end === -1) break;
    const raw = errorXml.slice(start, end);
    const name = raw.includes('&') ? raw.replace(/&(?:lt|gt|quot|apos|amp|#9|#10|#13);/g, (entity) => ENTITIES[entity] ?? entity) : raw;
    const line = end + 2;
    fields.push({ name, undeclared: errorXml.startsWith(UNKNOWN_FIELD, line) || errorXml.startsWith(RENAMED_FIELD, line) || errorXml.startsWith(REMOVED_FIELD, line) });
    at = end;
  }
  return fields;
}

/** An argument a property rename retired: `from` in the object at `parent` is now `to`. */
interface Rename {
  readonly parent: ArgumentPath;
  readonly from: string;
  readonly to: string;
}

/** What the lines are built from besides the issues. */
interface Context {
  readonly args: unknown;
  readonly root: JsonSchema | undefined;
  readonly renames: readonly Rename[];
  /** Arguments the artifact says were removed: `parent` path and name. */
  readonly removals: readonly { readonly parent: ArgumentPath; readonly name: string }[];
  /** `in 2.0.0`, or '' when the release is not known. */
  readonly since: string;
  /** Text the contract lint flagged: never written, not even as an argument's name. */
  readonly flagged: ReadonlySet<string>;
}

/**
 * One `<field>` line: the issues of one argument (validators report a value that is both too
 * short and off-pattern as two), at `path` (an unknown key's own path), and the new name when
 * the argument was renamed.
 */
interface FieldLine {
  readonly issues: FieldIssue[];
  readonly path: ArgPath;
  readonly renamedTo?: string;
}

/**
 * The `<validation_error>` for `issues`: one `<field>` line per wrong argument carrying every
 * fact needed to fix it (what was sent, the type, the allowed values, bounds, pattern, the new
 * name of a renamed argument), said once, then the seed's `<recovery>` line and, optionally, a
 * minimal valid `<example>`.
 */
export function formatValidationError(issues: readonly ValidationIssue[] | null | undefined, options: FormatValidationErrorOptions = {}): string {
  const deltas = options.deltas ?? [];
  const flagged = flaggedTextOf(deltas);
  const schema = isSchema(options.schema) ? options.schema : undefined;
  const context: Context = {
    args: options.args,
    root: schema === undefined ? undefined : withoutText(schema, flagged),
    renames: renamesOf(deltas),
    removals: removalsOf(deltas),
    since: options.release?.version === undefined ? '' : ` in ${options.release.version}`,
    flagged,
  };
  const normalized = narrowUnionErrors(issues ?? [], context.root, context.args).map((issue) =>
    withoutFlaggedValues(withDiscriminatorValues(normalizeIssue(issue, context.args), context), flagged),
  );
  if (normalized.length === 0) normalized.push({ kind: 'other', path: [], message: 'The arguments were rejected.' });

  let open = '<validation_error';
  if (options.toolName !== undefined) open += ` tool="${escapeAttr(options.toolName)}"`;
  if (options.action != null) open += ` action="${escapeAttr(options.action)}"`;
  const lines = [`${open}>`];
  for (const field of fieldLines(normalized, context)) {
    lines.push(`<field name="${escapeAttr(pathLabel(field.path, context.flagged))}">${escapeText(describeField(field, context))}</field>`);
  }
  lines.push(`<recovery>${RECOVERY}</recovery>`);
  // An example teaches what to add; a call that only sent wrong values has its fixes above.
  if (options.example === true && context.root !== undefined && normalized.some((issue) => issue.kind === 'missing')) {
    const example = exampleFor(context.root, context.root, context.args);
    const text = example !== undefined && isSchema(example.value) ? JSON.stringify(example.value) : undefined;
    // `{}` (every field optional) would teach nothing.
    if (text !== undefined && text !== '{}' && text.length <= MAX_EXAMPLE_LENGTH) lines.push(`<example>${escapeText(text)}</example>`);
  }
  lines.push('</validation_error>');
  return lines.join('\n');
}

/** Whether a value sent holds text the contract lint flagged (a model may echo what it read). */
function containsFlagged(value: unknown, flagged: ReadonlySet<string>): boolean {
  if (flagged.size === 0) return false;
  const text = displayJson(value);
  for (const item of flagged) if (text.includes(JSON.stringify(item).slice(1, -1))) return true;
  return false;
}

/** The strings the contract lint flagged in the tool's current contract. */
function flaggedTextOf(deltas: readonly Readonly<Delta>[]): Set<string> {
  return new Set(deltas.filter((d) => flagsText(d) && typeof d.current === 'string').map((d) => d.current as string));
}

function renamesOf(deltas: readonly Readonly<Delta>[]): Rename[] {
  const renames: Rename[] = [];
  for (const d of deltas) {
    const renamed = memberRenameOf(d);
    const location = renamed === undefined ? undefined : argumentLocationOf(d.field);
    if (renamed === undefined || location === undefined) continue;
    // The field names the property (under either name) or the object holding it.
    const last = location.path.at(-1);
    const parent = last === renamed.from || last === renamed.to ? location.path.slice(0, -1) : location.path;
    renames.push({ parent, ...renamed });
  }
  return renames;
}

function removalsOf(deltas: readonly Readonly<Delta>[]): Array<{ parent: ArgumentPath; name: string }> {
  const removals: Array<{ parent: ArgumentPath; name: string }> = [];
  for (const d of deltas) {
    const removed = memberRemovalOf(d);
    const location = removed === undefined ? undefined : argumentLocationOf(d.field);
    if (removed === undefined || location === undefined || location.keyword !== undefined || location.path.at(-1) !== removed.name) continue;
    removals.push({ parent: location.path.slice(0, -1), name: removed.name });
  }
  return removals;
}

/** Whether the artifact says the argument `name` of the object at `parent` was removed. */
function wasRemoved(context: Context, parent: ArgPath, name: PropertyKey | undefined): boolean {
  if (context.removals.length === 0 || typeof name !== 'string') return false;
  const at = argumentPath(parent).join('\u0000');
  return context.removals.some((removal) => removal.name === name && removal.parent.join('\u0000') === at);
}

/** `items[0].sku` as an argument path the deltas use: `items[].sku`. */
function argumentPath(path: ArgPath): string[] {
  return path.map((segment) => (typeof segment === 'number' ? '[]' : segment));
}

function renameAt(renames: readonly Rename[], parent: ArgPath, match: (rename: Rename) => boolean): Rename | undefined {
  if (renames.length === 0) return undefined;
  const at = argumentPath(parent).join('\u0000');
  return renames.find((rename) => rename.parent.join('\u0000') === at && match(rename));
}

/**
 * The lines to write: an unknown key gets a line of its own, at its own path; a renamed
 * argument one line under the name that was sent (the missing new name and the unknown old one
 * are the same mistake).
 */
function fieldLines(issues: readonly FieldIssue[], context: Context): FieldLine[] {
  const lines = new Map<string, { issues: FieldIssue[]; path: ArgPath; renamedTo?: string }>();
  const add = (issue: FieldIssue, path: ArgPath, renamedTo?: string) => {
    const label = pathLabel(path);
    const line = lines.get(label);
    if (line === undefined) lines.set(label, { issues: [issue], path, ...(renamedTo !== undefined ? { renamedTo } : {}) });
    else if (renamedTo !== undefined) line.renamedTo = renamedTo;
    else line.issues.push(issue);
  };
  for (const issue of issues) {
    if (issue.kind === 'unknown_keys' && issue.keys !== undefined && issue.keys.length > 0) {
      for (const key of issue.keys) add({ ...issue, keys: [key] }, [...issue.path, key], renameAt(context.renames, issue.path, (r) => r.from === key)?.to);
      continue;
    }
    const key = issue.path.at(-1);
    const parent = issue.path.slice(0, -1);
    const container = valueAt(context.args, parent);
    const rename =
      issue.kind === 'missing' && typeof key === 'string' && isSchema(container)
        ? renameAt(context.renames, parent, (r) => r.to === key && Object.hasOwn(container, r.from))
        : undefined;
    if (rename === undefined) add(issue, issue.path);
    else add({ ...issue, kind: 'unknown_keys', keys: [rename.from] }, [...parent, rename.from], rename.to);
  }
  return [...lines.values()];
}

function pathLabel(path: ArgPath, withheld: ReadonlySet<string> = NOTHING): string {
  if (path.length === 0) return '(root)';
  let label = '';
  for (const segment of path) {
    const name = typeof segment === 'string' && withheld.has(segment) ? WITHHELD : segment;
    label += typeof name === 'number' ? `[${name}]` : label === '' ? name : `.${name}`;
  }
  return label;
}

const NOTHING: ReadonlySet<string> = new Set();
/** What stands for a name or value the contract lint flagged. */
const WITHHELD = '(flagged text withheld)';

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

/** Union errors × errors that `narrowUnionErrors` may compare (a few milliseconds' work). */
const NARROWING_BUDGET = 250_000;

/**
 * ajv reports a `oneOf`/`anyOf` no branch matched with the errors of every branch, which
 * contradict each other (`type` must be "card", `type` must be "bank"; `cvc` is missing, `iban`
 * is missing; a too-long string "must be null"). A value that picks a branch (by a constant
 * property, a discriminated union, or as the one branch of its type) keeps only that branch's
 * errors; an object that picks none by a discriminator is reported as that property: missing,
 * or not one of the branches' values.
 */
function narrowUnionErrors(issues: readonly ValidationIssue[], root: JsonSchema | undefined, args: unknown): readonly ValidationIssue[] {
  const unions = issues.filter(
    (issue): issue is AjvErrorFields & { schemaPath: string } =>
      ((issue as AjvErrorLike).keyword === 'oneOf' || (issue as AjvErrorLike).keyword === 'anyOf') && typeof (issue as AjvErrorLike).schemaPath === 'string',
  );
  // Each union filters every issue: an array of thousands of failing union items would take
  // seconds of the event loop. Past the budget, the errors are reported as ajv gave them.
  if (root === undefined || unions.length === 0 || unions.length * issues.length > NARROWING_BUDGET) return issues;
  let narrowed: ValidationIssue[] = [...issues];
  for (const union of unions) {
    if (!narrowed.includes(union)) continue;
    const prefix = `${union.schemaPath}/`;
    // The items of an array share a schema path: a branch's errors are those of this union's own value.
    const at = typeof union.instancePath === 'string' ? union.instancePath : '';
    const inBranch = (issue: ValidationIssue) => {
      const { schemaPath, instancePath } = issue as AjvErrorLike;
      const path = typeof instancePath === 'string' ? instancePath : '';
      return typeof schemaPath === 'string' && schemaPath.startsWith(prefix) && (path === at || path.startsWith(`${at}/`));
    };
    const path = pointerPath(union.instancePath, args);
    const value = valueAt(args, path);
    const found = value === ABSENT ? undefined : unionAt(root, union.schemaPath, value);
    if (found === undefined) continue;
    if (found.chosen !== undefined) {
      const own = `${prefix}${found.chosen}/`;
      const kept = narrowed.filter((issue) => issue !== union && (!inBranch(issue) || ((issue as AjvErrorLike).schemaPath as string).startsWith(own)));
      // A value matching no branch but the one it picks has that branch's errors to fix.
      if (kept.some(inBranch)) narrowed = kept;
    } else if (isSchema(value) && found.discriminator !== undefined && found.values.length > 0) {
      const discriminator: ZodIssueLike = { code: 'invalid_union_discriminator', path: [...path, found.discriminator], message: union.message ?? '', options: found.values };
      narrowed = narrowed.flatMap((issue) => (issue === union ? [discriminator] : inBranch(issue) ? [] : [issue]));
    }
  }
  return narrowed;
}

/** A discriminator issue that does not list the branches' values (pydantic's "unable to extract tag") gets them from the schema. */
function withDiscriminatorValues(issue: FieldIssue, context: Context): FieldIssue {
  if (issue.discriminator === undefined || (issue.values !== undefined && issue.values.length > 0) || context.root === undefined) return issue;
  const values = discriminatorValues(context.root, schemaAt(context.root, issue.path.slice(0, -1), context.args), issue.discriminator);
  return values.length > 0 ? { ...issue, values } : issue;
}

/** An issue's allowed values without the text the contract lint flagged (the validator reports the schema as it is). */
function withoutFlaggedValues(issue: FieldIssue, flagged: ReadonlySet<string>): FieldIssue {
  if (issue.values === undefined || flagged.size === 0) return issue;
  return { ...issue, values: issue.values.filter((value) => !(typeof value === 'string' && flagged.has(value))) };
}

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
    case 'invalid_union_discriminator': {
      // zod 3
      const values = Array.isArray(issue.options) ? issue.options : [];
      return { ...base, kind: absent ? 'missing' : 'union', values, discriminator: String(path.at(-1) ?? '') };
    }
    case 'invalid_union': {
      if (typeof issue.discriminator === 'string') {
        // zod 4 discriminated union with no matching branch.
        const values = Array.isArray(issue.options) ? issue.options : [];
        return { ...base, kind: absent ? 'missing' : 'union', values, discriminator: issue.discriminator };
      }
      const expected = unionExpectations(issue);
      return { ...base, kind: 'union', ...(expected.length > 0 ? { expectedType: expected.join(' | ') } : {}) };
    }
    default:
      return { ...base, kind: 'other' };
  }
}

function zodTypeName(expected: unknown): string | undefined {
  return typeof expected === 'string' ? jsonTypeName(expected) : undefined;
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
      return { ...base, kind: 'missing', path: [...path, String(params.missingProperty)] };
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

/** Whether `value` has a type the items of the array at `path` may have (any, when the schema does not say). */
function holdsItem(context: Context, path: ArgPath, value: unknown): boolean {
  const items = context.root === undefined ? undefined : schemaAt(context.root, [...path, 0], context.args);
  return items === undefined || admitsTypeOf(items, value);
}

/** Whether the argument at `path` is a declared property its object does not require. */
function isOptional(context: Context, path: ArgPath): boolean {
  const key = path.at(-1);
  const parent = context.root === undefined || typeof key !== 'string' ? undefined : schemaAt(context.root, path.slice(0, -1), context.args);
  if (parent === undefined || !isSchema(parent.properties) || !Object.hasOwn(parent.properties, key as string)) return false;
  return !(Array.isArray(parent.required) && parent.required.includes(key));
}

function capitalize(text: string): string {
  return text.length === 0 ? text : text[0]?.toUpperCase() + text.slice(1);
}

// ---------------------------------------------------------------------------------------------
// Rendering: each line says what is wrong, what was sent, what is expected (type first, with
// every constraint), and a fix only where it adds something (a conversion, a likely typo).

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function describeField(field: FieldLine, context: Context): string {
  const { args, root } = context;
  const sent = valueAt(args, field.path);
  // A renamed argument is expected as its new self.
  const expectedPath = field.renamedTo !== undefined ? [...field.path.slice(0, -1), field.renamedTo] : field.path;
  const schema = root === undefined ? undefined : schemaAt(root, expectedPath, args);
  const removed = field.renamedTo === undefined && field.issues.some((issue) => issue.kind === 'unknown_keys') && wasRemoved(context, field.path.slice(0, -1), field.path.at(-1));
  const problems = field.renamedTo !== undefined ? [`${RENAMED_FIELD}${JSON.stringify(field.renamedTo)}.`] : removed ? [context.since === '' ? `${REMOVED_FIELD}.` : `${REMOVED_FIELD} (removed${context.since}).`] : field.issues.map(problemOf);
  const parts = [...new Set(problems)];
  if (sent !== ABSENT) parts.push(`You sent: ${containsFlagged(sent, context.flagged) ? WITHHELD : truncate(displayJson(sent), MAX_SENT_LENGTH)}.`);
  const first = field.issues[0] as FieldIssue;
  const expected = field.renamedTo !== undefined || first.kind !== 'unknown_keys' ? expectedText(first, root, schema) : undefined;
  if (expected !== undefined) parts.push(`Expected: ${sentence(expected)}`);
  if (removed) parts.push('Remove it.');
  else if (field.renamedTo === undefined) {
    const fixes = field.issues.map((issue) => fixText(issue, sent, field.path, context, schema)).filter((fix) => fix !== undefined);
    parts.push(...new Set(fixes.map(sentence)));
  }
  return parts.join(' ');
}

const TOO_SMALL: Readonly<Record<string, string>> = { string: 'Too short.', array: 'Too few items.', object: 'Too few properties.' };
const TOO_BIG: Readonly<Record<string, string>> = { string: 'Too long.', array: 'Too many items.', object: 'Too many properties.' };

function problemOf(issue: FieldIssue): string {
  switch (issue.kind) {
    case 'missing':
      return 'Missing.';
    case 'type':
      return 'Wrong type.';
    case 'too_small':
      return TOO_SMALL[issue.origin ?? ''] ?? 'Too small.';
    case 'too_big':
      return TOO_BIG[issue.origin ?? ''] ?? 'Too large.';
    case 'enum':
    case 'const':
      return 'Not an allowed value.';
    case 'format':
      return 'Wrong format.';
    case 'pattern':
      return 'Does not match the pattern.';
    case 'multiple_of':
      return 'Not an allowed multiple.';
    case 'unknown_keys':
      return UNKNOWN_FIELD;
    case 'union':
      return issue.discriminator !== undefined ? 'Not an allowed value.' : 'Matches none of the allowed shapes.';
    case 'unique':
      return 'Items are not unique.';
    default:
      return sentence(issue.message);
  }
}

/**
 * What the field accepts: the schema's own description of it, unless the issue reports a
 * constraint the schema does not state (a server that checks more than it publishes), then
 * what the issue reports.
 */
function expectedText(issue: FieldIssue, root: JsonSchema | undefined, schema: JsonSchema | undefined): string | undefined {
  const reported = issueExpectation(issue);
  // The schema at a union's discriminator is one branch's constant; the issue lists every branch's.
  if (issue.discriminator !== undefined && issue.values !== undefined && issue.values.length > 0) return reported;
  const described = root === undefined ? undefined : describeSchema(root, schema);
  return described !== undefined && (reported === undefined || schemaStates(issue, schema)) ? described : reported;
}

/** Whether the schema (or one of its union branches) has the keyword an issue is about. */
function schemaStates(issue: FieldIssue, schema: JsonSchema | undefined, depth = 0): boolean {
  if (schema === undefined || depth > 8) return false;
  const branches = [...(Array.isArray(schema.anyOf) ? schema.anyOf : []), ...(Array.isArray(schema.oneOf) ? schema.oneOf : [])];
  if (branches.some((branch) => isSchema(branch) && schemaStates(issue, branch, depth + 1))) return true;
  switch (issue.kind) {
    case 'too_small':
    case 'too_big':
      return rangePhrase(schema) !== undefined;
    case 'enum':
    case 'const':
      return Array.isArray(schema.enum) || 'const' in schema;
    case 'pattern':
      return typeof schema.pattern === 'string';
    case 'format':
      return typeof schema.format === 'string';
    case 'multiple_of':
      return typeof schema.multipleOf === 'number';
    default:
      return true;
  }
}

/** What an issue itself says is expected, without the schema. */
function issueExpectation(issue: FieldIssue): string | undefined {
  switch (issue.kind) {
    case 'enum':
    case 'union':
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

/** The fix, only where it adds to the expectation: a conversion, a likely typo, a sample of a pattern. */
function fixText(issue: FieldIssue, sent: unknown, path: ArgPath, context: Context, schema: JsonSchema | undefined): string | undefined {
  switch (issue.kind) {
    case 'type': {
      const expected = issue.expectedType ?? (schema !== undefined && typeof schema.type === 'string' ? schema.type : undefined);
      if (expected === undefined) return undefined;
      if (isSubtype(expected, 'number') && typeof sent === 'string' && sent.trim() !== '' && Number.isFinite(Number(sent))) {
        return `Send ${Number(sent)} as a JSON number, not as a string`;
      }
      if (expected === 'integer' && typeof sent === 'number' && !Number.isInteger(sent)) return 'Send a whole number';
      if (expected === 'boolean' && (sent === 'true' || sent === 'false')) return `Send ${sent} as a JSON boolean, not as a string`;
      // null for "no value": an optional argument is left out, and wrapping null fixes nothing.
      if (sent === null) return isOptional(context, path) ? 'Leave it out: it is optional' : undefined;
      // Wrapping helps only a value that is what the array holds: a string is no item of an array of objects.
      if (expected === 'array' && sent !== ABSENT && !Array.isArray(sent) && holdsItem(context, path, sent)) {
        return `Wrap the value in an array: [${truncate(displayJson(sent), MAX_SENT_LENGTH)}]`;
      }
      return undefined;
    }
    case 'enum':
    case 'const':
    case 'union': {
      const values = issue.values ?? (Array.isArray(schema?.enum) ? schema.enum : []);
      const guess = typeof sent === 'string' ? nearestName(sent, values.filter((v): v is string => typeof v === 'string')) : undefined;
      return guess !== undefined ? `Did you mean ${JSON.stringify(guess)}?` : undefined;
    }
    case 'pattern': {
      const pattern = issue.pattern ?? (typeof schema?.pattern === 'string' ? schema.pattern : undefined);
      const sample = pattern === undefined ? undefined : sampleString({ ...(schema ?? {}), pattern });
      return sample !== undefined ? `E.g. ${JSON.stringify(sample)}` : undefined;
    }
    case 'unknown_keys': {
      const { root, args } = context;
      const parent = path.slice(0, -1);
      const container = valueAt(args, parent);
      const sentKeys = container !== ABSENT && isSchema(container) ? new Set(Object.keys(container)) : new Set<string>();
      const known = root === undefined ? [] : propertyNames(root, schemaAt(root, parent, args), container);
      const key = path.at(-1);
      const guess = typeof key === 'string' ? nearestName(key, known.filter((name) => !sentKeys.has(name))) : undefined;
      return guess !== undefined ? `Did you mean ${JSON.stringify(guess)}?` : 'Remove it';
    }
    default:
      return undefined;
  }
}
