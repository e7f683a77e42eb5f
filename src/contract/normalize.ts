import { jsonEqual, markCanonical, sortedInPlace, sortedKeys, withSortedKeys } from '../protocol/index.js';
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
 * Normalize two captures to diff. An entry both define identically as sent (the first
 * definition of a name on each side) is one entry shared by both results, normalized only when
 * something reads it: normalization is pure, so it is the same contract on both sides, and the
 * diff passes over an entry shared by both at once. Comparing two large dumps normalizes what
 * changed, not what did not. The warnings are those of the entries normalized here (a shared
 * entry's lint is not collected: use `normalizeCapture` for a capture's warnings).
 */
export function normalizeDifferences(previous: RawCapture, current: RawCapture): [NormalizeResult, NormalizeResult] {
  const shared = {} as Record<EntryKind, Map<string, ContractEntry>>;
  for (const kind of ENTRY_KINDS) {
    const before = firstDefinitions(previous[kind], ENTRY_KEY[kind]);
    shared[kind] = new Map();
    for (const [key, item] of firstDefinitions(current[kind], ENTRY_KEY[kind])) {
      const twin = before.get(key);
      if (twin !== undefined && jsonEqual(twin, item)) shared[kind].set(key, normalizedOnDemand(kind, item));
    }
  }
  const normalize = (kind: EntryKind, key: string, item: JsonObject): NormalizedEntry => {
    const entry = shared[kind].get(key);
    return entry === undefined ? normalizeEntry(kind, item) : { entry, lint: [] };
  };
  return [normalizeEntriesWith(previous, normalize), normalizeEntriesWith(current, normalize)];
}

/** An entry normalized the first time its contract (or dialects) is read. */
function normalizedOnDemand(kind: EntryKind, item: JsonObject): ContractEntry {
  let normalized: ContractEntry | undefined;
  const entry = () => (normalized ??= normalizeEntry(kind, item).entry);
  return {
    get contract() {
      return entry().contract;
    },
    get dialects() {
      return entry().dialects;
    },
  };
}

/** Each name's first definition (later ones are ignored, see `normalizeEntriesWith`). */
function firstDefinitions(items: readonly JsonObject[], keyField: string): Map<string, JsonObject> {
  const first = new Map<string, JsonObject>();
  for (const item of items) {
    const key = item[keyField];
    if (typeof key === 'string' && key !== '' && !first.has(key)) first.set(key, item);
  }
  return first;
}

/** One entry normalized, with what its normalization had to say about it. */
interface NormalizedEntry {
  entry: ContractEntry;
  lint: string[];
}

function normalizeEntry(kind: EntryKind, item: JsonObject): NormalizedEntry {
  const lint: string[] = [];
  const entry = NORMALIZERS[kind](item, (message) => lint.push(message));
  // Built in canonical form (a fast-check property holds the normalizers to it): its digest is
  // the hash of its plain JSON, and the lockfile writes it as it is.
  markCanonical(entry.contract);
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
    const items = raw[kind];
    for (let index = 0; index < items.length; index++) {
      const item = items[index]!;
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
  const keys = Object.keys(item);
  for (const key of Object.keys(normalized)) if (!Object.hasOwn(item, key)) keys.push(key);
  sortedInPlace(keys);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
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
  for (const key of sortedKeys(capabilities)) {
    const value = capabilities[key] as JsonValue;
    if (value === false || value === null) continue;
    out[key] = isJsonObject(value) && depth < 4 ? normalizeCapabilities(value, depth + 1) : (withSortedKeys(value) as JsonValue);
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
