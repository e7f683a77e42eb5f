// Runs an example server over stdio (the default) or streamable HTTP (`--http PORT`).
// `--deltas PATH` turns on the runtime self-healing of mcp-contract-guard with that delta artifact.
import { createServer as createHttpServer } from 'node:http';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export async function serve(buildServer) {
  const { values } = parseArgs({ options: { http: { type: 'string' }, deltas: { type: 'string' } }, strict: true });
  const build = values.deltas ? await withDeltas(buildServer, values.deltas) : buildServer;

  if (values.http === undefined) {
    await build().connect(new StdioServerTransport());
    return;
  }
  // Stateless HTTP: a fresh server and transport per request, as the SDK recommends.
  const http = createHttpServer(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(Number(values.http), '127.0.0.1', () => {
    const { port } = http.address();
    console.error(`listening on http://127.0.0.1:${port}/mcp`);
  });
}

async function withDeltas(buildServer, path) {
  const { DeltaArtifactError, loadDeltaMap, withSelfHealing } = await import('mcp-contract-guard/runtime');
  let deltas;
  try {
    // Read and checked once, here: a bad artifact stops the server before it serves anything.
    deltas = loadDeltaMap(path);
  } catch (error) {
    if (!(error instanceof DeltaArtifactError)) throw error;
    console.error(
      `Cannot start with --deltas: ${error.message}\n` +
        'The delta artifact is what `check` or `diff` writes with --artifact; for this example, from the repository root:\n' +
        `  npx mcp-contract-guard check --command "node examples/inventory/v2.mjs" --lockfile examples/inventory/mcp-contracts.lock.json --artifact ${path}`,
    );
    process.exit(2);
  }
  return () => withSelfHealing(buildServer(), { deltas });
}

/** True when the module at `moduleUrl` is the script node was started with. */
export function isMain(moduleUrl) {
  return process.argv[1] !== undefined && moduleUrl === pathToFileURL(realpathSync(process.argv[1])).href;
}
