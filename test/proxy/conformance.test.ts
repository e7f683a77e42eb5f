/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, `--suite all`)
 * against `proxy --listen` with an artifact, as real clients meet it: around the suite's
 * reference everything-server on stdio, and as a gateway in front of the same server over
 * HTTP (`--listen --url`). Each proxy takes the whole suite twice in a row (the suite opens a
 * session per scenario and never ends one); the gateway then takes 25 runs of
 * tools-call-sampling (the server asks the client for a sampling during the call, on its GET
 * stream: the gateway lost it when it opened its own GET stream upstream too late).
 *
 * The suite needs Node 22 or later. .ci/run installs it, and Node 24, under .tmp/ and runs this
 * file with MCG_CONFORMANCE (the suite's dist/index.js) and MCG_CONFORMANCE_NODE (that Node);
 * without them it is skipped, saying so. By hand:
 *   npm install --no-save --prefix .tmp/conformance @modelcontextprotocol/conformance@0.1.16
 *   MCG_CONFORMANCE=$PWD/.tmp/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js \
 *   MCG_CONFORMANCE_NODE=/path/to/node24 npx vitest run test/proxy/conformance.test.ts
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.js';
import { delta } from '../runtime/helpers.js';
import { httpServer, listeningProxy, scratch, writeArtifact, type RawProxy } from './helpers.js';

const SUITE = process.env.MCG_CONFORMANCE;
const SUITE_NODE = process.env.MCG_CONFORMANCE_NODE;
const EVERYTHING = resolve(ROOT, 'test/fixtures/conformance/everything-server.mjs');
/** Every scenario of the suite's version 0.1.16, `--suite all`. */
const SCENARIOS = 32;
const SAMPLING_RUNS = 25;
/** Sampling runs at once: each is a client process of its own, with its own session. */
const SAMPLING_AT_ONCE = 5;
/**
 * The suite bounds every request itself (60 s, then the scenario fails); a run of the whole
 * suite that outlives this has hung.
 */
const RUN_LIMIT_MS = 180_000;

if (SUITE === undefined || SUITE_NODE === undefined) {
  describe.skip('the MCP conformance suite (set MCG_CONFORMANCE and MCG_CONFORMANCE_NODE: see this file; .ci/run does)', () => {
    it('passes', () => {});
  });
}

interface SuiteRun {
  code: number | null;
  output: string;
  /** Scenario name → its line (`✓ name: N passed, 0 failed`). */
  scenarios: Map<string, string>;
  failed: number;
}

/** Runs the suite against `url` (all of it, or one scenario) and reads its summary. */
function runSuite(url: URL, args: string[]): Promise<SuiteRun> {
  const child = spawn(SUITE_NODE as string, [SUITE as string, 'server', '--url', url.href, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const limit = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
  return new Promise((done) => {
    child.once('exit', (code) => {
      clearTimeout(limit);
      const scenarios = new Map([...output.matchAll(/^([✓✗]) (\S+): \d+ passed, \d+ failed$/gm)].map((match) => [match[2] as string, match[0]]));
      const total = /^Total: \d+ passed, (\d+) failed$/m.exec(output) ?? /^Passed: \d+\/\d+, (\d+) failed/m.exec(output);
      done({ code, output, scenarios, failed: total === null ? -1 : Number(total[1]) });
    });
  });
}

describe.runIf(SUITE !== undefined && SUITE_NODE !== undefined).each([
  { mode: '--listen around the reference server on stdio', upstream: 'stdio' },
  { mode: '--listen --url in front of the reference server over HTTP', upstream: 'http' },
] as const)('the MCP conformance suite against proxy $mode', ({ upstream }) => {
  const files = scratch();
  // Deltas for two of the server's tools: the proxy checks and explains with an artifact loaded.
  const artifact = writeArtifact(files.file('deltas.json'), {
    test_sampling: [delta({ field: 'inputSchema.properties.prompt', kind: 'required-property-added', current: { type: 'string' } })],
    test_elicitation: [delta({ field: 'inputSchema.properties.message', kind: 'required-property-added', current: { type: 'string' } })],
  });
  let server: RawProxy | undefined;
  let proxy: RawProxy;
  let url: URL;

  beforeAll(async () => {
    if (upstream === 'http') {
      const served = await httpServer(EVERYTHING);
      server = served.server;
      ({ url, proxy } = await listeningProxy(['--artifact', artifact, '--url', served.url.href], []));
    } else {
      ({ url, proxy } = await listeningProxy(['--artifact', artifact], [process.execPath, EVERYTHING, '--stdio']));
    }
  });
  afterAll(async () => {
    proxy?.child.kill('SIGTERM');
    await proxy?.exited;
    server?.child.kill();
    files.remove();
  });

  it(
    'passes every scenario, twice in a row against the same proxy',
    async () => {
      for (const round of [1, 2]) {
        const run = await runSuite(url, ['--suite', 'all']);
        const failing = [...run.scenarios.values()].filter((line) => line.startsWith('✗'));
        expect({ round, failing, failed: run.failed, code: run.code }, run.output).toEqual({ round, failing: [], failed: 0, code: 0 });
        expect(run.scenarios.size, run.output).toBe(SCENARIOS);
      }
    },
    2 * RUN_LIMIT_MS,
  );

  it.runIf(upstream === 'http')(
    `answers ${SAMPLING_RUNS} runs of tools-call-sampling, none hanging`,
    async () => {
      const runs: SuiteRun[] = [];
      for (let started = 0; started < SAMPLING_RUNS; started += SAMPLING_AT_ONCE) {
        runs.push(...(await Promise.all(Array.from({ length: SAMPLING_AT_ONCE }, () => runSuite(url, ['--scenario', 'tools-call-sampling'])))));
      }
      const failures = runs.filter((run) => run.code !== 0 || run.failed !== 0).map((run) => run.output);
      expect(failures).toEqual([]);
      expect(runs).toHaveLength(SAMPLING_RUNS);
    },
    (SAMPLING_RUNS / SAMPLING_AT_ONCE) * RUN_LIMIT_MS,
  );
});
