import { canonicalJson, jsonEqual, markCanonical, nullPrototypeRecord, parseJson, withSortedKeys } from '../protocol/index.js';
import { entryDigest, rememberDigest, sha256 } from './canonical.js';
import {
  ENTRY_KINDS,
  emptyContracts,
  isJsonObject,
  type ContractEntry,
  type Contracts,
  type EntryKind,
  type JsonObject,
  type ServerInfo,
} from './model.js';

/** The default lockfile name (fixed: users commit it and workflows refer to it). */
export const LOCKFILE_NAME = 'mcp-contracts.lock.json';
/**
 * 2 records the server's version, instructions and capabilities, and the client capabilities
 * the capture declared. Version 1 files are still read (their server contract is unknown).
 */
export const LOCKFILE_VERSION = 2;
const READABLE_VERSIONS = [1, 2];
const GENERATOR = 'mcp-contract-guard';

/** A stored entry: the contract, its digest and, when declared, the schemas' dialects. */
export interface LockedEntry extends ContractEntry {
  digest: string;
}

export type LockfileProblem = 'malformed' | 'unknown-version' | 'tampered';

export class LockfileError extends Error {
  override readonly name = 'LockfileError';
  constructor(
    readonly problem: LockfileProblem,
    message: string,
  ) {
    super(message);
  }
}

export { entryDigest } from './canonical.js';

/** Render contracts as the canonical lockfile text. Same contracts, same bytes. */
export function renderLockfile(contracts: Contracts): string {
  const server: JsonObject = { name: contracts.server.name };
  if (contracts.server.version !== undefined) server.version = contracts.server.version;
  if (contracts.serverContract !== undefined) {
    server.capabilities = contracts.serverContract.capabilities;
    if (contracts.serverContract.instructions !== undefined) server.instructions = contracts.serverContract.instructions;
  }
  const body: Record<string, unknown> = { lockfileVersion: LOCKFILE_VERSION, generator: GENERATOR, server };
  if (contracts.clientCapabilities !== undefined) body.capture = { clientCapabilities: contracts.clientCapabilities };
  for (const kind of ENTRY_KINDS) {
    const entries = nullPrototypeRecord<LockedEntry>();
    for (const key of Object.keys(contracts[kind]).sort()) entries[key] = storedEntry(contracts[kind][key] as ContractEntry);
    body[kind] = entries;
  }
  return canonicalJson({ ...body, digest: wholeFileDigest(body) }, true);
}

/**
 * An entry as the lockfile stores it, built in canonical form (its fields in canonical order, the
 * contract canonical already), so writing thousands of them copies none.
 */
function storedEntry(entry: ContractEntry): LockedEntry {
  const stored = nullPrototypeRecord<unknown>() as unknown as LockedEntry;
  stored.contract = entry.contract;
  if (entry.dialects !== undefined) stored.dialects = withSortedKeys(entry.dialects) as ContractEntry['dialects'];
  stored.digest = entryDigest(entry);
  return stored;
}

/**
 * The whole-file digest covers the header and every entry's digest and dialects (a Merkle
 * root, not a second hash of every contract): entries are verified one by one against their
 * own digests, so hashing their contracts again would only cost time.
 */
function wholeFileDigest(body: Record<string, unknown>): string {
  const manifest: Record<string, unknown> = { lockfileVersion: body.lockfileVersion, generator: body.generator, server: body.server, capture: body.capture };
  for (const kind of ENTRY_KINDS) {
    const entries = (isJsonObject(body[kind]) ? body[kind] : {}) as Record<string, Partial<LockedEntry>>;
    // Records without a prototype, in canonical order (`dialects`, `digest`): written without a copy.
    const listed = nullPrototypeRecord<unknown>();
    for (const key in entries) {
      const e = entries[key];
      const record = nullPrototypeRecord<unknown>();
      if (e?.dialects !== undefined) record.dialects = e.dialects;
      if (e?.digest !== undefined) record.digest = e.digest;
      listed[key] = record;
    }
    manifest[kind] = listed;
  }
  return sha256(canonicalJson(manifest));
}

/**
 * Parse and verify a lockfile. Throws `LockfileError` when the text is not a lockfile, was
 * written by an unknown format version, or does not match its own digests (edited by hand).
 * `label` names the file in messages.
 *
 * `reference` (the live contracts, when `check` has them) makes verification cheap: an entry
 * equal to its live twin, whose digest is the stored one, is verified without re-hashing.
 */
export function parseLockfile(text: string, label: string, reference?: Contracts): Contracts {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new LockfileError('malformed', `${label} is not valid JSON (${detail}); it may be truncated or have a merge conflict.`);
  }
  return verifyLockfile(data, label, reference);
}

/** `parseLockfile` of a text already parsed (a reader that had to parse it to tell a lockfile from a dump). */
export function verifyLockfile(data: unknown, label: string, reference?: Contracts): Contracts {
  if (!isJsonObject(data) || !('lockfileVersion' in data)) {
    throw new LockfileError('malformed', `${label} is not an mcp-contract-guard lockfile: it has no "lockfileVersion".`);
  }
  if (!READABLE_VERSIONS.includes(data.lockfileVersion as number)) {
    const newer = typeof data.lockfileVersion === 'number' && data.lockfileVersion > LOCKFILE_VERSION;
    throw new LockfileError(
      'unknown-version',
      `${label} has lockfile version ${JSON.stringify(data.lockfileVersion)}, but this mcp-contract-guard reads version ${LOCKFILE_VERSION}` +
        (newer ? ': upgrade mcp-contract-guard.' : '.'),
    );
  }
  const { digest, ...body } = data;
  const contracts = emptyContracts(serverOf(body.server, label));
  if (isJsonObject(body.server) && body.server.capabilities !== undefined) {
    if (!isJsonObject(body.server.capabilities)) throw new LockfileError('malformed', `${label}: "server.capabilities" is not an object.`);
    if (body.server.instructions !== undefined && typeof body.server.instructions !== 'string') throw new LockfileError('malformed', `${label}: "server.instructions" is not a string.`);
    contracts.serverContract = { capabilities: body.server.capabilities };
    if (typeof body.server.instructions === 'string') contracts.serverContract.instructions = body.server.instructions;
  }
  if (body.capture !== undefined) {
    const declared = isJsonObject(body.capture) ? body.capture.clientCapabilities : undefined;
    if (!Array.isArray(declared) || !declared.every((c) => typeof c === 'string')) throw new LockfileError('malformed', `${label}: "capture.clientCapabilities" is not a list of names.`);
    contracts.clientCapabilities = declared as string[];
  }
  for (const kind of ENTRY_KINDS) {
    const entries = body[kind] ?? {};
    if (!isJsonObject(entries)) throw new LockfileError('malformed', `${label}: "${kind}" is not an object.`);
    for (const [key, stored] of Object.entries(entries)) {
      if (!isJsonObject(stored) || !isJsonObject(stored.contract)) {
        throw new LockfileError('malformed', `${label}: entry ${kind}.${key} has no "contract" object.`);
      }
      const twin = reference !== undefined && Object.hasOwn(reference[kind], key) ? reference[kind][key] : undefined;
      const contract = verifiedContract(stored.contract, stored.digest, twin);
      if (contract === undefined) {
        throw new LockfileError('tampered', `${label} was edited by hand: the digest of ${kind}.${key} does not match its contract.`);
      }
      const entry: ContractEntry = { contract };
      if (isJsonObject(stored.dialects)) entry.dialects = stored.dialects as ContractEntry['dialects'];
      contracts[kind][key] = entry;
    }
  }
  if (digest !== wholeFileDigest(body)) {
    throw new LockfileError('tampered', `${label} was edited by hand: its whole-file digest does not match its content.`);
  }
  return contracts;
}

function serverOf(value: unknown, label: string): ServerInfo {
  if (!isJsonObject(value)) return { name: 'unknown' };
  const name = typeof value.name === 'string' ? value.name : 'unknown';
  if (value.version === undefined) return { name };
  if (typeof value.version !== 'string') throw new LockfileError('malformed', `${label}: "server.version" is not a string.`);
  return { name, version: value.version };
}

/**
 * The stored contract when `digest` is its digest, in canonical form (records without a
 * prototype, as normalization builds them); undefined when the digest does not match. An entry
 * equal to its live twin, whose digest is the stored one, is the twin: verified without hashing.
 */
function verifiedContract(stored: JsonObject, digest: unknown, twin: ContractEntry | undefined): JsonObject | undefined {
  if (twin !== undefined && typeof digest === 'string' && entryDigest(twin) === digest && jsonEqual(stored, twin.contract)) return twin.contract;
  const canonical = withSortedKeys(stored) as JsonObject;
  const computed = sha256(JSON.stringify(canonical));
  if (computed !== digest) return undefined;
  markCanonical(canonical);
  rememberDigest(canonical, computed);
  return canonical;
}

/**
 * The client capabilities a lockfile says its capture declared, read without parsing the whole
 * file: canonical JSON puts `capture` first. Undefined when it records none (format 1) or the
 * text is not canonical; the full parse verifies everything later anyway.
 */
export function recordedClientCapabilities(text: string): string[] | undefined {
  const head = /^\{\s*"capture": \{\s*"clientCapabilities": (\[[^\]]*\])/.exec(text.slice(0, 1_000));
  if (!head) return undefined;
  try {
    const names: unknown = JSON.parse(head[1] as string);
    return Array.isArray(names) && names.every((n) => typeof n === 'string') ? names : undefined;
  } catch {
    return undefined;
  }
}

/** True when the text looks like a lockfile rather than a tools/list dump. */
export function looksLikeLockfile(data: unknown): boolean {
  return isJsonObject(data) && 'lockfileVersion' in data;
}

/**
 * Where each entry sits in a lockfile: the line of `"<name>": {` under its kind. The lockfile is
 * canonical JSON with a two-space indent, so kinds are at indent 2 and entries at indent 4;
 * a hand-formatted file simply yields fewer lines (annotations and SARIF results then point at
 * the kind's line, or line 1).
 */
export function lockfileLines(text: string): { kind: (kind: EntryKind) => number | undefined; entry: (kind: EntryKind, name: string) => number | undefined } {
  const kinds = new Map<string, number>();
  const entries = new Map<string, number>();
  let current: string | undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const top = /^ {2}("(?:[^"\\]|\\.)*"): /.exec(line);
    if (top) {
      current = parseKey(top[1] as string);
      if (current !== undefined) kinds.set(current, i + 1);
      continue;
    }
    const nested = /^ {4}("(?:[^"\\]|\\.)*"): \{/.exec(line);
    if (nested && current !== undefined) {
      const name = parseKey(nested[1] as string);
      if (name !== undefined) entries.set(`${current}\u0000${name}`, i + 1);
    }
  }
  return { kind: (kind) => kinds.get(kind), entry: (kind, name) => entries.get(`${kind}\u0000${name}`) };
}

function parseKey(quoted: string): string | undefined {
  const key = parseJson(quoted);
  return typeof key === 'string' ? key : undefined;
}
