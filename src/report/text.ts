/**
 * The terminal form: one block per entry, worst first, colour when asked (the CLI asks when
 * stdout is a TTY). Server strings pass through `terminalText`, so an ANSI sequence hidden in
 * a description cannot recolour, move the cursor or clear the screen.
 */
import { ENTRY_KINDS, ENTRY_NOUN } from '../contract/model.js';
import { SEVERITIES, SEVERITY_RANK, deltaValue, entryReports, quotes, type Delta, type DiffReport, type Severity } from '../protocol/index.js';
import { showsValues } from '../rules/index.js';
import { terminalText, truncate } from './escape.js';

export interface TextOptions {
  color: boolean;
  /** Longest rendering of a previous/current value (default 160). */
  maxValueLength?: number;
}

const COLORS: Record<Severity, string> = { BREAKING: '31;1', RISKY: '33;1', SAFE: '32', COSMETIC: '2' };
const MARKS: Record<Severity, string> = { BREAKING: '✗', RISKY: '!', SAFE: '+', COSMETIC: '·' };

export function renderText(report: DiffReport, options: TextOptions): string {
  const paint = (code: string, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const max = options.maxValueLength ?? 160;
  const { counts, maxSeverity } = report.summary;
  if (maxSeverity === null) return 'No contract changes.\n';

  const lines: string[] = [];
  lines.push(`${SEVERITIES.map((s) => (counts[s] > 0 ? paint(COLORS[s], `${s} ${counts[s]}`) : `${s} 0`)).join(' · ')} · semver: ${report.summary.semverBump}`);
  const order = (kind: string) => (kind === 'server' ? -1 : ENTRY_KINDS.indexOf(kind as (typeof ENTRY_KINDS)[number]));
  const entries = [...entryReports(report)].filter(({ entry }) => entry.deltas.length > 0);
  entries.sort((a, b) => rank(b.entry.maxSeverity) - rank(a.entry.maxSeverity) || order(a.kind) - order(b.kind) || (a.name < b.name ? -1 : 1));
  for (const { kind, name, entry } of entries) {
    lines.push('');
    const severity = entry.maxSeverity ?? 'COSMETIC';
    lines.push(`${kind === 'server' ? 'server' : ENTRY_NOUN[kind]} ${paint('1', terminalText(truncate(name, 200)))}  ${paint(COLORS[severity], severity)}`);
    for (const d of entry.deltas) lines.push(...deltaLines(d, paint, max));
  }
  return `${lines.join('\n')}\n`;
}

function deltaLines(d: Delta, paint: (code: string, text: string) => string, max: number): string[] {
  const where = d.field === '' ? '' : `  ${terminalText(truncate(d.field, 200))}`;
  // A severity the configuration re-levelled says so: the policy stays visible where it applies.
  const relevelled = d.defaultSeverity === undefined ? '' : ` (rules: ${d.defaultSeverity} → ${d.severity})`;
  const out = [`  ${paint(COLORS[d.severity], `${MARKS[d.severity]} ${d.severity.padEnd(8)}`)} ${d.kind}${where}${relevelled}`];
  const message = truncate(d.message, 400);
  out.push(`      ${terminalText(message)}`);
  if (showsValues(d) && !quotesBoth(message, d)) out.push(`      ${terminalText(deltaValue(d, 'previous', max))} → ${terminalText(deltaValue(d, 'current', max))}`);
  if (d.hint !== undefined) out.push(`      ${paint('36', 'fix:')} ${d.hint}`);
  if (d.note !== undefined) out.push(`      ${paint('2', `note: ${d.note}`)}`);
  return out;
}

/**
 * The message already quotes both values ("from \"application/json\" to \"text/csv\"",
 * "destructiveHint false → true"): a values line under it would only say them again.
 */
function quotesBoth(message: string, d: Delta): boolean {
  return quotes(message, deltaValue(d, 'previous')) && quotes(message, deltaValue(d, 'current'));
}

function rank(severity: Severity | null): number {
  return severity === null ? -1 : SEVERITY_RANK[severity];
}
