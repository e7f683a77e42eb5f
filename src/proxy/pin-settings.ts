/**
 * The pinning proxy's settings (`--lockfile`): the pin file read and verified, the drift policy
 * from the flag or the config file, and how to accept a reviewed change. Its own module so that
 * a proxy without a pin loads none of it.
 */
import { redactUrl } from '../compile/redact.js';
import { shellQuote } from '../compile/source.js';
import { findConfig } from '../config-location.js';
import { loadConfig } from '../config.js';
import { LockfileError } from '../contract/lockfile.js';
import { ENTRY_KINDS, countOf } from '../contract/model.js';
import { parsePinFile, pinOf, type PinFile, type PinnedServer } from '../contract/pins.js';
import { UserError, errorMessage } from '../errors.js';
import { readTextIfExists } from '../files.js';
import { repinCommand } from '../pin/repin.js';
import { DEFAULT_DRIFT_POLICY, describePolicy, type DriftPolicy } from '../policy/drift.js';
import { CLI_COMMAND } from '../version.js';
import type { ProxyOptions } from './args.js';
import { DriftGuard, type Pin, type PinSettings } from './pin.js';

/**
 * `--lockfile`: the pinned server's contracts, verified (a pin that does not match its digests
 * is refused: it was edited by hand, or is not the one reviewed), and what to do with drift; a
 * drift guard for each session holds the server to them.
 */
export async function loadPin(options: ProxyOptions, warn: (message: string) => void): Promise<Pin> {
  const file = options.lockfile as string;
  const text = await readTextIfExists(file, 'the pin file');
  if (text === undefined) throw new UserError(`There is no pin file at ${file}: write it with "${CLI_COMMAND} pin <client configuration>" (or a lockfile with "${CLI_COMMAND} lock").`);
  let pins: PinFile;
  try {
    pins = parsePinFile(text, file);
  } catch (error) {
    if (!(error instanceof LockfileError)) throw error;
    const cause = error.problem === 'tampered' ? ' The proxy holds a server only to the pin that was reviewed: restore it from version control, or pin the server again.' : '';
    throw new UserError(`${error.message}${cause}`);
  }
  let chosen: { name: string; pin: PinnedServer };
  try {
    chosen = pinOf(pins.servers, options.pinServer, file);
  } catch (error) {
    throw new UserError(`${errorMessage(error)} Name it with --server.`);
  }
  const policy = options.onDrift ?? (await configuredPolicy(options.config)) ?? DEFAULT_DRIFT_POLICY;
  const { contracts } = chosen.pin;
  const counts = ENTRY_KINDS.filter((kind) => Object.keys(contracts[kind]).length > 0).map((kind) => countOf(kind, Object.keys(contracts[kind]).length));
  warn(`holding ${JSON.stringify(chosen.name)} to ${file} (${counts.join(', ') || 'nothing listed'}); on drift: ${describePolicy(policy)}.`);
  const settings: PinSettings = { server: chosen.name, file, contracts, policy, repin: acceptCommand(pins, chosen, file, options), logged: new Set(), warn };
  return { guard: () => new DriftGuard(settings) };
}

/** The config file's `onDrift`: the one --config names, else ./mcp-contract-guard.config.json if there is one. */
async function configuredPolicy(path: string | undefined): Promise<DriftPolicy | undefined> {
  const config = path ?? findConfig(process.cwd());
  if (config === undefined) return undefined;
  return (await loadConfig(config)).onDrift;
}

/** How to accept a reviewed change: pin the server again, the way it was pinned. */
function acceptCommand(pins: PinFile, chosen: { name: string; pin: PinnedServer }, file: string, options: ProxyOptions): string {
  const repin = repinCommand(pins.configuration, file, chosen.name);
  if (repin !== undefined) return repin;
  const lockfile = `--lockfile ${shellQuote(file)}`;
  if (options.url !== undefined) return `${CLI_COMMAND} lock --url ${shellQuote(redactUrl(options.url.href))} ${lockfile}`;
  return `${CLI_COMMAND} lock --command ${shellQuote(options.command.map(shellQuote).join(' '))} ${lockfile}`;
}
