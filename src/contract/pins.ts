/**
 * The pin file: the reviewed contracts of the third-party servers a client uses, one lockfile
 * per server, with how each is launched (the exact package version included), in one canonical,
 * digest-checked file. `mcp-contract-guard pin` writes it from a client's configuration; the
 * proxy (`--lockfile`) holds a server to its entry; the Action's watch mode checks each entry's
 * package at its latest release.
 *
 * Format (canonical JSON, sorted keys, no timestamps):
 *
 *   { "digest": "sha256:…", "generator": "mcp-contract-guard", "pinVersion": 1,
 *     "servers": { "<name>": { "launch": { "command": […], "env": ["NAME"], "package": {…} },
 *                              "lockfile": { …a lockfile, its own digests included… } } } }
 *
 * Each server's `lockfile` is exactly the lockfile `lock` writes (lockfile.ts verifies it); the
 * whole-file digest covers the header, every launch and every lockfile's own digest, so an edit
 * anywhere is found. A launch holds no secret: variables and headers by name only, and a
 * client's placeholders (`${input:token}`) as written, never their values.
 *
 * A plain lockfile is read as a pin file of one server (named after the server it records), so
 * the proxy takes the lockfile of `lock` as readily as the pin file of `pin`.
 */
import { z } from 'zod';
import { canonicalJson } from '../protocol/index.js';
import { sha256 } from './canonical.js';
import { LockfileError, looksLikeLockfile, renderLockfile, verifyLockfile } from './lockfile.js';
import { isJsonObject, nameRecord, type Contracts } from './model.js';

/** The default name of the file `pin` writes. */
export const PIN_FILE_NAME = 'mcp-pins.lock.json';
export const PIN_FILE_VERSION = 1;
const GENERATOR = 'mcp-contract-guard';
/** More servers than a client configuration holds; past it, the file is refused unread. */
const MAX_SERVERS = 200;

/** The registry release a server's command runs. */
export interface PackagePin {
  /** `npm` for `npx`, `pypi` for `uvx`. */
  registry: 'npm' | 'pypi';
  name: string;
  /** The exact version the command resolved to, and runs. */
  version: string;
}

/** How a pinned server is launched: what the client configuration says, with the exact version. */
export interface Launch {
  /** argv: the program, then its arguments; a package's spec carries the exact version. */
  command?: string[];
  /** A server reached over HTTP (streamable, or the older HTTP+SSE). */
  url?: string;
  /** The working directory the configuration gives, if any. */
  cwd?: string;
  /** Variables the configuration gives the server, by name (their values are never stored). */
  env?: string[];
  /** HTTP headers the configuration gives, by name. */
  headers?: string[];
  /** The registry package the command runs (npx, uvx), when it runs one. */
  package?: PackagePin;
}

export interface PinnedServer {
  launch: Launch;
  contracts: Contracts;
}

/** Servers by the name the client configuration gives them. */
export type Pins = Record<string, PinnedServer>;

export interface PinFile {
  /**
   * The client configuration the servers were pinned from (relative to the pin file when it sits
   * beside or below it): what `pin` reads again to re-pin, named in messages.
   */
  configuration?: string;
  servers: Pins;
}

const text = z.string().max(10_000);
const launchSchema = z
  .object({
    command: z.array(text).min(1).max(500).optional(),
    url: text.optional(),
    cwd: text.optional(),
    env: z.array(z.string().max(500)).max(500).optional(),
    headers: z.array(z.string().max(500)).max(500).optional(),
    package: z.object({ registry: z.enum(['npm', 'pypi']), name: z.string().min(1).max(500), version: z.string().min(1).max(200) }).strict().optional(),
  })
  .strict();

/** The pin file's text: canonical, so the same pins give the same bytes. */
export function renderPinFile(file: PinFile): string {
  const servers: Record<string, unknown> = nameRecord();
  for (const name of Object.keys(file.servers).sort()) {
    const pin = file.servers[name] as PinnedServer;
    servers[name] = { launch: launchJson(pin.launch), lockfile: JSON.parse(renderLockfile(pin.contracts)) as unknown };
  }
  const body = { ...(file.configuration !== undefined ? { configuration: file.configuration } : {}), generator: GENERATOR, pinVersion: PIN_FILE_VERSION, servers };
  return canonicalJson({ ...body, digest: wholeFileDigest(body) }, true);
}

/** The header, each launch and each lockfile's own digest: every byte of the file is covered through them. */
function wholeFileDigest(body: { configuration?: unknown; generator: unknown; pinVersion: unknown; servers: unknown }): string {
  const servers = isJsonObject(body.servers) ? body.servers : {};
  const manifest = Object.fromEntries(
    Object.entries(servers).map(([name, server]) => [name, { launch: isJsonObject(server) ? server.launch : undefined, lockfile: isJsonObject(server) && isJsonObject(server.lockfile) ? server.lockfile.digest : undefined }]),
  );
  return sha256(canonicalJson({ configuration: body.configuration, generator: body.generator, pinVersion: body.pinVersion, servers: manifest }));
}

function launchJson(launch: Launch): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (launch.command !== undefined) out.command = launch.command;
  if (launch.url !== undefined) out.url = launch.url;
  if (launch.cwd !== undefined) out.cwd = launch.cwd;
  if (launch.env !== undefined && launch.env.length > 0) out.env = [...new Set(launch.env)].sort();
  if (launch.headers !== undefined && launch.headers.length > 0) out.headers = [...new Set(launch.headers)].sort();
  if (launch.package !== undefined) out.package = { ...launch.package };
  return out;
}

/**
 * Parse and verify a pin file (or a plain lockfile, as the pins of its one server). Throws
 * `LockfileError` when the text is neither, was written by an unknown version, or does not match
 * its digests (edited by hand): a pin is never trusted unverified.
 */
export function parsePinFile(source: string, label: string): PinFile {
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch (error) {
    throw new LockfileError('malformed', `${label} is not valid JSON (${(error as Error).message}); it may be truncated or have a merge conflict.`);
  }
  if (looksLikeLockfile(data)) {
    const contracts = verifyLockfile(data, label);
    const pins: Pins = nameRecord();
    pins[contracts.server.name] = { launch: {}, contracts };
    return { servers: pins };
  }
  if (!isJsonObject(data) || !('pinVersion' in data)) {
    throw new LockfileError('malformed', `${label} is neither a pin file ("pinVersion") nor a lockfile ("lockfileVersion") of mcp-contract-guard.`);
  }
  if (data.pinVersion !== PIN_FILE_VERSION) {
    const newer = typeof data.pinVersion === 'number' && data.pinVersion > PIN_FILE_VERSION;
    throw new LockfileError('unknown-version', `${label} has pin file version ${JSON.stringify(data.pinVersion)}, but this mcp-contract-guard reads version ${PIN_FILE_VERSION}${newer ? ': upgrade mcp-contract-guard.' : '.'}`);
  }
  const { digest, ...body } = data;
  if (!isJsonObject(body.servers)) throw new LockfileError('malformed', `${label}: "servers" is not an object.`);
  const entries = Object.entries(body.servers);
  if (entries.length > MAX_SERVERS) throw new LockfileError('malformed', `${label} holds ${entries.length} servers; a pin file holds at most ${MAX_SERVERS}.`);
  const pins: Pins = nameRecord();
  for (const [name, server] of entries) {
    const where = `${label} (server ${JSON.stringify(name.slice(0, 200))})`;
    if (!isJsonObject(server)) throw new LockfileError('malformed', `${where} is not an object.`);
    const launch = launchSchema.safeParse(server.launch ?? {});
    if (!launch.success) {
      const problems = launch.error.issues.slice(0, 5).map((i) => `${['launch', ...i.path.map(String)].join('.')}: ${i.message}`);
      throw new LockfileError('malformed', `${where}: ${problems.join('; ')}.`);
    }
    pins[name] = { launch: launch.data as Launch, contracts: verifyLockfile(server.lockfile, where) };
  }
  if (body.configuration !== undefined && (typeof body.configuration !== 'string' || body.configuration.length > 4096)) throw new LockfileError('malformed', `${label}: "configuration" is not a path.`);
  if (digest !== wholeFileDigest({ configuration: body.configuration, generator: body.generator, pinVersion: body.pinVersion, servers: body.servers })) {
    throw new LockfileError('tampered', `${label} was edited by hand: its whole-file digest does not match its content.`);
  }
  return { ...(typeof body.configuration === 'string' ? { configuration: body.configuration } : {}), servers: pins };
}

/**
 * The one server of `pins` to guard: the one named, or the only one. Throws a plain `Error` with
 * the names to choose from (the caller words it for its flag or input).
 */
export function pinOf(pins: Pins, name: string | undefined, label: string): { name: string; pin: PinnedServer } {
  const names = Object.keys(pins).sort();
  if (name !== undefined) {
    if (!Object.hasOwn(pins, name)) throw new Error(`${label} pins no server named ${JSON.stringify(name)}; it pins ${names.map((n) => JSON.stringify(n)).join(', ') || 'none'}.`);
    return { name, pin: pins[name] as PinnedServer };
  }
  if (names.length !== 1) throw new Error(`${label} pins ${names.length} servers (${names.map((n) => JSON.stringify(n)).join(', ')}): say which one this is.`);
  return { name: names[0] as string, pin: pins[names[0] as string] as PinnedServer };
}
