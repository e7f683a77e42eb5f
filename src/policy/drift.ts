/**
 * What the pinning proxy does with each class of drift from a pin (`--on-drift`, or `onDrift` in
 * the config file): see src/proxy/pin.ts for how an entry falls in a class.
 */
import { UserError } from '../errors.js';

export const DRIFT_CLASSES = ['breaking', 'poisoning', 'risky', 'unreviewed'] as const;
export type DriftClass = (typeof DRIFT_CLASSES)[number];
export const DRIFT_ACTIONS = ['block', 'hide', 'warn'] as const;
export type DriftAction = (typeof DRIFT_ACTIONS)[number];
export type DriftPolicy = Readonly<Record<DriftClass, DriftAction>>;

/**
 * `--on-drift MODE` as one word: BREAKING and poisoning get MODE, new (unreviewed) entries are
 * hidden with `hide` and logged otherwise, other RISKY changes are logged.
 */
export function driftPolicy(mode: DriftAction): DriftPolicy {
  return { breaking: mode, poisoning: mode, risky: 'warn', unreviewed: mode === 'hide' ? 'hide' : 'warn' };
}

export const DEFAULT_DRIFT_POLICY = driftPolicy('block');

/**
 * `block`, `hide` or `warn`, or per class: `breaking=block,risky=warn,unreviewed=hide` (the
 * classes not named keep their default: `DEFAULT_DRIFT_POLICY`). `what` names the flag or key in errors.
 */
export function parseDriftPolicy(text: string, what: string): DriftPolicy {
  const value = text.trim().toLowerCase();
  if ((DRIFT_ACTIONS as readonly string[]).includes(value)) return driftPolicy(value as DriftAction);
  const policy: Record<DriftClass, DriftAction> = { ...DEFAULT_DRIFT_POLICY };
  for (const part of value.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const [name, action, extra] = part.split('=').map((p) => p.trim());
    if (!(DRIFT_CLASSES as readonly string[]).includes(name ?? '') || !(DRIFT_ACTIONS as readonly string[]).includes(action ?? '') || extra !== undefined) {
      throw new UserError(
        `${what} takes block, hide or warn, or per class CLASS=ACTION separated by commas (classes: ${DRIFT_CLASSES.join(', ')}; actions: ${DRIFT_ACTIONS.join(', ')}); got ${JSON.stringify(text)}.`,
      );
    }
    policy[name as DriftClass] = action as DriftAction;
  }
  if (value === '') throw new UserError(`${what} is empty: give block, hide or warn (or per class, e.g. breaking=block,risky=warn).`);
  return policy;
}

/** The policy in words, for the log: `breaking: block, poisoning: block, risky: warn, unreviewed: warn`. */
export function describePolicy(policy: DriftPolicy): string {
  return DRIFT_CLASSES.map((c) => `${c}: ${policy[c]}`).join(', ');
}


/** The config file's `onDrift`: one action, or some classes' (the others keep their default). */
export function driftPolicyOf(value: DriftAction | Partial<Record<DriftClass, DriftAction>>): DriftPolicy {
  return typeof value === 'string' ? driftPolicy(value) : { ...DEFAULT_DRIFT_POLICY, ...value };
}
