import type { DiffReport } from '../protocol/index.js';
import { deltasOf, type LocatedDelta } from './deltas.js';

/** One entry of the config's `allow` list: a reviewed change (by fingerprint), accepted until a day. */
export interface AllowEntry {
  fingerprint: string;
  reason: string;
  /** YYYY-MM-DD, inclusive (UTC). */
  expires?: string | undefined;
}

export interface AcceptedDelta extends LocatedDelta {
  server: string;
  entry: AllowEntry;
}

export interface AllowEvaluation {
  /** The entry that accepts this fingerprint today, if any. */
  acceptedBy(fingerprint: string): AllowEntry | undefined;
  accepted: AcceptedDelta[];
  /** Past their date: they accept nothing any more. `matched` says a delta still needs them. */
  expired: Array<{ entry: AllowEntry; matched: boolean }>;
  /** Without a date, or dated beyond the horizon: they accept nothing. `why` names the rule. */
  refused: Array<{ entry: AllowEntry; why: string; matched: boolean }>;
  /** Still valid but no delta of this run matched: probably merged long ago, delete them. */
  unused: AllowEntry[];
}

/** How far ahead an acceptance may run before someone must look at it again, by default. */
export const DEFAULT_ALLOW_MAX_DAYS = 180;

/**
 * Match the allow-list of the config against the deltas of every server reviewed in this run.
 * An entry accepts the delta with its fingerprint through its `expires` day (inclusive, UTC);
 * `today` is a YYYY-MM-DD string so the caller (and the tests) decide what day it is.
 *
 * An acceptance that never ends, or ends years away, is a waiver nobody revisits: an entry
 * without `expires`, or expiring more than `maxDays` after today, accepts nothing and is
 * reported (named, with the rule) instead of failing the whole review, so one bad entry costs
 * only the change it names.
 */
export function evaluateAllowList(
  reviews: Array<{ server: string; report: DiffReport | null }>,
  allow: AllowEntry[],
  today: string,
  maxDays = DEFAULT_ALLOW_MAX_DAYS,
): AllowEvaluation {
  const key = (fingerprint: string) => fingerprint.trim().toLowerCase();
  const horizon = addDays(today, maxDays);
  const valid = new Map<string, AllowEntry>();
  const expiredEntries: AllowEntry[] = [];
  const refusedEntries: Array<{ entry: AllowEntry; why: string }> = [];
  for (const entry of allow) {
    // Dates compare as strings because all are YYYY-MM-DD.
    if (entry.expires === undefined) refusedEntries.push({ entry, why: `it has no "expires" date; give it one at most ${maxDays} days ahead (${horizon} or earlier)` });
    else if (entry.expires < today) expiredEntries.push(entry);
    else if (entry.expires > horizon) refusedEntries.push({ entry, why: `it expires on ${entry.expires}, more than ${maxDays} days ahead; pick ${horizon} or earlier, and renew it then if it is still needed` });
    else if (!valid.has(key(entry.fingerprint))) valid.set(key(entry.fingerprint), entry);
  }
  const seen = new Set<string>();
  const accepted: AcceptedDelta[] = [];
  for (const { server, report } of reviews) {
    if (!report) continue;
    for (const located of deltasOf(report)) {
      const fingerprint = key(located.delta.fingerprint);
      seen.add(fingerprint);
      const entry = valid.get(fingerprint);
      if (entry) accepted.push({ ...located, server, entry });
    }
  }
  return {
    acceptedBy: (fingerprint) => valid.get(key(fingerprint)),
    accepted,
    expired: expiredEntries.map((entry) => ({ entry, matched: seen.has(key(entry.fingerprint)) })),
    refused: refusedEntries.map(({ entry, why }) => ({ entry, why, matched: seen.has(key(entry.fingerprint)) })),
    unused: [...valid.entries()].filter(([fingerprint]) => !seen.has(fingerprint)).map(([, entry]) => entry),
  };
}

/** How long the acceptance the comment offers lasts, by default: a quarter, to be renewed if still needed. */
const OFFERED_DAYS = 90;

/** The `expires` date offered with a new allow-list entry: 90 days ahead, or the horizon when it is closer, so the entry is valid as pasted. */
export function offeredExpiry(today: string, maxDays = DEFAULT_ALLOW_MAX_DAYS): string {
  return addDays(today, Math.min(OFFERED_DAYS, maxDays));
}

/** `day` (YYYY-MM-DD) plus `days`, as YYYY-MM-DD (UTC). */
function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Today as YYYY-MM-DD (UTC), or the override the tests set. */
export function todayUtc(override?: string): string {
  if (override !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(override)) return override;
  return new Date().toISOString().slice(0, 10);
}

/** One line per refused, expired or unused entry, so the list does not rot. */
export function allowListNotes(evaluation: AllowEvaluation): string[] {
  const notes: string[] = [];
  for (const { entry, why, matched } of evaluation.refused) {
    const consequence = matched ? ': it accepts nothing, so the change it names counts against the gate' : ' (it accepts nothing)';
    notes.push(`allow-list entry ${entry.fingerprint} ("${entry.reason}") is refused${consequence}. Why: ${why}.`);
  }
  for (const { entry, matched } of evaluation.expired) {
    notes.push(
      matched
        ? `allow-list entry ${entry.fingerprint} expired on ${entry.expires}: the change it accepted ("${entry.reason}") counts against the gate again; renew the date or drop the entry.`
        : `allow-list entry ${entry.fingerprint} expired on ${entry.expires} and matches nothing: delete it.`,
    );
  }
  for (const entry of evaluation.unused) {
    notes.push(`allow-list entry ${entry.fingerprint} ("${entry.reason}") matched no change in this run: once its change is merged it is no longer needed, delete it.`);
  }
  return notes;
}
