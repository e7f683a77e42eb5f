/**
 * The Markdown form, for pull-request comments and job summaries: counts per severity, then
 * one section per severity (worst first), one collapsible `<details>` per entry, each delta
 * with previous → current, a word-level diff when a text was reworded, and the fix for
 * BREAKING ones.
 *
 * Server strings are escaped for the context they land in (prose, code span, HTML summary):
 * no markup, no HTML, no `@mention` pings, no links, no broken lists or tables. GitHub caps a
 * comment at 65,536 characters: past `maxLength` the rest is left out with a note saying how
 * many deltas were not shown.
 */
import { diffWords } from 'diff';
import { ENTRY_KINDS, ENTRY_NOUN, type EntryKind } from '../contract/model.js';
import { SEVERITIES, type Delta, type DiffReport, type Severity } from '../protocol/index.js';
import { htmlText, mdCode, mdText, truncate } from './escape.js';
import { showValues } from './text.js';
import { summarize } from '../protocol/index.js';

export interface MarkdownOptions {
  /** Heading text (trusted; default "MCP contract changes"). */
  title?: string;
  /** Upper bound on the output length in characters (default 65,000: under GitHub's 65,536). */
  maxLength?: number;
  /** Severities whose sections start expanded (default BREAKING and RISKY). */
  expand?: readonly Severity[];
  /** Longest rendering of a previous/current value (default 300). */
  maxValueLength?: number;
}

const BADGES: Record<Severity, string> = { BREAKING: '🔴', RISKY: '🟠', SAFE: '🟢', COSMETIC: '⚪' };
/** Texts longer than this are not word-diffed (the diff is quadratic in the worst case). */
const WORD_DIFF_LIMIT = 5_000;
const TRUNCATION_RESERVE = 400;

export function renderMarkdown(report: DiffReport, options: MarkdownOptions = {}): string {
  const maxLength = Math.max(1_000, options.maxLength ?? 65_000);
  const expand = new Set(options.expand ?? ['BREAKING', 'RISKY']);
  const maxValue = options.maxValueLength ?? 300;
  const { counts, maxSeverity } = report.summary;
  const title = options.title ?? 'MCP contract changes';

  const head: string[] = [];
  if (maxSeverity === null) {
    return `### ${title}\n\nNo contract changes.\n`;
  }
  head.push(`### ${title}: ${BADGES[maxSeverity]} ${maxSeverity}`, '');
  head.push('| Severity | Changes |', '| --- | ---: |');
  for (const s of SEVERITIES) head.push(`| ${BADGES[s]} ${s} | ${counts[s]} |`);
  head.push('');

  let out = `${head.join('\n')}\n`;
  const total = SEVERITIES.reduce((sum, s) => sum + counts[s], 0);
  let shown = 0;
  let truncated = false;

  sections: for (const severity of SEVERITIES) {
    if (counts[severity] === 0) continue;
    const section = `#### ${BADGES[severity]} ${severity} (${counts[severity]})\n\n`;
    if (out.length + section.length + TRUNCATION_RESERVE > maxLength) {
      truncated = true;
      break;
    }
    out += section;
    for (const kind of ENTRY_KINDS) {
      for (const [name, entry] of Object.entries(report[kind] ?? {})) {
        const deltas = entry.deltas.filter((d) => d.severity === severity);
        if (deltas.length === 0) continue;
        const open = `<details${expand.has(severity) ? ' open' : ''}>\n<summary>${summaryOf(kind, name, deltas.length)}</summary>\n\n`;
        const close = '\n</details>\n\n';
        if (out.length + open.length + close.length + TRUNCATION_RESERVE > maxLength) {
          truncated = true;
          break sections;
        }
        let block = open;
        for (const delta of deltas) {
          const item = deltaItem(delta, maxValue);
          if (out.length + block.length + item.length + close.length + TRUNCATION_RESERVE > maxLength) {
            if (block !== open) out += block + close;
            truncated = true;
            break sections;
          }
          block += item;
          shown++;
        }
        out += block + close;
      }
    }
  }
  if (truncated) {
    const hidden = total - shown;
    out += `> [!NOTE]\n> ${hidden} more change${hidden === 1 ? ' is' : 's are'} not shown: this comment is limited to ${maxLength.toLocaleString('en-US')} characters. Run \`mcp-contract-guard diff --format json\` for the full report.\n`;
  }
  return out;
}

function summaryOf(kind: EntryKind, name: string, count: number): string {
  return `${ENTRY_NOUN[kind]} <code>${htmlText(truncate(name, 200))}</code>: ${count} change${count === 1 ? '' : 's'}`;
}

function deltaItem(d: Delta, maxValue: number): string {
  const lines: string[] = [];
  const action = d.action === null ? '' : ` · action ${mdCode(truncate(d.action, 100))}`;
  const field = d.field === '' ? '' : ` ${mdCode(truncate(d.field, 300))}`;
  lines.push(`- **${mdCode(d.kind)}**${field}${action}`);
  lines.push(`  ${mdText(truncate(d.message, 1_000))}`);
  const wording = rewording(d);
  if (wording !== null) lines.push(`  Wording: ${wording}`);
  else if (showValues(d)) lines.push(`  ${mdCode(summarize(d.previous, maxValue))} → ${mdCode(summarize(d.current, maxValue))}`);
  if (d.match !== undefined) lines.push(`  Matched: ${mdCode(truncate(d.match, 200))}`);
  if (d.hint !== undefined) lines.push(`  **Fix:** ${mdText(d.hint)}`);
  if (d.note !== undefined) lines.push(`  _Note: ${mdText(d.note)}_`);
  // Two trailing spaces: a line break inside the list item without starting a new paragraph.
  return `${lines.join('  \n')}\n`;
}

/** A word-level diff of a reworded text: `<del>` the old words, `<ins>` the new ones. */
function rewording(d: Delta): string | null {
  if (d.kind !== 'description-changed' && d.kind !== 'title-changed') return null;
  if (typeof d.previous !== 'string' || typeof d.current !== 'string') return null;
  if (d.previous.length > WORD_DIFF_LIMIT || d.current.length > WORD_DIFF_LIMIT) return null;
  const parts = diffWords(d.previous, d.current);
  return parts
    .map((part) => {
      const text = mdText(part.value);
      if (part.added) return `<ins>${text}</ins>`;
      if (part.removed) return `<del>${text}</del>`;
      return text;
    })
    .join('');
}
