import { meetsThreshold, SEVERITIES, type DiffReport, type Severity } from '../protocol/index.js';
import { deltasOf, type LocatedDelta } from './deltas.js';

/** The threshold of the gate: a severity, or `never` to only report. */
export type FailOn = Severity | 'never';

export interface Approval {
  label: string;
  /** Who added the label, when known. */
  by?: string;
}

export interface GateInput {
  server: string;
  /** Null when the review could not be made: there is nothing to judge, and that fails. */
  report: DiffReport | null;
  failOn: FailOn;
  /** The allow-list's verdict on a delta's fingerprint. */
  accepted: (fingerprint: string) => boolean;
  /** Set when the PR carries the approval label. */
  approval?: Approval;
  /** The approval label's name, when the run is about a PR (where a label can approve). */
  approveLabel?: string;
  /** The freshness failure, when the head lockfile does not match the head server. */
  staleMessage?: string;
  /** How a stale lockfile counts: 'fail' fails the step, 'warn' only reports. */
  lockfileCheck: 'fail' | 'warn' | 'off';
  reviewError?: string;
}

/**
 * Where the review stands:
 * - `clean`: no delta at all; `below-threshold`: deltas, none at or above `fail-on`;
 * - `accepted`: the ones at or above were all accepted by the allow-list;
 * - `approved`: some were not, but the PR carries the approval label;
 * - `blocked`: the gate fails on them; `not-gated`: `fail-on: never`;
 * - `unknown`: the review could not be made (the head did not compile, the base was unreadable).
 */
export type ReviewVerdict = 'clean' | 'below-threshold' | 'accepted' | 'approved' | 'blocked' | 'not-gated' | 'unknown';

export interface GateDecision {
  pass: boolean;
  verdict: ReviewVerdict;
  /** At or above the threshold and not accepted by the allow-list. */
  blocking: LocatedDelta[];
  /** Accepted by the allow-list (reported, but not counted against the gate). */
  accepted: LocatedDelta[];
  /** Why the step fails, one complete sentence each. */
  failures: string[];
}

/**
 * The gate: one pure decision per server. Review and freshness stay apart: the approval
 * label and the allow-list speak for the contract change, never for a stale lockfile (that
 * one is fixed by running one command).
 */
export function decideGate(input: GateInput): GateDecision {
  const failures: string[] = [];
  if (input.reviewError !== undefined || input.report === null) {
    failures.push(`Could not review the contracts of ${input.server}: ${input.reviewError ?? 'unknown error'}`);
    return { pass: false, verdict: 'unknown', blocking: [], accepted: [], failures };
  }
  const all = deltasOf(input.report);
  const accepted = all.filter((d) => input.accepted(d.delta.fingerprint));
  const threshold = input.failOn;
  const blocking = threshold === 'never' ? [] : all.filter((d) => meetsThreshold(d.delta.severity, threshold) && !input.accepted(d.delta.fingerprint));
  let verdict: ReviewVerdict;
  if (all.length === 0) verdict = 'clean';
  else if (threshold === 'never') verdict = 'not-gated';
  else if (blocking.length > 0) verdict = input.approval ? 'approved' : 'blocked';
  else if (all.some((d) => meetsThreshold(d.delta.severity, threshold))) verdict = 'accepted';
  else verdict = 'below-threshold';

  if (verdict === 'blocked') failures.push(blockedMessage(input.server, blocking, threshold as Severity, input.approveLabel));
  if (input.staleMessage !== undefined && input.lockfileCheck === 'fail') failures.push(input.staleMessage);
  return { pass: failures.length === 0, verdict, blocking, accepted, failures };
}

function blockedMessage(server: string, blocking: LocatedDelta[], threshold: Severity, approveLabel: string | undefined): string {
  const counts = SEVERITIES.map((s) => [s, blocking.filter((d) => d.delta.severity === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
  const how = approveLabel
    ? `If they are intended, add the label "${approveLabel}" to the pull request (the gate then passes and the comment says who approved), or accept each one by fingerprint in the "allow" list of mcp-contract-guard.config.json.`
    : 'If they are intended, accept each one by fingerprint in the "allow" list of mcp-contract-guard.config.json, or compare with another "baseline-ref".';
  return `The contracts of ${server} have ${blocking.length} change${blocking.length === 1 ? '' : 's'} at or above fail-on ${threshold} (${counts}). ${how}`;
}
