/**
 * The terminal form: one block per entry, worst first (entries whose changes are the same but
 * for their name share a block, as the Markdown groups them), colour when asked (the CLI asks when
 * stdout is a TTY). Server strings pass through `terminalText`, so an ANSI sequence hidden in
 * a description cannot recolour, move the cursor or clear the screen.
 */
import { ENTRY_KINDS, ENTRY_NOUN, countOf } from '../contract/model.js';
import { SEVERITIES, SEVERITY_RANK, canonicalJson, deltaValue, entryReports, quotes, type Delta, type DiffReport, type EntryKind, type EntryReport, type Severity } from '../protocol/index.js';
import { showsValues, titleOf } from '../rules/index.js';
import { entryName } from './entry-name.js';
import { terminalText, truncate } from './escape.js';
import { usageEvidence, usageNote } from './usage.js';

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
  if (report.usage !== undefined) lines.push(usageNote(report.usage, plain, terminalText));
  const order = (kind: string) => (kind === 'server' ? -1 : ENTRY_KINDS.indexOf(kind as (typeof ENTRY_KINDS)[number]));
  const entries = [...entryReports(report)].filter(({ entry }) => entry.deltas.length > 0);
  entries.sort((a, b) => rank(b.entry.maxSeverity) - rank(a.entry.maxSeverity) || order(a.kind) - order(b.kind) || (a.name < b.name ? -1 : 1));
  for (const { kind, names, entry } of groupEntries(entries)) {
    lines.push('');
    const severity = entry.maxSeverity ?? 'COSMETIC';
    const shown = names.slice(0, MAX_NAMES).map((n) => paint('1', terminalText(truncate(n, 200))));
    const more = names.length > MAX_NAMES ? ` and ${names.length - MAX_NAMES} more` : '';
    const noun = kind === 'server' ? 'server' : names.length === 1 ? ENTRY_NOUN[kind] : `${countOf(kind, names.length)}:`;
    lines.push(`${noun} ${shown.join(', ')}${more}  ${paint(COLORS[severity], severity)}`);
    for (const d of entry.deltas) lines.push(...deltaLines(d, paint, max, names.length > 1, report));
  }
  return `${lines.join('\n')}\n`;
}

/** Names listed in the heading of a block that several entries share. */
const MAX_NAMES = 100;

/**
 * Entries whose changes are the same but for their name, in one block (100 resources removed
 * read as one block, not a hundred): same rules, places, values and severities; a change of the
 * whole entry (removed, added) by its rule alone, as its sentence only names the entry.
 */
function groupEntries(entries: ReadonlyArray<{ kind: EntryKind | 'server'; name: string; entry: EntryReport }>): Array<{ kind: EntryKind | 'server'; names: string[]; entry: EntryReport }> {
  const groups = new Map<string, { kind: EntryKind | 'server'; names: string[]; entry: EntryReport }>();
  for (const { kind, name, entry } of entries) {
    const same = entry.deltas
      .map((d) => (d.field === '' ? `${d.kind}|${d.severity}|${d.defaultSeverity}` : [d.kind, d.severity, d.defaultSeverity, d.field, d.direction, d.action, d.message, canonicalJson(d.previous ?? null), canonicalJson(d.current ?? null), d.hint, d.note].join('|')))
      .map((line, i) => (entry.deltas[i]?.usage === undefined ? line : `${line}|${canonicalJson(entry.deltas[i]?.usage)}`))
      .join('\n');
    // A renamed entry, or the server, stands alone: its name is part of what changed.
    const key = kind === 'server' || entryName(name, entry) !== name ? `${kind}|${name}|alone` : `${kind}|${same}`;
    const group = groups.get(key);
    if (group) group.names.push(name);
    else groups.set(key, { kind, names: [entryName(name, entry)], entry });
  }
  return [...groups.values()];
}

function deltaLines(d: Delta, paint: (code: string, text: string) => string, max: number, shared: boolean, report: DiffReport): string[] {
  const where = d.field === '' ? '' : `  ${terminalText(truncate(d.field, 200))}`;
  // A severity the configuration or the usage re-levelled says so: the policy stays visible where it applies.
  const relevelled = d.defaultSeverity !== undefined ? ` (rules: ${d.defaultSeverity} → ${d.severity})` : d.usage?.downgraded ? ' (usage: BREAKING → RISKY)' : '';
  const out = [`  ${paint(COLORS[d.severity], `${MARKS[d.severity]} ${d.severity.padEnd(8)}`)} ${d.kind}${where}${relevelled}`];
  // A sentence about the whole entry names it: for several entries, the rule's title says it for all.
  const message = shared && d.field === '' ? `${titleOf(d.kind).replace(/^./, (c) => c.toUpperCase())}.` : truncate(d.message, 400);
  out.push(`      ${terminalText(message)}`);
  if (showsValues(d) && !quotesBoth(message, d)) out.push(`      ${terminalText(deltaValue(d, 'previous', max))} → ${terminalText(deltaValue(d, 'current', max))}`);
  if (d.hint !== undefined) out.push(`      ${paint('36', 'fix:')} ${d.hint}`);
  if (d.note !== undefined) out.push(`      ${paint('2', `note: ${d.note}`)}`);
  if (d.usage !== undefined && report.usage !== undefined) out.push(`      ${paint('35', 'usage:')} ${usageEvidence(d.usage, report.usage, plain)}`);
  return out;
}

/**
 * The message already quotes both values ("from \"application/json\" to \"text/csv\"",
 * "destructiveHint false → true"): a values line under it would only say them again.
 */
function quotesBoth(message: string, d: Delta): boolean {
  return quotes(message, deltaValue(d, 'previous')) && quotes(message, deltaValue(d, 'current'));
}

const plain = (text: string) => `\`${terminalText(truncate(text, 200))}\``;

function rank(severity: Severity | null): number {
  return severity === null ? -1 : SEVERITY_RANK[severity];
}
