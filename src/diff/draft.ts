import type { Direction, DeltaKind } from './rules.js';

/**
 * A delta as a detector found it: the kind, where, and the facts. The engine adds what the
 * rule table decides (severity, message, hint) and the fingerprint, so detectors never
 * classify anything themselves.
 */
export interface DraftDelta {
  kind: DeltaKind;
  /** Field path segments from the entry (`inputSchema`, `properties`, `sku`…). */
  segments: string[];
  /** Human label of the location the message starts with (`items[].sku`), '' for the entry. */
  where: string;
  action: string | null;
  /** Which way a schema rule reads; null for entry-level rules. */
  direction: Direction | null;
  /** The member or keyword the message names. */
  subject: string;
  previous: unknown;
  current: unknown;
  detail: string;
  renamedFrom?: string;
  renamedTo?: string;
  match?: string;
  note?: string;
}

export function draft(kind: DeltaKind, segments: string[], facts: Partial<Omit<DraftDelta, 'kind' | 'segments'>> = {}): DraftDelta {
  return {
    kind,
    segments,
    where: facts.where ?? '',
    action: facts.action ?? null,
    direction: facts.direction ?? null,
    subject: facts.subject ?? segments[segments.length - 1] ?? '',
    previous: facts.previous === undefined ? null : facts.previous,
    current: facts.current === undefined ? null : facts.current,
    detail: facts.detail ?? '',
    ...(facts.renamedFrom !== undefined ? { renamedFrom: facts.renamedFrom } : {}),
    ...(facts.renamedTo !== undefined ? { renamedTo: facts.renamedTo } : {}),
    ...(facts.match !== undefined ? { match: facts.match } : {}),
    ...(facts.note !== undefined ? { note: facts.note } : {}),
  };
}
