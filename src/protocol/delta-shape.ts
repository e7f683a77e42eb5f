/**
 * What a delta says, read from its shape. The runtime and the proxy act on a few deltas (a tool
 * renamed or removed, an argument renamed, text flagged as poisoning). They read it from fields
 * every version-1 report has carried, never from a rule id: the rules own the ids, and a runtime
 * ships apart from them, reading reports of older and newer versions alike.
 */
import { fieldSegments } from './field-path.js';
import type { Delta } from './report.js';

/** Text the lint flagged as looking like tool poisoning (only its deltas carry the matched span): never repeated to a model. */
export function flagsText(delta: Readonly<Delta>): boolean {
  return delta.match !== undefined;
}

/** The old and the new name of an entry (a tool, a prompt) the diff found renamed. */
export function entryRenameOf(delta: Readonly<Delta>): { from: string; to: string } | undefined {
  return delta.renamedFrom !== undefined && delta.renamedTo !== undefined ? { from: delta.renamedFrom, to: delta.renamedTo } : undefined;
}

/** Whether the delta is about its whole entry going away (the field is the entry itself, and nothing is on the current side). */
export function removesEntry(delta: Readonly<Delta>): boolean {
  return delta.field === '' && (delta.current === null || delta.current === undefined);
}

/**
 * A property renamed in place: its field names the property under its new name, and its values
 * are the two names (anywhere else, the values at a property are schemas, never strings).
 */
export function memberRenameOf(delta: Readonly<Delta>): { from: string; to: string } | undefined {
  if (typeof delta.previous !== 'string' || typeof delta.current !== 'string') return undefined;
  const segments = fieldSegments(delta.field);
  if (segments === undefined || segments.at(-2) !== 'properties' || segments.at(-1) !== delta.current) return undefined;
  return { from: delta.previous, to: delta.current };
}
