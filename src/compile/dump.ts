import { compiledWithoutContracts, looksCompiled, readCompiled } from '../contract/compiled.js';
import { LockfileError, looksLikeLockfile, verifyLockfile } from '../contract/lockfile.js';
import { isJsonObject, type Contracts, type JsonObject, type RawCapture } from '../contract/model.js';
import { normalizeCapture, normalizeDifferences, type NormalizeResult } from '../contract/normalize.js';
import { UserError } from '../errors.js';
import { readTextIfExists } from '../files.js';
import { CLI_COMMAND } from '../version.js';

export type FileContents = { kind: 'lockfile' | 'compiled'; contracts: Contracts } | { kind: 'dump'; capture: RawCapture };

/**
 * Read a file that holds contracts: a lockfile; what `compile --format json` prints; or a
 * tools/list dump, i.e. an object with a `tools` array (plus optional `prompts`, `resources`,
 * `resourceTemplates`), a JSON-RPC response whose `result` holds them, or the array of tools
 * alone.
 */
export async function readContractsFile(path: string): Promise<FileContents> {
  const text = await readTextIfExists(path, 'the file');
  if (text === undefined) throw new UserError(`${path} does not exist.`);
  return parseContractsFile(text, path);
}

/**
 * The contracts in a file: a lockfile's as they are, a dump's normalized (with the lint
 * warnings of normalization). Needs nothing of the server pipeline.
 */
export async function compileFile(path: string): Promise<FileContracts> {
  return contractsOfFile(await readContractsFile(path));
}

/**
 * The contracts of two files to diff (`diff OLD NEW`). When both are dumps, what they define
 * identically as sent is shared and never normalized (see `normalizeDifferences`); the warnings
 * are those of the entries that differ.
 */
export async function compileFilesToDiff(previousPath: string, currentPath: string): Promise<[FileContracts, FileContracts]> {
  const [previous, current] = await Promise.all([readContractsFile(previousPath), readContractsFile(currentPath)]);
  if (previous.kind === 'dump' && current.kind === 'dump') {
    const [p, c] = normalizeDifferences(previous.capture, current.capture);
    return [ofDump(p), ofDump(c)];
  }
  return [contractsOfFile(previous), contractsOfFile(current)];
}

export interface FileContracts {
  contracts: Contracts;
  warnings: string[];
  origin: FileContents['kind'];
}

/** The contracts a parsed file holds: a lockfile's and compile's as they are, a dump's normalized. */
export function contractsOfFile(file: FileContents): FileContracts {
  if (file.kind !== 'dump') return { contracts: file.contracts, warnings: [], origin: file.kind };
  return ofDump(normalizeCapture(file.capture));
}

function ofDump({ contracts, warnings }: NormalizeResult): FileContracts {
  return { contracts, warnings: warnings.map((w) => `${w.entry} ${w.message}`), origin: 'dump' };
}

export function parseContractsFile(text: string, label: string): FileContents {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UserError(`${label} is not valid JSON (${(error as Error).message}). Expected a lockfile, a tools/list dump or what compile --format json prints.`);
  }
  if (looksLikeLockfile(data)) {
    try {
      return { kind: 'lockfile', contracts: verifyLockfile(data, label) };
    } catch (error) {
      if (error instanceof LockfileError) throw new UserError(lockfileAdvice(error));
      throw error;
    }
  }
  if (looksCompiled(data) && !Array.isArray(data.tools)) return { kind: 'compiled', contracts: readCompiled(data, label) };
  const compileOutput = compiledWithoutContracts(data, label);
  if (compileOutput !== undefined) throw new UserError(compileOutput);
  // The result of tools/list as written, inside its JSON-RPC response, or just its tools (`jq .tools`).
  const body = Array.isArray(data) ? { tools: data } : isJsonObject(data) && isJsonObject(data.result) && !('tools' in data) ? data.result : data;
  if (!isJsonObject(body) || !Array.isArray(body.tools)) {
    throw new UserError(
      `${label} is not a tools/list dump: expected a JSON object with a "tools" array (the result of tools/list), ` +
        'a JSON-RPC response whose "result" holds one, or the array of tools itself. A lockfile and what compile --format json prints are read too.',
    );
  }
  // A capture written by a tool like ours also says who the server is (`server` or, as in an
  // initialize result, `serverInfo`) and may hold its capabilities and instructions.
  const info = isJsonObject(body.serverInfo) ? body.serverInfo : isJsonObject(body.server) ? body.server : {};
  const capture: RawCapture = {
    server: { name: typeof info.name === 'string' ? info.name : 'unknown', ...(typeof info.version === 'string' ? { version: info.version } : {}) },
    protocolVersion: typeof body.protocolVersion === 'string' ? body.protocolVersion : '',
    era: 'legacy',
    ...(isJsonObject(body.capabilities) ? { capabilities: body.capabilities } : {}),
    ...(typeof body.instructions === 'string' ? { instructions: body.instructions } : {}),
    tools: entries(body, 'tools', label),
    prompts: entries(body, 'prompts', label),
    resources: entries(body, 'resources', label),
    resourceTemplates: entries(body, 'resourceTemplates', label),
  };
  return { kind: 'dump', capture };
}

function entries(body: JsonObject, key: string, label: string): JsonObject[] {
  const list = body[key];
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new UserError(`${label}: "${key}" is not an array.`);
  return list.map((item, index) => {
    if (!isJsonObject(item)) throw new UserError(`${label}: ${key}[${index}] is not an object.`);
    return item;
  });
}

/** The message for a lockfile that cannot be trusted, with what to do about it. */
export function lockfileAdvice(error: LockfileError, regenerate = `${CLI_COMMAND} lock <source>`): string {
  switch (error.problem) {
    case 'tampered':
      return `${error.message} A lockfile is generated, never edited: regenerate it with \`${regenerate}\` and commit the result.`;
    case 'unknown-version':
      return error.message;
    case 'malformed':
      return `${error.message} Regenerate it with \`${regenerate}\`.`;
  }
}
