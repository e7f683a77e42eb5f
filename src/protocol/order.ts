import { SEVERITY_RANK, type Delta } from './report.js';

/**
 * The canonical order of an entry's deltas: worst severity first, then field, kind, action and
 * fingerprint, compared by code unit (never by locale). Total, so the same deltas always list
 * in the same order: the diff writes them so, the reader checks it, renderers rely on it.
 */
export function compareDeltas(a: Readonly<Delta>, b: Readonly<Delta>): number {
  return (
    SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
    compareText(a.field, b.field) ||
    compareText(a.kind, b.kind) ||
    compareText(a.action ?? '', b.action ?? '') ||
    compareText(a.fingerprint, b.fingerprint)
  );
}

/** Code-unit order: unlike localeCompare it does not depend on the host's locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
