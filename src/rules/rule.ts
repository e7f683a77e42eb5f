/**
 * What a rule is: one record holding everything the product says about one kind of change. Its
 * id (the key it is filed under), what it looks at, its severity and the reason for it per
 * direction, the fix, the sentence and the short phrase made from the change's typed facts, its
 * changelog section, whether its values are worth a line, and an example pair that makes the
 * diff report it. Detectors only name the rule a change falls under and give its facts; every
 * word a reader sees of a rule is written here.
 *
 * Two families of severities:
 * - schema rules (`severity: { input, output }`): the same keyword change means opposite
 *   things depending on who produces the value. Input schemas are contravariant: the agent
 *   writes the value, so narrowing what is accepted breaks callers. Output schemas are
 *   covariant: the server writes it, so widening what may come back surprises consumers.
 * - entry rules (`severity: Severity`): direction does not apply (a tool disappearing is the
 *   same news whoever reads it).
 */
import type { JsonObject } from '../contract/model.js';
import type { Delta, DeltaFacts, Direction, Severity } from '../protocol/index.js';

export type { Delta, DeltaFacts, Direction, Severity } from '../protocol/index.js';

/** What a rule looks at; decides where it sits in the severity table of docs/rules.md. */
export type RuleScope = 'server' | 'schema' | 'tool' | 'prompt' | 'resource' | 'any';

/**
 * What a change does to the values readers of a schema must handle, under the engine's
 * conventions (callers send only declared properties; servers return only declared ones):
 * `narrows` (fewer values accepted: callers can be refused), `widens` (more values may occur:
 * consumers can be surprised), `reshapes` (both), `neutral` (neither: annotations, text). A
 * fact about the change, not a policy: the walker pairs union branches by it, and severity
 * overrides never change it.
 */
export type Effect = 'narrows' | 'widens' | 'reshapes' | 'neutral';

/** The CHANGELOG section of a change; without one, Breaking when BREAKING, else Changed. */
export type ChangeGroup = 'breaking' | 'changed' | 'added' | 'deprecated' | 'removed';

export type PerDirection<T> = { input: T; output: T };

/** The facts a sentence is made from; `where` is a human label of the place (`items.sku`). */
export interface MessageFacts {
  where: string;
  /** The keyword or member the change is about (`maximum`, a property name, an action…). */
  subject: string;
  previous: unknown;
  current: unknown;
  direction: Direction | null;
  /** The typed facts the detector found beyond the values (which enum values went, a default…). */
  facts: DeltaFacts;
  /** For flagged text: the matched span, made visible. */
  match?: string;
}

/** A phrase before its places are filled in; phrases of one entry that share a key merge. */
export interface Phrase {
  key: string;
  /** Where in the schema (a property path such as `destination.country`); null for the whole entry. */
  place: string | null;
  /** The phrase, given its places already formatted (`` `a`, `b` ``). */
  render: (places: string) => string;
}

/**
 * The phrase builders a renderer hands a rule (it knows how its format writes code and where a
 * delta's place is): a fixed phrase, one about the property the delta names, one about the
 * schema location of a keyword, one about a prompt argument or a capability.
 */
export interface PhraseKit {
  fixed(text: string): Phrase;
  property(words: string): Phrase;
  /** `rootWords` at the schema's root (`{subject}` reads "arguments" or "result"); `extra` splits the merge key. */
  located(words: string, rootWords?: string, extra?: string): Phrase;
  argument(words: string, key: string): Phrase;
  capability(words: string): Phrase;
  /** A value as code in the renderer's format. */
  code(text: string): string;
  /** Items already formatted, at most a few named. */
  list(items: readonly string[]): string;
}

/** A server sketched for an example: its lists, and what `initialize` said about it where that matters. */
export interface ServerSketch {
  /** The name it reports (default `test`). */
  name?: string;
  /** What `initialize` declared; without it (as in a tools/list dump) capabilities and instructions are unknown, never compared. */
  capabilities?: JsonObject;
  /** Kept only beside `capabilities`. */
  instructions?: string;
  tools?: JsonObject[];
  prompts?: JsonObject[];
  resources?: JsonObject[];
  resourceTemplates?: JsonObject[];
}

/** An entry rule's example: a server before and after. */
export interface EntryExample {
  /** What it shows, in one phrase. */
  shows: string;
  previous: ServerSketch;
  current: ServerSketch;
}

/** A schema rule's example: a schema pair, placed as a tool's inputSchema or outputSchema. */
export interface SchemaExample {
  shows: string;
  previous: JsonObject;
  current: JsonObject;
  /** Only the semantic cross-check (json-schema-diff) finds it. */
  semantic?: true;
  /**
   * The cross-check's kinds are a safety net for changes the keyword rules cannot judge; the
   * walker states that doubt for the schemas it meets it on, and no known input slips past the
   * rules any more. Such an example runs the cross-check itself on the pair, with this doubt.
   */
  unsure?: string;
}

/** A direction in which a schema rule is never reported, and why. */
export interface CannotOccur {
  cannotOccur: string;
}

export type SchemaExamples = { input: SchemaExample | CannotOccur; output: SchemaExample | CannotOccur };

/**
 * Who a BREAKING change of a rule breaks, in the terms recorded usage counts (see
 * policy/usage.ts): every call of the tool (`calls`); the calls that sent the object holding the
 * delta's property (`holders`: the tool's arguments at the root, so every call); the calls that
 * sent the argument at the delta's place (`senders`); the calls that sent one of the values the
 * change takes away (`values`, from its `removed` facts; the senders when it has none); the
 * calls of the action the delta removes (`action`). Only for what callers send: outputs, text,
 * prompts and resources have none, and are never downgraded by usage.
 */
export type UsageReach = 'calls' | 'holders' | 'senders' | 'values' | 'action';

export interface Rule {
  scope: RuleScope;
  /** Who its BREAKING changes to a tool's input break, as usage can count them (see `UsageReach`); absent: usage cannot tell. */
  usage?: UsageReach;
  /** Required for schema rules (see `Effect`). */
  effect?: Effect;
  severity: Severity | PerDirection<Severity>;
  /** One line: why this severity. Per direction for schema rules. */
  reason: string | PerDirection<string>;
  /** What to do about it; present for every direction in which the rule is BREAKING. */
  hint?: string | Partial<PerDirection<string>>;
  /** The sentence for engineers and LLMs alike. */
  message: (facts: MessageFacts) => string;
  /** What it means for callers in a few words (the comment's table); default: its title, at its place. */
  phrase?: (delta: Readonly<Delta>, say: PhraseKit) => Phrase;
  /** Its CHANGELOG section when not the severity's (see `ChangeGroup`). */
  group?: ChangeGroup;
  /** Whether `previous → current` is worth a line under the sentence (default: yes, when either is set). */
  showsValues?: false | ((delta: Readonly<Delta>) => boolean);
  /** The values are two versions of a text: renderers show them as a diff. */
  rewording?: true;
  /** Its name in human text, where the id would read oddly (default: the id's words). */
  title?: string;
  /** The smallest realistic change that makes the diff report it. */
  example: EntryExample | SchemaExamples;
}

// ── small message helpers ────────────────────────────────────────────────────────────────

/** A short, one-line rendering of a JSON value for messages (renderers escape it later). */
export function show(value: unknown, max = 80): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Up to eight values, shown, and how many more. */
export function listOf(values: readonly unknown[]): string {
  const shown = values.slice(0, 8).map((v) => show(v, 40));
  return values.length > 8 ? `${shown.join(', ')} and ${values.length - 8} more` : shown.join(', ');
}

export const at = (f: MessageFacts) => (f.where === '' ? '' : `${f.where}: `);
export const quoted = (name: string) => JSON.stringify(name);
export const showOrNone = (value: unknown) => (value === null || value === undefined ? 'none' : show(value));
export const fromTo = (f: MessageFacts) => `from ${showOrNone(f.previous)} to ${showOrNone(f.current)}`;

export const B: Severity = 'BREAKING';
export const R: Severity = 'RISKY';
export const S: Severity = 'SAFE';
export const C: Severity = 'COSMETIC';

type Base = Omit<Rule, 'example'>;

/** A schema rule whose narrowing breaks inputs and whose widening surprises outputs. */
export function narrowing(inputReason: string, hint: string, message: Rule['message']): Base {
  return {
    scope: 'schema',
    effect: 'narrows',
    severity: { input: B, output: S },
    reason: { input: inputReason, output: 'The server returns a subset of what it returned before.' },
    hint: { input: hint },
    message,
  };
}

export function widening(outputReason: string, message: Rule['message']): Base {
  return {
    scope: 'schema',
    effect: 'widens',
    severity: { input: S, output: R },
    reason: { input: 'Every argument accepted before is still accepted.', output: outputReason },
    message,
  };
}

/** A change that both drops and adds accepted values: breaks inputs, surprises outputs. */
export function reshaping(inputReason: string, outputReason: string, hint: string, message: Rule['message']): Base {
  return {
    scope: 'schema',
    effect: 'reshapes',
    severity: { input: B, output: R },
    reason: { input: inputReason, output: outputReason },
    hint: { input: hint },
    message,
  };
}

export function cosmetic(scope: RuleScope, reason: string, message: Rule['message']): Base {
  return { scope, effect: 'neutral', severity: C, reason, message };
}

/** A family of rules, keyed by id: its keys stay literal, so the ids type-check where they are used. */
export function family<K extends string>(rules: Record<K, Rule>): Record<K, Rule> {
  return rules;
}
