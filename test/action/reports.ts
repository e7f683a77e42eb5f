/** Hand-made reports for the unit tests of the Action's decisions and comment. */
import { compareDeltas, maxSeverityOf, semverBumpOf, zeroCounts, type Delta, type DiffReport, type RuleKind, type Severity, type ServerReview } from '../../src/protocol/index.js';

/** A real rule kind of each severity (for inputs), so hand-made reports read like real ones. */
const KIND_OF: Record<Severity, RuleKind> = { BREAKING: 'required-property-added', RISKY: 'default-changed', SAFE: 'property-added', COSMETIC: 'description-changed' };

export function delta(severity: Severity, fingerprint: string, extra: Partial<Delta> = {}): Delta {
  return {
    severity,
    kind: KIND_OF[severity],
    field: 'inputSchema',
    action: null,
    direction: 'input',
    message: `a ${severity} change`,
    previous: null,
    current: null,
    fingerprint,
    ...(severity === 'BREAKING' ? { hint: 'Make the property optional with a default.' } : {}),
    ...extra,
  };
}

/** A report with the given deltas on tools named after their keys, consistent like a real one. */
export function reportOf(tools: Record<string, Delta[]>): DiffReport {
  const counts = zeroCounts();
  const entries: DiffReport['tools'] = {};
  for (const [name, deltas] of Object.entries(tools)) {
    for (const d of deltas) counts[d.severity]++;
    const sorted = [...deltas].sort(compareDeltas);
    entries[name] = { maxSeverity: maxSeverityOf(sorted.map((d) => d.severity)), deltas: sorted };
  }
  const maxSeverity = maxSeverityOf(Object.values(entries).map((e) => e.maxSeverity).filter((s): s is Severity => s !== null));
  return { version: 1, summary: { maxSeverity, counts, semverBump: semverBumpOf(maxSeverity) }, tools: entries, prompts: {}, resources: {}, resourceTemplates: {} };
}

/**
 * A server review of `inventory` at head `bbbb…` as the Action builds one: a clean, empty
 * report unless `overrides` give the report, the gate and whatever the test is about.
 */
export function serverReview(overrides: Partial<ServerReview> = {}): ServerReview {
  return {
    id: 'inventory',
    name: 'inventory',
    job: 'contracts',
    lockfile: 'mcp-contracts.lock.json',
    headSha: 'b'.repeat(40),
    headSource: 'server',
    report: reportOf({}),
    lockfileCheck: 'fail',
    failOn: 'BREAKING',
    gate: { pass: true, verdict: 'clean', blocking: [], failures: [] },
    accepted: [],
    allowNotes: [],
    reproduce: [],
    notes: [],
    ...overrides,
  };
}
