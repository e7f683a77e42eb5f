import { meetsThreshold, SEVERITIES, type Approval, type CheckMode, type DiffReport, type FailOn, type ReviewVerdict, type Severity } from '../protocol/index.js';
import { CONFIG_NAME } from '../config-location.js';
import { deltasOf, type LocatedDelta } from './deltas.js';

export interface GateInput {
  server: string;
  /** Null when the review could not be made: there is nothing to judge, and that fails. */
  report: DiffReport | null;
  failOn: FailOn;
  /** The allow-list's verdict on a delta's fingerprint. */
  accepted: (fingerprint: string) => boolean;
  /** Set when the PR carries the approval label. */
  approval?: Approval;
  /** The changes the approval covers (those present when the label was added); without it, all of them. */
  covers?: (fingerprint: string) => boolean;
  /** The approval label's name, when the run is about a PR (where a label can approve). */
  approveLabel?: string;
  /** The config file whose `allow` list accepts changes, as messages name it (default: the one in the working directory). */
  allowFile?: string;
  /** The freshness failure, when the head lockfile does not match the head server. */
  staleMessage?: string;
  /** How a stale lockfile counts: 'fail' fails the step, 'warn' only reports. */
  lockfileCheck: CheckMode;
  /** Why the head's version is smaller than its changes call for, when `version-check` is fail. */
  versionFailure?: string;
  reviewError?: string;
}

export interface GateDecision {
  pass: boolean;
  verdict: ReviewVerdict;
  /** At or above the threshold and not accepted by the allow-list. */
  blocking: LocatedDelta[];
  /** Accepted by the allow-list (reported, but not counted against the gate). */
  accepted: LocatedDelta[];
  /** Blocking changes the approval label does not cover: pushed after it was added. */
  newSinceApproval: LocatedDelta[];
  /** Why the step fails, one complete sentence each. */
  failures: string[];
}

/**
 * The gate: one pure decision per server. Review, freshness and version stay apart: the
 * approval label and the allow-list speak for the contract change, never for a stale lockfile
 * (fixed by running one command) nor for a version that does not say what the change is (an
 * approved break still needs its major release).
 */
export function decideGate(input: GateInput): GateDecision {
  const failures: string[] = [];
  if (input.reviewError !== undefined || input.report === null) {
    failures.push(`Could not review the contracts of ${input.server}: ${input.reviewError ?? 'unknown error'}`);
    return { pass: false, verdict: 'unknown', blocking: [], accepted: [], newSinceApproval: [], failures };
  }
  const all = deltasOf(input.report);
  const accepted = all.filter((d) => input.accepted(d.delta.fingerprint));
  const threshold = input.failOn;
  const blocking = threshold === 'never' ? [] : all.filter((d) => meetsThreshold(d.delta.severity, threshold) && !input.accepted(d.delta.fingerprint));
  const { approval, covers } = input;
  const newSinceApproval = approval && covers ? blocking.filter((d) => !covers(d.delta.fingerprint)) : [];
  let verdict: ReviewVerdict;
  if (all.length === 0) verdict = 'clean';
  else if (threshold === 'never') verdict = 'not-gated';
  else if (blocking.length > 0) verdict = approval && newSinceApproval.length === 0 ? 'approved' : 'blocked';
  else if (all.some((d) => meetsThreshold(d.delta.severity, threshold))) verdict = 'accepted';
  else verdict = 'below-threshold';

  const allowFile = input.allowFile ?? CONFIG_NAME;
  if (verdict === 'blocked') {
    failures.push(approval ? newSinceMessage(input.server, newSinceApproval, threshold as Severity, approval, blocking.length, allowFile) : blockedMessage(input.server, blocking, threshold as Severity, input.approveLabel, allowFile));
  }
  if (input.staleMessage !== undefined && input.lockfileCheck === 'fail') failures.push(input.staleMessage);
  if (input.versionFailure !== undefined) failures.push(input.versionFailure);
  return { pass: failures.length === 0, verdict, blocking, accepted, newSinceApproval, failures };
}

/** Most changes a failure message names; the comment and the review file list them all. */
const MAX_NAMED = 10;

function newSinceMessage(server: string, fresh: LocatedDelta[], threshold: Severity, approval: Approval, blockingCount: number, allowFile: string): string {
  const named = fresh.slice(0, MAX_NAMED).map((d) => `${d.delta.severity} ${d.delta.kind} in ${d.collection}.${d.name} [${d.delta.fingerprint}]`);
  const more = fresh.length > named.length ? `, and ${fresh.length - named.length} more` : '';
  const covered = blockingCount - fresh.length;
  const by = approval.by !== undefined ? ` added by @${approval.by}` : '';
  return (
    `The contracts of ${server} have ${fresh.length} change${fresh.length === 1 ? '' : 's'} at or above fail-on ${threshold} that the label "${approval.label}"${by} does not cover: ` +
    `${fresh.length === 1 ? 'it was' : 'they were'} pushed after it was added (${named.join('; ')}${more}). ` +
    `${covered > 0 ? `It still covers the ${covered} it approved. ` : ''}If the new ones are intended too, remove the label and add it again, or accept each one by fingerprint in the "allow" list of ${allowFile}.`
  );
}

function blockedMessage(server: string, blocking: LocatedDelta[], threshold: Severity, approveLabel: string | undefined, allowFile: string): string {
  const counts = SEVERITIES.map((s) => [s, blocking.filter((d) => d.delta.severity === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
  const how = approveLabel
    ? `If they are intended, add the label "${approveLabel}" to the pull request (the gate then passes and the comment says who approved), or accept each one by fingerprint in the "allow" list of ${allowFile}.`
    : `If they are intended, accept each one by fingerprint in the "allow" list of ${allowFile}, or compare with another "baseline-ref".`;
  return `The contracts of ${server} have ${blocking.length} change${blocking.length === 1 ? '' : 's'} at or above fail-on ${threshold} (${counts}). ${how}`;
}
