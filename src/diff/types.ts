/**
 * The diff report: the one data structure every renderer, the Action's gate and the runtime
 * artifact read. Its JSON form is fixed (see shared/DESIGN.md): `diff --format json` and the
 * delta artifact share it, and deployed runtimes load it, so change it only with a new
 * `version` and a migration.
 */

export const SEVERITIES = ['BREAKING', 'RISKY', 'SAFE', 'COSMETIC'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Higher is worse. */
export const SEVERITY_RANK: Record<Severity, number> = { BREAKING: 3, RISKY: 2, SAFE: 1, COSMETIC: 0 };

export interface Delta {
  severity: Severity;
  /** The rule that produced it (a stable id users can cite, e.g. `required-property-added`). */
  kind: string;
  /** Dotted path from the entry, e.g. `inputSchema.properties.currency`. */
  field: string;
  /** Discriminator value when the delta sits in one branch of a discriminated union, else null. */
  action: string | null;
  /** One sentence for engineers and LLMs alike. */
  message: string;
  previous: unknown;
  current: unknown;
  /** Short stable hash of (entry, kind, field, previous, current): for allow-lists. */
  fingerprint: string;
  /** What to do about it (always present on BREAKING deltas). */
  hint?: string;
  /** For a detected rename: the entry's name on the other side. */
  renamedFrom?: string;
  renamedTo?: string;
  /** For `suspicious-text`: the matched span. */
  match?: string;
  /** Extra context, e.g. that the semantic check fell back to the walker. */
  note?: string;
}

export interface EntryReport {
  maxSeverity: Severity | null;
  deltas: Delta[];
}

export const REPORT_VERSION = 1;

export interface DiffReport {
  version: typeof REPORT_VERSION;
  summary: { maxSeverity: Severity | null; counts: Record<Severity, number> };
  tools: Record<string, EntryReport>;
  prompts: Record<string, EntryReport>;
  resources: Record<string, EntryReport>;
  resourceTemplates: Record<string, EntryReport>;
}

export function maxSeverityOf(severities: Iterable<Severity>): Severity | null {
  let max: Severity | null = null;
  for (const s of severities) if (max === null || SEVERITY_RANK[s] > SEVERITY_RANK[max]) max = s;
  return max;
}

/** True when `severity` is at least as bad as `threshold`. */
export function meetsThreshold(severity: Severity | null, threshold: Severity): boolean {
  return severity !== null && SEVERITY_RANK[severity] >= SEVERITY_RANK[threshold];
}
