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

/** Turn a raw capture into canonical contracts. Pure: same capture, same result. */
export function normalizeCapture(raw: RawCapture): NormalizeResult {
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
      const lint = (message: string) => warnings.push({ entry: label, message });
      contracts[kind][key] = NORMALIZERS[kind](item, lint);
    }
  }
  return { contracts, warnings };
}

type Lint = (message: string) => void;

const NORMALIZERS: Record<EntryKind, (item: JsonObject, lint: Lint) => ContractEntry> = {
  tools: normalizeTool,
  prompts: normalizePrompt,
  resources: (item) => ({ contract: item }),
  resourceTemplates: (item) => ({ contract: item }),
};

export function normalizeTool(tool: JsonObject, lint: Lint = () => {}): ContractEntry {
  const contract: JsonObject = { ...tool };
  const dialects: NonNullable<ContractEntry['dialects']> = {};

  if (tool.inputSchema === undefined) lint('has no inputSchema; treated as accepting any arguments');
  const input = normalizeSchema(tool.inputSchema ?? {});
  contract.inputSchema = input.schema;
  if (input.dialect !== undefined) dialects.inputSchema = input.dialect;
  for (const problem of input.problems) lint(`inputSchema: ${problem}`);
  if (tool.inputSchema !== undefined && !(isJsonObject(input.schema) && input.schema.type === 'object')) {
    lint('inputSchema does not declare "type": "object" as MCP requires; compiled as sent');
  }

  if (tool.outputSchema !== undefined) {
    const output = normalizeSchema(tool.outputSchema);
    contract.outputSchema = output.schema;
    if (output.dialect !== undefined) dialects.outputSchema = output.dialect;
    for (const problem of output.problems) lint(`outputSchema: ${problem}`);
  }

  contract.annotations = { ...ANNOTATION_DEFAULTS, ...(isJsonObject(tool.annotations) ? tool.annotations : {}) };
  contract.execution = { ...EXECUTION_DEFAULTS, ...(isJsonObject(tool.execution) ? tool.execution : {}) };
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
  const contract: JsonObject = { ...prompt };
  if (Array.isArray(prompt.arguments)) {
    // Prompt arguments are passed by name: their order is notation. `required` defaults to false.
    const args = prompt.arguments.filter((a): a is JsonObject => {
      const ok = isJsonObject(a) && typeof a.name === 'string';
      if (!ok) lint('has an argument without a name; skipped');
      return ok;
    });
    contract.arguments = args
      .map((arg) => ({ ...arg, required: arg.required === true }) as JsonObject)
      .sort((a, b) => ((a.name as string) < (b.name as string) ? -1 : 1)) as JsonValue;
  }
  return { contract };
}
