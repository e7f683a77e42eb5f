/**
 * The servers of issue 22's rename tests (test/fixtures/servers/renamed-tools.mjs), in process:
 * a Client connected to one over an in-memory transport, and the report the diff writes for the
 * two releases (`diff v1 v2 --artifact --released-at DATE`), which the runtime, the proxy and
 * the usage tests heal or record with.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { normalizeCapture } from '../../src/contract/normalize.js';
import { diffContracts } from '../../src/diff/index.js';
import type { DiffReport } from '../../src/protocol/index.js';
// @ts-expect-error: a JavaScript fixture (the same server the proxy tests start as a process).
import { createServer, toolkit } from '../fixtures/servers/renamed-tools.mjs';

export { createServer, toolkit };
export type Kit = Awaited<ReturnType<typeof toolkit>>;

/** What the tests need of an McpServer (of the newest SDK or of 1.10.2). */
export interface RenamedToolsServer {
  connect(transport: unknown): Promise<void>;
  close(): Promise<void>;
  server: { connect(transport: never): Promise<void> };
}

/** A client connected to `server` in this process. */
export async function connectInMemory(server: RenamedToolsServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

/** The report the diff writes for the fixture's releases 1 and 2, release 2 dated `date` (YYYY-MM-DD). */
export async function renamedToolsReport(date: string): Promise<DiffReport> {
  const kit = (await toolkit({ sdk: 'newest', zod: '4' })) as Kit;
  const listing = async (release: 1 | 2) => {
    const server = createServer(kit, release) as RenamedToolsServer;
    const client = await connectInMemory(server);
    const { tools } = await client.listTools();
    await client.close();
    await server.close();
    return normalizeCapture({ server: { name: 'browser', version: `${release}.0.0` }, protocolVersion: '', era: 'legacy', tools, prompts: [], resources: [], resourceTemplates: [] }).contracts;
  };
  return diffContracts(await listing(1), await listing(2), { semantic: false, release: { version: '2.0.0', date } });
}
