/**
 * The JSON report and the frozen delta artifact. Both are the fixed `DiffReport` shape in
 * canonical JSON (sorted keys, 2-space indent, trailing newline): same report, same bytes.
 * The artifact is validated before it is written, so a deployed runtime never loads a file
 * this tool produced wrongly (the runtime has its own, lighter check for loading).
 */
import { canonicalJson } from '../contract/canonical.js';
import { isJsonObject } from '../contract/model.js';
import { UserError } from '../errors.js';
import { REPORT_VERSION, SEVERITIES, SEVERITY_RANK, maxSeverityOf, type Delta, type DiffReport, type Severity } from '../diff/types.js';

const ENTRY_COLLECTIONS = ['tools', 'prompts', 'resources', 'resourceTemplates'] as const;
const DELTA_KEYS = new Set(['severity', 'kind', 'field', 'action', 'message', 'previous', 'current', 'fingerprint', 'hint', 'renamedFrom', 'renamedTo', 'match', 'note']);
const OPTIONAL_TEXT = ['hint', 'renamedFrom', 'renamedTo', 'match', 'note'] as const;

export function renderJson(report: DiffReport): string {
  return canonicalJson(report, true);
}

/** The artifact's bytes; throws (before anything is written) when the report is not valid. */
export function renderArtifact(report: DiffReport): string {
  validateArtifact(report);
  return canonicalJson(report, true);
}

class Problems {
  readonly list: string[] = [];
  add(path: string, problem: string): void {
    if (this.list.length < 20) this.list.push(`${path}: ${problem}`);
  }
}

/**
 * Check that `data` is a delta artifact of this version, internally consistent (counts and
 * maxima match the deltas, deltas sorted, fingerprints well formed), and return it typed.
 * Throws a `UserError` listing what is wrong.
 */
export function validateArtifact(data: unknown): DiffReport {
  const problems = new Problems();
  if (!isJsonObject(data)) throw new UserError('The delta artifact is not a JSON object.');
  if (data.version !== REPORT_VERSION) {
    throw new UserError(`The delta artifact has version ${JSON.stringify(data.version)}; this mcp-contract-guard writes and reads version ${REPORT_VERSION}.`);
  }
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const collection of ENTRY_COLLECTIONS) {
    const entries = data[collection];
    if (entries === undefined && collection === 'resourceTemplates') continue;
    if (!isJsonObject(entries)) {
      problems.add(collection, 'must be an object of entries');
      continue;
    }
    for (const [key, entry] of Object.entries(entries)) {
      const at = `${collection}[${JSON.stringify(key)}]`;
      if (!isJsonObject(entry) || !Array.isArray(entry.deltas)) {
        problems.add(at, 'must be { maxSeverity, deltas: [...] }');
        continue;
      }
      const deltas: unknown[] = entry.deltas;
      if (deltas.length === 0) problems.add(at, 'has no deltas (entries without deltas are left out)');
      const severities: Severity[] = [];
      deltas.forEach((delta, index) => {
        const severity = checkDelta(delta, `${at}.deltas[${index}]`, problems);
        if (severity !== null) {
          severities.push(severity);
          counts[severity]++;
        }
        const previous = deltas[index - 1];
        if (index > 0 && isDelta(previous) && isDelta(delta) && order(previous, delta) > 0) {
          problems.add(`${at}.deltas[${index}]`, 'deltas must be sorted by severity, then field, then kind');
        }
      });
      if (entry.maxSeverity !== maxSeverityOf(severities)) problems.add(`${at}.maxSeverity`, `must be ${JSON.stringify(maxSeverityOf(severities))}`);
    }
  }
  const summary = data.summary;
  if (!isJsonObject(summary) || !isJsonObject(summary.counts)) {
    problems.add('summary', 'must be { maxSeverity, counts }');
  } else {
    for (const s of SEVERITIES) {
      if (summary.counts[s] !== counts[s]) problems.add(`summary.counts.${s}`, `must be ${counts[s]} (the number of ${s} deltas)`);
    }
    const max = maxSeverityOf(SEVERITIES.filter((s) => counts[s] > 0));
    if (summary.maxSeverity !== max) problems.add('summary.maxSeverity', `must be ${JSON.stringify(max)}`);
  }
  if (problems.list.length > 0) {
    throw new UserError(`The delta artifact is not valid:\n${problems.list.map((p) => `  - ${p}`).join('\n')}`);
  }
  return data as unknown as DiffReport;
}

function isDelta(value: unknown): value is Delta {
  return isJsonObject(value) && typeof value.severity === 'string' && typeof value.field === 'string' && typeof value.kind === 'string';
}

function order(a: Delta, b: Delta): number {
  const rank = (SEVERITY_RANK[b.severity] ?? 0) - (SEVERITY_RANK[a.severity] ?? 0);
  if (rank !== 0) return rank;
  if (a.field !== b.field) return a.field < b.field ? -1 : 1;
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  return 0;
}

function checkDelta(delta: unknown, at: string, problems: Problems): Severity | null {
  if (!isJsonObject(delta)) {
    problems.add(at, 'must be an object');
    return null;
  }
  for (const key of Object.keys(delta)) if (!DELTA_KEYS.has(key)) problems.add(`${at}.${key}`, 'is not a delta field');
  const severity = delta.severity;
  const valid = typeof severity === 'string' && (SEVERITIES as readonly string[]).includes(severity);
  if (!valid) problems.add(`${at}.severity`, `must be one of ${SEVERITIES.join(', ')}`);
  if (typeof delta.kind !== 'string' || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(delta.kind)) problems.add(`${at}.kind`, 'must be a kebab-case rule id');
  if (typeof delta.field !== 'string') problems.add(`${at}.field`, 'must be a string');
  if (delta.action !== null && typeof delta.action !== 'string') problems.add(`${at}.action`, 'must be a string or null');
  if (typeof delta.message !== 'string' || delta.message === '') problems.add(`${at}.message`, 'must be a non-empty string');
  if (!('previous' in delta) || !isJsonValue(delta.previous)) problems.add(`${at}.previous`, 'must be present and JSON');
  if (!('current' in delta) || !isJsonValue(delta.current)) problems.add(`${at}.current`, 'must be present and JSON');
  if (typeof delta.fingerprint !== 'string' || !/^[0-9a-f]{16}$/.test(delta.fingerprint)) problems.add(`${at}.fingerprint`, 'must be 16 hex digits');
  for (const key of OPTIONAL_TEXT) {
    if (key in delta && typeof delta[key] !== 'string') problems.add(`${at}.${key}`, 'must be a string when present');
  }
  if (severity === 'BREAKING' && typeof delta.hint !== 'string') problems.add(`${at}.hint`, 'a BREAKING delta must carry a fix hint');
  return valid ? (severity as Severity) : null;
}

/** JSON-representable: no undefined, functions, NaN or Infinity anywhere. */
function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 200) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJsonValue(v, depth + 1));
  if (isJsonObject(value)) return Object.values(value).every((v) => isJsonValue(v, depth + 1));
  return false;
}
