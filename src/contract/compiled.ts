/**
 * The contracts as `compile --format json` prints them (the canonical JSON of `Contracts`: the
 * server, then each kind of entry keyed by name, each entry its `contract` and the schemas'
 * `dialects`), read back, so `diff` and `--file` take what `compile` printed. An entry is
 * checked as a lockfile's is, without digests to verify: like a dump, the file is the user's
 * word for what a server exposes. What `compile` prints when it fails (its error report) and
 * for a config file (several servers, keyed by name) are told apart, with what to do instead.
 */
import { markCanonical, withSortedKeys } from '../protocol/index.js';
import { UserError } from '../errors.js';
import { ENTRY_KINDS, emptyContracts, isJsonObject, type ContractEntry, type Contracts, type JsonObject } from './model.js';

/** An object shaped like one server's contracts: a named server, and entries keyed by name rather than listed. */
export function looksCompiled(data: unknown): data is JsonObject {
  return isJsonObject(data) && isJsonObject(data.server) && typeof data.server.name === 'string' && ENTRY_KINDS.some((kind) => isJsonObject(data[kind]));
}

/**
 * Why `data` is output of `compile --format json` that holds no contracts to compare, as a
 * message for `label`; undefined when it is not such output.
 */
export function compiledWithoutContracts(data: unknown, label: string): string | undefined {
  if (!isJsonObject(data)) return undefined;
  if (isJsonObject(data.error) && Array.isArray(data.attempts)) {
    const { category, explanation } = data.error;
    const why = typeof explanation === 'string' ? `: ${clipped(explanation)}` : '';
    return `${label} is the error report of a compile that failed${typeof category === 'string' ? ` (${clipped(category)}${why})` : ''}, not contracts: the server was not captured, so there is nothing to compare. Fix what it says and compile again.`;
  }
  const names = Object.keys(data);
  if (names.length > 0 && names.every((name) => looksCompiled(data[name]))) {
    const listed = names.slice(0, 5).map((name) => `"${clipped(name)}"`).join(', ');
    return `${label} holds the contracts of ${names.length} servers (${listed}${names.length > 5 ? ', …' : ''}), as compile prints them for a config file: compare one server at a time (compile --server NAME --format json), or their lockfiles.`;
  }
  return undefined;
}

/** The contracts of one server, as `compile --format json` printed them. */
export function readCompiled(data: JsonObject, label: string): Contracts {
  const server = data.server as JsonObject;
  if (server.version !== undefined && typeof server.version !== 'string') throw new UserError(`${label}: "server.version" is not a string.`);
  const contracts = emptyContracts({ name: server.name as string, ...(typeof server.version === 'string' ? { version: server.version } : {}) });
  if (data.serverContract !== undefined) {
    const { serverContract } = data;
    if (!isJsonObject(serverContract) || !isJsonObject(serverContract.capabilities)) throw new UserError(`${label}: "serverContract" has no "capabilities" object.`);
    if (serverContract.instructions !== undefined && typeof serverContract.instructions !== 'string') throw new UserError(`${label}: "serverContract.instructions" is not a string.`);
    contracts.serverContract = { capabilities: canonical(serverContract.capabilities), ...(typeof serverContract.instructions === 'string' ? { instructions: serverContract.instructions } : {}) };
  }
  if (data.clientCapabilities !== undefined) {
    if (!Array.isArray(data.clientCapabilities) || !data.clientCapabilities.every((c) => typeof c === 'string')) throw new UserError(`${label}: "clientCapabilities" is not a list of names.`);
    contracts.clientCapabilities = data.clientCapabilities as string[];
  }
  for (const kind of ENTRY_KINDS) {
    const entries = data[kind] ?? {};
    if (!isJsonObject(entries)) throw new UserError(`${label}: "${kind}" is not an object of entries keyed by name.`);
    for (const [key, stored] of Object.entries(entries)) {
      if (!isJsonObject(stored) || !isJsonObject(stored.contract)) throw new UserError(`${label}: entry ${kind}.${clipped(key)} has no "contract" object.`);
      const entry: ContractEntry = { contract: canonical(stored.contract) };
      if (isJsonObject(stored.dialects)) entry.dialects = stored.dialects as ContractEntry['dialects'];
      contracts[kind][key] = entry;
    }
  }
  return contracts;
}

/** A parsed object in the canonical form normalization builds (sorted keys, no prototype), vouched for as such. */
function canonical(value: JsonObject): JsonObject {
  const sorted = withSortedKeys(value) as JsonObject;
  markCanonical(sorted);
  return sorted;
}

/** Text from the file, set in a sentence: one line, bounded. */
function clipped(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
