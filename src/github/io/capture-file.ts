/**
 * The capture file as the reviewing job takes it (`capture-file`): its form is protocol's
 * (protocol/capture-file.ts, which reads it as the hostile data it is, written where the pull
 * request's code ran); here the envelope's problems become the step's error, and each server's
 * contracts are read from its lockfile's text, whose digests must match its content
 * (contract/lockfile.ts: structure, depth and sizes are checked there). That the file is of
 * this repository and of the commit under review, run.ts checks.
 *
 * What it cannot prove is that the servers said what it holds: the code that wrote it is the
 * code under review. Neither can a live capture (the server says what it likes): SECURITY.md.
 */
import { LockfileError, parseLockfile } from '../../contract/lockfile.js';
import type { Contracts } from '../../contract/model.js';
import { UserError } from '../../errors.js';
import { CaptureFileError, readCaptureFileText, type CaptureFile } from '../../protocol/index.js';

/** The capture file at `label`, read as hostile data: a `UserError` names each problem. */
export function parseCaptureFile(source: string, label: string): CaptureFile {
  try {
    return readCaptureFileText(source);
  } catch (error) {
    if (!(error instanceof CaptureFileError)) throw error;
    const problems = error.problems.map((problem) => `  - ${problem}`).join('\n');
    throw new UserError(`${label} is not a capture file of this mcp-contract-guard version:\n${problems}\nIt should be the file a "mode: capture" run of the same mcp-contract-guard version wrote (its "capture-path").`);
  }
}

/** The contracts a capture file holds for server `id`: parsed and digest-checked; a string is why there are none. */
export function capturedContracts(file: CaptureFile, id: string, label: string): { contracts: Contracts; notes: string[]; warnings: string[] } | string {
  const server = Object.hasOwn(file.servers, id) ? file.servers[id] : undefined;
  if (server === undefined) return `${label} holds no capture of "${id}": run the capture job with the same inputs (or config) as this one.`;
  if ('error' in server) return server.error;
  try {
    return { contracts: parseLockfile(server.lockfile, `The capture of "${id}" in ${label}`), notes: server.notes, warnings: server.warnings };
  } catch (error) {
    if (error instanceof LockfileError) return error.message;
    throw error;
  }
}
