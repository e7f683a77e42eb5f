import { jsonEqual } from '../protocol/index.js';
import { entryDigest } from './canonical.js';
import { ENTRY_KINDS, type Contracts, type EntryKind } from './model.js';

export interface EntryChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

export type ContractChanges = Record<EntryKind, EntryChanges> & {
  /** The server's own contract (name, instructions, capabilities) changed; its version alone does not count. */
  server: boolean;
};

/**
 * Which entries differ between two sets of contracts, by digest only: cheap enough to run on
 * every `check`, so unchanged entries never reach the (much costlier) classification.
 */
export function compareContracts(previous: Contracts, current: Contracts): ContractChanges {
  const out = { server: serverChanged(previous, current) } as ContractChanges;
  for (const kind of ENTRY_KINDS) {
    const before = previous[kind];
    const after = current[kind];
    const changes: EntryChanges = { added: [], removed: [], changed: [] };
    for (const key of Object.keys(before).sort()) {
      const entry = Object.hasOwn(after, key) ? after[key] : undefined;
      if (entry === undefined) changes.removed.push(key);
      else if (entryDigest(entry) !== entryDigest(before[key]!) || !sameDialects(entry.dialects, before[key]!.dialects)) changes.changed.push(key);
    }
    for (const key of Object.keys(after).sort()) if (!Object.hasOwn(before, key)) changes.added.push(key);
    out[kind] = changes;
  }
  return out;
}

export function hasChanges(changes: ContractChanges): boolean {
  return changes.server || ENTRY_KINDS.some((k) => changes[k].added.length + changes[k].removed.length + changes[k].changed.length > 0);
}

/**
 * A version bump alone is a release, not a contract change. What is unknown on one side (a
 * dump, a lockfile of format 1) is not compared.
 */
function serverChanged(previous: Contracts, current: Contracts): boolean {
  if (previous.server.name !== current.server.name && previous.server.name !== 'unknown' && current.server.name !== 'unknown') return true;
  if (previous.serverContract === undefined || current.serverContract === undefined) return false;
  return !jsonEqual(previous.serverContract, current.serverContract);
}

function sameDialects(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  return (a?.inputSchema ?? null) === (b?.inputSchema ?? null) && (a?.outputSchema ?? null) === (b?.outputSchema ?? null);
}
