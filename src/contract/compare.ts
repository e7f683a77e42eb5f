import { entryDigest } from './lockfile.js';
import { ENTRY_KINDS, type Contracts, type EntryKind } from './model.js';

export interface EntryChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

export type ContractChanges = Record<EntryKind, EntryChanges>;

/**
 * Which entries differ between two sets of contracts, by digest only: cheap enough to run on
 * every `check`, so unchanged entries never reach the (much costlier) classification.
 */
export function compareContracts(previous: Contracts, current: Contracts): ContractChanges {
  const out = {} as ContractChanges;
  for (const kind of ENTRY_KINDS) {
    const before = previous[kind];
    const after = current[kind];
    const changes: EntryChanges = { added: [], removed: [], changed: [] };
    for (const key of Object.keys(before).sort()) {
      const entry = after[key];
      if (entry === undefined) changes.removed.push(key);
      else if (entryDigest(entry) !== entryDigest(before[key]!) || !sameDialects(entry.dialects, before[key]!.dialects)) changes.changed.push(key);
    }
    for (const key of Object.keys(after).sort()) if (!(key in before)) changes.added.push(key);
    out[kind] = changes;
  }
  return out;
}

export function hasChanges(changes: ContractChanges): boolean {
  return ENTRY_KINDS.some((k) => changes[k].added.length + changes[k].removed.length + changes[k].changed.length > 0);
}

function sameDialects(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  return (a?.inputSchema ?? null) === (b?.inputSchema ?? null) && (a?.outputSchema ?? null) === (b?.outputSchema ?? null);
}
