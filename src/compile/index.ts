import { normalizeCapture } from '../contract/normalize.js';
import type { Contracts } from '../contract/model.js';
import { captureServer, type CaptureOptions } from './capture.js';
import { containmentPlan } from './containment.js';
import { withHealing, type HealingReport } from './heal.js';
import { compileFile, type FileContracts } from './dump.js';
import type { ContractSource } from './source.js';

export { splitCommand } from './argv.js';
export { CompileError, captureServer, type ServerCapture } from './capture.js';
export { diagnose, type Diagnosis, type FailureCategory } from './diagnose.js';
export { compileFile, compileFilesToDiff, contractsOfFile, lockfileAdvice, parseContractsFile } from './dump.js';
export {
  CLIENT_CAPABILITIES,
  DEFAULT_TIMEOUT_MS,
  checkPassEnv,
  declaringAsRecorded,
  parseClientCapabilities,
  shellQuote,
  sourceFlags,
  type ClientCapability,
  type ContractSource,
  type ServerSource,
} from './source.js';
export { exitOnInterrupt } from './interrupt.js';
export { redactUrl, urlSecrets } from './redact.js';
export { HealingFailedError, proposeFix, type Attempt, type HealingReport } from './heal.js';

export interface Compiled {
  contracts: Contracts;
  /** Lint findings and transport oddities: worth fixing, never fatal. */
  warnings: string[];
  /** Where the contracts came from. */
  origin: 'server' | FileContracts['origin'];
  /** How the capture went, attempt by attempt (servers only). */
  healing?: HealingReport;
}

export interface CompileOptions extends Omit<CaptureOptions, 'deadline'> {
  /** Diagnose, fix and retry a server that fails to start (default on). */
  heal?: boolean;
  maxAttempts?: number;
}

/**
 * Contracts from any source: a live server, a tools/list dump, or a lockfile. A server that
 * fails to start is diagnosed, fixed when that is safe, and retried (see heal.ts); the
 * attempts are reported in `healing`.
 */
export async function compileContracts(source: ContractSource, options: CompileOptions = {}): Promise<Compiled> {
  if (source.kind === 'file') return compileFile(source.path);
  // How a server is contained is probed (by starting processes) before any start-up deadline runs.
  if (source.kind === 'command') containmentPlan();
  // Without healing: one attempt within --timeout (a slow start is not waited for), still
  // diagnosed and reported the same way.
  const heal = options.heal !== false;
  const { value: captured, healing } = await withHealing(source, captureServer, { ...options, maxAttempts: heal ? options.maxAttempts : 1, waitForSlowStart: heal });
  const { contracts, warnings } = normalizeCapture(captured.capture);
  const compiled: Compiled = { contracts, warnings: [...captured.warnings, ...warnings.map((w) => `${w.entry} ${w.message}`)], origin: 'server' };
  compiled.healing = healing;
  return compiled;
}
