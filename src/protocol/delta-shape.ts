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

/**
 * A property removed in place: its field names the property, and its values are the schema it
 * had and nothing now (a property added is the reverse; a requiredness change holds booleans
 * on both sides).
 */
export function memberRemovalOf(delta: Readonly<Delta>): { name: string; schema: unknown } | undefined {
  if (delta.current !== null && delta.current !== undefined) return undefined;
  const previous = delta.previous;
  if (previous === null || Array.isArray(previous) || (typeof previous !== 'object' && typeof previous !== 'boolean')) return undefined;
  const segments = fieldSegments(delta.field);
  if (segments === undefined || segments.length < 2 || segments.at(-2) !== 'properties') return undefined;
  return { name: segments.at(-1) as string, schema: previous };
}

/**
 * Whether a rename is one the diff is sure of, so a runtime may serve the old name in place of
 * the new: a property renamed with the same schema on both sides (every diff that wrote a
 * property rename paired equal schemas only, so an older artifact's rename without the fact
 * counts too; never one that says otherwise), or a tool whose name changed notation only or
 * whose description stayed the same (the same arguments alone are not enough: `delete_file` and
 * `delete_directory` take the same path).
 */
export function isSureRename(delta: Readonly<Delta>): boolean {
  const facts = delta.facts ?? {};
  if (memberRenameOf(delta) !== undefined) return facts.sameSchema !== false;
  if (entryRenameOf(delta) !== undefined) return facts.sameName === true || facts.sameDescription === true;
  return false;
}
