import { entryReports, SEVERITY_RANK, type Delta, type DiffReport } from '../protocol/index.js';
import type { EntryKind } from '../contract/model.js';

/**
 * A delta with the entry it belongs to: its collection (`tools`…, or `server` for the server's
 * own contract, named by the server) and name. (`delta.kind` is the rule.)
 */
export interface LocatedDelta {
  collection: EntryKind | 'server';
  name: string;
  delta: Delta;
}

/**
 * Every delta of a report, the server's own included, worst first (stable: report order
 * within a severity). Everything the gate judges comes from here, so a change to the server's
 * instructions or capabilities is gated like a change to a tool.
 */
export function deltasOf(report: DiffReport): LocatedDelta[] {
  const out: LocatedDelta[] = [];
  for (const { kind: collection, name, entry } of entryReports(report)) {
    for (const delta of entry.deltas) out.push({ collection, name, delta });
  }
  return out.sort((a, b) => SEVERITY_RANK[b.delta.severity] - SEVERITY_RANK[a.delta.severity]);
}
