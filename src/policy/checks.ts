/**
 * The settings of the gate, as the CLI's flags and the Action's inputs give them: the
 * threshold the gate fails at (`fail-on`), and how a check beside the contract review counts
 * (a lockfile that no longer matches its server, a version smaller than the changes call for).
 * One parser each, so `--fail-on` and the input `fail-on` take the same values as a review
 * file's `failOn` (the vocabularies are the review format's, protocol/review.ts).
 * (Loaded by the CLI's `--help`: it imports nothing heavier than those vocabularies.)
 */
import { CHECK_MODES, FAIL_ON, type CheckMode, type FailOn } from '../protocol/review.js';
import { UserError } from '../errors.js';

/** `value` as a threshold (severities in any case, `never` in any case); `what` names the input or flag in the message. */
export function parseFailOn(value: string, what: string): FailOn {
  const given = value.trim();
  const threshold = given.toLowerCase() === 'never' ? 'never' : given.toUpperCase();
  if (!(FAIL_ON as readonly string[]).includes(threshold)) throw new UserError(`${what} must be one of ${FAIL_ON.join(', ')}; got "${value}".`);
  return threshold as FailOn;
}

/** `value` as a mode (any case); `what` names the input or flag in the message. */
export function parseCheckMode(value: string, what: string): CheckMode {
  const mode = value.trim().toLowerCase();
  if (!(CHECK_MODES as readonly string[]).includes(mode)) throw new UserError(`${what} must be one of ${CHECK_MODES.join(', ')}; got "${value}".`);
  return mode as CheckMode;
}
