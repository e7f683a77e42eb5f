/**
 * SARIF 2.1.0, for GitHub code scanning: one result per delta, rule ids = delta kinds (so a
 * team can dismiss or re-level a kind in the UI), located in the lockfile the change will
 * update, and carrying the delta's fingerprint so an alert keeps its identity across runs.
 */
import { lockfileLines } from '../contract/lockfile.js';
import { ENTRY_NOUN } from '../contract/model.js';
import { deltaValue, entryReports, truncate, type DiffReport, type Severity } from '../protocol/index.js';
import { deltaReason, ruleOf, titleOf } from '../rules/index.js';
import { entryName } from './entry-name.js';
import { usageEvidence } from './usage.js';

export interface SarifOptions {
  /** Path of the lockfile, relative to the repository root (results point at it). */
  lockfilePath: string;
  /** The lockfile's text, to point each result at its entry's line (optional). */
  lockfileText?: string;
  /** Version of this tool, shown by code scanning (optional). */
  toolVersion?: string;
  /** Where to read about this tool (optional). */
  informationUri?: string;
}

const LEVELS: Record<Severity, 'error' | 'warning' | 'note' | 'none'> = { BREAKING: 'error', RISKY: 'warning', SAFE: 'note', COSMETIC: 'none' };
/** GitHub sorts alerts by this (0–10). */
const SECURITY_SEVERITY: Record<Severity, string> = { BREAKING: '7.0', RISKY: '4.0', SAFE: '1.0', COSMETIC: '0.0' };

export function renderSarif(report: DiffReport, options: SarifOptions): string {
  const used = new Map<string, Severity>();
  for (const { entry } of entryReports(report)) for (const d of entry.deltas) if (!used.has(d.kind)) used.set(d.kind, d.severity);
  const ruleIds = [...used.keys()].sort();
  const rules = ruleIds.map((id) => {
    const rule = ruleOf(id);
    const severity = used.get(id) as Severity;
    const reason = rule === undefined ? titleOf(id) : typeof rule.reason === 'string' ? rule.reason : `Input: ${rule.reason.input} Output: ${rule.reason.output}`;
    const hint = typeof rule?.hint === 'string' ? rule.hint : [rule?.hint?.input && `Input: ${rule.hint.input}`, rule?.hint?.output && `Output: ${rule.hint.output}`].filter(Boolean).join(' ') || undefined;
    return {
      id,
      name: id.replace(/(^|-)([a-z0-9])/g, (_: string, __: string, c: string) => c.toUpperCase()),
      shortDescription: { text: titleOf(id) },
      fullDescription: { text: reason },
      ...(hint !== undefined ? { help: { text: hint } } : {}),
      defaultConfiguration: { level: LEVELS[severity] },
      properties: { tags: ['mcp', 'contract'], 'security-severity': SECURITY_SEVERITY[severity] },
    };
  });
  const uri = options.lockfilePath.replace(/\\/g, '/');

  const results = [];
  const lines = options.lockfileText === undefined ? undefined : lockfileLines(options.lockfileText);
  for (const { kind, name, entry } of entryReports(report)) {
    const line = kind === 'server' ? 1 : (lines?.entry(kind, name) ?? lines?.kind(kind) ?? 1);
    const noun = kind === 'server' ? 'Server' : ENTRY_NOUN[kind].replace(/^./, (c) => c.toUpperCase());
    for (const d of entry.deltas) {
      const text = [
        `${noun} ${JSON.stringify(truncate(entryName(name, entry), 200))}: ${truncate(d.message, 1_000)}`,
        // Why, in the direction the delta was read: an output change is explained as an output change.
        deltaReason(d) ?? '',
        d.field === '' ? '' : `Previous: ${deltaValue(d, 'previous', 300)}. Current: ${deltaValue(d, 'current', 300)}.`,
        d.hint === undefined ? '' : `Fix: ${d.hint}`,
        d.note ?? '',
        d.usage === undefined || report.usage === undefined ? '' : `Usage: ${usageEvidence(d.usage, report.usage, (name) => `\`${truncate(name, 200)}\``)}.`,
      ].filter((s) => s !== '').join('\n');
      results.push({
        ruleId: d.kind,
        ruleIndex: ruleIds.indexOf(d.kind),
        level: LEVELS[d.severity],
        message: { text },
        locations: [
          {
            physicalLocation: { artifactLocation: { uri }, region: { startLine: line } },
            logicalLocations: [{ name: truncate(name, 200), fullyQualifiedName: truncate(`${kind}/${name}${d.field === '' ? '' : `/${d.field}`}`, 500), kind: 'member' }],
          },
        ],
        partialFingerprints: { 'mcpContractDelta/v1': d.fingerprint },
        properties: {
          severity: d.severity,
          ...(d.defaultSeverity !== undefined ? { defaultSeverity: d.defaultSeverity } : {}),
          entryType: kind,
          entry: name,
          field: d.field,
          action: d.action,
          direction: d.direction,
          reason: deltaReason(d),
          ...(d.usage !== undefined ? { usage: d.usage } : {}),
        },
      });
    }
  }

  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'mcp-contract-guard',
            ...(options.informationUri !== undefined ? { informationUri: options.informationUri } : {}),
            ...(options.toolVersion !== undefined ? { version: options.toolVersion } : {}),
            rules,
          },
        },
        results,
        columnKind: 'utf16CodeUnits',
        ...(report.usage !== undefined ? { properties: { usage: report.usage } } : {}),
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}

/** The line of an entry's key in a canonical lockfile (2-space indent), else 1. */
