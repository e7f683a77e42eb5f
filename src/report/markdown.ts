/**
 * The Markdown form, for pull-request comments, job summaries and `diff --format markdown`,
 * digest first: the counts on one line; a table of what changes for callers, one row per entry
 * in plain words (identical rows merged, so every entry is named in a few lines); each fix once
 * per kind. Then the detail, collapsed per severity: identical changes grouped across entries,
 * the sentence first and the path after, reworded text as a `diff` block.
 *
 * Server strings are escaped for the exact place they land (prose, code span, table cell,
 * `<summary>`, code block): no markup, no HTML, no `@mention` pings, no links, no broken lists
 * or tables, and no backslash left visible. Past `maxLength` detail goes before content: SAFE
 * and COSMETIC changes down to their counts, then one line per change; the text says so at the
 * top and where the rest is.
 */
import { diffArrays } from 'diff';
import { ENTRY_NOUN, countOf, type EntryKind } from '../contract/model.js';
import { SEVERITIES, canonicalJson, deltaValue, entryReports, type Delta, type DiffReport, type Severity } from '../protocol/index.js';
import { mdCell, mdCode, mdCodeBlock, mdText, truncate } from './escape.js';
import { isRewording, showsValues, titleOf } from '../rules/index.js';
import { entryName } from './entry-name.js';
import { describeChanges } from './phrases.js';
import { usageEvidence, usageNote, usageShare } from './usage.js';
import { CLI_COMMAND } from '../version.js';

export interface MarkdownOptions {
  /** Heading text (trusted; default "MCP contract changes"). */
  title?: string;
  /** Upper bound on the output length in characters (default 65,000: under GitHub's 65,536). */
  maxLength?: number;
  /** Longest rendering of a previous/current value (default 300). */
  maxValueLength?: number;
  /** A mark for a delta wherever it is listed, e.g. "✅ allow-listed" (trusted Markdown). */
  markOf?: (delta: Delta) => string | undefined;
  /** Where the whole report is, for what a shortened one leaves out (trusted Markdown). */
  fullReport?: string;
}

/**
 * How much the collapsed part shows, from everything down: SAFE and COSMETIC changes one line
 * each, then only counted, then BREAKING and RISKY ones one line each too.
 */
export const DETAIL_LEVELS = ['full', 'minor-lines', 'major-only', 'one-line'] as const;
export type DetailLevel = (typeof DETAIL_LEVELS)[number];

/** How a severity's changes are shown at a level. */
function shownAs(level: DetailLevel, severity: Severity): 'full' | 'lines' | 'count' {
  const major = severity === 'BREAKING' || severity === 'RISKY';
  if (level === 'full') return 'full';
  if (major) return level === 'one-line' ? 'lines' : 'full';
  return level === 'minor-lines' ? 'lines' : 'count';
}

export const BADGES: Readonly<Record<Severity, string>> = { BREAKING: '🔴', RISKY: '🟠', SAFE: '🟢', COSMETIC: '⚪' };

type Where = EntryKind | 'server';

/** A delta with the entry it belongs to. */
interface Located {
  where: Where;
  name: string;
  delta: Delta;
}

/** Changes identical but for their entry, listed once. */
interface Change {
  delta: Delta;
  entries: Located[];
  mark: string | undefined;
}

/** The digest table's bounds: past them, one row names the rest. */
const MAX_ROWS = 30;
const MAX_TOOLS_PER_ROW = 60;
/** Prompts and resources come by the hundred (one per document): a few name the row. */
const MAX_OTHERS_PER_ROW = 6;
const MAX_PHRASES_PER_ROW = 4;
/** Names listed in one grouped change of the detail. */
const MAX_NAMES_PER_CHANGE = 100;
/** Texts longer than this are not diffed (the diff is quadratic in the worst case). */
const REWORDING_LIMIT = 5_000;
const REWORDING_WIDTH = 100;
const REWORDING_MAX_LINES = 40;

/** The report alone, as `diff --format markdown` prints it. */
export function renderMarkdown(report: DiffReport, options: MarkdownOptions = {}): string {
  const maxLength = Math.max(1_000, options.maxLength ?? 65_000);
  const title = options.title ?? 'MCP contract changes';
  const { maxSeverity, semverBump } = report.summary;
  if (maxSeverity === null) return `### ${title}\n\nNo contract changes.\n`;
  const head = `### ${title}: ${BADGES[maxSeverity]} ${maxSeverity} (a ${semverBump} release)`;
  const digest = renderDigest(report, options);
  const render = (level: DetailLevel) => [head, level === 'full' ? '' : partialNote(options), digest, renderDetails(report, level, options)].filter((s) => s !== '').join('\n\n') + '\n';
  for (const level of DETAIL_LEVELS) {
    const text = render(level);
    if (text.length <= maxLength) return text;
  }
  return truncateMarkdown(render('one-line'), maxLength, `> [!NOTE]\n> Cut here: ${fullReportOf(options)} has every change.`);
}

/** The note at the top of a shortened report. */
export function partialNote(options: Pick<MarkdownOptions, 'fullReport'>): string {
  return `> [!NOTE]\n> **Partial report**: some detail is left out to fit the size limit. ${capitalize(fullReportOf(options))} has every change.`;
}

/**
 * The digest: the counts on one line, what changes for callers (BREAKING, then RISKY), and
 * each fix once. It names every entry with a BREAKING change in a few dozen lines at most.
 */
export function renderDigest(report: DiffReport, options: Pick<MarkdownOptions, 'markOf'> & { fixes?: boolean } = {}): string {
  if (report.summary.maxSeverity === null) return 'No contract changes.';
  const located = locatedDeltas(report);
  const usage = report.usage === undefined ? '' : usageNote(report.usage, usageCode, mdText);
  // The fixes speak to the server's developers: a consumer of a third-party server leaves them out.
  return [countsLine(report), usage, callerTable(report, options.markOf), options.fixes === false ? '' : fixList(located)].filter((s) => s !== '').join('\n\n');
}

/** `🔴 3 breaking · 🟢 2 safe`: the severities that occur. */
function countsLine(report: DiffReport): string {
  const { counts } = report.summary;
  return SEVERITIES.filter((s) => counts[s] > 0)
    .map((s) => `${BADGES[s]} ${counts[s]} ${s.toLowerCase()}`)
    .join(' · ');
}

interface Row {
  severity: Severity;
  where: Where;
  names: string[];
  what: string;
  /** What the recorded usage says of the row's changes ('' when it says nothing). */
  usage: string;
}

function callerTable(report: DiffReport, markOf: MarkdownOptions['markOf']): string {
  const rows = new Map<string, Row>();
  for (const severity of ['BREAKING', 'RISKY'] as const) {
    for (const { kind: where, name, entry } of entryReports(report)) {
      const deltas = entry.deltas.filter((d) => d.severity === severity);
      if (deltas.length === 0) continue;
      // Callers know the entry by its old name: a renamed one is listed under both.
      const called = entryName(name, entry);
      const phrases = describeChanges(deltas);
      const shown = phrases.length > MAX_PHRASES_PER_ROW ? [...phrases.slice(0, MAX_PHRASES_PER_ROW - 1), `${phrases.length - MAX_PHRASES_PER_ROW + 1} more changes`] : phrases;
      const what = `${shown.join('; ')}${markSuffix(rowMark(deltas, markOf))}`;
      const usage = rowUsage(deltas, report);
      const key = `${severity}|${where}|${what}|${usage}`;
      const row = rows.get(key);
      if (row) row.names.push(called);
      else rows.set(key, { severity, where, names: [called], what, usage });
    }
  }
  if (rows.size === 0) return '';
  const all = [...rows.values()];
  const kept = all.slice(0, MAX_ROWS);
  const rest = all.slice(MAX_ROWS);
  const allTools = all.every((r) => r.where === 'tools');
  // Judged with usage: a column says what each row rests on ("breaks 4% of calls", "breaks nobody").
  const withUsage = report.usage?.applied === true;
  // A BREAKING row usage says nothing of (a result, a tool never recorded) is still a break: said so, not left blank.
  const usageCell = (r: Row) => (withUsage ? ` ${mdCell(r.usage !== '' ? r.usage : r.severity === 'BREAKING' ? 'usage cannot tell' : '—')} |` : '');
  const lines = [
    all.some((r) => r.severity === 'BREAKING') ? '#### What breaks for callers' : '#### What to review',
    '',
    `| | ${allTools ? 'Tool' : 'Name'} | What changes for callers |${withUsage ? ' Usage |' : ''}`,
    `| --- | --- | --- |${withUsage ? ' --- |' : ''}`,
    ...kept.map((r) => `| ${BADGES[r.severity]} | ${mdCell(namesOf(r.where, r.names, allTools))} | ${mdCell(r.what)} |${usageCell(r)}`),
  ];
  if (rest.length > 0) {
    const names = rest.flatMap((r) => r.names.map((n) => mdCode(truncate(n, 100))));
    const listed = names.slice(0, MAX_TOOLS_PER_ROW).join(', ') + (names.length > MAX_TOOLS_PER_ROW ? ` and ${names.length - MAX_TOOLS_PER_ROW} more` : '');
    lines.push(`| ${BADGES[rest[0]!.severity]} | ${mdCell(listed)} | ${rest.length} more kinds of change: see the detail below |${withUsage ? ' |' : ''}`);
  }
  return lines.join('\n');
}

/**
 * What the recorded usage says of a row's changes: the share of the one that breaks the most
 * calls; "breaks nobody" when none breaks any; '' when usage cannot speak for any of them.
 */
function rowUsage(deltas: readonly Delta[], report: DiffReport): string {
  if (report.usage?.applied !== true) return '';
  let worst: Delta | undefined;
  for (const d of deltas) if (d.usage !== undefined && (worst?.usage === undefined || d.usage.affected > worst.usage.affected)) worst = d;
  if (worst?.usage === undefined) return '';
  const share = usageShare(worst.usage, report.usage);
  return worst.usage.affected === 0 ? `${share} (unused for ${report.usage.days} day${report.usage.days === 1 ? '' : 's'})` : share;
}

function namesOf(where: Where, names: readonly string[], allTools: boolean): string {
  if (where === 'server') return 'the server';
  const max = where === 'tools' ? MAX_TOOLS_PER_ROW : MAX_OTHERS_PER_ROW;
  const shown = names.slice(0, max).map((n) => mdCode(truncate(n, 100)));
  const more = names.length > max ? ` and ${names.length - max} more` : '';
  const noun = allTools ? '' : `${ENTRY_NOUN[where]}${names.length === 1 ? '' : 's'} `;
  return `${noun}${shown.join(', ')}${more}`;
}

/** One mark for a row: "new since the approval" if any delta is, else the mark all its deltas share. */
function rowMark(deltas: readonly Delta[], markOf: MarkdownOptions['markOf']): string | undefined {
  if (!markOf) return undefined;
  const marks = deltas.map((d) => markOf(d));
  const first = marks[0];
  return marks.every((m) => m === first) ? first : undefined;
}

function markSuffix(mark: string | undefined): string {
  return mark === undefined ? '' : ` · ${mark}`;
}

/**
 * How to fix the BREAKING changes: one line per rule, with how often it occurs and its fix (for
 * arguments and for results, when they differ); rules with the very same fix share a line.
 */
function fixList(located: readonly Located[]): string {
  const rules = new Map<string, { count: number; hints: Map<string, string> }>();
  for (const { delta } of located) {
    if (delta.severity !== 'BREAKING' || delta.hint === undefined) continue;
    const rule = rules.get(delta.kind) ?? { count: 0, hints: new Map<string, string>() };
    rule.count++;
    if (!rule.hints.has(delta.hint)) rule.hints.set(delta.hint, delta.direction === 'output' ? 'In results: ' : delta.direction === 'input' ? 'In arguments: ' : '');
    rules.set(delta.kind, rule);
  }
  const fixes = new Map<string, { titles: string[]; count: number }>();
  for (const [kind, { count, hints }] of rules) {
    const text = hints.size === 1 ? [...hints.keys()][0]! : [...hints].map(([hint, direction]) => `${direction}${hint}`).join(' ');
    const fix = fixes.get(text) ?? { titles: [], count: 0 };
    fix.titles.push(titleOf(kind));
    fix.count += count;
    fixes.set(text, fix);
  }
  if (fixes.size === 0) return '';
  const items = [...fixes.entries()]
    .sort((a, b) => b[1].count - a[1].count)
    .map(([hint, { titles, count }]) => `- **${mdText(titles.join(', '))}** (${count}): ${mdText(truncate(hint, 500))}`);
  return `**How to fix**\n${items.join('\n')}`;
}

/** The detail, one collapsed block per severity, as much of it as `level` says. */
export function renderDetails(report: DiffReport, level: DetailLevel, options: Pick<MarkdownOptions, 'markOf' | 'maxValueLength' | 'fullReport'> = {}): string {
  const maxValue = options.maxValueLength ?? 300;
  const located = locatedDeltas(report);
  const blocks: string[] = [];
  const counted: string[] = [];
  for (const severity of SEVERITIES) {
    const deltas = located.filter((l) => l.delta.severity === severity);
    if (deltas.length === 0) continue;
    const shown = shownAs(level, severity);
    if (shown === 'count') {
      counted.push(`${deltas.length} ${severity}`);
      continue;
    }
    const items = groupChanges(deltas, options.markOf).map((change) => (shown === 'lines' ? `- ${sentenceOf(change)}` : changeItem(change, maxValue, report)));
    blocks.push(`<details>\n<summary>${BADGES[severity]} ${deltas.length} ${severity} change${deltas.length === 1 ? '' : 's'}</summary>\n\n${items.join('\n')}\n\n</details>`);
  }
  if (counted.length > 0) {
    const total = located.filter((l) => l.delta.severity === 'SAFE' || l.delta.severity === 'COSMETIC').length;
    blocks.push(`The ${counted.join(' and ')} change${total === 1 ? ' is' : 's are'} not listed here: ${fullReportOf(options)} has ${total === 1 ? 'it' : 'them'}.`);
  }
  return blocks.join('\n\n');
}

/** Names and values in the usage evidence: code spans, cut to a readable length. */
const usageCode = (text: string) => mdCode(truncate(text, 200));

function fullReportOf(options: Pick<MarkdownOptions, 'fullReport'>): string {
  // The command as a reader can paste it (npx fetches this version), as every advice line prints it.
  return options.fullReport ?? `the JSON report (${mdCode(`${CLI_COMMAND} diff --format json`)})`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function locatedDeltas(report: DiffReport): Located[] {
  const out: Located[] = [];
  for (const { kind, name, entry } of entryReports(report)) for (const delta of entry.deltas) out.push({ where: kind, name: entryName(name, entry), delta });
  return out;
}

/**
 * Changes identical but for their entry (same rule, place, values and mark), in report order.
 * Whole-entry changes group by rule alone: "Resource removed: `a`, `b`".
 */
function groupChanges(located: readonly Located[], markOf: MarkdownOptions['markOf']): Change[] {
  const groups = new Map<string, Change>();
  for (const item of located) {
    const d = item.delta;
    const mark = markOf?.(d);
    const key = isRename(d)
      ? `rename|${d.fingerprint}`
      : d.field === ''
        ? `${item.where}|${d.kind}|${mark}`
        : [item.where, d.kind, d.direction, d.field, d.action, d.message, canonicalJson(d.previous ?? null), canonicalJson(d.current ?? null), d.defaultSeverity, mark, canonicalJson(d.usage ?? null)].join('|');
    const group = groups.get(key);
    if (group) group.entries.push(item);
    else groups.set(key, { delta: d, entries: [item], mark });
  }
  return [...groups.values()];
}

function isRename(d: Delta): boolean {
  return d.renamedFrom !== undefined || d.renamedTo !== undefined;
}

/** The sentence of a change, and the entries it is in. */
function sentenceOf(change: Change): string {
  const { delta: d, entries } = change;
  const mark = markSuffix(change.mark);
  if (isRename(d)) return `${mdText(truncate(d.message, 1_000))}${mark}`;
  if (d.field === '') return `${capitalize(titleOf(d.kind))}: ${entriesOf(entries, false)}${mark}`;
  return `${mdText(truncate(d.message, 1_000))} — ${entriesOf(entries, true)}${mark}`;
}

/** "tool `a`", "3 tools: `a`, `b`, `c`", or the names alone. */
function entriesOf(entries: readonly Located[], withNoun: boolean): string {
  const first = entries[0]!;
  if (first.where === 'server') return 'the server';
  const names = entries.slice(0, MAX_NAMES_PER_CHANGE).map((e) => mdCode(truncate(e.name, 200)));
  const more = entries.length > MAX_NAMES_PER_CHANGE ? ` and ${entries.length - MAX_NAMES_PER_CHANGE} more` : '';
  if (!withNoun) return `${names.join(', ')}${more}`;
  if (entries.length === 1) return `${ENTRY_NOUN[first.where]} ${names[0]}`;
  return `${countOf(first.where, entries.length)}: ${names.join(', ')}${more}`;
}

/** A change in full: the sentence, then where it is (path, rule, values), then a rewording as a diff. */
function changeItem(change: Change, maxValue: number, report: DiffReport): string {
  const d = change.delta;
  const facts: string[] = [];
  if (d.direction === 'output') facts.push('output (what the server returns)');
  if (d.field !== '') facts.push(mdCode(truncate(d.field, 300)));
  if (d.action !== null) facts.push(`action ${mdCode(truncate(d.action, 100))}`);
  facts.push(mdCode(d.kind));
  if (d.defaultSeverity !== undefined) facts.push(`${d.severity} by configuration (the rule says ${d.defaultSeverity})`);
  if (d.usage !== undefined && report.usage !== undefined) facts.push(`${d.usage.downgraded ? 'RISKY by usage (the rule says BREAKING): ' : 'usage: '}${usageEvidence(d.usage, report.usage, usageCode)}`);
  const rewording = rewordingOf(d);
  if (rewording === null && showsValues(d) && !isRename(d)) facts.push(`${mdCode(deltaValue(d, 'previous', maxValue))} → ${mdCode(deltaValue(d, 'current', maxValue))}`);
  if (d.match !== undefined) facts.push(`matched ${mdCode(truncate(d.match, 200))}`);
  if (d.note !== undefined) facts.push(`note: ${mdText(truncate(d.note, 500))}`);
  // Two trailing spaces: a line break inside the list item without starting a new paragraph.
  const item = `- ${sentenceOf(change)}  \n  <sub>${facts.join(' · ')}</sub>`;
  return rewording === null ? item : `${item}\n${rewording.replace(/^/gm, '  ')}`;
}

/**
 * A reworded text as a `diff` code block: both versions cut into sentences and wrapped, so a
 * changed sentence reads as a - / + pair and nothing scrolls sideways; long unchanged runs
 * fold to "…".
 */
function rewordingOf(d: Delta): string | null {
  if (!isRewording(d) || typeof d.previous !== 'string' || typeof d.current !== 'string') return null;
  if (d.previous.length > REWORDING_LIMIT || d.current.length > REWORDING_LIMIT) return null;
  const lines: string[] = [];
  const parts = diffArrays(linesOf(d.previous), linesOf(d.current));
  parts.forEach((part, i) => {
    const sign = part.added ? '+' : part.removed ? '-' : ' ';
    let shown = part.value;
    if (sign === ' ' && shown.length > 2) {
      // Keep the lines next to a change; fold the rest.
      const head = i > 0 ? shown.slice(0, 1) : [];
      const tail = i < parts.length - 1 ? shown.slice(-1) : [];
      shown = [...head, '…', ...tail];
    }
    for (const line of shown) lines.push(`${sign} ${line}`);
  });
  if (lines.length > REWORDING_MAX_LINES) lines.splice(REWORDING_MAX_LINES - 1, Infinity, '  … (the delta artifact has the whole text)');
  return mdCodeBlock(lines.join('\n'), 'diff');
}

function linesOf(text: string): string[] {
  return text
    .split(/\r\n|\r|\n/)
    .flatMap((line) => line.split(/(?<=[.!?])\s+/))
    .flatMap((sentence) => wrap(sentence.trim(), REWORDING_WIDTH))
    .filter((line) => line !== '');
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  out.push(line);
  return out;
}

/**
 * Cut Markdown to at most `max` characters at a line boundary, closing what the cut left open
 * (a code fence, `<details>` blocks) so the rest of the page still renders, then `note`.
 */
export function truncateMarkdown(text: string, max: number, note: string): string {
  if (text.length <= max) return text;
  const reserve = note.length + 200;
  let cut = text.lastIndexOf('\n', Math.max(0, max - reserve));
  if (cut < 0) cut = Math.max(0, max - reserve);
  const kept = text.slice(0, cut);
  // The open fence, with its indentation: one opened inside a list item closes inside it.
  let fence: string | null = null;
  let openDetails = 0;
  for (const line of kept.split('\n')) {
    const match = /^(\s*)(`{3,})/.exec(line);
    if (match) {
      const run = match[2] as string;
      if (fence === null) fence = `${match[1]}${run}`;
      else if (run.length >= fence.trim().length && line.trim() === run) fence = null;
      continue;
    }
    if (fence !== null) continue;
    openDetails += (line.match(/<details[\s>]/g) ?? []).length - (line.match(/<\/details>/g) ?? []).length;
  }
  const closers = [fence ?? '', ...Array.from({ length: Math.max(0, openDetails) }, () => '</details>')].filter((s) => s !== '');
  return `${kept}\n${closers.join('\n')}${closers.length ? '\n' : ''}\n${note}\n`;
}
