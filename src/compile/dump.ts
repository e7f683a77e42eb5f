import { readFile } from 'node:fs/promises';
import { LockfileError, looksLikeLockfile, parseLockfile } from '../contract/lockfile.js';
import { isJsonObject, type Contracts, type JsonObject, type RawCapture } from '../contract/model.js';
import { UserError } from '../errors.js';

export type FileContents = { kind: 'lockfile'; contracts: Contracts } | { kind: 'dump'; capture: RawCapture };

/**
 * Read a file that holds contracts: a lockfile, or a tools/list dump, i.e. an object with a
 * `tools` array (plus optional `prompts`, `resources`, `resourceTemplates`), or a JSON-RPC
 * response whose `result` holds them.
 */
export async function readContractsFile(path: string): Promise<FileContents> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(code === 'ENOENT' ? `${path} does not exist.` : `Could not read ${path}: ${(error as Error).message}.`);
  }
  return parseContractsFile(text, path);
}

export function parseContractsFile(text: string, label: string): FileContents {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UserError(`${label} is not valid JSON (${(error as Error).message}). Expected a lockfile or a tools/list dump.`);
  }
  if (looksLikeLockfile(data)) {
    try {
      return { kind: 'lockfile', contracts: parseLockfile(text, label) };
    } catch (error) {
      if (error instanceof LockfileError) throw new UserError(lockfileAdvice(error));
      throw error;
    }
  }
  const body = isJsonObject(data) && isJsonObject(data.result) && 'jsonrpc' in data ? data.result : data;
  if (!isJsonObject(body) || !Array.isArray(body.tools)) {
    throw new UserError(
      `${label} is not a tools/list dump: expected a JSON object with a "tools" array (the result of tools/list), ` +
        'or a JSON-RPC response whose "result" holds one.',
    );
  }
  const info = isJsonObject(body.serverInfo) ? body.serverInfo : {};
  const capture: RawCapture = {
    server: { name: typeof info.name === 'string' ? info.name : 'unknown' },
    protocolVersion: '',
    era: 'legacy',
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
export function lockfileAdvice(error: LockfileError, regenerate = 'mcp-contract-guard lock <source>'): string {
  switch (error.problem) {
    case 'tampered':
      return `${error.message} A lockfile is generated, never edited: regenerate it with \`${regenerate}\` and commit the result.`;
    case 'unknown-version':
      return error.message;
    case 'malformed':
      return `${error.message} Regenerate it with \`${regenerate}\`.`;
  }
}
