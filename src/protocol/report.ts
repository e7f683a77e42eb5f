/**
 * The diff report: the one data structure every renderer, the Action's gate and the runtime
 * artifact read. Its JSON form is fixed (see shared/DESIGN.md): `diff --format json` and the
 * delta artifact share it, deployed runtimes load it, and it travels between programs that ship
 * separately. Change it only additively, or with a new `version` and a migration.
 */
export const SEVERITIES = ['BREAKING', 'RISKY', 'SAFE', 'COSMETIC'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Higher is worse. */
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { BREAKING: 3, RISKY: 2, SAFE: 1, COSMETIC: 0 };

/**
 * Who writes the value a schema delta is about: the agent (`input`, the tool's arguments) or
 * the server (`output`, its structured result). The same keyword change means opposite things
 * in the two directions; entry-level deltas (a tool removed) have none.
 */
export type Direction = 'input' | 'output';

/** The four collections a server exposes, in the order reports list them (fixed). */
export const ENTRY_KINDS = ['tools', 'prompts', 'resources', 'resourceTemplates'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/**
 * What the detector found beyond the values, typed by the rule that reads it (the enum values
 * removed and added, a default, the types a keyword does not apply to, the lint's labels…): what
 * the rule's sentence and phrase are made from, so no renderer works it out again. JSON only.
 */
export type DeltaFacts = { readonly [fact: string]: unknown };

export interface Delta {
  severity: Severity;
  /**
   * The rule that produced it: a stable kebab-case id users cite, allow-list and re-level. The
   * rules (src/rules) own the vocabulary; a reader of this format accepts ids it does not know.
   */
  kind: string;
  /** Dotted path from the entry, e.g. `inputSchema.properties.currency`; '' for the entry itself. */
  field: string;
  /** Discriminator value when the delta sits in one branch of a discriminated union, else null. */
  action: string | null;
  /** Which way a schema rule was read; null for entry-level rules. */
  direction: Direction | null;
  /** One sentence for engineers and LLMs alike. */
  message: string;
  previous: unknown;
  current: unknown;
  /** Short stable hash of (entry, kind, field, previous, current): for allow-lists and approvals. */
  fingerprint: string;
  /** What to do about it (always present on BREAKING deltas). */
  hint?: string;
  /** For a detected rename: the name on the other side. */
  renamedFrom?: string;
  renamedTo?: string;
  /** For text the lint flagged (and only there): the matched span, made visible. */
  match?: string;
  /** Extra context, e.g. that the semantic check fell back to the walker. */
  note?: string;
  /** Set when configuration re-levelled the rule: the severity the rule table gives it. */
  defaultSeverity?: Severity;
  /** Why it has its severity (the configuration's word when it re-levelled the rule). Absent in reports written before it was kept. */
  reason?: string;
  /** The typed facts its sentence was made from (see `DeltaFacts`); absent when there are none beyond the values. */
  facts?: DeltaFacts;
  /**
   * The recorded usage a BREAKING change (or one downgraded from BREAKING) rests on, when the
   * report was judged with a usage summary (`--usage`) that could speak for it. Absent otherwise.
   */
  usage?: DeltaUsage;
}

/**
 * What the calls of a usage summary's window say about one change: how many calls the change
 * breaks (`affected`) out of the calls of its tool, counted as `basis` says. `downgraded`: it
 * was BREAKING, and no call in the window was affected, so it is RISKY.
 */
export interface DeltaUsage {
  /**
   * What `affected` counts: the calls of the tool (`tool`), the calls that sent `field`
   * (`field`), the calls that sent one of `values` there (`values`), the calls of action
   * `values[0]` (`action`).
   */
  basis: 'tool' | 'field' | 'values' | 'action';
  /** The tool as its callers called it (the old name of a renamed tool). */
  tool: string;
  /** Calls of the tool in the window. */
  calls: number;
  /** Of the calls of the whole server in the window, those the change breaks. */
  affected: number;
  /** The argument field (protocol field path) for `field` and `values`. */
  field?: string;
  /** The values taken away (`values`), or the action's value (`action`). */
  values?: unknown[];
  downgraded?: true;
}

/** The usage summary a report was judged with: what it covers, and whether it could speak (`applied`), else why not. */
export interface ReportUsage {
  /** The server the summary is about (null when its recordings named none). */
  server: string | null;
  /** The days it covers, both included. */
  from: string;
  to: string;
  days: number;
  /** Calls of the server in those days. */
  calls: number;
  /** The window asked for (`--unused-days`, the Action's `unused-days`). */
  unusedDays: number;
  applied: boolean;
  /** Why nothing was downgraded, when `applied` is false. */
  reason?: string;
  /** BREAKING changes moved to RISKY. */
  downgraded: number;
}

export interface EntryReport {
  maxSeverity: Severity | null;
  deltas: Delta[];
  /**
   * Tools whose input is a union discriminated by a constant property (`action: "create"`):
   * that property. The diff chose it (see `discriminatorOf`) and scoped `action` by it; the
   * runtime reads the failing call's action from it instead of guessing.
   */
  discriminator?: string;
}

/** A server as it names itself (`serverInfo`). */
export interface ServerIdentity {
  name: string;
  version?: string;
}

/** Changes to the server itself: its instructions and declared capabilities. */
export interface ServerReport extends EntryReport {
  previous: ServerIdentity;
  current: ServerIdentity;
}

/**
 * The release a set of deltas calls for under semantic versioning: `major` for any BREAKING
 * change (callers must change), `minor` for RISKY or SAFE ones (new or changed behaviour that
 * existing callers survive), `patch` for COSMETIC-only ones (text), `none` when nothing changed.
 */
export const SEMVER_BUMPS = ['major', 'minor', 'patch', 'none'] as const;
export type SemverBump = (typeof SEMVER_BUMPS)[number];

export const REPORT_VERSION = 1;

/**
 * The release whose contract is the diff's current side: when its changes reached callers. The
 * runtime and the proxy serve renamed tools and arguments under their old names for a
 * deprecation window counted from `date`. Whoever ran the diff says it (the Action: the head
 * commit's date and the server's version; the CLI: `--released-at`, `--release`); the diff
 * itself never reads a clock. Every change of one report was released together, in it.
 */
export interface Release {
  /** The version released: the server's own (`serverInfo.version`) unless given. */
  version?: string;
  /** The day it was released, `YYYY-MM-DD` (UTC). */
  date?: string;
}

/** `YYYY-MM-DD`, a real day of the Gregorian calendar. */
export function isReleaseDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().startsWith(value);
}

export interface DiffReport {
  version: typeof REPORT_VERSION;
  summary: { maxSeverity: Severity | null; counts: Record<Severity, number>; semverBump: SemverBump };
  /** Present when both sides say who the server is. */
  server?: ServerReport;
  /** When the current side was released; absent when the run did not say (see `Release`). */
  release?: Release;
  tools: Record<string, EntryReport>;
  prompts: Record<string, EntryReport>;
  resources: Record<string, EntryReport>;
  resourceTemplates: Record<string, EntryReport>;
  /** Set when the report was judged with a usage summary (see `ReportUsage`). */
  usage?: ReportUsage;
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

const BUMP_OF: Readonly<Record<Severity, SemverBump>> = { BREAKING: 'major', RISKY: 'minor', SAFE: 'minor', COSMETIC: 'patch' };

/** The release the worst change calls for (see `SemverBump`). */
export function semverBumpOf(maxSeverity: Severity | null): SemverBump {
  return maxSeverity === null ? 'none' : BUMP_OF[maxSeverity];
}

export function zeroCounts(): Record<Severity, number> {
  return { BREAKING: 0, RISKY: 0, SAFE: 0, COSMETIC: 0 };
}

/** A report of no change at all (nothing to compare, or two equal sides). */
export function emptyReport(): DiffReport {
  return { version: REPORT_VERSION, summary: { maxSeverity: null, counts: zeroCounts(), semverBump: 'none' }, tools: {}, prompts: {}, resources: {}, resourceTemplates: {} };
}

/** The report's summary as its deltas make it: counts, worst severity, semver bump (after severities moved). */
export function summaryOf(report: DiffReport): DiffReport['summary'] {
  const counts = zeroCounts();
  for (const { entry } of entryReports(report)) for (const delta of entry.deltas) counts[delta.severity]++;
  const maxSeverity = maxSeverityOf(SEVERITIES.filter((s) => counts[s] > 0));
  return { maxSeverity, counts, semverBump: semverBumpOf(maxSeverity) };
}

/** Every entry report of a report, the server's first, in report order. */
export function* entryReports(report: DiffReport): Generator<{ kind: EntryKind | 'server'; name: string; entry: EntryReport }> {
  if (report.server !== undefined) yield { kind: 'server', name: report.server.current.name, entry: report.server };
  for (const kind of ENTRY_KINDS) {
    for (const [name, entry] of Object.entries(report[kind] ?? {})) yield { kind, name, entry };
  }
}

/**
 * The canonical order of an entry's deltas: worst severity first, then field, kind, action and
 * fingerprint, compared by code unit (never by locale). Total, so the same deltas always list
 * in the same order: the diff writes them so, the reader checks it, renderers rely on it.
 */
export function compareDeltas(a: Readonly<Delta>, b: Readonly<Delta>): number {
  return (
    SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
    compareText(a.field, b.field) ||
    compareText(a.kind, b.kind) ||
    compareText(a.action ?? '', b.action ?? '') ||
    compareText(a.fingerprint, b.fingerprint)
  );
}

/** Code-unit order: unlike localeCompare it does not depend on the host's locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
