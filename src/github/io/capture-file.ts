/**
 * The capture file: what a job that runs the pull request's servers (`mode: capture`, with a
 * token that may do nothing and no secret) hands to the job that reviews and comments without
 * running any code of the pull request (`capture-file`). It travels as a workflow artifact
 * written where pull request code ran, so the reviewing side reads it as hostile data: a size
 * cap before parsing, every field checked and bounded, each server's contracts a lockfile whose
 * digests must match its content (lockfile.ts: structure, depth and sizes are checked there),
 * and the file must be of this repository and of the commit under review.
 *
 * What it cannot prove is that the servers said what it holds: the code that wrote it is the
 * code under review. Neither can a live capture (the server says what it likes): SECURITY.md.
 */
import { z } from 'zod';
import { LockfileError, parseLockfile } from '../../contract/lockfile.js';
import type { Contracts } from '../../contract/model.js';
import { UserError } from '../../errors.js';
import { COMMAND_FILES, type CommandFile } from './command-files.js';

export const CAPTURE_VERSION = 1;
export const CAPTURE_KIND = 'mcp-contract-guard-capture';
/** The default name of the file `mode: capture` writes in the working directory. */
export const CAPTURE_FILE_NAME = 'mcp-contract-guard-capture.json';
/** Larger files are refused unread. */
export const MAX_CAPTURE_BYTES = 64 * 1024 * 1024;

/** One server as captured: its contracts as a lockfile's text, or why it could not be captured. */
export type CapturedServer = { lockfile: string; notes: string[]; warnings: string[] } | { error: string };

export interface CaptureFile {
  version: typeof CAPTURE_VERSION;
  kind: typeof CAPTURE_KIND;
  repository: string;
  headSha: string;
  /** Runner command files the servers wrote to (their lines were undone): the review fails on them. */
  tampered: CommandFile[];
  servers: Record<string, CapturedServer>;
}

const text = (max: number) => z.string().max(max);
const captured = z.union([
  z.object({ lockfile: text(MAX_CAPTURE_BYTES), notes: z.array(text(3_000)).max(50), warnings: z.array(text(3_000)).max(500) }).strict(),
  z.object({ error: text(20_000) }).strict(),
]);
const schema = z
  .object({
    version: z.literal(CAPTURE_VERSION),
    kind: z.literal(CAPTURE_KIND),
    repository: text(200),
    headSha: z.string().regex(/^[0-9a-f]{40}$|^[0-9a-f]{64}$/, 'a commit SHA'),
    tampered: z.array(z.enum(COMMAND_FILES)).max(COMMAND_FILES.length),
    // Read entry by entry below: a server named "__proto__" must stay a name.
    servers: z.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'an object'),
  })
  .strict();
const MAX_SERVERS = 100;

export function renderCaptureFile(file: CaptureFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** The capture file at `label`, checked as hostile data (see the top of this file). */
export function parseCaptureFile(source: string, label: string): CaptureFile {
  if (Buffer.byteLength(source, 'utf8') > MAX_CAPTURE_BYTES) throw new UserError(`${label} is larger than ${MAX_CAPTURE_BYTES / 1024 / 1024} MiB: not a capture file mcp-contract-guard wrote.`);
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch (error) {
    throw new UserError(`${label} is not valid JSON (${(error as Error).message}): it should be the file a "mode: capture" run of mcp-contract-guard wrote (its "capture-path").`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 10).map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
    throw new UserError(`${label} is not a capture file of this mcp-contract-guard version:\n  ${problems.join('\n  ')}`);
  }
  const entries = Object.entries(parsed.data.servers);
  if (entries.length > MAX_SERVERS) throw new UserError(`${label} lists ${entries.length} servers; a capture file holds at most ${MAX_SERVERS}.`);
  const servers = Object.create(null) as Record<string, CapturedServer>;
  for (const [id, server] of entries) {
    const checked = captured.safeParse(server);
    if (id.length > 500 || !checked.success) throw new UserError(`${label} is not a capture file of this mcp-contract-guard version: the entry of server ${JSON.stringify(id.slice(0, 100))} is malformed.`);
    servers[id] = checked.data;
  }
  return { ...parsed.data, servers };
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
