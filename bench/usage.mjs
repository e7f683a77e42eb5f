// Benchmarks of usage recording (issue 24), against the compiled lib/:
//   node bench/usage.mjs            print the table
//   node bench/usage.mjs --strict   also exit 1 when a target is missed
// What a call pays for being recorded (the recorder alone; a withSelfHealing McpServer and the
// proxy's relay, with and without usage), and that memory stays flat over 100,000 calls. Build
// first (`npm run build`). Timings are medians of rounds after a warm-up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { UsageRecorder, withSelfHealing } from '../lib/runtime/index.js';
import { RelaySession } from '../lib/proxy/relay.js';
import { printTargets } from './measure.mjs';

const strict = process.argv.includes('--strict');
const ROUNDS = 9;
const TARGET_MS = 0.05;
const dir = mkdtempSync(join(tmpdir(), 'mcg-bench-usage-'));
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

const SEARCH = {
  name: 'search',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      days: { type: 'integer' },
      sort: { type: 'string', enum: ['relevance', 'date', 'price'] },
      filters: { type: 'array', items: { type: 'object', properties: { kind: { enum: ['tag', 'brand'] }, value: { type: 'string' } } } },
      page: { type: 'object', properties: { size: { type: 'integer' }, cursor: { type: 'string' } } },
    },
  },
};
const args = (i) => ({ query: `text the user typed ${i}`, days: i % 30, sort: 'date', filters: [{ kind: 'tag', value: 'a' }, { kind: 'brand', value: 'b' }], page: { size: 20, cursor: `c${i}` } });

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Milliseconds per iteration of `fn(i)`, median over rounds. */
function perCall(fn, iterations) {
  const round = () => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn(i);
    return Number(process.hrtime.bigint() - start) / 1e6 / iterations;
  };
  round();
  return median(Array.from({ length: ROUNDS }, round));
}

async function perCallAsync(fn, iterations) {
  const round = async () => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) await fn(i);
    return Number(process.hrtime.bigint() - start) / 1e6 / iterations;
  };
  await round();
  const times = [];
  for (let r = 0; r < ROUNDS; r++) times.push(await round());
  return median(times);
}

const rows = [];
const ms = (value) => `${value.toFixed(4)} ms`;

// 1. The recorder alone: a call counted, and its outcome.
{
  const recorder = new UsageRecorder({ file: join(dir, 'alone.jsonl'), metrics: false });
  recorder.listed([SEARCH]);
  const cost = perCall((i) => {
    recorder.call('search', args(i));
    recorder.outcome('search', 'ok', 0.001);
  }, 20_000);
  const bare = perCall((i) => args(i), 20_000);
  rows.push(['recorder: one call (5 arguments, nested, enums) counted', ms(cost - bare), `≤ ${TARGET_MS} ms`, cost - bare <= TARGET_MS]);
  const global = new UsageRecorder({ file: join(dir, 'global.jsonl') });
  await new Promise((r) => setTimeout(r, 200)); // @opentelemetry/api loads in the background
  global.listed([SEARCH]);
  const withApi = perCall((i) => {
    global.call('search', args(i));
    global.outcome('search', 'ok', 0.001);
  }, 20_000);
  rows.push(['recorder with @opentelemetry/api, no SDK registered (no-op)', ms(withApi - bare), `≤ ${TARGET_MS} ms`, withApi - bare <= TARGET_MS]);
  await recorder.close();
  await global.close();
}

// 2. A withSelfHealing McpServer, in memory: a call with usage recorded, against the same without.
async function sdkServer(usage) {
  const server = new McpServer({ name: 'shop', version: '1.0.0' });
  server.registerTool(
    'search',
    {
      inputSchema: {
        query: z.string(),
        days: z.number().int(),
        sort: z.enum(['relevance', 'date', 'price']),
        filters: z.array(z.object({ kind: z.enum(['tag', 'brand']), value: z.string() })),
        page: z.object({ size: z.number().int(), cursor: z.string() }),
      },
    },
    async () => ({ content: [{ type: 'text', text: 'ok' }] }),
  );
  withSelfHealing(server, { deltas: new Map(), explainAll: false, ...(usage ? { usage } : {}) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(clientSide);
  await client.listTools();
  return client;
}
{
  const recorder = new UsageRecorder({ file: join(dir, 'sdk.jsonl'), metrics: false });
  const plain = await sdkServer(undefined);
  const recorded = await sdkServer(recorder);
  const call = (client) => (i) => client.callTool({ name: 'search', arguments: args(i) });
  // Interleaved rounds, so load on the machine weighs on both alike.
  const without = [];
  const withUsage = [];
  for (let r = 0; r < 5; r++) {
    without.push(await perCallAsync(call(plain), 300));
    withUsage.push(await perCallAsync(call(recorded), 300));
  }
  const delta = median(withUsage) - median(without);
  rows.push(['withSelfHealing McpServer: a call, usage on minus off', ms(delta), `≤ ${TARGET_MS} ms`, delta <= TARGET_MS]);
  rows.push(['  (the call itself, usage off, for scale)', ms(median(without)), '', '']);
  await plain.close();
  await recorded.close();
  await recorder.close();
}

// 3. The proxy's relay: a client line in, the server's answer back, with and without --usage.
function relay(usage) {
  const sent = [];
  const session = new RelaySession(
    { deltas: new Map(), validate: false, explainAll: false, warn: () => {}, ...(usage ? { usage } : {}) },
    { toServer: (line) => sent.push(line), toClient: (line) => sent.push(line), pauseClient: () => {}, resumeClient: () => {} },
  );
  session.fromServer(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 'l', result: { tools: [SEARCH] } })}\n`));
  return (i) => {
    session.fromClient(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'search', arguments: args(i) } })));
    session.fromServer(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: 'ok' }] } })));
    sent.length = 0;
  };
}
{
  const recorder = new UsageRecorder({ file: join(dir, 'proxy.jsonl'), metrics: false });
  const plain = relay(undefined);
  const recorded = relay(recorder);
  const without = [];
  const withUsage = [];
  for (let r = 0; r < 5; r++) {
    without.push(perCall(plain, 5_000));
    withUsage.push(perCall(recorded, 5_000));
  }
  const delta = median(withUsage) - median(without);
  rows.push(['proxy relay: a call and its answer, --usage minus none', ms(delta), `≤ ${TARGET_MS} ms`, delta <= TARGET_MS]);
  await recorder.close();
}

// 4. Memory over 100,000 calls: distinct arguments, hostile names, tools past the cap.
{
  const recorder = new UsageRecorder({ file: join(dir, 'memory.jsonl'), metrics: false });
  recorder.listed([SEARCH]);
  const heapAt = [];
  for (let i = 0; i < 100_000; i++) {
    const a = args(i);
    a[`free_${i}`] = { [`nested_${i}`]: i };
    recorder.call(i % 3 === 0 ? `tool_${i}` : 'search', a);
    recorder.outcome('search', 'ok', 0.001);
    if (i % 20_000 === 19_999) {
      await recorder.flush();
      gc();
      heapAt.push(process.memoryUsage().heapUsed);
    }
  }
  const growth = (heapAt.at(-1) - heapAt[0]) / 1024 / 1024;
  rows.push(['heap growth from 20,000 to 100,000 calls (after GC)', `${growth.toFixed(2)} MB`, '≤ 1 MB (flat)', growth <= 1]);
  rows.push(['  recorder structures at 100,000 calls', JSON.stringify(recorder.sizes()), 'within the caps', '']);
  await recorder.close();
}

rmSync(dir, { recursive: true, force: true });
printTargets('Usage recording (bench/usage.mjs)', rows, { strict });
