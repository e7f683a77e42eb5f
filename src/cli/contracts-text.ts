import { ENTRY_KINDS, ENTRY_NOUN, countOf, isJsonObject, type Contracts, type JsonValue } from '../contract/model.js';

/** "5 tools, 1 prompt, 1 resource" (kinds with no entries are left out, except tools). */
export function summarizeContracts(contracts: Contracts): string {
  return ENTRY_KINDS.filter((kind) => kind === 'tools' || Object.keys(contracts[kind]).length > 0)
    .map((kind) => countOf(kind, Object.keys(contracts[kind]).length))
    .join(', ');
}

/** A compact, human listing of contracts: one signature line per entry. */
export function renderContractsText(contracts: Contracts): string {
  const lines = [`${contracts.server.name}: ${summarizeContracts(contracts)}`];
  for (const [name, { contract }] of Object.entries(contracts.tools)) {
    const annotations = isJsonObject(contract.annotations) ? contract.annotations : {};
    // destructive and idempotent only mean something for tools that are not read-only.
    const hints = ['readOnly', 'destructive', 'idempotent', 'openWorld'].filter(
      (hint) => annotations[`${hint}Hint`] === true && !(annotations.readOnlyHint === true && (hint === 'destructive' || hint === 'idempotent')),
    );
    lines.push(`  tool ${name}(${signature(contract.inputSchema)})${hints.length ? `  [${hints.join(', ')}]` : ''}`);
  }
  for (const [name, { contract }] of Object.entries(contracts.prompts)) {
    const args = Array.isArray(contract.arguments) ? contract.arguments : [];
    const list = args.filter(isJsonObject).map((a) => `${String(a.name)}${a.required === true ? '' : '?'}`);
    lines.push(`  prompt ${name}(${list.join(', ')})`);
  }
  for (const kind of ['resources', 'resourceTemplates'] as const) {
    for (const [uri, { contract }] of Object.entries(contracts[kind])) {
      const mime = typeof contract.mimeType === 'string' ? `  ${contract.mimeType}` : '';
      lines.push(`  ${ENTRY_NOUN[kind]} ${uri}${mime}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** `sku: string, quantity: integer, priority?: "high"|"low"` for an object schema. */
function signature(schema: JsonValue | undefined): string {
  if (!isJsonObject(schema) || !isJsonObject(schema.properties)) return '';
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties)
    .map(([name, property]) => `${name}${required.has(name) ? '' : '?'}: ${typeName(property)}`)
    .join(', ');
}

function typeName(schema: JsonValue): string {
  if (!isJsonObject(schema)) return 'any';
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join('|');
  if ('const' in schema) return JSON.stringify(schema.const);
  if (schema.type === 'array') return `${typeName(schema.items ?? {})}[]`;
  if (Array.isArray(schema.type)) return schema.type.join('|');
  if (typeof schema.type === 'string') return schema.type;
  for (const union of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[union])) return schema[union].map(typeName).join('|');
  }
  return 'any';
}
