/**
 * Entry-level detectors: what changed in one tool, prompt, resource or resource template,
 * outside (and around) its schemas. Each field of a contract has one detector; a field no
 * detector knows is metadata (COSMETIC), so a new MCP field never crashes the diff.
 */
import { isJsonObject, type ContractEntry, type EntryKind, type JsonObject, type JsonValue } from '../contract/model.js';
import { fieldOf } from '../protocol/index.js';
import type { RuleKind } from '../rules/index.js';
import { finding, type Finding } from './finding.js';
import { changedKeys, jsonEqual, objectOr } from './json.js';
import { lintText, type LintContext } from './lint.js';
import { walkSchemas } from './schema-walker.js';

type FieldDetector = (previous: JsonValue | undefined, current: JsonValue | undefined, comparison: EntryComparison) => Finding[];

export type SchemaField = 'inputSchema' | 'outputSchema';

/** What changed in one entry, and which of its schemas the keyword rules could not judge exactly. */
export interface EntryComparison {
  findings: Finding[];
  /** Per schema, why the walk may have missed something (see `SchemaComparison.uncertain`). */
  uncertain: Partial<Record<SchemaField, string[]>>;
}

/**
 * Compare two versions of one entry (same key, or a detected rename). `context` (the server's
 * tool names) lets the poisoning lint see a reference to another tool.
 */
export function compareEntry(kind: EntryKind, previous: ContractEntry, current: ContractEntry, context?: LintContext): EntryComparison {
  const detectors = DETECTORS[kind];
  const comparison: EntryComparison = { findings: [], uncertain: {} };
  const p = previous.contract;
  const c = current.contract;
  for (const field of changedKeys(p, c)) {
    const detector = Object.hasOwn(detectors, field) ? (detectors[field] as FieldDetector) : metadata(field);
    comparison.findings.push(...detector(p[field], c[field], comparison));
  }
  if (kind === 'tools') comparison.findings.push(...dialectChanges(previous, current));
  comparison.findings.push(...suspiciousText(p, c, context));
  return comparison;
}

/** An entry seen only on one side: its strings are all new, so they are linted too. */
export function lintNewEntry(current: ContractEntry, context?: LintContext): Finding[] {
  return suspiciousText(undefined, current.contract, context);
}

function suspiciousText(previous: JsonObject | undefined, current: JsonObject, context: LintContext | undefined): Finding[] {
  return lintText(previous, current, [], context).map((s) =>
    finding('suspicious-text', s.segments, {
      where: fieldOf(s.segments),
      previous: s.previous,
      current: s.current,
      match: s.match,
      facts: { labels: s.labels },
    }),
  );
}

// ── shared field detectors ──────────────────────────────────────────────────────────────

const text = (kind: 'title-changed' | 'description-changed', field: string): FieldDetector => (previous, current) => [
  finding(kind, [field], { previous, current }),
];

function metadata(field: string): FieldDetector {
  return (previous, current) => [finding('metadata-changed', [field], { subject: field, previous, current })];
}

/** Identity fields are the entry's key: equal on both sides unless renamed (reported apart). */
const identity: FieldDetector = () => [];

// ── tools ───────────────────────────────────────────────────────────────────────────────

const HINT_RULES: Record<string, { toTrue: RuleKind; toFalse: RuleKind }> = {
  readOnlyHint: { toTrue: 'tool-became-read-only', toFalse: 'tool-no-longer-read-only' },
  destructiveHint: { toTrue: 'tool-became-destructive', toFalse: 'tool-no-longer-destructive' },
  idempotentHint: { toTrue: 'tool-became-idempotent', toFalse: 'tool-no-longer-idempotent' },
  openWorldHint: { toTrue: 'tool-became-open-world', toFalse: 'tool-became-closed-world' },
};

const annotations: FieldDetector = (previous, current) => {
  const p = objectOr(previous);
  const c = objectOr(current);
  const out: Finding[] = [];
  for (const key of changedKeys(p, c)) {
    const segments = ['annotations', key];
    const hint = Object.hasOwn(HINT_RULES, key) ? HINT_RULES[key] : undefined;
    if (hint !== undefined && typeof p[key] === 'boolean' && typeof c[key] === 'boolean') {
      out.push(finding(c[key] ? hint.toTrue : hint.toFalse, segments, { subject: key, previous: p[key], current: c[key] }));
    } else if (key === 'title') {
      out.push(finding('title-changed', segments, { previous: p[key], current: c[key] }));
    } else {
      out.push(finding('metadata-changed', segments, { subject: `annotations.${key}`, previous: p[key], current: c[key] }));
    }
  }
  return out;
};

const execution: FieldDetector = (previous, current) => {
  const p = objectOr(previous);
  const c = objectOr(current);
  const out: Finding[] = [];
  for (const key of changedKeys(p, c)) {
    const segments = ['execution', key];
    out.push(finding(key === 'taskSupport' ? taskSupportKind(p[key], c[key]) : 'execution-changed', segments, { subject: key, previous: p[key], current: c[key] }));
  }
  return out;
};

function taskSupportKind(previous: JsonValue | undefined, current: JsonValue | undefined): RuleKind {
  const known = ['forbidden', 'optional', 'required'];
  const isKnown = (value: JsonValue | undefined) => typeof value === 'string' && known.includes(value);
  if (!isKnown(previous) || !isKnown(current)) return 'execution-changed';
  if (current === 'required') return 'task-support-required';
  if (current === 'forbidden') return 'task-support-withdrawn';
  return 'task-support-relaxed';
}

function walked(field: SchemaField, previous: JsonValue | undefined, current: JsonValue | undefined, comparison: EntryComparison): Finding[] {
  const { changes, uncertain } = walkSchemas(schemaOr(previous), schemaOr(current), { field, direction: field === 'inputSchema' ? 'input' : 'output' });
  if (uncertain.length > 0) comparison.uncertain[field] = uncertain;
  return changes;
}

const inputSchema: FieldDetector = (previous, current, comparison) => walked('inputSchema', previous, current, comparison);

const outputSchema: FieldDetector = (previous, current, comparison) => {
  if (previous === undefined) return [finding('output-schema-added', ['outputSchema'], { current })];
  if (current === undefined) return [finding('output-schema-removed', ['outputSchema'], { previous })];
  return walked('outputSchema', previous, current, comparison);
};

function schemaOr(value: JsonValue | undefined): JsonObject | boolean {
  return value === false ? false : objectOr(value);
}

function dialectChanges(previous: ContractEntry, current: ContractEntry): Finding[] {
  const out: Finding[] = [];
  for (const field of ['inputSchema', 'outputSchema'] as const) {
    // A schema that appeared or vanished is reported as such; its dialect goes with it.
    if (!(field in previous.contract) || !(field in current.contract)) continue;
    const p = previous.dialects?.[field] ?? null;
    const c = current.dialects?.[field] ?? null;
    if (p !== c) out.push(finding('schema-dialect-changed', [field, '$schema'], { subject: field, previous: p, current: c }));
  }
  return out;
}

// ── prompts ─────────────────────────────────────────────────────────────────────────────

const promptArguments: FieldDetector = (previous, current) => {
  const byName = (list: JsonValue | undefined) =>
    new Map((Array.isArray(list) ? list.filter(isJsonObject) : []).map((a) => [String(a.name), a] as const));
  const p = byName(previous);
  const c = byName(current);
  const out: Finding[] = [];
  for (const name of [...new Set([...p.keys(), ...c.keys()])].sort()) {
    const before = p.get(name);
    const after = c.get(name);
    const segments = ['arguments', name];
    if (before === undefined && after !== undefined) {
      out.push(finding(after.required === true ? 'required-prompt-argument-added' : 'prompt-argument-added', segments, { subject: name, current: after }));
      continue;
    }
    if (after === undefined && before !== undefined) {
      out.push(finding('prompt-argument-removed', segments, { subject: name, previous: before }));
      continue;
    }
    if (before === undefined || after === undefined || jsonEqual(before, after)) continue;
    const wasRequired = before.required === true;
    const isRequired = after.required === true;
    if (wasRequired !== isRequired) {
      out.push(finding(isRequired ? 'prompt-argument-became-required' : 'prompt-argument-became-optional', [...segments, 'required'], { subject: name, previous: wasRequired, current: isRequired }));
    }
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      if (key === 'name' || key === 'required' || jsonEqual(before[key], after[key])) continue;
      const kind = key === 'description' ? 'description-changed' : key === 'title' ? 'title-changed' : 'metadata-changed';
      out.push(finding(kind, [...segments, key], { where: `argument ${JSON.stringify(name)}`, subject: key, previous: before[key], current: after[key] }));
    }
  }
  return out;
};

// ── the detectors per entry kind ────────────────────────────────────────────────────────

const COMMON: Record<string, FieldDetector> = {
  title: text('title-changed', 'title'),
  description: text('description-changed', 'description'),
};

const RESOURCE_FIELDS: Record<string, FieldDetector> = {
  ...COMMON,
  name: (previous, current) => [finding('name-changed', ['name'], { previous, current })],
  mimeType: (previous, current) => [finding('mime-type-changed', ['mimeType'], { previous, current })],
};

const DETECTORS: Record<EntryKind, Record<string, FieldDetector>> = {
  tools: { ...COMMON, name: identity, inputSchema, outputSchema, annotations, execution },
  prompts: { ...COMMON, name: identity, arguments: promptArguments },
  resources: { ...RESOURCE_FIELDS, uri: identity },
  resourceTemplates: { ...RESOURCE_FIELDS, uriTemplate: identity },
};
