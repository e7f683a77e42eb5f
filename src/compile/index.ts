import { normalizeCapture } from '../contract/normalize.js';
import type { Contracts } from '../contract/model.js';
import { captureServer, type CaptureOptions } from './capture.js';
import { readContractsFile } from './dump.js';
import type { ContractSource } from './source.js';

export { splitCommand } from './argv.js';
export { CompileError, captureServer, type Progress, type ServerCapture } from './capture.js';
export { diagnose, envNamesIn, type Diagnosis, type FailureCategory } from './diagnose.js';
export { lockfileAdvice, parseContractsFile, readContractsFile } from './dump.js';
export { DEFAULT_TIMEOUT_MS, shellQuote, sourceFlags, type ContractSource, type ServerSource } from './source.js';
export type { AttemptEvidence } from './channel.js';

export interface Compiled {
  contracts: Contracts;
  /** Lint findings and transport oddities: worth fixing, never fatal. */
  warnings: string[];
  /** Where the contracts came from. */
  origin: 'server' | 'dump' | 'lockfile';
}

/** Contracts from any source: a live server, a tools/list dump, or a lockfile. */
export async function compileContracts(source: ContractSource, options: CaptureOptions = {}): Promise<Compiled> {
  if (source.kind === 'file') {
    const file = await readContractsFile(source.path);
    if (file.kind === 'lockfile') return { contracts: file.contracts, warnings: [], origin: 'lockfile' };
    const { contracts, warnings } = normalizeCapture(file.capture);
    return { contracts, warnings: warnings.map((w) => `${w.entry} ${w.message}`), origin: 'dump' };
  }
  const captured = await captureServer(source, options);
  const { contracts, warnings } = normalizeCapture(captured.capture);
  return { contracts, warnings: [...captured.warnings, ...warnings.map((w) => `${w.entry} ${w.message}`)], origin: 'server' };
}
