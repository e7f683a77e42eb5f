/**
 * How a check beside the contract review counts (a lockfile that no longer matches its server,
 * a version smaller than the changes call for): it fails the run, it is only reported, or it
 * is not made. The Action's `lockfile-check` and `version-check` inputs and the CLI's
 * `--lockfile-check` take these values, read by `parseCheckMode`.
 */
import { UserError } from '../errors.js';

export const CHECK_MODES = ['fail', 'warn', 'off'] as const;
export type CheckMode = (typeof CHECK_MODES)[number];

/** `value` as a mode (any case); `what` names the input or flag in the message. */
export function parseCheckMode(value: string, what: string): CheckMode {
  const mode = value.trim().toLowerCase();
  if (!(CHECK_MODES as readonly string[]).includes(mode)) throw new UserError(`${what} must be one of ${CHECK_MODES.join(', ')}; got "${value}".`);
  return mode as CheckMode;
}
