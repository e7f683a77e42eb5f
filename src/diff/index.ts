/**
 * The classification engine: compare two sets of normalized contracts and say, per entry and
 * per field, what changed and how much it matters to the agents that call the server.
 *
 *   detectors (entries.ts, schema-walker.ts, lint.ts, renames.ts) → draft deltas
 *   → semantic cross-check (semantic.ts, json-schema-diff in worker threads)
 *   → rule table (rules.ts): severity, message, hint → fingerprint → sorted report
 *
 * Pure apart from the cross-check's worker threads; the same inputs give the same report,
 * byte for byte (the cross-check's time budget is the one thing a slow machine can change,
 * and then only a `note`, never a silent verdict).
 */
import { canonicalJson, sha256 } from '../contract/canonical.js';
import { entryDigest } from '../contract/lockfile.js';
import { ENTRY_KINDS, type ContractEntry, type Contracts, type EntryKind } from '../contract/model.js';
import { crossCheck } from './cross-check.js';
import { draft, type DraftDelta } from './draft.js';
import { compareEntry, lintNewEntry } from './entries.js';
import { jsonEqual } from './json.js';
import { fieldOf } from './path.js';
import { detectRenames, promptShape, toolShape, type Rename } from './renames.js';
import { hintOf, ruleFor, severityOf } from './rules.js';
import { REPORT_VERSION, SEVERITIES, SEVERITY_RANK, maxSeverityOf, type Delta, type DiffReport, type EntryReport, type Severity } from './types.js';

export * from './types.js';
export { RULES, renderSeverityTable, ruleFor, severityOf, reasonOf, hintOf, SEVERITY_TABLE_START, SEVERITY_TABLE_END } from './rules.js';
export type { Rule, RuleScope, Direction, DeltaKind } from './rules.js';
export { TEXT_SIGNALS } from './lint.js';

export interface DiffOptions {
  /** Cross-check changed schemas with json-schema-diff (default true). */
  semantic?: boolean;
  /** Wall-clock budget of the whole cross-check, in ms (default 10,000). */
  semanticBudgetMs?: number;
  /** Longest one schema pair may take in json-schema-diff, in ms (default 2,000). */
  semanticPairTimeoutMs?: number;
  /** Worker threads for the cross-check (default: cores, at most 4). */
  semanticWorkers?: number;
  /** Pair removed and added tools/prompts into renames (default true). */
  detectRenames?: boolean;
}

const SINGULAR: Record<EntryKind, string> = {
  tools: 'tool',
  prompts: 'prompt',
  resources: 'resource',
  resourceTemplates: 'resource-template',
};

type Found = Record<EntryKind, Map<string, DraftDelta[]>>;

export async function diffContracts(previous: Contracts, current: Contracts, options: DiffOptions = {}): Promise<DiffReport> {
  const found = {} as Found;
  const comparedTools: Array<{ key: string; previous: ContractEntry; current: ContractEntry }> = [];

  for (const kind of ENTRY_KINDS) {
    const before = previous[kind];
    const after = current[kind];
    const deltas = new Map<string, DraftDelta[]>();
    found[kind] = deltas;
    const add = (key: string, list: DraftDelta[]) => {
      if (list.length > 0) deltas.set(key, [...(deltas.get(key) ?? []), ...list]);
    };

    for (const key of Object.keys(before).filter((k) => Object.hasOwn(after, k)).sort()) {
      const p = before[key] as ContractEntry;
      const c = after[key] as ContractEntry;
      if (entryDigest(p) === entryDigest(c) && jsonEqual(p.dialects ?? {}, c.dialects ?? {})) continue;
      add(key, compareEntry(kind, p, c));
      if (kind === 'tools') comparedTools.push({ key, previous: p, current: c });
    }

    const removed = Object.keys(before).filter((k) => !Object.hasOwn(after, k)).sort();
    const added = Object.keys(after).filter((k) => !Object.hasOwn(before, k)).sort();
    const renames = options.detectRenames === false ? [] : renamesOf(kind, removed, added, previous, current);
    const renamedFrom = new Set(renames.map((r) => r.from));
    const renamedTo = new Set(renames.map((r) => r.to));

    for (const rename of renames) {
      const p = before[rename.from] as ContractEntry;
      const c = after[rename.to] as ContractEntry;
      const how = rename.sameShape ? 'same arguments' : 'similar arguments';
      add(rename.to, [
        draft(`${SINGULAR[kind]}-renamed`, ['name'], {
          subject: rename.to,
          previous: rename.from,
          current: rename.to,
          renamedFrom: rename.from,
          renamedTo: rename.to,
          detail: how,
        }),
        ...compareEntry(kind, p, c),
      ]);
      if (kind === 'tools') comparedTools.push({ key: rename.to, previous: p, current: c });
    }
    for (const key of removed.filter((k) => !renamedFrom.has(k))) {
      add(key, [draft(`${SINGULAR[kind]}-removed`, [], { subject: key, previous: (before[key] as ContractEntry).contract })]);
    }
    for (const key of added.filter((k) => !renamedTo.has(k))) {
      const entry = after[key] as ContractEntry;
      add(key, [draft(`${SINGULAR[kind]}-added`, [], { subject: key, current: entry.contract }), ...lintNewEntry(entry)]);
    }
  }

  if (options.semantic !== false) {
    await crossCheck(found.tools, comparedTools, {
      perPairMs: options.semanticPairTimeoutMs ?? 2_000,
      totalMs: options.semanticBudgetMs ?? 10_000,
      ...(options.semanticWorkers !== undefined ? { workers: options.semanticWorkers } : {}),
    });
  }
  return buildReport(found);
}

function renamesOf(kind: EntryKind, removed: string[], added: string[], previous: Contracts, current: Contracts): Rename[] {
  if (kind !== 'tools' && kind !== 'prompts') return [];
  const shape = kind === 'tools' ? toolShape : promptShape;
  return detectRenames(
    removed.map((key) => ({ key, contract: (previous[kind][key] as ContractEntry).contract })),
    added.map((key) => ({ key, contract: (current[kind][key] as ContractEntry).contract })),
    shape,
  );
}

// ── report ──────────────────────────────────────────────────────────────────────────────

/** Short stable hash of what a delta is; the Action's allow-list matches on it. */
export function fingerprintOf(kind: EntryKind, key: string, delta: Pick<Delta, 'kind' | 'field' | 'previous' | 'current'>): string {
  return sha256(canonicalJson([`${kind}/${key}`, delta.kind, delta.field, delta.previous, delta.current])).slice('sha256:'.length, 'sha256:'.length + 16);
}

function toDelta(kind: EntryKind, key: string, d: DraftDelta): Delta {
  const rule = ruleFor(d.kind);
  const severity = severityOf(d.kind, d.direction);
  const field = fieldOf(d.segments);
  const previous = d.previous === undefined ? null : d.previous;
  const current = d.current === undefined ? null : d.current;
  const message = rule.message({ where: d.where, subject: d.subject, previous, current, direction: d.direction, detail: d.detail });
  const delta: Delta = {
    severity,
    kind: d.kind,
    field,
    action: d.action,
    message,
    previous,
    current,
    fingerprint: fingerprintOf(kind, key, { kind: d.kind, field, previous, current }),
  };
  const hint = hintOf(d.kind, d.direction);
  if (hint !== undefined) delta.hint = hint;
  if (d.renamedFrom !== undefined) delta.renamedFrom = d.renamedFrom;
  if (d.renamedTo !== undefined) delta.renamedTo = d.renamedTo;
  if (d.match !== undefined) delta.match = d.match;
  if (d.note !== undefined) delta.note = d.note;
  return delta;
}

/** Severity first (worst on top), then field, then kind: same input, same order. */
function compareDeltas(a: Delta, b: Delta): number {
  return (
    SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
    compareText(a.field, b.field) ||
    compareText(a.kind, b.kind) ||
    compareText(a.fingerprint, b.fingerprint)
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function buildReport(found: Found): DiffReport {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  const report: DiffReport = {
    version: REPORT_VERSION,
    summary: { maxSeverity: null, counts },
    tools: {},
    prompts: {},
    resources: {},
    resourceTemplates: {},
  };
  for (const kind of ENTRY_KINDS) {
    for (const key of [...found[kind].keys()].sort()) {
      const seen = new Set<string>();
      const deltas = (found[kind].get(key) ?? [])
        .map((d) => toDelta(kind, key, d))
        .filter((d) => !seen.has(d.fingerprint) && seen.add(d.fingerprint) !== undefined)
        .sort(compareDeltas);
      if (deltas.length === 0) continue;
      for (const d of deltas) counts[d.severity]++;
      const entry: EntryReport = { maxSeverity: maxSeverityOf(deltas.map((d) => d.severity)), deltas };
      report[kind][key] = entry;
    }
  }
  report.summary.maxSeverity = maxSeverityOf(SEVERITIES.filter((s) => counts[s] > 0));
  return report;
}
