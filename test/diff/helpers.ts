import { readFileSync } from 'node:fs';
import type { Contracts, JsonObject } from '../../src/contract/model.js';
import { contractsOfFile, parseContractsFile } from '../../src/compile/dump.js';
import { normalizeCapture } from '../../src/contract/normalize.js';
import { diffContracts, type DiffOptions } from '../../src/diff/index.js';
import type { Delta, DiffReport } from '../../src/protocol/index.js';
import type { ServerSketch } from '../../src/rules/index.js';

/** A server sketched for a test (the shape the rules' examples use). */
export type { ServerSketch } from '../../src/rules/index.js';

/** Contracts of a server from raw tools/list-style items. */
export function contractsOf(raw: ServerSketch): Contracts {
  return normalizeCapture({
    server: { name: raw.name ?? 'test' },
    protocolVersion: '',
    era: 'legacy',
    ...(raw.capabilities !== undefined ? { capabilities: raw.capabilities } : {}),
    ...(raw.instructions !== undefined ? { instructions: raw.instructions } : {}),
    tools: raw.tools ?? [],
    prompts: raw.prompts ?? [],
    resources: raw.resources ?? [],
    resourceTemplates: raw.resourceTemplates ?? [],
  }).contracts;
}

/** A tool named `t` with the given schemas. */
export function tool(inputSchema: unknown, extra: JsonObject = {}): JsonObject {
  return { name: 't', inputSchema: inputSchema as JsonObject, ...extra };
}

export async function diffTools(before: JsonObject[], after: JsonObject[], options: DiffOptions = { semantic: false }): Promise<DiffReport> {
  return diffContracts(contractsOf({ tools: before }), contractsOf({ tools: after }), options);
}

/** Deltas of tool `t` when its input schema goes from `before` to `after`. */
export async function inputDeltas(before: unknown, after: unknown, options: DiffOptions = { semantic: false }): Promise<Delta[]> {
  const report = await diffTools([tool(before)], [tool(after)], options);
  return report.tools.t?.deltas ?? [];
}

/** Deltas of tool `t` when its output schema goes from `before` to `after`. */
export async function outputDeltas(before: unknown, after: unknown, options: DiffOptions = { semantic: false }): Promise<Delta[]> {
  const input = { type: 'object' };
  const report = await diffTools([tool(input, { outputSchema: before as JsonObject })], [tool(input, { outputSchema: after as JsonObject })], options);
  return report.tools.t?.deltas ?? [];
}

/** `kind@field=SEVERITY` for compact assertions. */
export function brief(deltas: readonly Delta[]): string[] {
  return deltas.map((d) => `${d.kind}@${d.field}=${d.severity}`);
}

/** A committed capture of a published server, read as the CLI reads a dump file. */
export function loadDump(name: string): Contracts {
  const file = parseContractsFile(readFileSync(new URL(`../fixtures/real-world/${name}.json`, import.meta.url), 'utf8'), name);
  return contractsOfFile(file).contracts;
}
