/**
 * THE rule table: every kind of delta the engine can report, its severity, why, and what to
 * do about it. The whole classification policy is readable on this one page; detectors only
 * decide *which* kind a change is, and look everything else up here. The severity table of
 * docs/rules.md is rendered from it (`renderSeverityTable`), and a test keeps the two in sync.
 *
 * Two families of rules:
 * - schema rules (`severity: { input, output }`): the same keyword change means opposite
 *   things depending on who produces the value. Input schemas are contravariant: the agent
 *   writes the value, so narrowing what is accepted breaks callers. Output schemas are
 *   covariant: the server writes it, so widening what may come back surprises consumers.
 * - entry rules (`severity: Severity`): direction does not apply (a tool disappearing is
 *   the same news whoever reads it).
 */
import type { Direction, RuleKind, Severity } from '../protocol/index.js';

export type { Direction, RuleKind } from '../protocol/index.js';

/** What a rule looks at; decides where it sits in the severity table of docs/rules.md. */
export type RuleScope = 'server' | 'schema' | 'tool' | 'prompt' | 'resource' | 'any';

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

/**
 * What a change does to the values readers of a schema must handle, under the engine's
 * conventions (callers send only declared properties; servers return only declared ones):
 * `narrows` (fewer values accepted: callers can be refused), `widens` (more values may occur:
 * consumers can be surprised), `reshapes` (both), `neutral` (neither: annotations, text). A
 * fact about the change, not a policy: the walker pairs union branches by it, and severity
 * overrides never change it.
 */
export type Effect = 'narrows' | 'widens' | 'reshapes' | 'neutral';

export interface Rule {
  scope: RuleScope;
  /** Required for schema rules (see `Effect`). */
  effect?: Effect;
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
function narrowing(inputReason: string, hint: string, message: Rule['message']): Rule {
  return {
    scope: 'schema',
    effect: 'narrows',
    severity: { input: B, output: S },
    reason: { input: inputReason, output: 'The server returns a subset of what it returned before.' },
    hint: { input: hint },
    message,
  };
}

function widening(outputReason: string, message: Rule['message']): Rule {
  return {
    scope: 'schema',
    effect: 'widens',
    severity: { input: S, output: R },
    reason: { input: 'Every argument accepted before is still accepted.', output: outputReason },
    message,
  };
}

/** A change that both drops and adds accepted values: breaks inputs, surprises outputs. */
function reshaping(inputReason: string, outputReason: string, hint: string, message: Rule['message']): Rule {
  return {
    scope: 'schema',
    effect: 'reshapes',
    severity: { input: B, output: R },
    reason: { input: inputReason, output: outputReason },
    hint: { input: hint },
    message,
  };
}

function cosmetic(scope: RuleScope, reason: string, message: Rule['message']): Rule {
  return { scope, effect: 'neutral', severity: C, reason, message };
}

// ── the table ────────────────────────────────────────────────────────────────────────────

/**
 * Keyed by kind: the compiler checks that the table covers exactly the report's vocabulary
 * (src/protocol/kinds.ts), no more, no less. Frozen: re-levelling belongs in configuration.
 */
export const RULES: Readonly<Record<RuleKind, Rule>> = deepFreezeRules({
  // The server itself: how it names itself, what it tells agents, what it declares.
  'server-renamed': cosmetic('server', 'The name the server reports changed; clients address it by their own configuration, not by this name.',
    (f) => `The server now calls itself ${show(f.current)} (was ${show(f.previous)}).`),
  'instructions-changed': cosmetic('server', 'Text only: agents read the instructions (often in their system prompt), but no call is refused.',
    (f) => `The server's instructions were ${f.previous === null ? 'added' : f.current === null ? 'removed' : 'reworded'}.`),
  'capability-added': {
    scope: 'server', severity: S,
    reason: 'The server offers more; clients that do not use it are unaffected.',
    message: (f) => `The server now declares the capability ${quoted(f.subject)}.`,
  },
  'capability-withdrawn': {
    scope: 'server', severity: B,
    reason: 'Requests that need it (subscriptions, completions, logging levels, tasks, or a whole list) now fail for the clients that send them.',
    hint: 'Keep declaring and supporting the capability for a release, or ship its removal as a major version.',
    message: (f) => `The server no longer declares the capability ${quoted(f.subject)}.`,
  },
  'list-changed-withdrawn': {
    scope: 'server', severity: R,
    reason: 'Clients are no longer told when the list changes: their calls still work, but their view of it may go stale.',
    message: (f) => `The server no longer promises ${f.subject} notifications.`,
  },
  'capability-changed': {
    scope: 'server', severity: R,
    reason: 'A capability setting changed in a way no rule knows how to judge; review it.',
    message: (f) => `The capability ${quoted(f.subject)} changed ${fromTo(f)}.`,
  },

  // Entries appearing, disappearing, being renamed.
  'tool-removed': {
    scope: 'tool', severity: B,
    reason: 'Agents that call it get "unknown tool".',
    hint: 'Keep the tool for a release, marked deprecated in its description, before removing it.',
    message: (f) => `Tool ${quoted(f.subject)} was removed.`,
  },
  'tool-added': {
    scope: 'tool', severity: S,
    reason: 'Nothing that worked before stops working.',
    message: (f) => `Tool ${quoted(f.subject)} was added.`,
  },
  'tool-renamed': {
    scope: 'tool', severity: B,
    reason: 'Agents calling the old name get "unknown tool", even though the tool still exists.',
    hint: 'Keep the old name registered as an alias of the renamed tool for a release.',
    message: (f) => `Tool ${show(f.previous)} was renamed to ${show(f.current)}${withDetail(f)}.`,
  },
  'prompt-removed': {
    scope: 'prompt', severity: B,
    reason: 'Clients that fetch it get an error.',
    hint: 'Keep the prompt for a release before removing it.',
    message: (f) => `Prompt ${quoted(f.subject)} was removed.`,
  },
  'prompt-added': {
    scope: 'prompt', severity: S,
    reason: 'Nothing that worked before stops working.',
    message: (f) => `Prompt ${quoted(f.subject)} was added.`,
  },
  'prompt-renamed': {
    scope: 'prompt', severity: B,
    reason: 'Clients fetching the old name get an error, even though the prompt still exists.',
    hint: 'Keep the old name registered as an alias of the renamed prompt for a release.',
    message: (f) => `Prompt ${show(f.previous)} was renamed to ${show(f.current)}${withDetail(f)}.`,
  },
  'resource-removed': {
    scope: 'resource', severity: B,
    reason: 'Clients reading this URI get "not found".',
    hint: 'Keep serving the old URI (or redirect it to the new one) for a release.',
    message: (f) => `Resource ${quoted(f.subject)} was removed.`,
  },
  'resource-added': {
    scope: 'resource', severity: S,
    reason: 'Nothing that worked before stops working.',
    message: (f) => `Resource ${quoted(f.subject)} was added.`,
  },
  'resource-template-removed': {
    scope: 'resource', severity: B,
    reason: 'Clients expanding this template get "not found".',
    hint: 'Keep serving URIs of the old template for a release.',
    message: (f) => `Resource template ${quoted(f.subject)} was removed.`,
  },
  'resource-template-added': {
    scope: 'resource', severity: S,
    reason: 'Nothing that worked before stops working.',
    message: (f) => `Resource template ${quoted(f.subject)} was added.`,
  },

  // Tool behaviour declared outside the schemas.
  'tool-no-longer-read-only': {
    scope: 'tool', severity: R,
    reason: 'readOnlyHint true → false: clients that auto-approved it as harmless may now let it change state.',
    message: () => 'The tool no longer declares itself read-only (readOnlyHint true → false).',
  },
  'tool-became-destructive': {
    scope: 'tool', severity: R,
    reason: 'destructiveHint false → true: the tool may now delete or overwrite; approval policies should change.',
    message: () => 'The tool now declares that it may be destructive (destructiveHint false → true).',
  },
  'tool-no-longer-idempotent': {
    scope: 'tool', severity: R,
    reason: 'idempotentHint true → false: retrying a call may now repeat its effect.',
    message: () => 'The tool no longer declares itself idempotent (idempotentHint true → false): retries may repeat effects.',
  },
  'tool-became-open-world': {
    scope: 'tool', severity: R,
    reason: 'openWorldHint false → true: the tool now reaches external systems (network, third parties).',
    message: () => 'The tool now declares that it interacts with an open world (openWorldHint false → true).',
  },
  'tool-became-read-only': {
    scope: 'tool', severity: S,
    reason: 'The tool promises less impact than before.',
    message: () => 'The tool now declares itself read-only (readOnlyHint false → true).',
  },
  'tool-no-longer-destructive': {
    scope: 'tool', severity: S,
    reason: 'The tool promises less impact than before.',
    message: () => 'The tool no longer declares itself destructive (destructiveHint true → false).',
  },
  'tool-became-idempotent': {
    scope: 'tool', severity: S,
    reason: 'Retries became safer.',
    message: () => 'The tool now declares itself idempotent (idempotentHint false → true).',
  },
  'tool-became-closed-world': {
    scope: 'tool', severity: S,
    reason: 'The tool reaches fewer systems than before.',
    message: () => 'The tool no longer declares open-world interaction (openWorldHint true → false).',
  },
  'task-support-required': {
    scope: 'tool', severity: B,
    reason: 'Clients that cannot run the tool as a task can no longer call it at all.',
    hint: 'Keep execution.taskSupport "optional" so clients without task support keep working.',
    message: (f) => `The tool now requires task-augmented calls (execution.taskSupport ${fromTo(f)}).`,
  },
  'task-support-withdrawn': {
    scope: 'tool', severity: B,
    reason: 'Clients that call it as a task are now refused.',
    hint: 'Keep accepting task-augmented calls for a release, or ship the change as a new tool.',
    message: (f) => `The tool no longer accepts task-augmented calls (execution.taskSupport ${fromTo(f)}).`,
  },
  'task-support-relaxed': {
    scope: 'tool', severity: S,
    reason: 'Every way of calling it that worked before still works.',
    message: (f) => `execution.taskSupport changed ${fromTo(f)}.`,
  },
  'execution-changed': {
    scope: 'tool', severity: R,
    reason: 'An execution setting this tool does not know how to judge changed; review it.',
    message: (f) => `${at(f)}execution setting ${quoted(f.subject)} changed ${fromTo(f)}.`,
  },
  'output-schema-removed': {
    scope: 'tool', severity: B,
    reason: 'Consumers that validate or read structured results lose their contract.',
    hint: 'Keep declaring the output schema; consumers validate structuredContent against it.',
    message: () => 'The output schema was removed: structured results are no longer described.',
  },
  'output-schema-added': {
    scope: 'tool', severity: S,
    reason: 'Results gain a contract; nothing that worked before stops working.',
    message: () => 'An output schema was added.',
  },
  'schema-dialect-changed': cosmetic('tool', 'The declared JSON Schema dialect changed; what the schema accepts did not.',
    (f) => `${f.subject} now declares $schema ${showOrNone(f.current)} (was ${showOrNone(f.previous)}).`),

  // Prompts.
  'required-prompt-argument-added': {
    scope: 'prompt', severity: B,
    reason: 'Clients that fetch the prompt without it get an error.',
    hint: 'Make the argument optional, with a sensible default in the prompt.',
    message: (f) => `New required argument ${quoted(f.subject)}.`,
  },
  'prompt-argument-added': {
    scope: 'prompt', severity: S,
    reason: 'A new optional argument; existing requests still work.',
    message: (f) => `New optional argument ${quoted(f.subject)}.`,
  },
  'prompt-argument-removed': {
    scope: 'prompt', severity: B,
    reason: 'Clients that pass it may be refused, and its effect is gone.',
    hint: 'Keep accepting the argument (ignore it if unused) for a release.',
    message: (f) => `Argument ${quoted(f.subject)} was removed.`,
  },
  'prompt-argument-became-required': {
    scope: 'prompt', severity: B,
    reason: 'Clients that omitted it get an error.',
    hint: 'Keep the argument optional, with a sensible default in the prompt.',
    message: (f) => `Argument ${quoted(f.subject)} is now required.`,
  },
  'prompt-argument-became-optional': {
    scope: 'prompt', severity: S,
    reason: 'Every request that worked before still works.',
    message: (f) => `Argument ${quoted(f.subject)} is now optional.`,
  },

  // Resources and resource templates.
  'mime-type-changed': {
    scope: 'resource', severity: R,
    reason: 'Clients that parse the content by its type may misread it.',
    message: (f) => `mimeType changed ${fromTo(f)}.`,
  },
  'name-changed': cosmetic('resource', 'The display name changed; the URI, which clients use, did not.',
    (f) => `name changed ${fromTo(f)}.`),

  // Text anywhere in a contract.
  'description-changed': cosmetic('any', 'Text only; agents may read it, but no call is refused.',
    (f) => `${at(f)}description ${f.previous === undefined || f.previous === null ? 'added' : f.current === undefined || f.current === null ? 'removed' : 'reworded'}.`),
  'title-changed': cosmetic('any', 'Text only; no call is refused.', (f) => `${at(f)}title changed ${fromTo(f)}.`),
  'metadata-changed': cosmetic('any', 'Metadata that no validator reads (icons, _meta, sizes, unknown fields).',
    (f) => `${at(f)}${f.subject} changed.`),
  'suspicious-text': {
    scope: 'any', severity: R,
    reason: 'New or changed text looks like tool poisoning (hidden instructions, secrets, concealment, invisible characters): review it before agents read it.',
    message: (f) => `${at(f)}new or changed text looks like tool poisoning: ${f.detail}.`,
  },

  // ── schema keywords (direction-aware) ──
  'type-narrowed': narrowing('Arguments of a type no longer listed are rejected.',
    'Keep accepting the old type (list both) and convert server-side.',
    (f) => `${at(f)}type narrowed ${fromTo(f)}.`),
  'type-widened': widening('The server may return a type consumers never saw.',
    (f) => `${at(f)}type widened ${fromTo(f)}.`),
  'type-changed': {
    scope: 'schema', effect: 'reshapes', severity: { input: B, output: B },
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
  'enum-narrowed': narrowing('Arguments using a value no longer listed are rejected.',
    'Keep accepting the removed values (map them to their replacement) for a release.',
    (f) => `${at(f)}fewer values accepted${withDetail(f)}.`),
  'enum-widened': widening('The server may return a value consumers never saw (a new enum member).',
    (f) => `${at(f)}more values allowed${withDetail(f)}.`),
  'enum-changed': reshaping('Arguments using a removed value are rejected.', 'The server may return a value consumers never saw.',
    'Keep accepting the removed values (map them to their replacement) for a release.',
    (f) => `${at(f)}allowed values changed${withDetail(f)}.`),
  'number-range-narrowed': narrowing('Numbers between the old and the new bound are rejected.',
    'Keep the old bound, or clamp out-of-range values server-side.',
    (f) => `${at(f)}${f.subject} tightened ${fromTo(f)}.`),
  'number-range-widened': widening('The server may return numbers outside the range consumers relied on.',
    (f) => `${at(f)}${f.subject} relaxed ${fromTo(f)}.`),
  'length-range-narrowed': narrowing('Strings of a length that used to be fine are rejected.',
    'Keep the old length limit, or truncate server-side.',
    (f) => `${at(f)}${f.subject} tightened ${fromTo(f)}.`),
  'length-range-widened': widening('The server may return strings longer or shorter than consumers expect.',
    (f) => `${at(f)}${f.subject} relaxed ${fromTo(f)}.`),
  'item-count-range-narrowed': narrowing('Arrays with a count of items that used to be fine are rejected.',
    'Keep the old item limit, or split/pad server-side.',
    (f) => `${at(f)}${f.subject} tightened ${fromTo(f)}.`),
  'item-count-range-widened': widening('The server may return more or fewer items than consumers expect.',
    (f) => `${at(f)}${f.subject} relaxed ${fromTo(f)}.`),
  'property-count-range-narrowed': narrowing('Objects with a number of properties that used to be fine are rejected.',
    'Keep the old property-count limit.',
    (f) => `${at(f)}${f.subject} tightened ${fromTo(f)}.`),
  'property-count-range-widened': widening('The server may return objects of a size consumers do not expect.',
    (f) => `${at(f)}${f.subject} relaxed ${fromTo(f)}.`),
  'multiple-of-narrowed': narrowing('Numbers that were multiples of the old step but not of the new one are rejected.',
    'Keep the old multipleOf, or round server-side.',
    (f) => `${at(f)}multipleOf changed ${fromTo(f)}.`),
  'multiple-of-widened': widening('The server may return numbers off the step consumers relied on.',
    (f) => `${at(f)}multipleOf relaxed ${fromTo(f)}.`),
  'multiple-of-changed': reshaping('Multiples of the old step are rejected.', 'The server may return numbers off the old step.',
    'Keep the old multipleOf, or round server-side.',
    (f) => `${at(f)}multipleOf changed ${fromTo(f)}.`),
  'pattern-added': narrowing('Strings that do not match the new pattern are rejected.',
    'Accept the previously valid strings too, or normalize them server-side.',
    (f) => `${at(f)}now must match pattern ${show(f.current)}.`),
  'pattern-removed': widening('The server may return strings of a shape consumers never saw.',
    (f) => `${at(f)}pattern ${show(f.previous)} removed.`),
  'pattern-widened': widening('The server may return strings the old pattern did not allow.',
    (f) => `${at(f)}pattern widened ${fromTo(f)}: every string the old one matched still matches.`),
  'pattern-changed': reshaping('Strings that matched the old pattern may not match the new one.',
    'The server may return strings that did not match the old pattern.',
    'Widen the pattern so previously valid strings still match, or normalize them server-side.',
    (f) => `${at(f)}pattern changed ${fromTo(f)}.`),
  'format-added': narrowing('Strings that are not in the new format are rejected.',
    'Accept the previous strings too, or normalize them server-side.',
    (f) => `${at(f)}now must be in format ${show(f.current)}.`),
  'format-removed': widening('The server may return strings that are not in the format consumers parse.',
    (f) => `${at(f)}format ${show(f.previous)} removed.`),
  'format-changed': reshaping('Strings in the old format are rejected.', 'The server returns strings in a format consumers do not parse.',
    'Accept both formats and normalize server-side.',
    (f) => `${at(f)}format changed ${fromTo(f)}.`),
  'unique-items-added': narrowing('Arrays with duplicates are rejected.',
    'De-duplicate server-side instead of rejecting duplicates.',
    (f) => `${at(f)}items must now be unique.`),
  'unique-items-removed': widening('The server may return duplicates consumers never saw.',
    (f) => `${at(f)}items no longer need to be unique.`),
  'required-property-added': {
    scope: 'schema', effect: 'reshapes', severity: { input: B, output: R },
    reason: {
      input: 'Calls that do not send the new property are rejected.',
      output: 'Every result now carries a property consumers never saw.',
    },
    hint: { input: 'Make the property optional with a default, so existing calls keep working.' },
    message: (f) => `${at(f)}new required property ${quoted(f.subject)}.`,
  },
  'defaulted-property-added': {
    scope: 'schema', effect: 'widens', severity: { input: R, output: R },
    reason: {
      input: 'The published schema lists it as required, but it has a default: the server fills it in for calls that omit it. Strict clients that validate against the schema now have to send it.',
      output: 'Every result now carries a property consumers never saw.',
    },
    message: (f) => `${at(f)}new property ${quoted(f.subject)}, listed as required but with default ${show(f.detail)}: calls that omit it get the default.`,
  },
  'property-became-required': narrowing('Calls that omitted the property are rejected.',
    'Keep the property optional with a default, so existing calls keep working.',
    (f) => `${at(f)}property ${quoted(f.subject)} is now required.`),
  'defaulted-property-became-required': {
    scope: 'schema', effect: 'neutral', severity: { input: S, output: S },
    reason: {
      input: 'Listed as required now, but it has a default: calls that omit it still work (the server fills it in).',
      output: 'The server returns a subset of what it returned before.',
    },
    message: (f) => `${at(f)}property ${quoted(f.subject)} is now listed as required; it has a default, so calls that omit it still work.`,
  },
  'property-became-optional': widening('Consumers may no longer find a property they always got.',
    (f) => `${at(f)}property ${quoted(f.subject)} is no longer required.`),
  'property-added': {
    scope: 'schema', effect: 'widens', severity: { input: S, output: R },
    reason: {
      input: 'A new optional argument; existing calls do not send it and still work.',
      output: 'Results may carry a property consumers never saw (harmless to lenient parsers, rejected by strict ones).',
    },
    message: (f) => `${at(f)}new optional property ${quoted(f.subject)}.`,
  },
  'property-removed': {
    scope: 'schema', effect: 'reshapes', severity: { input: B, output: B },
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
  'property-removed-ignored': {
    scope: 'schema', effect: 'widens', severity: { input: R, output: B },
    reason: {
      input: 'Calls that still send it are accepted, but the server may now silently ignore it.',
      output: 'Consumers that read the property no longer get it.',
    },
    hint: { output: 'Keep returning the property (deprecate it first) until consumers have moved.' },
    message: (f) => `${at(f)}property ${quoted(f.subject)} is no longer declared.`,
  },
  'property-renamed': {
    scope: 'schema', effect: 'reshapes', severity: { input: B, output: B },
    reason: {
      input: 'Calls that send the old name are refused or lose the value: the same argument now has another name.',
      output: 'Consumers reading the old name no longer find it: the same value is returned under another name.',
    },
    hint: {
      input: 'Accept the old name as a deprecated alias for a release, or keep the old name.',
      output: 'Return the value under both names for a release, then drop the old one.',
    },
    message: (f) => `${at(f)}property ${show(f.previous)} was renamed to ${show(f.current)} (same schema).`,
  },
  'additional-properties-forbidden': narrowing('Calls that send a property the schema does not list are rejected.',
    'Keep accepting unknown properties (and ignore them), or list the ones callers send.',
    (f) => `${at(f)}undeclared properties are now rejected.`),
  'additional-properties-allowed': widening('The server may return properties consumers never saw.',
    (f) => `${at(f)}undeclared properties are now allowed.`),
  'schema-became-false': narrowing('Nothing is accepted at this location any more.',
    'Restore the previous schema at this location.',
    (f) => `${at(f)}no value is accepted here any more.`),
  'schema-was-false': widening('The server may return values where it never returned any.',
    (f) => `${at(f)}values are now allowed where none were.`),
  'union-branch-removed': narrowing('Arguments that only matched the removed variant are rejected.',
    'Keep accepting the removed variant, or convert it server-side.',
    (f) => `${at(f)}variant ${f.subject} removed${withDetail(f)}.`),
  'union-branch-added': widening('The server may return a variant consumers never saw.',
    (f) => `${at(f)}variant ${f.subject} added${withDetail(f)}.`),
  'union-made-exclusive': narrowing('anyOf → oneOf: values matching several variants are now rejected.',
    'Keep anyOf, or make the variants disjoint.',
    (f) => `${at(f)}anyOf became oneOf: a value must now match exactly one variant.`),
  'union-made-inclusive': widening('oneOf → anyOf: the server may return values matching several variants.',
    (f) => `${at(f)}oneOf became anyOf.`),
  'one-of-overlap': {
    scope: 'schema', effect: 'reshapes', severity: { input: B, output: R },
    reason: {
      input: 'oneOf rejects a value that matches two variants; its variants are not provably disjoint and changed, so some arguments may now match two.',
      output: 'Values that matched two variants (and were never returned) may now match exactly one.',
    },
    hint: { input: 'Use anyOf, or make the variants disjoint (a discriminator property with a distinct const per variant).' },
    message: (f) => `${at(f)}the oneOf variants changed and are not provably disjoint: values may start or stop matching exactly one variant.`,
  },
  'action-removed': narrowing('Calls with this action are rejected.',
    'Keep the action as a deprecated alias that forwards to its replacement.',
    (f) => `Action ${quoted(f.subject)} was removed.`),
  'action-added': widening('The server may return results for an action consumers never saw.',
    (f) => `Action ${quoted(f.subject)} was added.`),
  'all-of-branch-added': narrowing('A new constraint every argument must satisfy.',
    'Enforce the new constraint in the handler with a helpful error, or make it optional.',
    (f) => `${at(f)}new allOf constraint ${f.subject}.`),
  'all-of-branch-removed': widening('The server may return values that violated the removed constraint.',
    (f) => `${at(f)}allOf constraint ${f.subject} removed.`),
  'not-added': narrowing('Values matching the new exclusion are rejected.',
    'Drop the exclusion, or handle the excluded values in the handler.',
    (f) => `${at(f)}now excludes values matching ${show(f.current)}.`),
  'not-removed': widening('The server may return values it used to exclude.',
    (f) => `${at(f)}no longer excludes values matching ${show(f.previous)}.`),
  'not-excludes-more': narrowing('The `not` schema now matches more values, all of them rejected.',
    'Narrow the exclusion back, or handle the newly excluded values in the handler.',
    (f) => `${at(f)}now excludes more: ${show(f.previous)} → ${show(f.current)}.`),
  'not-excludes-less': widening('The server may return values it used to exclude.',
    (f) => `${at(f)}now excludes less: ${show(f.previous)} → ${show(f.current)}.`),
  'not-changed': reshaping('Some values that passed the old exclusion are now excluded.', 'The server may return values it used to exclude.',
    'Keep excluding only what was excluded before, or handle the difference in the handler.',
    (f) => `${at(f)}exclusion changed: ${show(f.previous)} → ${show(f.current)}.`),
  'constraint-added': narrowing('A new validation keyword may reject arguments that used to pass.',
    'Make sure every argument that was valid before still passes.',
    (f) => `${at(f)}new constraint ${f.subject}: ${show(f.current)}.`),
  'constraint-removed': widening('The server may return values the removed keyword used to exclude.',
    (f) => `${at(f)}constraint ${f.subject} removed (was ${show(f.previous)}).`),
  'constraint-changed': reshaping('The changed keyword may reject arguments that used to pass.',
    'The server may return values the old keyword excluded.',
    'Make sure every argument that was valid before still passes.',
    (f) => `${at(f)}constraint ${f.subject} changed ${fromTo(f)}.`),
  'default-changed': {
    scope: 'schema', effect: 'neutral', severity: { input: R, output: C },
    reason: {
      input: 'Calls that omit the argument now get different behaviour.',
      output: 'An annotation on a returned value; nothing is validated against it.',
    },
    // Both defaults exist, so a null is the value null (Python's `= None`), not "none".
    message: (f) => `${at(f)}default changed from ${show(f.previous)} to ${show(f.current)}.`,
  },
  'default-removed': {
    scope: 'schema', effect: 'neutral', severity: { input: R, output: C },
    reason: {
      input: 'Calls that omit the argument relied on a documented default that is gone.',
      output: 'An annotation on a returned value; nothing is validated against it.',
    },
    message: (f) => `${at(f)}default ${show(f.previous)} removed.`,
  },
  'default-added': cosmetic('schema', 'Documents what omitting the argument means; no call is refused.',
    (f) => `${at(f)}default ${show(f.current)} documented.`),
  'deprecation-added': {
    scope: 'schema', effect: 'neutral', severity: { input: S, output: S },
    reason: { input: 'Still accepted; callers are told to move away.', output: 'Still returned; consumers are told to move away.' },
    message: (f) => `${at(f)}marked deprecated.`,
  },
  'deprecation-removed': cosmetic('schema', 'No longer marked deprecated; nothing is refused.',
    (f) => `${at(f)}no longer marked deprecated.`),
  'examples-changed': cosmetic('schema', 'Examples are documentation; nothing is validated against them.',
    (f) => `${at(f)}examples changed.`),
  'annotation-changed': cosmetic('schema', 'A keyword validators ignore (readOnly, $comment, contentMediaType, vendor x-…) changed.',
    (f) => `${at(f)}${f.subject} changed ${fromTo(f)}.`),
  'inapplicable-keyword-changed': cosmetic('schema', 'The keyword cannot apply to the declared type, so nothing is accepted or rejected differently.',
    (f) => `${at(f)}${f.subject} changed ${fromTo(f)}, but it does not apply to type ${f.detail}.`),
  'semantic-narrowing': {
    scope: 'schema', effect: 'narrows', severity: { input: B, output: S },
    reason: {
      input: 'json-schema-diff found arguments the old schema accepted and the new one rejects, which no keyword rule explained.',
      output: 'The server returns a subset of what it returned before.',
    },
    hint: { input: 'Compare both schemas: relax the new one until every previously valid argument passes, or migrate callers first.' },
    message: (f) => `${at(f)}json-schema-diff found values accepted before and rejected now; the values lost are described by ${show(f.current, 200)}.`,
  },
  'semantic-widening': {
    scope: 'schema', effect: 'widens', severity: { input: S, output: R },
    reason: {
      input: 'Every argument accepted before is still accepted.',
      output: 'json-schema-diff found values the server may now return that the old schema excluded, which no keyword rule explained.',
    },
    message: (f) => `${at(f)}json-schema-diff found values allowed now that were not before: ${show(f.current, 200)}.`,
  },
});

function deepFreezeRules<T extends Record<string, Rule>>(rules: T): Readonly<T> {
  for (const rule of Object.values(rules)) Object.freeze(rule);
  return Object.freeze(rules);
}

const GENERIC_HINT = 'Your configuration classifies this change as BREAKING: keep the previous behaviour for a release, or coordinate the change with every caller.';

/** Per-kind severity overrides from the config: one severity, or one per direction. */
export type SeverityOverrides = Partial<Record<RuleKind, Severity | Partial<Record<Direction, Severity>>>>;

/** A kind's verdict in one direction: its severity, and the table's when configuration changed it. */
export interface Classification {
  severity: Severity;
  /** Set only when an override changed the severity. */
  defaultSeverity?: Severity;
  reason: string;
  /** What to do, for a BREAKING classification. */
  hint?: string;
}

/** Whether a change of this kind can refuse what callers send (`input`) or surprise consumers (`output`). */
export function isHarmful(kind: RuleKind, direction: Direction): boolean {
  const effect = RULES[kind].effect ?? 'neutral';
  return effect === 'reshapes' || effect === (direction === 'input' ? 'narrows' : 'widens');
}

/** The severity the rule table gives `kind` in `direction` (inputs when there is none). */
export function severityOf(kind: RuleKind, direction: Direction | null): Severity {
  const { severity } = RULES[kind];
  return typeof severity === 'string' ? severity : severity[direction ?? 'input'];
}

export function reasonOf(kind: RuleKind, direction: Direction | null): string {
  const { reason } = RULES[kind];
  return typeof reason === 'string' ? reason : reason[direction ?? 'input'];
}

/**
 * Classify a kind in a direction: the table's verdict, re-levelled by `overrides`. The one
 * place a severity is decided; detectors never look at severities.
 */
export function classify(kind: RuleKind, direction: Direction | null, overrides?: SeverityOverrides): Classification {
  const table = severityOf(kind, direction);
  const override = overrides?.[kind];
  const configured = override === undefined ? undefined : typeof override === 'string' ? override : override[direction ?? 'input'];
  const severity = configured ?? table;
  const out: Classification = { severity, reason: reasonOf(kind, direction) };
  if (severity !== table) out.defaultSeverity = table;
  if (severity === 'BREAKING') {
    const { hint } = RULES[kind];
    out.hint = (hint === undefined || typeof hint === 'string' ? hint : hint[direction ?? 'input']) ?? GENERIC_HINT;
  }
  return out;
}

// ── The table of docs/rules.md ───────────────────────────────────────────────────────────

const SCOPE_TITLES: Record<RuleScope, string> = {
  server: 'The server',
  tool: 'Tools',
  prompt: 'Prompts',
  resource: 'Resources and resource templates',
  any: 'Any entry',
  schema: 'Schema keywords (inputSchema / outputSchema)',
};

/**
 * The severity table of docs/rules.md, generated from the rules (the page is pasted from this; a
 * test keeps them equal). Markdown, deterministic, rules in table order.
 */
export function renderSeverityTable(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const lines: string[] = [];
  const entryScopes: RuleScope[] = ['server', 'tool', 'prompt', 'resource', 'any'];
  const rules = Object.entries(RULES) as Array<[RuleKind, Rule]>;
  lines.push('| Kind | Applies to | Severity | Why |', '| --- | --- | --- | --- |');
  for (const scope of entryScopes) {
    for (const [kind, rule] of rules.filter(([, r]) => r.scope === scope)) {
      lines.push(`| \`${kind}\` | ${SCOPE_TITLES[scope]} | ${String(rule.severity)} | ${cell(reasonOf(kind, null))} |`);
    }
  }
  lines.push('', '| Kind | In inputSchema | In outputSchema | Why (input / output) |', '| --- | --- | --- | --- |');
  for (const [kind, rule] of rules.filter(([, r]) => r.scope === 'schema')) {
    const why = typeof rule.reason === 'string' ? rule.reason : `${rule.reason.input} / ${rule.reason.output}`;
    lines.push(`| \`${kind}\` | ${severityOf(kind, 'input')} | ${severityOf(kind, 'output')} | ${cell(why)} |`);
  }
  return `${lines.join('\n')}\n`;
}

export const SEVERITY_TABLE_START = '<!-- severity-table:start -->';
export const SEVERITY_TABLE_END = '<!-- severity-table:end -->';
