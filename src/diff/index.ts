/**
 * The classification engine: compare two sets of normalized contracts and say, per entry and
 * per field, what changed and how much it matters to the agents that call the server.
 *
 *   detectors (server.ts, entries.ts, schema-walker.ts, lint.ts, renames.ts) → findings
 *   → semantic cross-check (cross-check.ts, json-schema-diff in worker threads)
 *   → the rules (src/rules): severity, reason, sentence, fix → fingerprint → report in canonical order
 *
 * Pure apart from the cross-check's worker threads; the same inputs give the same report,
 * byte for byte (the cross-check's time budget is the one thing a slow machine can change,
 * and then only a `note`, never a silent verdict).
 */
import { entryDigest, sha256 } from '../contract/canonical.js';
import { ENTRY_KINDS, isJsonObject, type ContractEntry, type Contracts, type EntryKind } from '../contract/model.js';
import {
  REPORT_VERSION,
  canonicalJson,
  fieldOf,
  SEVERITIES,
  compareDeltas,
  discriminatorOf,
  jsonEqual,
  maxSeverityOf,
  semverBumpOf,
  zeroCounts,
  type Delta,
  type DiffReport,
  type EntryReport,
  type Release,
  type Severity,
} from '../protocol/index.js';
import { classify, messageOf, type RuleKind, type SeverityOverrides } from '../rules/index.js';
import { crossCheck, type UncertainTool } from './cross-check.js';
import { compareEntry, lintNewEntry, type EntryComparison } from './entries.js';
import { finding, type Finding } from './finding.js';
import { detectRenames, promptShape, toolShape, type Rename } from './renames.js';
import type { LintContext } from './lint.js';
import { compareServers } from './server.js';

export { TEXT_SIGNALS } from './lint.js';

export interface DiffOptions {
  /** Cross-check changed schemas with json-schema-diff (default true). */
  semantic?: boolean;
  /** Wall-clock budget of the whole cross-check, in ms (default 10,000). */
  semanticBudgetMs?: number;
  /** Longest one schema pair may take in json-schema-diff, in ms (default 2,000). */
  semanticPairTimeoutMs?: number;
  /** Worker threads for the cross-check, at most (default: cores, at most 4; one per 20 pairs). */
  semanticWorkers?: number;
  /** Pair removed and added tools/prompts into renames (default true). */
  detectRenames?: boolean;
  /** Re-level rules (from the config's `rules`): shown in the report as overridden. */
  severityOverrides?: SeverityOverrides;
  /**
   * When the current side was released (see `Release`): written into the report as given. The
   * caller reads the clock or the history; the diff never does, so its output stays a function
   * of its inputs.
   */
  release?: Release;
}

/** The entry-level kinds of each collection. */
const LIFECYCLE: Record<EntryKind, { added: RuleKind; removed: RuleKind; renamed?: RuleKind }> = {
  tools: { added: 'tool-added', removed: 'tool-removed', renamed: 'tool-renamed' },
  prompts: { added: 'prompt-added', removed: 'prompt-removed', renamed: 'prompt-renamed' },
  resources: { added: 'resource-added', removed: 'resource-removed' },
  resourceTemplates: { added: 'resource-template-added', removed: 'resource-template-removed' },
};

type Found = Record<EntryKind, Map<string, Finding[]>>;

/** The fields that name an entry: a resource's URI is a URL by nature, not a poisoning cue. */
const IDENTIFIERS: ReadonlySet<string> = new Set(['uri', 'uriTemplate']);

export async function diffContracts(previous: Contracts, current: Contracts, options: DiffOptions = {}): Promise<DiffReport> {
  const { found, uncertainTools, context } = collectFindings(previous, current, options);
  if (options.semantic !== false) {
    await crossCheck(found.tools, uncertainTools, {
      perPairMs: options.semanticPairTimeoutMs ?? 2_000,
      totalMs: options.semanticBudgetMs ?? 10_000,
      ...(options.semanticWorkers !== undefined ? { workers: options.semanticWorkers } : {}),
    });
  }
  return reportOf(found, context, previous, current, options);
}

/**
 * `diffContracts` by the keyword rules alone, at once: without the semantic cross-check (its
 * worker threads), which only adds a verdict where the walker says it could not judge a schema
 * exactly. For callers that must answer within a message (the pinning proxy); the report is
 * otherwise the same.
 */
export function diffContractsSync(previous: Contracts, current: Contracts, options: Pick<DiffOptions, 'detectRenames' | 'severityOverrides' | 'release'> = {}): DiffReport {
  const { found, context } = collectFindings(previous, current, options);
  return reportOf(found, context, previous, current, options);
}

function reportOf(found: Found, context: LintContext, previous: Contracts, current: Contracts, options: Pick<DiffOptions, 'severityOverrides' | 'release'>): DiffReport {
  const report = buildReport(found, compareServers(previous, current, context), previous, current, options.severityOverrides);
  if (options.release !== undefined && (options.release.version !== undefined || options.release.date !== undefined)) report.release = { ...options.release };
  return report;
}

/** Every detector's findings per entry, and the changed tools whose schemas the walker could not judge exactly. */
function collectFindings(previous: Contracts, current: Contracts, options: DiffOptions): { found: Found; uncertainTools: UncertainTool[]; context: LintContext } {
  const found = {} as Found;
  // Only schemas the keyword rules could not judge exactly are worth the semantic cross-check.
  const uncertainTools: UncertainTool[] = [];
  const noteUncertain = (key: string, p: ContractEntry, c: ContractEntry, comparison: EntryComparison) => {
    if (Object.keys(comparison.uncertain).length > 0) uncertainTools.push({ key, previous: p, current: c, uncertain: comparison.uncertain });
  };
  // The server's tools as they are now: text that names another of them is a poisoning cue
  // (not in the server's instructions, whose job is to say how the tools work together).
  const toolNames = new Set(Object.keys(current.tools));
  const context: LintContext = { toolNames: new Set() };
  const own = (...names: string[]): LintContext => ({ toolNames, own: new Set(names), identifiers: IDENTIFIERS });

  for (const kind of ENTRY_KINDS) {
    const before = previous[kind];
    const after = current[kind];
    const findings = new Map<string, Finding[]>();
    found[kind] = findings;
    const add = (key: string, list: Finding[]) => {
      if (list.length > 0) findings.set(key, [...(findings.get(key) ?? []), ...list]);
    };

    for (const key of Object.keys(before).filter((k) => Object.hasOwn(after, k)).sort()) {
      const p = before[key] as ContractEntry;
      const c = after[key] as ContractEntry;
      if (p === c || (entryDigest(p) === entryDigest(c) && jsonEqual(p.dialects ?? {}, c.dialects ?? {}))) continue;
      const comparison = compareEntry(kind, p, c, own(key));
      add(key, comparison.findings);
      if (kind === 'tools') noteUncertain(key, p, c, comparison);
    }

    const removed = Object.keys(before).filter((k) => !Object.hasOwn(after, k)).sort();
    const added = Object.keys(after).filter((k) => !Object.hasOwn(before, k)).sort();
    const lifecycle = LIFECYCLE[kind];
    const renames = options.detectRenames === false || lifecycle.renamed === undefined ? [] : renamesOf(kind, removed, added, previous, current);
    const renamedFrom = new Set(renames.map((r) => r.from));
    const renamedTo = new Set(renames.map((r) => r.to));

    for (const rename of renames) {
      const p = before[rename.from] as ContractEntry;
      const c = after[rename.to] as ContractEntry;
      const comparison = compareEntry(kind, p, c, own(rename.from, rename.to));
      add(rename.to, [
        finding(lifecycle.renamed as RuleKind, ['name'], {
          subject: rename.to,
          previous: rename.from,
          current: rename.to,
          renamedFrom: rename.from,
          renamedTo: rename.to,
          facts: { sameShape: rename.sameShape, sameName: rename.sameName, sameDescription: rename.sameDescription },
        }),
        ...comparison.findings,
      ]);
      if (kind === 'tools') noteUncertain(rename.to, p, c, comparison);
    }
    for (const key of removed.filter((k) => !renamedFrom.has(k))) {
      add(key, [finding(lifecycle.removed, [], { subject: key, previous: (before[key] as ContractEntry).contract })]);
    }
    for (const key of added.filter((k) => !renamedTo.has(k))) {
      const entry = after[key] as ContractEntry;
      add(key, [finding(lifecycle.added, [], { subject: key, current: entry.contract }), ...lintNewEntry(entry, own(key))]);
    }
  }
  return { found, uncertainTools, context };
}

function renamesOf(kind: EntryKind, removed: string[], added: string[], previous: Contracts, current: Contracts): Rename[] {
  const shape = kind === 'tools' ? toolShape : promptShape;
  return detectRenames(
    removed.map((key) => ({ key, contract: (previous[kind][key] as ContractEntry).contract })),
    added.map((key) => ({ key, contract: (current[kind][key] as ContractEntry).contract })),
    shape,
  );
}

// ── report ──────────────────────────────────────────────────────────────────────────────

/** Short stable hash of what a delta is; allow-lists and approvals match on it. */
export function fingerprintOf(entry: string, delta: Pick<Delta, 'kind' | 'field' | 'previous' | 'current'>): string {
  return sha256(canonicalJson([entry, delta.kind, delta.field, delta.previous, delta.current])).slice('sha256:'.length, 'sha256:'.length + 16);
}

function toDelta(entry: string, f: Finding, overrides: SeverityOverrides | undefined): Delta {
  const verdict = classify(f.kind, f.direction, overrides);
  const field = fieldOf(f.segments);
  const facts = f.facts ?? {};
  const message = messageOf(f.kind, { where: f.where, subject: f.subject, previous: f.previous, current: f.current, direction: f.direction, facts, ...(f.match !== undefined ? { match: f.match } : {}) });
  const delta: Delta = {
    severity: verdict.severity,
    kind: f.kind,
    field,
    action: f.action,
    direction: f.direction,
    message,
    previous: f.previous,
    current: f.current,
    fingerprint: fingerprintOf(entry, { kind: f.kind, field, previous: f.previous, current: f.current }),
    reason: verdict.reason,
  };
  if (f.facts !== undefined && Object.keys(f.facts).length > 0) delta.facts = f.facts;
  if (verdict.hint !== undefined) delta.hint = verdict.hint;
  if (verdict.defaultSeverity !== undefined) delta.defaultSeverity = verdict.defaultSeverity;
  if (f.renamedFrom !== undefined) delta.renamedFrom = f.renamedFrom;
  if (f.renamedTo !== undefined) delta.renamedTo = f.renamedTo;
  if (f.match !== undefined) delta.match = f.match;
  if (f.note !== undefined) delta.note = f.note;
  return delta;
}

/** Findings of one entry as its report: classified, de-duplicated, in canonical order. */
function entryReport(entry: string, findings: readonly Finding[], overrides: SeverityOverrides | undefined): EntryReport {
  const seen = new Set<string>();
  const deltas: Delta[] = [];
  for (const f of findings) {
    const delta = toDelta(entry, f, overrides);
    if (seen.has(delta.fingerprint)) continue;
    seen.add(delta.fingerprint);
    deltas.push(delta);
  }
  deltas.sort(compareDeltas);
  return { maxSeverity: maxSeverityOf(deltas.map((d) => d.severity)), deltas };
}

function buildReport(found: Found, serverFindings: Finding[] | null, previous: Contracts, current: Contracts, overrides: SeverityOverrides | undefined): DiffReport {
  const counts = zeroCounts();
  const count = (entry: EntryReport) => {
    for (const d of entry.deltas) counts[d.severity]++;
  };
  const report: DiffReport = {
    version: REPORT_VERSION,
    summary: { maxSeverity: null, counts, semverBump: 'none' },
    tools: Object.create(null),
    prompts: Object.create(null),
    resources: Object.create(null),
    resourceTemplates: Object.create(null),
  };
  if (serverFindings !== null) {
    const entry = entryReport('server', serverFindings, overrides);
    report.server = { previous: { ...previous.server }, current: { ...current.server }, ...entry };
    count(entry);
  }
  for (const kind of ENTRY_KINDS) {
    for (const key of [...found[kind].keys()].sort()) {
      const entry = entryReport(`${kind}/${key}`, found[kind].get(key) ?? [], overrides);
      if (entry.deltas.length === 0) continue;
      if (kind === 'tools') {
        const discriminator = rootDiscriminator(current.tools[key]);
        if (discriminator !== null) entry.discriminator = discriminator;
      }
      report[kind][key] = entry;
      count(entry);
    }
  }
  report.summary.maxSeverity = maxSeverityOf(SEVERITIES.filter((s: Severity) => counts[s] > 0));
  report.summary.semverBump = semverBumpOf(report.summary.maxSeverity);
  return report;
}

/** The property discriminating a tool's root input union, if it has one (see `discriminatorOf` in protocol/schema.ts). */
function rootDiscriminator(entry: ContractEntry | undefined): string | null {
  const schema = entry?.contract.inputSchema;
  if (!isJsonObject(schema)) return null;
  const branches = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : null;
  return branches === null ? null : discriminatorOf(branches);
}
