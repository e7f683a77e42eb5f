/**
 * THE rule table: every kind of delta the engine can report, its severity, why, and what to
 * do about it. The whole classification policy is readable on this one page; detectors only
 * decide *which* kind a change is, and look everything else up here. The README's severity
 * table is rendered from it (`renderSeverityTable`), and a test keeps the two in sync.
 *
 * Two families of rules:
 * - schema rules (`severity: { input, output }`): the same keyword change means opposite
 *   things depending on who produces the value. Input schemas are contravariant: the agent
 *   writes the value, so narrowing what is accepted breaks callers. Output schemas are
 *   covariant: the server writes it, so widening what may come back surprises consumers.
 * - entry rules (`severity: Severity`): direction does not apply (a tool disappearing is
 *   the same news whoever reads it).
 */
import type { Severity } from './types.js';

export type Direction = 'input' | 'output';

/** What a rule looks at; decides where it sits in the README table. */
export type RuleScope = 'schema' | 'tool' | 'prompt' | 'resource' | 'any';

/** The facts a message is built from; `where` is a human label such as `items[].sku`. */
export interface DeltaFacts {
  where: string;
  /** The keyword or member the delta is about (`maximum`, a property name, an action…). */
  subject: string;
  previous: unknown;
  current: unknown;
  direction: Direction | null;
  /** Extra words computed by the detector (e.g. which enum values were removed). */
  detail: string;
}

type PerDirection<T> = { input: T; output: T };

export interface Rule {
  kind: string;
  scope: RuleScope;
  severity: Severity | PerDirection<Severity>;
  /** One line: why this severity. Per direction for schema rules. */
  reason: string | PerDirection<string>;
  /** What to do about it; present for every direction in which the rule is BREAKING. */
  hint?: string | Partial<PerDirection<string>>;
  message: (facts: DeltaFacts) => string;
}

// ── small message helpers ────────────────────────────────────────────────────────────────

/** A short, one-line rendering of a JSON value for messages (renderers escape it later). */
export function show(value: unknown, max = 80): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const at = (f: DeltaFacts) => (f.where === '' ? '' : `${f.where}: `);
const quoted = (name: string) => JSON.stringify(name);
const showOrNone = (value: unknown) => (value === null || value === undefined ? 'none' : show(value));
const fromTo = (f: DeltaFacts) => `from ${showOrNone(f.previous)} to ${showOrNone(f.current)}`;
const withDetail = (f: DeltaFacts) => (f.detail === '' ? '' : ` (${f.detail})`);

const B: Severity = 'BREAKING';
const R: Severity = 'RISKY';
const S: Severity = 'SAFE';
const C: Severity = 'COSMETIC';

/** A schema rule whose narrowing breaks inputs and whose widening surprises outputs. */
function narrowing(kind: string, inputReason: string, hint: string, message: Rule['message']): Rule {
  return {
    kind,
    scope: 'schema',
    severity: { input: B, output: S },
    reason: { input: inputReason, output: 'The server returns a subset of what it returned before.' },
    hint: { input: hint },
    message,
  };
}

function widening(kind: string, outputReason: string, message: Rule['message']): Rule {
  return {
    kind,
    scope: 'schema',
    severity: { input: S, output: R },
    reason: { input: 'Every argument accepted before is still accepted.', output: outputReason },
    message,
  };
}

/** A change that both drops and adds accepted values: breaks inputs, surprises outputs. */
function reshaping(kind: string, inputReason: string, outputReason: string, hint: string, message: Rule['message']): Rule {
  return {
    kind,
    scope: 'schema',
    severity: { input: B, output: R },
    reason: { input: inputReason, output: outputReason },
    hint: { input: hint },
    message,
  };
}

function cosmetic(kind: string, scope: RuleScope, reason: string, message: Rule['message']): Rule {
  return { kind, scope, severity: C, reason, message };
}

// ── the table ────────────────────────────────────────────────────────────────────────────

const RULE_LIST: Rule[] = [
  // Entries appearing, disappearing, being renamed.
  {
    kind: 'tool-removed', scope: 'tool', severity: B,
    reason: 'Agents that call it get "unknown tool".',
    hint: 'Keep the tool for a release, marked deprecated in its description, before removing it.',
    message: (f) => `Tool ${quoted(f.subject)} was removed.`,
  },
  {
    kind: 'tool-added', scope: 'tool', severity: S,
    reason: 'Nothing that worked before stops working.',
    message: (f) => `Tool ${quoted(f.subject)} was added.`,
  },
  {
    kind: 'tool-renamed', scope: 'tool', severity: B,
    reason: 'Agents calling the old name get "unknown tool", even though the tool still exists.',
    hint: 'Keep the old name registered as an alias of the renamed tool for a release.',
    message: (f) => `Tool ${show(f.previous)} was renamed to ${show(f.current)}${withDetail(f)}.`,
  },
  {
    kind: 'prompt-removed', scope: 'prompt', severity: B,
    reason: 'Clients that fetch it get an error.',
    hint: 'Keep the prompt for a release before removing it.',
    message: (f) => `Prompt ${quoted(f.subject)} was removed.`,
  },
  {
    kind: 'prompt-added', scope: 'prompt', severity: S,
    reason: 'Nothing that worked before stops working.',
    message: (f) => `Prompt ${quoted(f.subject)} was added.`,
  },
  {
    kind: 'prompt-renamed', scope: 'prompt', severity: B,
    reason: 'Clients fetching the old name get an error, even though the prompt still exists.',
    hint: 'Keep the old name registered as an alias of the renamed prompt for a release.',
    message: (f) => `Prompt ${show(f.previous)} was renamed to ${show(f.current)}${withDetail(f)}.`,
  },
  {
    kind: 'resource-removed', scope: 'resource', severity: B,
    reason: 'Clients reading this URI get "not found".',
    hint: 'Keep serving the old URI (or redirect it to the new one) for a release.',
    message: (f) => `Resource ${quoted(f.subject)} was removed.`,
  },
  {
    kind: 'resource-added', scope: 'resource', severity: S,
    reason: 'Nothing that worked before stops working.',
    message: (f) => `Resource ${quoted(f.subject)} was added.`,
  },
  {
    kind: 'resource-template-removed', scope: 'resource', severity: B,
    reason: 'Clients expanding this template get "not found".',
    hint: 'Keep serving URIs of the old template for a release.',
    message: (f) => `Resource template ${quoted(f.subject)} was removed.`,
  },
  {
    kind: 'resource-template-added', scope: 'resource', severity: S,
    reason: 'Nothing that worked before stops working.',
    message: (f) => `Resource template ${quoted(f.subject)} was added.`,
  },

  // Tool behaviour declared outside the schemas.
  {
    kind: 'tool-no-longer-read-only', scope: 'tool', severity: R,
    reason: 'readOnlyHint true → false: clients that auto-approved it as harmless may now let it change state.',
    message: () => 'The tool no longer declares itself read-only (readOnlyHint true → false).',
  },
  {
    kind: 'tool-became-destructive', scope: 'tool', severity: R,
    reason: 'destructiveHint false → true: the tool may now delete or overwrite; approval policies should change.',
    message: () => 'The tool now declares that it may be destructive (destructiveHint false → true).',
  },
  {
    kind: 'tool-no-longer-idempotent', scope: 'tool', severity: R,
    reason: 'idempotentHint true → false: retrying a call may now repeat its effect.',
    message: () => 'The tool no longer declares itself idempotent (idempotentHint true → false): retries may repeat effects.',
  },
  {
    kind: 'tool-became-open-world', scope: 'tool', severity: R,
    reason: 'openWorldHint false → true: the tool now reaches external systems (network, third parties).',
    message: () => 'The tool now declares that it interacts with an open world (openWorldHint false → true).',
  },
  {
    kind: 'tool-became-read-only', scope: 'tool', severity: S,
    reason: 'The tool promises less impact than before.',
    message: () => 'The tool now declares itself read-only (readOnlyHint false → true).',
  },
  {
    kind: 'tool-no-longer-destructive', scope: 'tool', severity: S,
    reason: 'The tool promises less impact than before.',
    message: () => 'The tool no longer declares itself destructive (destructiveHint true → false).',
  },
  {
    kind: 'tool-became-idempotent', scope: 'tool', severity: S,
    reason: 'Retries became safer.',
    message: () => 'The tool now declares itself idempotent (idempotentHint false → true).',
  },
  {
    kind: 'tool-became-closed-world', scope: 'tool', severity: S,
    reason: 'The tool reaches fewer systems than before.',
    message: () => 'The tool no longer declares open-world interaction (openWorldHint true → false).',
  },
  {
    kind: 'task-support-required', scope: 'tool', severity: B,
    reason: 'Clients that cannot run the tool as a task can no longer call it at all.',
    hint: 'Keep execution.taskSupport "optional" so clients without task support keep working.',
    message: (f) => `The tool now requires task-augmented calls (execution.taskSupport ${fromTo(f)}).`,
  },
  {
    kind: 'task-support-withdrawn', scope: 'tool', severity: B,
    reason: 'Clients that call it as a task are now refused.',
    hint: 'Keep accepting task-augmented calls for a release, or ship the change as a new tool.',
    message: (f) => `The tool no longer accepts task-augmented calls (execution.taskSupport ${fromTo(f)}).`,
  },
  {
    kind: 'task-support-relaxed', scope: 'tool', severity: S,
    reason: 'Every way of calling it that worked before still works.',
    message: (f) => `execution.taskSupport changed ${fromTo(f)}.`,
  },
  {
    kind: 'execution-changed', scope: 'tool', severity: R,
    reason: 'An execution setting this tool does not know how to judge changed; review it.',
    message: (f) => `${at(f)}execution setting ${quoted(f.subject)} changed ${fromTo(f)}.`,
  },
  {
    kind: 'output-schema-removed', scope: 'tool', severity: B,
    reason: 'Consumers that validate or read structured results lose their contract.',
    hint: 'Keep declaring the output schema; consumers validate structuredContent against it.',
    message: () => 'The output schema was removed: structured results are no longer described.',
  },
  {
    kind: 'output-schema-added', scope: 'tool', severity: S,
    reason: 'Results gain a contract; nothing that worked before stops working.',
    message: () => 'An output schema was added.',
  },
  cosmetic('schema-dialect-changed', 'tool', 'The declared JSON Schema dialect changed; what the schema accepts did not.',
    (f) => `${f.subject} now declares $schema ${showOrNone(f.current)} (was ${showOrNone(f.previous)}).`),

  // Prompts.
  {
    kind: 'required-prompt-argument-added', scope: 'prompt', severity: B,
    reason: 'Clients that fetch the prompt without it get an error.',
    hint: 'Make the argument optional, with a sensible default in the prompt.',
    message: (f) => `New required argument ${quoted(f.subject)}.`,
  },
  {
    kind: 'prompt-argument-added', scope: 'prompt', severity: S,
    reason: 'A new optional argument; existing requests still work.',
    message: (f) => `New optional argument ${quoted(f.subject)}.`,
  },
  {
    kind: 'prompt-argument-removed', scope: 'prompt', severity: B,
    reason: 'Clients that pass it may be refused, and its effect is gone.',
    hint: 'Keep accepting the argument (ignore it if unused) for a release.',
    message: (f) => `Argument ${quoted(f.subject)} was removed.`,
  },
  {
    kind: 'prompt-argument-became-required', scope: 'prompt', severity: B,
    reason: 'Clients that omitted it get an error.',
    hint: 'Keep the argument optional, with a sensible default in the prompt.',
    message: (f) => `Argument ${quoted(f.subject)} is now required.`,
  },
  {
    kind: 'prompt-argument-became-optional', scope: 'prompt', severity: S,
    reason: 'Every request that worked before still works.',
    message: (f) => `Argument ${quoted(f.subject)} is now optional.`,
  },

  // Resources and resource templates.
  {
    kind: 'mime-type-changed', scope: 'resource', severity: R,
    reason: 'Clients that parse the content by its type may misread it.',
    message: (f) => `mimeType changed ${fromTo(f)}.`,
  },
  cosmetic('name-changed', 'resource', 'The display name changed; the URI, which clients use, did not.',
    (f) => `name changed ${fromTo(f)}.`),

  // Text anywhere in a contract.
  cosmetic('description-changed', 'any', 'Text only; agents may read it, but no call is refused.',
    (f) => `${at(f)}description ${f.previous === undefined || f.previous === null ? 'added' : f.current === undefined || f.current === null ? 'removed' : 'reworded'}.`),
  cosmetic('title-changed', 'any', 'Text only; no call is refused.', (f) => `${at(f)}title changed ${fromTo(f)}.`),
  cosmetic('metadata-changed', 'any', 'Metadata that no validator reads (icons, _meta, sizes, unknown fields).',
    (f) => `${at(f)}${f.subject} changed.`),
  {
    kind: 'suspicious-text', scope: 'any', severity: R,
    reason: 'New or changed text looks like tool poisoning (hidden instructions, secrets, concealment, invisible characters): review it before agents read it.',
    message: (f) => `${at(f)}new or changed text looks like tool poisoning: ${f.detail}.`,
  },

  // ── schema keywords (direction-aware) ──
  narrowing('type-narrowed', 'Arguments of a type no longer listed are rejected.',
    'Keep accepting the old type (list both) and convert server-side.',
    (f) => `${at(f)}type narrowed ${fromTo(f)}.`),
  widening('type-widened', 'The server may return a type consumers never saw.',
    (f) => `${at(f)}type widened ${fromTo(f)}.`),
  {
    kind: 'type-changed', scope: 'schema', severity: { input: B, output: B },
    reason: {
      input: 'Arguments of the old type are rejected.',
      output: 'The server returns a type consumers do not expect in place of the one they parse.',
    },
    hint: {
      input: 'Keep accepting the old type (list both) and convert server-side.',
      output: 'Keep returning the old type; add a new field for the new one.',
    },
    message: (f) => `${at(f)}type changed ${fromTo(f)}.`,
  },
  narrowing('enum-narrowed', 'Arguments using a value no longer listed are rejected.',
    'Keep accepting the removed values (map them to their replacement) for a release.',
    (f) => `${at(f)}fewer values accepted${withDetail(f)}.`),
  widening('enum-widened', 'The server may return a value consumers never saw (a new enum member).',
    (f) => `${at(f)}more values allowed${withDetail(f)}.`),
  reshaping('enum-changed', 'Arguments using a removed value are rejected.', 'The server may return a value consumers never saw.',
    'Keep accepting the removed values (map them to their replacement) for a release.',
    (f) => `${at(f)}allowed values changed${withDetail(f)}.`),
  narrowing('number-range-narrowed', 'Numbers between the old and the new bound are rejected.',
    'Keep the old bound, or clamp out-of-range values server-side.',
    (f) => `${at(f)}${f.subject} tightened ${fromTo(f)}.`),
  widening('number-range-widened', 'The server may return numbers outside the range consumers relied on.',
    (f) => `${at(f)}${f.subject} relaxed ${fromTo(f)}.`),
  narrowing('length-range-narrowed', 'Strings of a length that used to be fine are rejected.',
    'Keep the old length limit, or truncate server-side.',
    (f) => `${at(f)}${f.subject} tightened ${fromTo(f)}.`),
  widening('length-range-widened', 'The server may return strings longer or shorter than consumers expect.',
    (f) => `${at(f)}${f.subject} relaxed ${fromTo(f)}.`),
  narrowing('item-count-range-narrowed', 'Arrays with a count of items that used to be fine are rejected.',
    'Keep the old item limit, or split/pad server-side.',
    (f) => `${at(f)}${f.subject} tightened ${fromTo(f)}.`),
  widening('item-count-range-widened', 'The server may return more or fewer items than consumers expect.',
    (f) => `${at(f)}${f.subject} relaxed ${fromTo(f)}.`),
  narrowing('property-count-range-narrowed', 'Objects with a number of properties that used to be fine are rejected.',
    'Keep the old property-count limit.',
    (f) => `${at(f)}${f.subject} tightened ${fromTo(f)}.`),
  widening('property-count-range-widened', 'The server may return objects of a size consumers do not expect.',
    (f) => `${at(f)}${f.subject} relaxed ${fromTo(f)}.`),
  narrowing('multiple-of-narrowed', 'Numbers that were multiples of the old step but not of the new one are rejected.',
    'Keep the old multipleOf, or round server-side.',
    (f) => `${at(f)}multipleOf changed ${fromTo(f)}.`),
  widening('multiple-of-widened', 'The server may return numbers off the step consumers relied on.',
    (f) => `${at(f)}multipleOf relaxed ${fromTo(f)}.`),
  reshaping('multiple-of-changed', 'Multiples of the old step are rejected.', 'The server may return numbers off the old step.',
    'Keep the old multipleOf, or round server-side.',
    (f) => `${at(f)}multipleOf changed ${fromTo(f)}.`),
  narrowing('pattern-added', 'Strings that do not match the new pattern are rejected.',
    'Accept the previously valid strings too, or normalize them server-side.',
    (f) => `${at(f)}now must match pattern ${show(f.current)}.`),
  widening('pattern-removed', 'The server may return strings of a shape consumers never saw.',
    (f) => `${at(f)}pattern ${show(f.previous)} removed.`),
  reshaping('pattern-changed', 'Strings that matched the old pattern may not match the new one.',
    'The server may return strings that did not match the old pattern.',
    'Widen the pattern so previously valid strings still match, or normalize them server-side.',
    (f) => `${at(f)}pattern changed ${fromTo(f)}.`),
  narrowing('format-added', 'Strings that are not in the new format are rejected.',
    'Accept the previous strings too, or normalize them server-side.',
    (f) => `${at(f)}now must be in format ${show(f.current)}.`),
  widening('format-removed', 'The server may return strings that are not in the format consumers parse.',
    (f) => `${at(f)}format ${show(f.previous)} removed.`),
  reshaping('format-changed', 'Strings in the old format are rejected.', 'The server returns strings in a format consumers do not parse.',
    'Accept both formats and normalize server-side.',
    (f) => `${at(f)}format changed ${fromTo(f)}.`),
  narrowing('unique-items-added', 'Arrays with duplicates are rejected.',
    'De-duplicate server-side instead of rejecting duplicates.',
    (f) => `${at(f)}items must now be unique.`),
  widening('unique-items-removed', 'The server may return duplicates consumers never saw.',
    (f) => `${at(f)}items no longer need to be unique.`),
  {
    kind: 'required-property-added', scope: 'schema', severity: { input: B, output: R },
    reason: {
      input: 'Calls that do not send the new property are rejected.',
      output: 'Every result now carries a property consumers never saw.',
    },
    hint: { input: 'Make the property optional with a default, so existing calls keep working.' },
    message: (f) => `${at(f)}new required property ${quoted(f.subject)}.`,
  },
  narrowing('property-became-required', 'Calls that omitted the property are rejected.',
    'Keep the property optional with a default, so existing calls keep working.',
    (f) => `${at(f)}property ${quoted(f.subject)} is now required.`),
  widening('property-became-optional', 'Consumers may no longer find a property they always got.',
    (f) => `${at(f)}property ${quoted(f.subject)} is no longer required.`),
  {
    kind: 'property-added', scope: 'schema', severity: { input: S, output: R },
    reason: {
      input: 'A new optional argument; existing calls do not send it and still work.',
      output: 'Results may carry a property consumers never saw (harmless to lenient parsers, rejected by strict ones).',
    },
    message: (f) => `${at(f)}new optional property ${quoted(f.subject)}.`,
  },
  {
    kind: 'property-removed', scope: 'schema', severity: { input: B, output: B },
    reason: {
      input: 'The object rejects undeclared properties, so calls that still send it are refused.',
      output: 'Consumers that read the property no longer get it.',
    },
    hint: {
      input: 'Keep accepting the property (ignore it if unused) until callers have moved.',
      output: 'Keep returning the property (deprecate it first) until consumers have moved.',
    },
    message: (f) => `${at(f)}property ${quoted(f.subject)} was removed.`,
  },
  {
    kind: 'property-removed-ignored', scope: 'schema', severity: { input: R, output: B },
    reason: {
      input: 'Calls that still send it are accepted, but the server may now silently ignore it.',
      output: 'Consumers that read the property no longer get it.',
    },
    hint: { output: 'Keep returning the property (deprecate it first) until consumers have moved.' },
    message: (f) => `${at(f)}property ${quoted(f.subject)} is no longer declared.`,
  },
  narrowing('additional-properties-forbidden', 'Calls that send a property the schema does not list are rejected.',
    'Keep accepting unknown properties (and ignore them), or list the ones callers send.',
    (f) => `${at(f)}undeclared properties are now rejected.`),
  widening('additional-properties-allowed', 'The server may return properties consumers never saw.',
    (f) => `${at(f)}undeclared properties are now allowed.`),
  narrowing('schema-became-false', 'Nothing is accepted at this location any more.',
    'Restore the previous schema at this location.',
    (f) => `${at(f)}no value is accepted here any more.`),
  widening('schema-was-false', 'The server may return values where it never returned any.',
    (f) => `${at(f)}values are now allowed where none were.`),
  narrowing('union-branch-removed', 'Arguments that only matched the removed variant are rejected.',
    'Keep accepting the removed variant, or convert it server-side.',
    (f) => `${at(f)}variant ${f.subject} removed${withDetail(f)}.`),
  widening('union-branch-added', 'The server may return a variant consumers never saw.',
    (f) => `${at(f)}variant ${f.subject} added${withDetail(f)}.`),
  narrowing('union-made-exclusive', 'anyOf → oneOf: values matching several variants are now rejected.',
    'Keep anyOf, or make the variants disjoint.',
    (f) => `${at(f)}anyOf became oneOf: a value must now match exactly one variant.`),
  widening('union-made-inclusive', 'oneOf → anyOf: the server may return values matching several variants.',
    (f) => `${at(f)}oneOf became anyOf.`),
  {
    kind: 'one-of-overlap', scope: 'schema', severity: { input: B, output: R },
    reason: {
      input: 'oneOf rejects a value that matches two variants; its variants are not provably disjoint and changed, so some arguments may now match two.',
      output: 'Values that matched two variants (and were never returned) may now match exactly one.',
    },
    hint: { input: 'Use anyOf, or make the variants disjoint (a discriminator property with a distinct const per variant).' },
    message: (f) => `${at(f)}the oneOf variants changed and are not provably disjoint: values may start or stop matching exactly one variant.`,
  },
  narrowing('action-removed', 'Calls with this action are rejected.',
    'Keep the action as a deprecated alias that forwards to its replacement.',
    (f) => `Action ${quoted(f.subject)} was removed.`),
  widening('action-added', 'The server may return results for an action consumers never saw.',
    (f) => `Action ${quoted(f.subject)} was added.`),
  narrowing('all-of-branch-added', 'A new constraint every argument must satisfy.',
    'Enforce the new constraint in the handler with a helpful error, or make it optional.',
    (f) => `${at(f)}new allOf constraint ${f.subject}.`),
  widening('all-of-branch-removed', 'The server may return values that violated the removed constraint.',
    (f) => `${at(f)}allOf constraint ${f.subject} removed.`),
  narrowing('not-added', 'Values matching the new exclusion are rejected.',
    'Drop the exclusion, or handle the excluded values in the handler.',
    (f) => `${at(f)}now excludes values matching ${show(f.current)}.`),
  widening('not-removed', 'The server may return values it used to exclude.',
    (f) => `${at(f)}no longer excludes values matching ${show(f.previous)}.`),
  narrowing('not-excludes-more', 'The `not` schema now matches more values, all of them rejected.',
    'Narrow the exclusion back, or handle the newly excluded values in the handler.',
    (f) => `${at(f)}now excludes more: ${show(f.previous)} → ${show(f.current)}.`),
  widening('not-excludes-less', 'The server may return values it used to exclude.',
    (f) => `${at(f)}now excludes less: ${show(f.previous)} → ${show(f.current)}.`),
  reshaping('not-changed', 'Some values that passed the old exclusion are now excluded.', 'The server may return values it used to exclude.',
    'Keep excluding only what was excluded before, or handle the difference in the handler.',
    (f) => `${at(f)}exclusion changed: ${show(f.previous)} → ${show(f.current)}.`),
  narrowing('constraint-added', 'A new validation keyword may reject arguments that used to pass.',
    'Make sure every argument that was valid before still passes.',
    (f) => `${at(f)}new constraint ${f.subject}: ${show(f.current)}.`),
  widening('constraint-removed', 'The server may return values the removed keyword used to exclude.',
    (f) => `${at(f)}constraint ${f.subject} removed (was ${show(f.previous)}).`),
  reshaping('constraint-changed', 'The changed keyword may reject arguments that used to pass.',
    'The server may return values the old keyword excluded.',
    'Make sure every argument that was valid before still passes.',
    (f) => `${at(f)}constraint ${f.subject} changed ${fromTo(f)}.`),
  {
    kind: 'default-changed', scope: 'schema', severity: { input: R, output: C },
    reason: {
      input: 'Calls that omit the argument now get different behaviour.',
      output: 'An annotation on a returned value; nothing is validated against it.',
    },
    message: (f) => `${at(f)}default changed ${fromTo(f)}.`,
  },
  {
    kind: 'default-removed', scope: 'schema', severity: { input: R, output: C },
    reason: {
      input: 'Calls that omit the argument relied on a documented default that is gone.',
      output: 'An annotation on a returned value; nothing is validated against it.',
    },
    message: (f) => `${at(f)}default ${show(f.previous)} removed.`,
  },
  cosmetic('default-added', 'schema', 'Documents what omitting the argument means; no call is refused.',
    (f) => `${at(f)}default ${show(f.current)} documented.`),
  {
    kind: 'deprecation-added', scope: 'schema', severity: { input: S, output: S },
    reason: { input: 'Still accepted; callers are told to move away.', output: 'Still returned; consumers are told to move away.' },
    message: (f) => `${at(f)}marked deprecated.`,
  },
  cosmetic('deprecation-removed', 'schema', 'No longer marked deprecated; nothing is refused.',
    (f) => `${at(f)}no longer marked deprecated.`),
  cosmetic('examples-changed', 'schema', 'Examples are documentation; nothing is validated against them.',
    (f) => `${at(f)}examples changed.`),
  cosmetic('annotation-changed', 'schema', 'A keyword validators ignore (readOnly, $comment, contentMediaType, vendor x-…) changed.',
    (f) => `${at(f)}${f.subject} changed ${fromTo(f)}.`),
  cosmetic('inapplicable-keyword-changed', 'schema', 'The keyword cannot apply to the declared type, so nothing is accepted or rejected differently.',
    (f) => `${at(f)}${f.subject} changed ${fromTo(f)}, but it does not apply to type ${f.detail}.`),
  {
    kind: 'semantic-narrowing', scope: 'schema', severity: { input: B, output: S },
    reason: {
      input: 'json-schema-diff found arguments the old schema accepted and the new one rejects, which no keyword rule explained.',
      output: 'The server returns a subset of what it returned before.',
    },
    hint: { input: 'Compare both schemas: relax the new one until every previously valid argument passes, or migrate callers first.' },
    message: (f) => `${at(f)}json-schema-diff found values accepted before and rejected now; the values lost are described by ${show(f.current, 200)}.`,
  },
  {
    kind: 'semantic-widening', scope: 'schema', severity: { input: S, output: R },
    reason: {
      input: 'Every argument accepted before is still accepted.',
      output: 'json-schema-diff found values the server may now return that the old schema excluded, which no keyword rule explained.',
    },
    message: (f) => `${at(f)}json-schema-diff found values allowed now that were not before: ${show(f.current, 200)}.`,
  },
];

export type DeltaKind = string;

/** Every rule by kind. Frozen: re-levelling belongs in configuration, not in mutation. */
export const RULES: Readonly<Record<DeltaKind, Rule>> = Object.freeze(
  Object.fromEntries(RULE_LIST.map((rule) => [rule.kind, Object.freeze(rule)])),
);

export function ruleFor(kind: DeltaKind): Rule {
  const rule = RULES[kind];
  if (rule === undefined) throw new Error(`no rule for delta kind "${kind}"`);
  return rule;
}

export function severityOf(kind: DeltaKind, direction: Direction | null): Severity {
  const { severity } = ruleFor(kind);
  if (typeof severity === 'string') return severity;
  return severity[direction ?? 'input'];
}

export function reasonOf(kind: DeltaKind, direction: Direction | null): string {
  const { reason } = ruleFor(kind);
  return typeof reason === 'string' ? reason : reason[direction ?? 'input'];
}

/** The fix hint, only for a BREAKING classification (others need no fix). */
export function hintOf(kind: DeltaKind, direction: Direction | null): string | undefined {
  if (severityOf(kind, direction) !== 'BREAKING') return undefined;
  const { hint } = ruleFor(kind);
  if (hint === undefined || typeof hint === 'string') return hint;
  return hint[direction ?? 'input'];
}

// ── README table ─────────────────────────────────────────────────────────────────────────

const SCOPE_TITLES: Record<RuleScope, string> = {
  tool: 'Tools',
  prompt: 'Prompts',
  resource: 'Resources and resource templates',
  any: 'Any entry',
  schema: 'Schema keywords (inputSchema / outputSchema)',
};

/**
 * The README's severity table, generated from the rules (the README is pasted from this; a
 * test keeps them equal). Markdown, deterministic, rules in table order.
 */
export function renderSeverityTable(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const lines: string[] = [];
  const entryScopes: RuleScope[] = ['tool', 'prompt', 'resource', 'any'];
  lines.push('| Kind | Applies to | Severity | Why |', '| --- | --- | --- | --- |');
  for (const scope of entryScopes) {
    for (const rule of RULE_LIST.filter((r) => r.scope === scope)) {
      lines.push(`| \`${rule.kind}\` | ${SCOPE_TITLES[scope]} | ${String(rule.severity)} | ${cell(reasonOf(rule.kind, null))} |`);
    }
  }
  lines.push('', '| Kind | In inputSchema | In outputSchema | Why (input / output) |', '| --- | --- | --- | --- |');
  for (const rule of RULE_LIST.filter((r) => r.scope === 'schema')) {
    const input = severityOf(rule.kind, 'input');
    const output = severityOf(rule.kind, 'output');
    const why = typeof rule.reason === 'string' ? rule.reason : `${rule.reason.input} / ${rule.reason.output}`;
    lines.push(`| \`${rule.kind}\` | ${input} | ${output} | ${cell(why)} |`);
  }
  return `${lines.join('\n')}\n`;
}

export const SEVERITY_TABLE_START = '<!-- severity-table:start -->';
export const SEVERITY_TABLE_END = '<!-- severity-table:end -->';
