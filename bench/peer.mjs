// The closest MCP peer, `mcpdiff` (mcp-contracts), for the benchmarks that time it beside us on
// the same inputs. No benchmark installs it: it runs when it is on PATH or MCPDIFF names it.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** `mcpdiff`: MCPDIFF, else the first on PATH; null when it is not installed. */
export function findPeer() {
  if (process.env.MCPDIFF) return existsSync(process.env.MCPDIFF) ? process.env.MCPDIFF : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'mcpdiff');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return null;
}

/**
 * Tools as mcp-contracts' snapshot format holds them (its SPEC.md): keyed by name, the content
 * hash over tools, resources and prompts. Only tools: the peer is given what it compares.
 */
export function peerSnapshot(tools) {
  const contracts = {};
  for (const tool of tools) {
    contracts[tool.name] = { description: tool.description ?? '', inputSchema: tool.inputSchema, ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}), ...(tool.annotations ? { annotations: tool.annotations } : {}) };
  }
  const sorted = (value) =>
    value === null || typeof value !== 'object' ? value : Array.isArray(value) ? value.map(sorted) : Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted(value[k])]));
  const content = { tools: contracts, resources: {}, prompts: {} };
  const contentHash = `sha256:${createHash('sha256').update(JSON.stringify(sorted(content))).digest('hex')}`;
  return {
    snapshotVersion: '1.0.0',
    capturedAt: '2026-01-01T00:00:00.000Z',
    contentHash,
    server: { name: 'synthetic', version: '1.0.0', protocolVersion: '2025-11-25' },
    capture: { transport: 'stdio', source: 'bench', tool: 'bench' },
    ...content,
  };
}
