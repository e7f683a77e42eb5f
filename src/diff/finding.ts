import type { DeltaFacts, Direction } from '../protocol/index.js';
import type { RuleKind } from '../rules/index.js';

/**
 * A change as a detector found it: its kind, where it is, and the facts. Detectors only detect
 * and give facts; the engine asks the rule for the severity, reason, sentence and fix, and adds
 * the fingerprint, so no detector ever classifies or words anything.
 */
export interface Finding {
  kind: RuleKind;
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
  /** The typed facts beyond the values that the rule's sentence is made from (see `DeltaFacts`). */
  facts?: DeltaFacts;
  renamedFrom?: string;
  renamedTo?: string;
  match?: string;
  note?: string;
}

export function finding(kind: RuleKind, segments: string[], facts: Partial<Omit<Finding, 'kind' | 'segments'>> = {}): Finding {
  return {
    kind,
    segments,
    where: facts.where ?? '',
    action: facts.action ?? null,
    direction: facts.direction ?? null,
    subject: facts.subject ?? segments[segments.length - 1] ?? '',
    previous: facts.previous === undefined ? null : facts.previous,
    current: facts.current === undefined ? null : facts.current,
    ...(facts.facts !== undefined ? { facts: facts.facts } : {}),
    ...(facts.renamedFrom !== undefined ? { renamedFrom: facts.renamedFrom } : {}),
    ...(facts.renamedTo !== undefined ? { renamedTo: facts.renamedTo } : {}),
    ...(facts.match !== undefined ? { match: facts.match } : {}),
    ...(facts.note !== undefined ? { note: facts.note } : {}),
  };
}
