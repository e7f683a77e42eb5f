/** Hand-made reports for the unit tests of the Action's decisions and comment. */
import type { Delta, DiffReport, Severity } from '../../src/diff/types.js';

export function delta(severity: Severity, fingerprint: string, extra: Partial<Delta> = {}): Delta {
  return { severity, kind: `${severity.toLowerCase()}-kind`, field: 'inputSchema', action: null, message: `a ${severity} change`, previous: null, current: null, fingerprint, ...extra };
}

/** A report with the given deltas on tools named after their index. */
export function reportOf(tools: Record<string, Delta[]>): DiffReport {
  const counts = { BREAKING: 0, RISKY: 0, SAFE: 0, COSMETIC: 0 };
  const rank = { BREAKING: 3, RISKY: 2, SAFE: 1, COSMETIC: 0 } as const;
  let max: Severity | null = null;
  const entries: DiffReport['tools'] = {};
  for (const [name, deltas] of Object.entries(tools)) {
    let entryMax: Severity | null = null;
    for (const d of deltas) {
      counts[d.severity]++;
      if (entryMax === null || rank[d.severity] > rank[entryMax]) entryMax = d.severity;
    }
    if (entryMax !== null && (max === null || rank[entryMax] > rank[max])) max = entryMax;
    entries[name] = { maxSeverity: entryMax, deltas };
  }
  return { version: 1, summary: { maxSeverity: max, counts }, tools: entries, prompts: {}, resources: {}, resourceTemplates: {} };
}
