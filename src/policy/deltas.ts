import { ENTRY_KINDS, type EntryKind } from '../contract/model.js';
import { SEVERITY_RANK, type Delta, type DiffReport } from '../protocol/index.js';

/** A delta with the entry it belongs to. */
export interface LocatedDelta {
  kind: EntryKind;
  name: string;
  delta: Delta;
}

/** Every delta of a report, worst first (stable: report order within a severity). */
export function deltasOf(report: DiffReport): LocatedDelta[] {
  const out: LocatedDelta[] = [];
  for (const kind of ENTRY_KINDS) {
    for (const [name, entry] of Object.entries(report[kind] ?? {})) {
      for (const delta of entry.deltas) out.push({ kind, name, delta });
    }
  }
  return out.sort((a, b) => SEVERITY_RANK[b.delta.severity] - SEVERITY_RANK[a.delta.severity]);
}
