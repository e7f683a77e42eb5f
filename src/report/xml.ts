/**
 * The `--format xml` form: one element per changed entry, each holding the protocol's
 * `<contract_deltas>` block (the runtime injects its brief form into a validation error).
 */
import { ENTRY_KINDS, ENTRY_NOUN, type EntryKind } from '../contract/model.js';
import { escapeAttr, renderContractDeltas, type DiffReport } from '../protocol/index.js';

/** An entry's element: its noun as an XML name (`resource template` → `resource_template`). */
const elementOf = (kind: EntryKind) => ENTRY_NOUN[kind].replace(/ /g, '_');

export interface XmlOptions {
  /** Longest rendering of a previous/current value, in characters (default 500). */
  maxValueLength?: number;
}

/** The whole report: one element per entry, holding its `<contract_deltas>`. */
export function renderXml(report: DiffReport, options: XmlOptions = {}): string {
  const lines = [`<contract_changes max_severity="${report.summary.maxSeverity ?? 'NONE'}" semver_bump="${report.summary.semverBump}">`];
  if (report.server !== undefined && report.server.deltas.length > 0) {
    lines.push(`  <server name="${escapeAttr(report.server.current.name)}" max_severity="${report.server.maxSeverity ?? 'NONE'}">`);
    lines.push(renderContractDeltas(report.server.deltas, { ...options, indent: '    ' }));
    lines.push('  </server>');
  }
  for (const kind of ENTRY_KINDS) {
    for (const [name, entry] of Object.entries(report[kind] ?? {})) {
      lines.push(`  <${elementOf(kind)} name="${escapeAttr(name)}" max_severity="${entry.maxSeverity ?? 'NONE'}">`);
      lines.push(renderContractDeltas(entry.deltas, { ...options, indent: '    ' }));
      lines.push(`  </${elementOf(kind)}>`);
    }
  }
  lines.push('</contract_changes>');
  return `${lines.join('\n')}\n`;
}
