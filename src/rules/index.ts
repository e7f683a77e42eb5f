/**
 * THE rule table: every kind of change the engine can report, one record each (see rule.ts),
 * filed by family. The whole classification policy is readable here; detectors only decide
 * *which* rule a change falls under and give its facts, and every renderer, the changelog and
 * the Action read the rule's fields. The severity table of docs/rules.md is generated from it
 * (`renderSeverityTable`), and a test keeps the two in sync.
 *
 * Ids are stable: users cite them in allow-lists and severity overrides, SARIF uses them as rule
 * ids, a deployed runtime reads reports that carry them. No id is spelled outside this folder and
 * the detectors (a test holds it).
 */
import type { Delta, Direction, Severity } from '../protocol/index.js';
import { LIFECYCLE_RULES } from './lifecycle.js';
import { PROMPT_RULES } from './prompts.js';
import { RESOURCE_RULES } from './resources.js';
import type { MessageFacts, Phrase, PhraseKit, Rule, RuleScope } from './rule.js';
import { SCHEMA_COMBINATOR_RULES } from './schema-combinators.js';
import { SCHEMA_NOTE_RULES } from './schema-notes.js';
import { SCHEMA_OBJECT_RULES } from './schema-objects.js';
import { SCHEMA_VALUE_RULES } from './schema-values.js';
import { SERVER_RULES } from './server.js';
import { TEXT_RULES } from './text.js';
import { TOOL_RULES } from './tools.js';

export type { CannotOccur, ChangeGroup, Effect, EntryExample, MessageFacts, Phrase, PhraseKit, Rule, RuleScope, SchemaExample, SchemaExamples, ServerSketch } from './rule.js';

/** Every rule, in reference order. Frozen: re-levelling belongs in configuration. */
export const RULES = deepFreeze({
  ...SERVER_RULES,
  ...LIFECYCLE_RULES,
  ...TOOL_RULES,
  ...PROMPT_RULES,
  ...RESOURCE_RULES,
  ...TEXT_RULES,
  ...SCHEMA_VALUE_RULES,
  ...SCHEMA_OBJECT_RULES,
  ...SCHEMA_COMBINATOR_RULES,
  ...SCHEMA_NOTE_RULES,
});

/** A rule's id (`tool-removed`, `enum-narrowed`…): what a delta's `kind` names. */
export type RuleKind = keyof typeof RULES;

export const RULE_KINDS = Object.keys(RULES) as RuleKind[];

export function isRuleKind(value: unknown): value is RuleKind {
  return typeof value === 'string' && Object.hasOwn(RULES, value);
}

/** The rule a delta names; undefined for a kind this version does not know (a newer report). */
export function ruleOf(kind: string): Rule | undefined {
  return isRuleKind(kind) ? RULES[kind] : undefined;
}

function deepFreeze<T extends Record<string, Rule>>(rules: T): Readonly<T> {
  for (const rule of Object.values(rules)) Object.freeze(rule);
  return Object.freeze(rules);
}

const GENERIC_HINT = 'Your configuration classifies this change as BREAKING: keep the previous behaviour for a release, or coordinate the change with every caller.';

/** Per-kind severity overrides from the config: one severity, or one per direction. */
export type SeverityOverrides = Partial<Record<RuleKind, Severity | Partial<Record<Direction, Severity>>>>;

/** A kind's verdict in one direction: its severity, why, and the table's when configuration changed it. */
export interface Classification {
  severity: Severity;
  /** Set only when an override changed the severity. */
  defaultSeverity?: Severity;
  /** Why this severity: the rule's reason, or the configuration's when it re-levelled the rule. */
  reason: string;
  /** What to do, for a BREAKING classification. */
  hint?: string;
}

/** A rule field given once, or per direction (partly, for hints): its value in `direction` (inputs when there is none). */
function perDirection<T extends string>(value: T | Partial<Record<Direction, T>>, direction: Direction | null): T | undefined {
  return typeof value === 'string' ? value : value[direction ?? 'input'];
}

/** Whether a change of this kind can refuse what callers send (`input`) or surprise consumers (`output`). */
export function isHarmful(kind: RuleKind, direction: Direction): boolean {
  const effect = RULES[kind].effect ?? 'neutral';
  return effect === 'reshapes' || effect === (direction === 'input' ? 'narrows' : 'widens');
}

/** The severity the rule table gives `kind` in `direction` (inputs when there is none). */
export function severityOf(kind: RuleKind, direction: Direction | null): Severity {
  return perDirection(RULES[kind].severity, direction) as Severity;
}

/** Why the rule table gives `kind` its severity in `direction`. */
export function reasonOf(kind: RuleKind, direction: Direction | null): string {
  return perDirection(RULES[kind].reason, direction) as string;
}

/**
 * Classify a kind in a direction: the table's verdict, re-levelled by `overrides`. The one
 * place a severity is decided; detectors never look at severities. A re-levelled rule's reason
 * says so, and what the rule says, so the reason always explains the severity shown beside it.
 */
export function classify(kind: RuleKind, direction: Direction | null, overrides?: SeverityOverrides): Classification {
  const table = severityOf(kind, direction);
  const override = overrides?.[kind];
  const configured = override === undefined ? undefined : typeof override === 'string' ? override : override[direction ?? 'input'];
  const severity = configured ?? table;
  const reason = reasonOf(kind, direction);
  const out: Classification = { severity, reason: severity === table ? reason : `Your configuration classifies this change as ${severity}; the rule says ${table}: ${reason}` };
  if (severity !== table) out.defaultSeverity = table;
  if (severity === 'BREAKING') {
    const { hint } = RULES[kind];
    out.hint = (hint === undefined ? undefined : perDirection(hint, direction)) ?? GENERIC_HINT;
  }
  return out;
}

/** The sentence of a change of `kind`, from its facts. */
export function messageOf(kind: RuleKind, facts: MessageFacts): string {
  return RULES[kind].message(facts);
}

/** A rule's name in human text: its title, or its id's words (`tool-renamed` → "tool renamed"). */
export function titleOf(kind: string): string {
  return ruleOf(kind)?.title ?? kind.replace(/-/g, ' ');
}

/** Why a delta has its severity: the reason it carries, else (a report from before reasons were kept) the rule's. */
export function deltaReason(delta: Readonly<Delta>): string | undefined {
  return delta.reason ?? (isRuleKind(delta.kind) ? reasonOf(delta.kind, delta.direction) : undefined);
}

/** The words for a delta in a digest (see `Rule.phrase`); by default its title, at its place. */
export function phraseOf(delta: Readonly<Delta>, say: PhraseKit): Phrase {
  const rule = ruleOf(delta.kind);
  if (rule?.phrase !== undefined) return rule.phrase(delta, say);
  const title = titleOf(delta.kind);
  return delta.field === '' || !/Schema/.test(delta.field) ? say.fixed(title) : say.located(title);
}

/** Whether a delta's `previous → current` is worth a line under its sentence. */
export function showsValues(delta: Readonly<Delta>): boolean {
  // Both null: a null default removed reads "(none) → (none)", a line that says nothing true.
  const neither = (delta.previous === null || delta.previous === undefined) && (delta.current === null || delta.current === undefined);
  if (delta.field === '' || neither) return false;
  const shows = ruleOf(delta.kind)?.showsValues;
  return shows === undefined ? true : shows !== false && shows(delta);
}

/** Whether a delta's values are two versions of a text, best read as a diff. */
export function isRewording(delta: Readonly<Delta>): boolean {
  return ruleOf(delta.kind)?.rewording === true;
}

/** The CHANGELOG section of a delta: its rule's, else by severity. */
export function changeGroupOf(delta: Pick<Delta, 'kind' | 'severity'>): import('./rule.js').ChangeGroup {
  return ruleOf(delta.kind)?.group ?? (delta.severity === 'BREAKING' ? 'breaking' : 'changed');
}

// ── the table of docs/rules.md ──────────────────────────────────────────────────────────────────

const SCOPE_TITLES: Record<RuleScope, string> = {
  server: 'The server',
  tool: 'Tools',
  prompt: 'Prompts',
  resource: 'Resources and resource templates',
  any: 'Any entry',
  schema: 'Schema keywords (inputSchema / outputSchema)',
};

/**
 * The severity table of docs/rules.md, generated from the rules (the page is pasted from this;
 * a test keeps them equal). Markdown, deterministic, rules in table order.
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
