/**
 * The `<contract_deltas>` form: what the runtime injects into a validation error so the model
 * can self-correct (seed "Self-Healing Context"). Every attribute and text node is escaped, and
 * characters XML cannot carry are written as `\uXXXX`, so no server string can close an
 * element or forge one.
 */
import { ENTRY_KINDS } from '../contract/model.js';
import type { Delta, DiffReport } from '../diff/types.js';
import { escapeXml, truncate } from './escape.js';
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
      lines.push(`  <${ENTRY_ELEMENT[kind]} name="${escapeXml(name)}" max_severity="${entry.maxSeverity ?? 'NONE'}">`);
      lines.push(formatDeltasAsXml(entry.deltas, { ...options, indent: '    ' }));
      lines.push(`  </${ENTRY_ELEMENT[kind]}>`);
    }
  }
  lines.push('</contract_changes>');
  return `${lines.join('\n')}\n`;
}

/** One entry's deltas as the seed's `<contract_deltas>` block. */
export function formatDeltasAsXml(deltas: readonly Delta[], options: XmlOptions & { indent?: string } = {}): string {
  const pad = options.indent ?? '';
  const max = options.maxValueLength ?? 500;
  const out = [`${pad}<contract_deltas>`];
  for (const d of deltas) {
    const action = d.action === null ? '' : ` action="${escapeXml(d.action)}"`;
    out.push(`${pad}  <delta severity="${d.severity}" kind="${escapeXml(d.kind)}" field="${escapeXml(d.field)}"${action}>`);
    out.push(`${pad}    <message>${escapeXml(truncate(d.message, max))}</message>`);
    out.push(`${pad}    <previous>${escapeXml(summarize(d.previous, max))}</previous>`);
    out.push(`${pad}    <current>${escapeXml(summarize(d.current, max))}</current>`);
    if (d.hint !== undefined) out.push(`${pad}    <fix>${escapeXml(d.hint)}</fix>`);
    out.push(`${pad}  </delta>`);
  }
  out.push(`${pad}</contract_deltas>`);
  return out.join('\n');
}
