/**
 * The `<contract_deltas>` form: what the runtime injects into a validation error so the model
 * can self-correct (seed "Self-Healing Context"). Every attribute and text node is escaped with
 * the runtime's XML helpers (characters XML cannot carry become U+FFFD), so no server string
 * can close an element or forge one.
 */
import { ENTRY_KINDS } from '../contract/model.js';
import type { Delta, DiffReport } from '../diff/types.js';
import { escapeAttr, escapeText } from '../runtime/xml.js';
import { truncate } from './escape.js';
import { summarize } from './values.js';

const ENTRY_ELEMENT = { tools: 'tool', prompts: 'prompt', resources: 'resource', resourceTemplates: 'resource_template' } as const;

export interface XmlOptions {
  /** Longest rendering of a previous/current value, in characters (default 500). */
  maxValueLength?: number;
}

/** The whole report: one element per entry, holding its `<contract_deltas>`. */
export function renderXml(report: DiffReport, options: XmlOptions = {}): string {
  const lines = [`<contract_changes max_severity="${report.summary.maxSeverity ?? 'NONE'}">`];
  for (const kind of ENTRY_KINDS) {
    for (const [name, entry] of Object.entries(report[kind] ?? {})) {
      lines.push(`  <${ENTRY_ELEMENT[kind]} name="${escapeAttr(name)}" max_severity="${entry.maxSeverity ?? 'NONE'}">`);
      lines.push(formatDeltasAsXml(entry.deltas, { ...options, indent: '    ' }));
      lines.push(`  </${ENTRY_ELEMENT[kind]}>`);
    }
  }
  lines.push('</contract_changes>');
  return `${lines.join('\n')}\n`;
}

export interface DeltasXmlOptions extends XmlOptions {
  /** Prefix of every line. */
  indent?: string;
  /** Deltas left out for space, counted in a closing `<more>` element with this explanation. */
  more?: { count: number; text: string };
}

/**
 * One entry's deltas as the seed's `<contract_deltas>` block: what `--format xml` prints and,
 * byte for byte, what the runtime injects into a validation error.
 */
export function formatDeltasAsXml(deltas: readonly Delta[], options: DeltasXmlOptions = {}): string {
  const pad = options.indent ?? '';
  const max = options.maxValueLength ?? 500;
  const out = [`${pad}<contract_deltas>`];
  for (const d of deltas) {
    let attributes = `severity="${escapeAttr(d.severity)}" kind="${escapeAttr(d.kind)}" field="${escapeAttr(d.field)}"`;
    if (d.action !== null) attributes += ` action="${escapeAttr(d.action)}"`;
    if (d.renamedFrom !== undefined) attributes += ` renamed_from="${escapeAttr(d.renamedFrom)}"`;
    if (d.renamedTo !== undefined) attributes += ` renamed_to="${escapeAttr(d.renamedTo)}"`;
    out.push(`${pad}  <delta ${attributes}>`);
    out.push(`${pad}    <message>${escapeText(truncate(d.message, max))}</message>`);
    out.push(`${pad}    <previous>${escapeText(summarize(d.previous, max))}</previous>`);
    out.push(`${pad}    <current>${escapeText(summarize(d.current, max))}</current>`);
    if (d.hint !== undefined) out.push(`${pad}    <fix>${escapeText(d.hint)}</fix>`);
    if (d.note !== undefined) out.push(`${pad}    <note>${escapeText(d.note)}</note>`);
    out.push(`${pad}  </delta>`);
  }
  if (options.more) out.push(`${pad}  <more count="${options.more.count}">${escapeText(options.more.text)}</more>`);
  out.push(`${pad}</contract_deltas>`);
  return out.join('\n');
}
