import { ENTRY_KINDS, type EntryKind } from '../contract/model.js';
import { SEVERITY_RANK, type Delta, type DiffReport } from '../protocol/index.js';

/** A delta with the entry it belongs to: its collection (`tools`…) and name. (`delta.kind` is the rule.) */
export interface LocatedDelta {
  collection: EntryKind;
  name: string;
  delta: Delta;
}

/** Every delta of a report, worst first (stable: report order within a severity). */
export function deltasOf(report: DiffReport): LocatedDelta[] {
  const out: LocatedDelta[] = [];
  for (const collection of ENTRY_KINDS) {
    for (const [name, entry] of Object.entries(report[collection] ?? {})) {
      for (const delta of entry.deltas) out.push({ collection, name, delta });
    }
  }
  return out.sort((a, b) => SEVERITY_RANK[b.delta.severity] - SEVERITY_RANK[a.delta.severity]);
}
