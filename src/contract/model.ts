/**
 * The contract model: what an MCP server exposes to the agents that call it.
 *
 * Two layers live here:
 * - `RawCapture` is what the server sent, byte for byte after JSON parsing, with every field
 *   kept (including ones the SDK does not know). It is the input of `normalize`.
 * - `Contracts` is the canonical form: one entry per tool, prompt, resource and resource
 *   template, each holding its normalized contract. Lockfiles store it and the diff reads it.
 */
import { isJsonObject as isRecord, nullPrototypeRecord, type EntryKind } from '../protocol/index.js';

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema as found in `inputSchema` / `outputSchema`: an object, or a boolean schema. */
export type JsonSchema = JsonObject | boolean;

export type ServerInfo = { name: string; version?: string };

/** Which generation of the protocol the capture spoke. */
export type ProtocolEra = 'legacy' | 'stateless';

/** Everything one capture of a server produced, before normalization. */
export interface RawCapture {
  server: ServerInfo;
  protocolVersion: string;
  era: ProtocolEra;
  /** What the server answered about itself; absent in a tools/list dump. */
  instructions?: string;
  capabilities?: JsonObject;
  tools: JsonObject[];
  prompts: JsonObject[];
  resources: JsonObject[];
  resourceTemplates: JsonObject[];
  /**
   * The client capabilities `initialize` declared (sorted names), which decide what some
   * servers show; absent for a dump, where it is unknown.
   */
  clientCapabilities?: string[];
}

export { ENTRY_KINDS, type EntryKind } from '../protocol/index.js';

/** How an entry kind reads in a sentence ("tool", "resource template"). */
export const ENTRY_NOUN: Record<EntryKind, string> = {
  tools: 'tool',
  prompts: 'prompt',
  resources: 'resource',
  resourceTemplates: 'resource template',
};

/** "5 tools", "1 prompt": a count of entries with its noun. */
export function countOf(kind: EntryKind, count: number): string {
  return `${count} ${ENTRY_NOUN[kind]}${count === 1 ? '' : 's'}`;
}

/** The field that names an entry within its collection. */
export const ENTRY_KEY: Record<EntryKind, string> = {
  tools: 'name',
  prompts: 'name',
  resources: 'uri',
  resourceTemplates: 'uriTemplate',
};

/**
 * One normalized entry. `contract` is what the digest covers: notation-only differences never
 * change it. `dialects` records which JSON Schema dialect each schema declared (`$schema`),
 * kept beside the contract so a dialect change can be reported (as COSMETIC) without being
 * mistaken for a contract change.
 */
export interface ContractEntry {
  contract: JsonObject;
  dialects?: Partial<Record<'inputSchema' | 'outputSchema', string>>;
}

/** The server's own contract: what it tells agents and what it promises clients. */
export interface ServerContract {
  instructions?: string;
  /** Declared capabilities, normalized (flags that are false are left out). */
  capabilities: JsonObject;
}

export interface Contracts {
  server: ServerInfo;
  /** Undefined when unknown: a tools/list dump, or a lockfile written before format 2. */
  serverContract?: ServerContract;
  /** The client capabilities the capture declared; servers may hide tools from clients without them. */
  clientCapabilities?: string[];
  tools: Record<string, ContractEntry>;
  prompts: Record<string, ContractEntry>;
  resources: Record<string, ContractEntry>;
  resourceTemplates: Record<string, ContractEntry>;
}

/** A finding about a contract's shape that does not stop compilation. */
export interface LintWarning {
  entry: string;
  message: string;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return isRecord(value);
}

/** `value` when it is a JSON object, else an empty one. */
export function objectOr(value: unknown): JsonObject {
  return isJsonObject(value) ? value : nameRecord();
}

/**
 * A record keyed by names a server (or a PR) chose: without a prototype, so a tool named
 * `__proto__`, `constructor` or `toString` is an entry like any other.
 */
export function nameRecord<T>(): Record<string, T> {
  return nullPrototypeRecord<T>();
}

export function emptyContracts(server: ServerInfo = { name: 'unknown' }): Contracts {
  return { server, tools: nameRecord(), prompts: nameRecord(), resources: nameRecord(), resourceTemplates: nameRecord() };
}
