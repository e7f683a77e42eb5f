/**
 * The settings of the gate, as the CLI's flags, the Action's inputs and a review file give
 * them: the threshold the gate fails at (`fail-on`), and how a check beside the contract
 * review counts (a lockfile that no longer matches its server, a version smaller than the
 * changes call for): it fails the run, it is only reported, or it is not made. One parser
 * each, so `--fail-on`, the input `fail-on` and a review file's `failOn` take the same values.
 * (Loaded by the CLI's `--help`: it imports nothing heavier than the severities.)
 */
import { SEVERITIES } from '../protocol/report.js';
import { UserError } from '../errors.js';

/** The threshold of the gate: a severity, or `never` to only report. */
export const FAIL_ON = [...SEVERITIES, 'never'] as const;
export type FailOn = (typeof FAIL_ON)[number];

/** `value` as a threshold (severities in any case, `never` in any case); `what` names the input or flag in the message. */
export function parseFailOn(value: string, what: string): FailOn {
  const given = value.trim();
  const threshold = given.toLowerCase() === 'never' ? 'never' : given.toUpperCase();
  if (!(FAIL_ON as readonly string[]).includes(threshold)) throw new UserError(`${what} must be one of ${FAIL_ON.join(', ')}; got "${value}".`);
  return threshold as FailOn;
}

export const CHECK_MODES = ['fail', 'warn', 'off'] as const;
export type CheckMode = (typeof CHECK_MODES)[number];

/** `value` as a mode (any case); `what` names the input or flag in the message. */
export function parseCheckMode(value: string, what: string): CheckMode {
  const mode = value.trim().toLowerCase();
  if (!(CHECK_MODES as readonly string[]).includes(mode)) throw new UserError(`${what} must be one of ${CHECK_MODES.join(', ')}; got "${value}".`);
  return mode as CheckMode;
}
