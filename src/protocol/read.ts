/**
 * The one reader of the report format, in two modes:
 *
 * - `strict`: what this version writes, exactly. Every field present and well formed, kinds
 *   from the rule vocabulary (when the caller, who knows the rules, passes it), deltas in canonical order, counts, maxima and the semver verdict
 *   consistent with the deltas, a fix on every BREAKING delta. The artifact writer checks its
 *   own output with it before writing, and the Action checks a review file with it.
 * - `lenient`: what a deployed runtime may be handed: an artifact of an older (or newer)
 *   mcp-contract-guard of the same format version. Fields added since version 1 may be absent
 *   and unknown ones are ignored; what the runtime needs must still be there and well typed.
 *
 * Input is hostile either way: sizes and nesting are capped before parsing (`readReportText`),
 * names are kept in null-prototype records, and problems are collected, at most 20, into one
 * `ReportFormatError`.
 */
import {
  ENTRY_KINDS,
  REPORT_VERSION,
  compareDeltas,
  isReleaseDate,
  SEVERITIES,
  maxSeverityOf,
  semverBumpOf,
  zeroCounts,
  type Delta,
  type DeltaFacts,
  type DeltaUsage,
  type DiffReport,
  type ReportUsage,
  type Direction,
  type EntryReport,
  type Release,
  type ServerIdentity,
  type ServerReport,
  type Severity,
} from './report.js';
import { isJsonObject, withoutByteOrderMark } from './json.js';

export type ReadMode = 'strict' | 'lenient';

export interface ReadLimits {
  /** Largest text accepted, in UTF-16 code units (default 32 MiB). */
  maxLength?: number;
  /** Deepest nesting of arrays and objects accepted (default 64). */
  maxDepth?: number;
}

/** The defaults: far above any real artifact, far below what would hurt a server at boot. */
export const DEFAULT_READ_LIMITS: Required<ReadLimits> = { maxLength: 32 * 1024 * 1024, maxDepth: 64 };

/** The data is not a report of this format; `problems` says where and why. */
export class ReportFormatError extends Error {
  override readonly name = 'ReportFormatError';
  constructor(readonly problems: readonly string[]) {
    super(problems.length === 1 ? (problems[0] as string) : problems.map((p) => `- ${p}`).join('\n'));
  }
}

const MAX_PROBLEMS = 20;
/** Longer than any version string a release is named by. */
const MAX_VERSION_LENGTH = 200;
const DELTA_FIELDS = new Set(['severity', 'kind', 'field', 'action', 'direction', 'message', 'previous', 'current', 'fingerprint', 'hint', 'renamedFrom', 'renamedTo', 'match', 'note', 'defaultSeverity', 'reason', 'facts', 'usage']);
const OPTIONAL_TEXT = ['hint', 'renamedFrom', 'renamedTo', 'match', 'note', 'reason'] as const;
const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Parse report text within `limits`, then read it. Size and depth are checked on the text
 * before `JSON.parse` sees it, so a hostile file cannot exhaust memory or the stack.
 */
export function readReportText(text: string, mode: ReadMode, limits: ReadLimits = {}): DiffReport {
  return readReport(parseWithin(text, { ...DEFAULT_READ_LIMITS, ...limits }, (problem) => new ReportFormatError([problem])), mode);
}

/**
 * The value JSON `text` holds, its size and nesting checked before `JSON.parse` sees it (and a
 * byte order mark, which a Windows editor writes, dropped). `refuse` makes the error thrown for
 * a problem, a phrase such as "is not valid JSON (…)".
 */
export function parseWithin(text: string, limits: Required<ReadLimits>, refuse: (problem: string) => Error): unknown {
  const { maxLength, maxDepth } = limits;
  text = withoutByteOrderMark(text);
  if (text.length > maxLength) throw refuse(`is ${text.length.toLocaleString('en-US')} characters long; the limit is ${maxLength.toLocaleString('en-US')}`);
  const depth = nestingDepth(text);
  if (depth > maxDepth) throw refuse(`nests ${depth > 10_000 ? 'over 10,000' : depth} levels deep; the limit is ${maxDepth}`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw refuse(`is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** How deeply arrays and objects nest in JSON text (brackets inside strings ignored). Linear. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) deepest = depth;
      if (deepest > 10_000) return deepest;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/** Read parsed data as a report (see the module comment). Throws `ReportFormatError`. */
export function readReport(data: unknown, mode: ReadMode, isKnownKind?: (kind: string) => boolean): DiffReport {
  const reader = new Reader(mode, isKnownKind);
  const report = reader.report(data);
  if (reader.problems.length > 0) throw new ReportFormatError(reader.problems);
  return report;
}

class Reader {
  readonly problems: string[] = [];
  /** A delta was unreadable: the totals derived from the rest would only repeat that problem. */
  private incomplete = false;
  private readonly strict: boolean;

  /** The rule ids of this version (the rules know them; this format does not): checked when given, in strict mode. */
  private readonly isKnownKind: ((kind: string) => boolean) | undefined;

  constructor(mode: ReadMode, isKnownKind?: (kind: string) => boolean) {
    this.strict = mode === 'strict';
    this.isKnownKind = isKnownKind;
  }

  private problem(at: string, text: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(at === '' ? text : `${at} ${text}`);
  }

  report(data: unknown): DiffReport {
    if (!isJsonObject(data)) {
      this.problem('', `expected a JSON object (a diff report), got ${kindOf(data)}`);
      throw new ReportFormatError(this.problems);
    }
    if (!('version' in data)) {
      this.problem('', 'has no "version": it is not a report written by mcp-contract-guard');
      throw new ReportFormatError(this.problems);
    }
    if (data.version !== REPORT_VERSION) {
      this.problem('', `has unknown version ${describe(data.version)}; this mcp-contract-guard reads version ${REPORT_VERSION} (write and read it with the same version)`);
      throw new ReportFormatError(this.problems);
    }
    const counts = zeroCounts();
    const count = (entry: EntryReport) => {
      for (const d of entry.deltas) counts[d.severity]++;
    };
    const out = { version: REPORT_VERSION } as DiffReport;
    for (const kind of ENTRY_KINDS) {
      const entries = data[kind];
      const records: Record<string, EntryReport> = Object.create(null);
      out[kind] = records;
      // `tools` is what a runtime reads: required in both modes; the rest may be absent in an older artifact.
      if (entries === undefined && kind !== 'tools' && (!this.strict || kind === 'resourceTemplates')) continue;
      if (!isJsonObject(entries)) {
        this.problem(`"${kind}"`, `must be an object of entries, got ${kindOf(entries)}`);
        continue;
      }
      for (const name of Object.keys(entries)) {
        const entry = this.entry(entries[name], `${kind}[${JSON.stringify(name)}]`);
        if (entry === undefined) continue;
        records[name] = entry;
        count(entry);
      }
    }
    if (data.server !== undefined) {
      const server = this.server(data.server);
      if (server !== undefined) {
        out.server = server;
        count(server);
      }
    }
    if (data.usage !== undefined) {
      const usage = this.reportUsage(data.usage);
      if (usage !== undefined) out.usage = usage;
    }
    if (data.release !== undefined) {
      const release = this.release(data.release);
      if (release !== undefined) out.release = release;
    }
    out.summary = this.summary(data.summary, counts);
    return out;
  }

  private reportUsage(data: unknown): ReportUsage | undefined {
    const at = 'usage';
    if (!isJsonObject(data)) {
      this.problem(at, `must be an object when present, got ${kindOf(data)}`);
      return undefined;
    }
    const before = this.problems.length;
    if (data.server !== null && typeof data.server !== 'string') this.problem(`${at}.server`, `must be a name or null, got ${describe(data.server)}`);
    for (const key of ['from', 'to'] as const) if (typeof data[key] !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(data[key])) this.problem(`${at}.${key}`, `must be a day (YYYY-MM-DD), got ${describe(data[key])}`);
    for (const key of ['days', 'calls', 'unusedDays', 'downgraded'] as const) if (!isCount(data[key])) this.problem(`${at}.${key}`, `must be a whole number, got ${describe(data[key])}`);
    if (typeof data.applied !== 'boolean') this.problem(`${at}.applied`, `must be true or false, got ${describe(data.applied)}`);
    if (data.reason !== undefined && typeof data.reason !== 'string') this.problem(`${at}.reason`, `must be a string when present, got ${describe(data.reason)}`);
    if (this.problems.length > before) return undefined;
    const usage: ReportUsage = {
      server: data.server as string | null,
      from: data.from as string,
      to: data.to as string,
      days: data.days as number,
      calls: data.calls as number,
      unusedDays: data.unusedDays as number,
      applied: data.applied as boolean,
      downgraded: data.downgraded as number,
    };
    if (typeof data.reason === 'string') usage.reason = data.reason;
    return usage;
  }

  private deltaUsage(data: unknown, at: string): DeltaUsage | undefined {
    if (!isJsonObject(data)) {
      this.problem(at, `must be an object when present, got ${kindOf(data)}`);
      return undefined;
    }
    const before = this.problems.length;
    if (data.basis !== 'tool' && data.basis !== 'field' && data.basis !== 'values' && data.basis !== 'action') this.problem(`${at}.basis`, `must be "tool", "field", "values" or "action", got ${describe(data.basis)}`);
    if (typeof data.tool !== 'string') this.problem(`${at}.tool`, `must be a tool name, got ${describe(data.tool)}`);
    for (const key of ['calls', 'affected'] as const) if (!isCount(data[key])) this.problem(`${at}.${key}`, `must be a whole number, got ${describe(data[key])}`);
    if (data.field !== undefined && typeof data.field !== 'string') this.problem(`${at}.field`, `must be a field path when present, got ${describe(data.field)}`);
    if (data.values !== undefined && !Array.isArray(data.values)) this.problem(`${at}.values`, `must be an array when present, got ${kindOf(data.values)}`);
    if (data.downgraded !== undefined && data.downgraded !== true) this.problem(`${at}.downgraded`, `must be true when present, got ${describe(data.downgraded)}`);
    if (this.problems.length > before) return undefined;
    const usage: DeltaUsage = { basis: data.basis as DeltaUsage['basis'], tool: data.tool as string, calls: data.calls as number, affected: data.affected as number };
    if (typeof data.field === 'string') usage.field = data.field;
    if (Array.isArray(data.values)) usage.values = data.values;
    if (data.downgraded === true) usage.downgraded = true;
    return usage;
  }

  private summary(data: unknown, counts: Record<Severity, number>): DiffReport['summary'] {
    const maxSeverity = maxSeverityOf(SEVERITIES.filter((s) => counts[s] > 0));
    const summary = { maxSeverity, counts, semverBump: semverBumpOf(maxSeverity) };
    if (!this.strict || this.incomplete) return summary;
    if (!isJsonObject(data) || !isJsonObject(data.counts)) {
      this.problem('summary', `must be { maxSeverity, counts, semverBump }, got ${kindOf(data)}`);
      return summary;
    }
    for (const s of SEVERITIES) if (data.counts[s] !== counts[s]) this.problem(`summary.counts.${s}`, `must be ${counts[s]} (the number of ${s} deltas), got ${describe(data.counts[s])}`);
    if (data.maxSeverity !== maxSeverity) this.problem('summary.maxSeverity', `must be ${JSON.stringify(maxSeverity)}, got ${describe(data.maxSeverity)}`);
    if (data.semverBump !== summary.semverBump) this.problem('summary.semverBump', `must be ${JSON.stringify(summary.semverBump)}, got ${describe(data.semverBump)}`);
    return summary;
  }

  private server(data: unknown): ServerReport | undefined {
    if (!isJsonObject(data)) {
      this.problem('server', `must be { previous, current, maxSeverity, deltas }, got ${kindOf(data)}`);
      return undefined;
    }
    const entry = this.entry(data, 'server');
    const previous = this.identity(data.previous, 'server.previous');
    const current = this.identity(data.current, 'server.current');
    if (entry === undefined || previous === undefined || current === undefined) return undefined;
    return { previous, current, ...entry };
  }

  /** Read in both modes: a runtime counts its deprecation window from it, so a bad one must not load. */
  private release(data: unknown): Release | undefined {
    if (!isJsonObject(data)) {
      this.problem('release', `must be { version?, date? }, got ${kindOf(data)}`);
      return undefined;
    }
    const before = this.problems.length;
    if (data.version !== undefined && (typeof data.version !== 'string' || data.version === '' || data.version.length > MAX_VERSION_LENGTH)) {
      this.problem('release.version', `must be a version of 1 to ${MAX_VERSION_LENGTH} characters when present, got ${describe(data.version)}`);
    }
    if (data.date !== undefined && !isReleaseDate(data.date)) this.problem('release.date', `must be a day as YYYY-MM-DD when present, got ${describe(data.date)}`);
    if (this.strict) for (const key of Object.keys(data)) if (key !== 'version' && key !== 'date') this.problem(`release.${key}`, 'is not a release field');
    if (this.problems.length > before) return undefined;
    const release: Release = {};
    if (typeof data.version === 'string') release.version = data.version;
    if (typeof data.date === 'string') release.date = data.date;
    return release;
  }

  private identity(data: unknown, at: string): ServerIdentity | undefined {
    if (!isJsonObject(data) || typeof data.name !== 'string') {
      this.problem(at, `must be { name, version? }, got ${describe(data)}`);
      return undefined;
    }
    if (data.version !== undefined && typeof data.version !== 'string') this.problem(`${at}.version`, `must be a string when present, got ${describe(data.version)}`);
    return typeof data.version === 'string' ? { name: data.name, version: data.version } : { name: data.name };
  }

  private entry(data: unknown, at: string): EntryReport | undefined {
    if (!isJsonObject(data)) {
      this.problem(at, `must be an object, got ${kindOf(data)}`);
      return undefined;
    }
    if (!Array.isArray(data.deltas)) {
      this.problem(`${at}.deltas`, `must be an array, got ${kindOf(data.deltas)}`);
      return undefined;
    }
    const deltas: Delta[] = [];
    data.deltas.forEach((raw: unknown, index: number) => {
      const delta = this.delta(raw, `${at}.deltas[${index}]`);
      if (delta === undefined) {
        this.incomplete = true;
        return;
      }
      const before = deltas[deltas.length - 1];
      if (this.strict && before !== undefined && compareDeltas(before, delta) > 0) {
        this.problem(`${at}.deltas[${index}]`, 'is out of order: deltas must be in canonical order (severity, field, kind, action, fingerprint)');
      }
      deltas.push(delta);
    });
    const complete = deltas.length === data.deltas.length;
    if (this.strict && complete && deltas.length === 0 && at !== 'server') this.problem(at, 'has no deltas (entries without deltas are left out)');
    const maxSeverity = maxSeverityOf(deltas.map((d) => d.severity));
    if (data.maxSeverity !== null && !isSeverity(data.maxSeverity)) {
      this.problem(`${at}.maxSeverity`, `must be null or one of ${SEVERITIES.join(', ')}, got ${describe(data.maxSeverity)}`);
    } else if (this.strict && complete && data.maxSeverity !== maxSeverity) {
      this.problem(`${at}.maxSeverity`, `must be ${JSON.stringify(maxSeverity)} (the worst of its deltas), got ${describe(data.maxSeverity)}`);
    }
    if (!this.strict) deltas.sort(compareDeltas);
    const entry: EntryReport = { maxSeverity, deltas };
    if (data.discriminator !== undefined) {
      if (typeof data.discriminator === 'string' && data.discriminator !== '') entry.discriminator = data.discriminator;
      else this.problem(`${at}.discriminator`, `must be a property name when present, got ${describe(data.discriminator)}`);
    }
    return entry;
  }

  private delta(data: unknown, at: string): Delta | undefined {
    if (!isJsonObject(data)) {
      this.problem(at, `must be an object, got ${kindOf(data)}`);
      return undefined;
    }
    const before = this.problems.length;
    if (this.strict) for (const key of Object.keys(data)) if (!DELTA_FIELDS.has(key)) this.problem(`${at}.${key}`, 'is not a delta field');
    if (!isSeverity(data.severity)) this.problem(`${at}.severity`, `must be one of ${SEVERITIES.join(', ')}, got ${describe(data.severity)}`);
    if (typeof data.kind !== 'string' || !KEBAB.test(data.kind)) this.problem(`${at}.kind`, `must be a kebab-case rule id, got ${describe(data.kind)}`);
    else if (this.strict && this.isKnownKind !== undefined && !this.isKnownKind(data.kind)) this.problem(`${at}.kind`, `${describe(data.kind)} is not a rule kind of this version`);
    for (const key of ['field', 'message'] as const) if (typeof data[key] !== 'string') this.problem(`${at}.${key}`, `must be a string, got ${describe(data[key])}`);
    if (data.message === '') this.problem(`${at}.message`, 'must not be empty');
    if (data.action !== null && typeof data.action !== 'string') this.problem(`${at}.action`, `must be a string or null, got ${describe(data.action)}`);
    const direction = data.direction === undefined && !this.strict ? null : data.direction;
    if (direction !== null && direction !== 'input' && direction !== 'output') this.problem(`${at}.direction`, `must be "input", "output" or null, got ${describe(direction)}`);
    for (const key of ['previous', 'current'] as const) if (!(key in data)) this.problem(at, `has no "${key}" (use null for none)`);
    // Allow-lists match fingerprints: what this version writes is exact; a runtime only displays deltas.
    const fingerprintOk = this.strict ? typeof data.fingerprint === 'string' && /^[0-9a-f]{16}$/.test(data.fingerprint) : typeof data.fingerprint === 'string';
    if (!fingerprintOk) this.problem(`${at}.fingerprint`, `must be ${this.strict ? '16 hex digits' : 'a string'}, got ${describe(data.fingerprint)}`);
    for (const key of OPTIONAL_TEXT) if (data[key] !== undefined && typeof data[key] !== 'string') this.problem(`${at}.${key}`, `must be a string when present, got ${describe(data[key])}`);
    if (data.facts !== undefined && !isJsonObject(data.facts)) this.problem(`${at}.facts`, `must be an object when present, got ${kindOf(data.facts)}`);
    const usage = data.usage === undefined ? undefined : this.deltaUsage(data.usage, `${at}.usage`);
    if (data.defaultSeverity !== undefined && !isSeverity(data.defaultSeverity)) this.problem(`${at}.defaultSeverity`, `must be one of ${SEVERITIES.join(', ')}, got ${describe(data.defaultSeverity)}`);
    if (this.strict && data.severity === 'BREAKING' && typeof data.hint !== 'string') this.problem(`${at}.hint`, 'is missing: a BREAKING delta must carry a fix hint');
    if (this.problems.length > before) return undefined;
    const delta: Delta = {
      severity: data.severity as Severity,
      kind: data.kind as Delta['kind'],
      field: data.field as string,
      action: data.action as string | null,
      direction: direction as Direction | null,
      message: data.message as string,
      previous: data.previous,
      current: data.current,
      fingerprint: data.fingerprint as string,
    };
    for (const key of OPTIONAL_TEXT) if (typeof data[key] === 'string') delta[key] = data[key] as string;
    if (data.defaultSeverity !== undefined) delta.defaultSeverity = data.defaultSeverity as Severity;
    if (isJsonObject(data.facts)) delta.facts = data.facts as DeltaFacts;
    if (usage !== undefined) delta.usage = usage;
    return delta;
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);
}

/** What a value is, for a message: `null`, `an array`, `a string`… */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'nothing';
  return `a ${typeof value}`;
}

/** A value as a message shows it: its JSON, cut at 60 characters. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 60)}…` : json;
}
