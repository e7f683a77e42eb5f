import { jsonEqual, withSortedKeys } from '../protocol/json.js';
import { rememberDigest, sha256 } from './canonical.js';
import { normalizeSchema } from './schema.js';
import {
  ENTRY_KEY,
  ENTRY_KINDS,
  ENTRY_NOUN,
  emptyContracts,
  isJsonObject,
  nameRecord,
  type ContractEntry,
  type Contracts,
  type EntryKind,
  type JsonObject,
  type JsonValue,
  type LintWarning,
  type RawCapture,
} from './model.js';

/**
 * The defaults the MCP specification gives to tool annotations and execution hints. A server
 * that leaves them out means exactly these values, so they are written out: omitting
 * `destructiveHint` and sending `destructiveHint: true` are the same contract.
 */
export const ANNOTATION_DEFAULTS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
} as const;
export const EXECUTION_DEFAULTS = { taskSupport: 'forbidden' } as const;

export interface NormalizeResult {
  contracts: Contracts;
  warnings: LintWarning[];
}

/**
 * Turn a raw capture into canonical contracts. Pure: same capture, same result. Each contract
 * is built in canonical form (keys in canonical order, at every level), so its digest is the
 * hash of its `JSON.stringify`, taken here once.
 */
export function normalizeCapture(raw: RawCapture): NormalizeResult {
  return normalizeEntriesWith(raw, (kind, _key, item) => normalizeEntry(kind, item));
}

/**
 * Normalize two captures to compare. An entry both define identically, as sent, is normalized
 * once and shared by both results (normalization is pure, so it is the same contract, with the
 * same lint): comparing two large dumps normalizes what they share once, not twice, and the
 * diff passes over shared entries at once.
 */
export function normalizeCaptures(previous: RawCapture, current: RawCapture): [NormalizeResult, NormalizeResult] {
  const seen = {} as Record<EntryKind, Map<string, { item: JsonObject; normalized: NormalizedEntry }>>;
  for (const kind of ENTRY_KINDS) seen[kind] = new Map();
  const before = normalizeEntriesWith(previous, (kind, key, item) => {
    const normalized = normalizeEntry(kind, item);
    seen[kind].set(key, { item, normalized });
    return normalized;
  });
  const after = normalizeEntriesWith(current, (kind, key, item) => {
    const twin = seen[kind].get(key);
    return twin !== undefined && jsonEqual(twin.item, item) ? twin.normalized : normalizeEntry(kind, item);
  });
  return [before, after];
}

/** One entry normalized, with what its normalization had to say about it. */
interface NormalizedEntry {
  entry: ContractEntry;
  lint: string[];
}

function normalizeEntry(kind: EntryKind, item: JsonObject): NormalizedEntry {
  const lint: string[] = [];
  const entry = NORMALIZERS[kind](item, (message) => lint.push(message));
  rememberDigest(entry.contract, sha256(JSON.stringify(entry.contract)));
  return { entry, lint };
}

function normalizeEntriesWith(raw: RawCapture, normalize: (kind: EntryKind, key: string, item: JsonObject) => NormalizedEntry): NormalizeResult {
  const warnings: LintWarning[] = [];
  const contracts = emptyContracts(raw.server.version === undefined ? { name: raw.server.name } : { name: raw.server.name, version: raw.server.version });
  if (raw.capabilities !== undefined) {
    contracts.serverContract = { capabilities: normalizeCapabilities(raw.capabilities) };
    if (raw.instructions !== undefined && raw.instructions !== '') contracts.serverContract.instructions = raw.instructions;
  }
  if (raw.clientCapabilities !== undefined) contracts.clientCapabilities = [...new Set(raw.clientCapabilities)].sort();
  for (const kind of ENTRY_KINDS) {
    const keyField = ENTRY_KEY[kind];
    for (const [index, item] of raw[kind].entries()) {
      const key = item[keyField];
      if (typeof key !== 'string' || key === '') {
        warnings.push({ entry: `${kind}[${index}]`, message: `has no "${keyField}"; skipped` });
        continue;
      }
      const label = `${ENTRY_NOUN[kind]} "${key}"`;
      if (Object.hasOwn(contracts[kind], key)) {
        warnings.push({ entry: label, message: `is listed twice; the first definition is kept` });
        continue;
      }
      const { entry, lint } = normalize(kind, key, item);
      for (const message of lint) warnings.push({ entry: label, message });
      contracts[kind][key] = entry;
    }
  }
  return { contracts, warnings };
}

type Lint = (message: string) => void;

const NORMALIZERS: Record<EntryKind, (item: JsonObject, lint: Lint) => ContractEntry> = {
  tools: normalizeTool,
  prompts: normalizePrompt,
  resources: (item) => ({ contract: withSortedKeys(item) as JsonObject }),
  resourceTemplates: (item) => ({ contract: withSortedKeys(item) as JsonObject }),
};

/**
 * `item` in canonical form: its fields in canonical order, each value canonical; `normalized`
 * replaces (or adds) fields with values that already are.
 */
function canonicalEntry(item: JsonObject, normalized: JsonObject): JsonObject {
  const contract: JsonObject = nameRecord();
  for (const key of [...new Set([...Object.keys(item), ...Object.keys(normalized)])].sort()) {
    contract[key] = (Object.hasOwn(normalized, key) ? normalized[key] : withSortedKeys(item[key])) as JsonValue;
  }
  return contract;
}

export function normalizeTool(tool: JsonObject, lint: Lint = () => {}): ContractEntry {
  const normalized: JsonObject = {};
  const dialects: NonNullable<ContractEntry['dialects']> = {};

  if (tool.inputSchema === undefined) lint('has no inputSchema; treated as accepting any arguments');
  const input = normalizeSchema(tool.inputSchema ?? {});
  normalized.inputSchema = input.schema;
  if (input.dialect !== undefined) dialects.inputSchema = input.dialect;
  for (const problem of input.problems) lint(`inputSchema: ${problem}`);
  if (tool.inputSchema !== undefined && !(isJsonObject(input.schema) && input.schema.type === 'object')) {
    lint('inputSchema does not declare "type": "object" as MCP requires; compiled as sent');
  }

  if (tool.outputSchema !== undefined) {
    const output = normalizeSchema(tool.outputSchema);
    normalized.outputSchema = output.schema;
    if (output.dialect !== undefined) dialects.outputSchema = output.dialect;
    for (const problem of output.problems) lint(`outputSchema: ${problem}`);
  }

  normalized.annotations = withSortedKeys({ ...ANNOTATION_DEFAULTS, ...(isJsonObject(tool.annotations) ? tool.annotations : {}) }) as JsonObject;
  normalized.execution = withSortedKeys({ ...EXECUTION_DEFAULTS, ...(isJsonObject(tool.execution) ? tool.execution : {}) }) as JsonObject;
  const contract = canonicalEntry(tool, normalized);
  return Object.keys(dialects).length > 0 ? { contract, dialects } : { contract };
}

/**
 * Declared capabilities with their notation removed: a flag set to `false` means what leaving it
 * out means (`listChanged: false` ≡ no `listChanged`). Nesting is bounded: capabilities are a
 * couple of levels deep, and a server must not make us recurse without end.
 */
export function normalizeCapabilities(capabilities: JsonObject, depth = 0): JsonObject {
  const out: JsonObject = nameRecord();
  for (const key of Object.keys(capabilities).sort()) {
    const value = capabilities[key] as JsonValue;
    if (value === false || value === null) continue;
    out[key] = isJsonObject(value) && depth < 4 ? normalizeCapabilities(value, depth + 1) : value;
  }
  return out;
}

function normalizePrompt(prompt: JsonObject, lint: Lint): ContractEntry {
  const normalized: JsonObject = {};
  if (Array.isArray(prompt.arguments)) {
    // Prompt arguments are passed by name: their order is notation. `required` defaults to false.
    const args = prompt.arguments.filter((a): a is JsonObject => {
      const ok = isJsonObject(a) && typeof a.name === 'string';
      if (!ok) lint('has an argument without a name; skipped');
      return ok;
    });
    normalized.arguments = args
      .map((arg) => withSortedKeys({ ...arg, required: arg.required === true }) as JsonObject)
      .sort((a, b) => ((a.name as string) < (b.name as string) ? -1 : 1)) as JsonValue;
  }
  return { contract: canonicalEntry(prompt, normalized) };
}
