/**
 * The vocabulary of the report: every kind of delta a report may carry. Stable ids: users cite
 * them in allow-lists and severity overrides, SARIF uses them as rule ids, and a deployed
 * runtime reads them. The rule table (src/diff/rules.ts) gives each one its severity, reason
 * and fix, and the compiler checks that it covers exactly this list.
 */
export const RULE_KINDS = [
  // The server itself.
  'server-renamed', 'instructions-changed', 'capability-added', 'capability-withdrawn', 'list-changed-withdrawn', 'capability-changed',
  // Tools.
  'tool-removed', 'tool-added', 'tool-renamed', 'tool-no-longer-read-only', 'tool-became-destructive',
  'tool-no-longer-idempotent', 'tool-became-open-world', 'tool-became-read-only', 'tool-no-longer-destructive',
  'tool-became-idempotent', 'tool-became-closed-world', 'task-support-required', 'task-support-withdrawn',
  'task-support-relaxed', 'execution-changed', 'output-schema-removed', 'output-schema-added',
  'schema-dialect-changed',
  // Prompts.
  'prompt-removed', 'prompt-added', 'prompt-renamed', 'required-prompt-argument-added', 'prompt-argument-added',
  'prompt-argument-removed', 'prompt-argument-became-required', 'prompt-argument-became-optional',
  // Resources and resource templates.
  'resource-removed', 'resource-added', 'resource-template-removed', 'resource-template-added', 'mime-type-changed',
  'name-changed',
  // Text anywhere.
  'description-changed', 'title-changed', 'metadata-changed', 'suspicious-text',
  // Schema keywords, read per direction.
  'type-narrowed', 'type-widened', 'type-changed', 'enum-narrowed', 'enum-widened', 'enum-changed',
  'number-range-narrowed', 'number-range-widened', 'length-range-narrowed', 'length-range-widened',
  'item-count-range-narrowed', 'item-count-range-widened', 'property-count-range-narrowed',
  'property-count-range-widened', 'multiple-of-narrowed', 'multiple-of-widened', 'multiple-of-changed',
  'pattern-added', 'pattern-removed', 'pattern-widened', 'pattern-changed', 'format-added', 'format-removed',
  'format-changed', 'unique-items-added', 'unique-items-removed', 'required-property-added',
  'defaulted-property-added', 'property-became-required', 'defaulted-property-became-required',
  'property-became-optional', 'property-added', 'property-removed', 'property-removed-ignored', 'property-renamed',
  'additional-properties-forbidden', 'additional-properties-allowed', 'schema-became-false', 'schema-was-false',
  'union-branch-removed', 'union-branch-added', 'union-made-exclusive', 'union-made-inclusive', 'one-of-overlap', 'action-removed', 'action-added',
  'all-of-branch-added', 'all-of-branch-removed', 'not-added', 'not-removed', 'not-excludes-more',
  'not-excludes-less', 'not-changed', 'constraint-added', 'constraint-removed', 'constraint-changed',
  'default-changed', 'default-removed', 'default-added', 'deprecation-added', 'deprecation-removed',
  'examples-changed', 'annotation-changed', 'inapplicable-keyword-changed', 'semantic-narrowing',
  'semantic-widening',
] as const;

export type RuleKind = (typeof RULE_KINDS)[number];

const KNOWN: ReadonlySet<string> = new Set(RULE_KINDS);

export function isRuleKind(value: unknown): value is RuleKind {
  return typeof value === 'string' && KNOWN.has(value);
}
