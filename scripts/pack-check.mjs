// The package as a stranger gets it from npm: packed as `npm publish` packs it, installed into an
// empty project with its production dependencies only (not @modelcontextprotocol/sdk nor
// @opentelemetry/api: optional peers), then used: the bin (--version, --help, lock, check and
// diff on a dump), the proxy's help, the runtime imported and typed without the SDK, and typed
// with it; usage recorded without @opentelemetry/api, and through the application's own copy
// when it runs an OpenTelemetry SDK of the previous API minor. Prints the
// figures and fails past the size budget. Leaves the tarball in .tmp/pack/ for the release tests
// (MCG_TARBALL). Run by .ci/run:
//   node scripts/pack-check.mjs
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the package may weigh: a new heavy dependency, or files that should not ship, fail here. */
const BUDGET = {
  tarball: 350_000, // bytes, the .tgz npm publishes
  unpacked: 1_250_000, // bytes, the package's own files once unpacked
  installed: 15_000_000, // bytes, node_modules of a project that installed only this package
};

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const work = mkdtempSync(join(tmpdir(), 'mcg-pack-check-'));
const project = join(work, 'project');
const failures = [];

function check(condition, message) {
  if (!condition) failures.push(message);
  return condition;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', cwd: project, ...options });
  if (result.error) throw result.error;
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

function bytesUnder(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else total += lstatSync(path).size;
  }
  return total;
}

const kb = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;

try {
  // 1. Pack, as `npm publish` would: lib/ built from the sources first.
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [join(root, 'scripts/build-package.mjs'), '--quiet'], { cwd: root, stdio: 'inherit' });
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' }));
  const tarball = join(work, packed.filename);
  const files = packed.files.map((f) => f.path);
  // The package runs its bundle (lib/bundle/); of the rest of lib/ it ships only the types.
  const stray = files.filter((f) => !/^(lib\/bundle\/[^/]+\.c?js|lib\/.+\.d\.ts|package\.json|README\.md|LICENSE|CHANGELOG\.md)$/.test(f) || /^lib\/(github\/|action\.)/.test(f));
  check(stray.length === 0, `the package holds files it should not: ${stray.join(', ')}`);
  for (const needed of ['lib/bundle/cli.cjs', 'lib/bundle/index.js', 'lib/bundle/index.cjs', 'lib/index.d.ts', 'lib/bundle/runtime.js', 'lib/runtime/index.d.ts', 'lib/bundle/semantic-worker.js', 'README.md', 'LICENSE', 'CHANGELOG.md']) {
    check(files.includes(needed), `the package lacks ${needed}`);
  }

  // 2. Install it into an empty project, production dependencies only.
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'pack-check', private: true, type: 'module' }, null, 2)}\n`);
  const install = run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', tarball]);
  if (!check(install.code === 0, `npm install of the tarball failed:\n${install.stderr}`)) throw new Error('install');
  const modules = join(project, 'node_modules');
  check(!existsSync(join(modules, '@modelcontextprotocol/sdk')), '@modelcontextprotocol/sdk was installed: it must stay an optional peer');
  // A second copy of the API beside the application's would not see the meter provider it registers.
  check(!existsSync(join(modules, '@opentelemetry/api')), '@opentelemetry/api was installed: it must stay an optional peer');
  const installed = bytesUnder(modules);

  // 3. The bin.
  const bin = join(modules, '.bin/mcp-contract-guard');
  const cli = (...args) => run(bin, args);
  const version = cli('--version');
  check(version.code === 0 && version.stdout === `${packed.version}\n`, `--version printed ${JSON.stringify(version.stdout)} (exit ${version.code}), not ${packed.version}`);
  const help = cli('--help');
  check(help.code === 0 && help.stdout.includes('\nUsage:\n'), `--help failed (exit ${help.code}): ${help.stderr}`);
  const proxyHelp = cli('proxy', '--help');
  check(proxyHelp.code === 0 && proxyHelp.stdout.includes('mcp-contract-guard proxy'), `proxy --help failed (exit ${proxyHelp.code}): ${proxyHelp.stderr}`);

  // 4. A real lock, check and diff, on tools/list dumps.
  const tool = (properties, required) => ({ name: 'create_order', description: 'Create an order.', inputSchema: { type: 'object', properties, required } });
  writeFileSync(join(project, 'old.json'), JSON.stringify({ tools: [tool({ sku: { type: 'string' } }, ['sku'])] }));
  writeFileSync(join(project, 'new.json'), JSON.stringify({ tools: [tool({ sku: { type: 'string' }, currency: { type: 'string', enum: ['USD', 'EUR'] } }, ['sku', 'currency'])] }));
  const lock = cli('lock', '--file', 'old.json', '--quiet');
  check(lock.code === 0 && existsSync(join(project, 'mcp-contracts.lock.json')), `lock --file failed (exit ${lock.code}): ${lock.stderr}`);
  const same = cli('check', '--file', 'old.json', '--quiet');
  check(same.code === 0, `check of an unchanged dump exited ${same.code}: ${same.stderr}`);
  const changed = cli('check', '--file', 'new.json', '--quiet');
  check(changed.code === 1 && changed.stdout.includes('BREAKING'), `check of a breaking change exited ${changed.code}, printing: ${changed.stdout}${changed.stderr}`);
  const diff = cli('diff', 'old.json', 'new.json', '--artifact', 'contract-deltas.json', '--quiet');
  check(diff.code === 1 && existsSync(join(project, 'contract-deltas.json')), `diff --artifact exited ${diff.code}: ${diff.stderr}`);
  // A pair only json-schema-diff can settle: its worker thread runs from the bundle (no note that it could not).
  const variants = (anyOf) => ({ tools: [{ name: 'lookup', inputSchema: { type: 'object', properties: { name: { anyOf } } } }] });
  writeFileSync(join(project, 'variants-old.json'), JSON.stringify(variants([{ type: 'string', maxLength: 5 }, { type: 'string', minLength: 1 }])));
  writeFileSync(join(project, 'variants-new.json'), JSON.stringify(variants([{ type: 'string' }])));
  const semantic = cli('diff', 'variants-old.json', 'variants-new.json', '--format', 'json', '--quiet');
  check(semantic.code === 0 && semantic.stdout.includes('"length-range-widened"') && !semantic.stdout.includes('cross-check not run'), `diff of a pair for the semantic cross-check exited ${semantic.code}: ${semantic.stdout}${semantic.stderr}`);

  // 5. The runtime without the SDK: it loads, reads the artifact and explains; withSelfHealing,
  // given no McpServer, says so in one sentence.
  const runtime = run(process.execPath, [
    '--input-type=module',
    '--eval',
    `import { loadDeltaMap, createToolEnhancer, withSelfHealing } from 'mcp-contract-guard/runtime';
     const deltas = loadDeltaMap('contract-deltas.json');
     const enhance = createToolEnhancer('create_order', { activeDeltas: deltas });
     const enriched = enhance('<validation_error tool="create_order"><field name="currency">Missing.</field></validation_error>');
     let refusal = '';
     try { withSelfHealing({}, { deltas }); } catch (error) { refusal = error.message; }
     // Usage without @opentelemetry/api installed: recorded to the file, no metrics, no error.
     const { UsageRecorder } = await import('mcp-contract-guard/runtime');
     const recorder = new UsageRecorder({ file: 'usage.jsonl' });
     recorder.call('create_order', { sku: 'A-1' });
     await recorder.close();
     console.log(JSON.stringify({ tools: [...deltas.keys()], enriched, refusal }));`,
  ]);
  if (check(runtime.code === 0, `the runtime failed without the SDK (exit ${runtime.code}):\n${runtime.stderr}`)) {
    const out = JSON.parse(runtime.stdout);
    check(out.tools.includes('create_order'), `the runtime read no delta for create_order: ${runtime.stdout}`);
    check(out.enriched.includes('<contract_awareness>') && out.enriched.includes('field="currency"'), `the runtime did not explain the change: ${out.enriched}`);
    check(/^withSelfHealing: .*@modelcontextprotocol\/sdk/.test(out.refusal) && !out.refusal.includes('\n'), `withSelfHealing without an McpServer said: ${JSON.stringify(out.refusal)}`);
    check(readFileSync(join(project, 'usage.jsonl'), 'utf8').includes('"tool":"create_order"'), 'the usage recorder wrote nothing without @opentelemetry/api');
  }

  // 6. Its types, strict and without skipLibCheck: the runtime's in an agent that has neither
  // the SDK nor Node's types; then the library's and withSelfHealing's in a server that has both
  // (passing an McpServer keeps its type).
  const typeCheck = (file, types, source) => {
    writeFileSync(join(project, file), source);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, skipLibCheck: false, types }, files: [file] }),
    );
    const result = run(process.execPath, [tsc, '-p', 'tsconfig.json']);
    check(result.code === 0, `${file} does not type-check against the installed package:\n${result.stdout}${result.stderr}`);
  };
  typeCheck(
    'agent.ts',
    [],
    `import { callWithSelfHealing, loadDeltaMap, type DeltaMap, type ToolCaller } from 'mcp-contract-guard/runtime';
     const deltas: DeltaMap = loadDeltaMap('contract-deltas.json', { optional: true });
     declare const client: ToolCaller;
     export const call = () => callWithSelfHealing(client, 'create_order', { sku: 'A-1' }, { correct: async () => null });
     export const size: number = deltas.size;`,
  );
  // The versions this checkout is tested with, so the install is the one CI already cached.
  const versionOf = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
  // And an OpenTelemetry SDK of the API minor before ours (sdk-metrics 2 takes @opentelemetry/api 1.9).
  const peers = run('npm', [
    'install',
    '--no-save',
    '--no-audit',
    '--no-fund',
    `@modelcontextprotocol/sdk@${versionOf('@modelcontextprotocol/sdk')}`,
    `@types/node@${versionOf('@types/node')}`,
    '@opentelemetry/api@~1.9.0',
    '@opentelemetry/sdk-metrics@^2.0.0',
  ]);
  if (check(peers.code === 0, `npm install of the SDK and @types/node failed:\n${peers.stderr}`)) {
    typeCheck(
      'server.ts',
      ['node'],
      `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
       import { diffContracts, parseLockfile, type DiffReport } from 'mcp-contract-guard';
       import { loadDeltaMap, withSelfHealing } from 'mcp-contract-guard/runtime';
       const server: McpServer = withSelfHealing(new McpServer({ name: 'inventory', version: '2.0.0' }), { deltas: loadDeltaMap('contract-deltas.json') });
       export const review = (before: string, after: string): Promise<DiffReport> => diffContracts(parseLockfile(before, 'old'), parseLockfile(after, 'new'));
       export default server;`,
    );

    // 6b. A server whose application registered an OpenTelemetry SDK: usage reaches its meter provider.
    const metrics = run(process.execPath, [
      '--input-type=module',
      '--eval',
      `import { metrics } from '@opentelemetry/api';
       import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
       import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
       import { Client } from '@modelcontextprotocol/sdk/client/index.js';
       import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
       import { withSelfHealing } from 'mcp-contract-guard/runtime';
       class Reader extends MetricReader { async onForceFlush() {} async onShutdown() {} }
       const reader = new Reader();
       metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
       const server = new McpServer({ name: 'inventory', version: '2.0.0' });
       server.registerTool('create_order', { inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
       withSelfHealing(server, { deltas: new Map(), usage: { file: 'otel-usage.jsonl' } });
       const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
       await server.connect(serverSide);
       const client = new Client({ name: 'pack-check', version: '1.0.0' });
       await client.connect(clientSide);
       // The recorder imports @opentelemetry/api in the background (here from the module cache): a call after it has.
       await new Promise((resolve) => setTimeout(resolve, 1000));
       await client.callTool({ name: 'create_order', arguments: { sku: 'A-1' } });
       const { resourceMetrics } = await reader.collect();
       console.log(JSON.stringify(resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.descriptor.name))));
       await client.close();`,
    ]);
    if (check(metrics.code === 0, `a server recording usage beside an OpenTelemetry SDK failed (exit ${metrics.code}):\n${metrics.stderr}`)) {
      const names = JSON.parse(metrics.stdout);
      check(names.includes('mcp.server.operation.duration') && names.includes('mcp_contract_guard.tool.argument.calls'), `usage reached the application's OpenTelemetry SDK as ${metrics.stdout.trim()}, not as mcp.server.operation.duration and mcp_contract_guard.tool.argument.calls`);
    }
  }

  // 7. The figures, against the budget.
  check(packed.size <= BUDGET.tarball, `the tarball weighs ${kb(packed.size)}, over its budget of ${kb(BUDGET.tarball)}`);
  check(packed.unpackedSize <= BUDGET.unpacked, `the package unpacks to ${mb(packed.unpackedSize)}, over its budget of ${mb(BUDGET.unpacked)}`);
  check(installed <= BUDGET.installed, `installing it takes ${mb(installed)}, over its budget of ${mb(BUDGET.installed)}`);
  console.log(
    [
      `${packed.filename}: ${kb(packed.size)} packed (budget ${kb(BUDGET.tarball)}), ${mb(packed.unpackedSize)} unpacked in ${packed.entryCount} files (budget ${mb(BUDGET.unpacked)})`,
      `installed with its production dependencies: ${mb(installed)} of node_modules (budget ${mb(BUDGET.installed)})`,
    ].join('\n'),
  );

  // The tarball, for the release tests (MCG_TARBALL).
  const kept = join(root, '.tmp/pack');
  rmSync(kept, { recursive: true, force: true });
  mkdirSync(kept, { recursive: true });
  cpSync(tarball, join(kept, packed.filename));
} catch (error) {
  if (failures.length === 0) failures.push(error instanceof Error ? error.message : String(error));
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`pack-check: ${failures.length} problem${failures.length === 1 ? '' : 's'}:\n- ${failures.join('\n- ')}`);
  process.exit(1);
}
console.log('pack-check: the packed package installs, runs and type-checks as a user gets it.');
