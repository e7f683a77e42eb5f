import type { AllowEntry } from '../config.js';
import type { DiffReport } from '../protocol/index.js';
import { deltasOf, type LocatedDelta } from './deltas.js';

export type { AllowEntry };

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
  /** Still valid but no delta of this run matched: probably merged long ago, delete them. */
  unused: AllowEntry[];
}

/**
 * Match the allow-list of the config against the deltas of every server reviewed in this run.
 * An entry accepts the delta with its fingerprint through its `expires` day (inclusive, UTC);
 * `today` is a YYYY-MM-DD string so the caller (and the tests) decide what day it is.
 */
export function evaluateAllowList(reviews: Array<{ server: string; report: DiffReport | null }>, allow: AllowEntry[], today: string): AllowEvaluation {
  const key = (fingerprint: string) => fingerprint.trim().toLowerCase();
  const valid = new Map<string, AllowEntry>();
  const expiredEntries: AllowEntry[] = [];
  for (const entry of allow) {
    // Dates compare as strings because both are YYYY-MM-DD.
    if (entry.expires !== undefined && entry.expires < today) expiredEntries.push(entry);
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
    unused: [...valid.entries()].filter(([fingerprint]) => !seen.has(fingerprint)).map(([, entry]) => entry),
  };
}

/** Today as YYYY-MM-DD (UTC), or the override the tests set. */
export function todayUtc(override?: string): string {
  if (override !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(override)) return override;
  return new Date().toISOString().slice(0, 10);
}

/** One line per expired or unused entry, so the list does not rot. */
export function allowListNotes(evaluation: AllowEvaluation): string[] {
  const notes: string[] = [];
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
