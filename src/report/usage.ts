/**
 * How every format says what a change's recorded usage shows, in the same words: its share of
 * the calls ("breaks 4% of calls", "breaks nobody") and the evidence ("unused for 30 days: 0 of
 * 12,345 calls of `search` sent `days`"). The renderer gives the way its format writes code.
 */
import { argumentLabel, argumentLocationOf, compactJson, type DeltaUsage, type ReportUsage } from '../protocol/index.js';

/** Writes a name or value as code in the target format (`` `days` `` in Markdown, `days` in text). */
export type Code = (text: string) => string;

/** "breaks nobody", "breaks 4% of calls", "may break up to 4% of calls" (those that sent a field may still fit). */
export function usageShare(usage: DeltaUsage, report: ReportUsage): string {
  if (usage.affected === 0) return 'breaks nobody';
  const share = percent(usage.affected, report.calls);
  return usage.basis === 'field' ? `breaks up to ${share} of calls` : `breaks ${share} of calls`;
}

/** The counts a change's usage rests on, e.g. "unused for 30 days: 0 of 12,345 calls of `search` sent `days`". */
export function usageEvidence(usage: DeltaUsage, report: ReportUsage, code: Code): string {
  const lead = usage.affected === 0 ? `unused for ${report.days} day${report.days === 1 ? '' : 's'}` : usageShare(usage, report);
  return `${lead}: ${usageCounts(usage, report, code)}`;
}

/** "0 of 12,345 calls of `search` sent `days`", "512 of 12,345 calls were of `search`". */
export function usageCounts(usage: DeltaUsage, report: ReportUsage, code: Code): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const tool = code(usage.tool);
  switch (usage.basis) {
    case 'tool':
      return `${n(usage.affected)} of ${n(report.calls)} calls were of ${tool}`;
    case 'field':
      return `${n(usage.affected)} of ${n(usage.calls)} calls of ${tool} sent ${code(labelOf(usage.field))}`;
    case 'values': {
      const values = (usage.values ?? []).map((v) => code(compactJson(v))).join(' or ');
      return `${n(usage.affected)} of ${n(usage.calls)} calls of ${tool} sent ${code(labelOf(usage.field))} = ${values}`;
    }
    case 'action':
      return `${n(usage.affected)} of ${n(usage.calls)} calls of ${tool} were action ${code(String(usage.values?.[0] ?? ''))}`;
  }
}

/** What a report's usage covers, or why it was not used, in one sentence; `text` escapes the reason (it quotes names). */
export function usageNote(report: ReportUsage, code: Code, text: Code): string {
  const covered = `${report.calls.toLocaleString('en-US')} calls${report.server === null ? '' : ` of ${code(report.server)}`} from ${report.from} to ${report.to} (${report.days} day${report.days === 1 ? '' : 's'})`;
  if (!report.applied) return `Usage was not used to judge these changes: ${text(report.reason ?? 'the summary could not be read')}. It records ${covered}.`;
  const moved = report.downgraded === 0 ? 'no BREAKING change went unused' : `${report.downgraded} BREAKING change${report.downgraded === 1 ? '' : 's'} that no call used ${report.downgraded === 1 ? 'is' : 'are'} RISKY`;
  return `Judged with recorded usage: ${covered}; ${moved}.`;
}

/** An argument as people name it (`items[].sku`), from its field path. */
function labelOf(field: string | undefined): string {
  const location = field === undefined ? undefined : argumentLocationOf(field);
  return location === undefined ? (field ?? '') : argumentLabel(location.path);
}

/** A share as a whole percentage, never "0%" for some or "100%" for not all. */
function percent(part: number, whole: number): string {
  if (whole <= 0) return '?%';
  const value = (part / whole) * 100;
  if (value > 0 && value < 1) return '<1%';
  if (value < 100 && value > 99) return '>99%';
  return `${Math.round(value)}%`;
}
