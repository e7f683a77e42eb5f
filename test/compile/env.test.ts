/**
 * The environment a started server gets (src/compile/env.ts), seen by a server that reports the
 * names it received: through the CLI as a process, and through the Action as a runner starts it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverEnvironment } from '../../src/compile/env.js';
import { runAction } from '../action/harness.js';
import { cli } from '../helpers/cli.js';
import { fixture } from '../helpers/processes.js';
import { actionPushes } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mcg-env-'));
const REPORT = `node ${fixture('env-report.mjs')}`;

/** What a job's runner holds that no server may see, with made-up values. */
const RUNNER_SECRETS: Record<string, string> = {
  'INPUT_GITHUB-TOKEN': 'ghs_input_token',
  INPUT_HEADERS: 'Authorization: Bearer header-secret',
  ACTIONS_RUNTIME_TOKEN: 'runtime-token',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.actions.example/oidc',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-request-token',
  ACTIONS_RESULTS_URL: 'https://results.actions.example/',
  ACTIONS_CACHE_URL: 'https://cache.actions.example/',
  GITHUB_OUTPUT: join(dir, 'output'),
  GITHUB_ENV: join(dir, 'env'),
  GITHUB_STATE: join(dir, 'state'),
  GITHUB_STEP_SUMMARY: join(dir, 'summary'),
  GITHUB_PATH: join(dir, 'path'),
};
const TOKENS = { GITHUB_TOKEN: 'ghs_job_token', GH_TOKEN: 'gh_cli_token' };

async function namesSeenByServer(args: string[], env: Record<string, string>): Promise<string[]> {
  const result = await cli(['compile', '--command', REPORT, '--format', 'json', '--quiet', ...args], { env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout).tools.environment.contract.description as string).split(' ');
}

describe('the CLI', () => {
  it('inherits by default, but never the runner internals nor the GitHub tokens', async () => {
    const names = await namesSeenByServer([], { ...RUNNER_SECRETS, ...TOKENS, MY_SETTING: 'on' });
    expect(names).toContain('MY_SETTING');
    expect(names).toContain('PATH');
    for (const secret of [...Object.keys(RUNNER_SECRETS), ...Object.keys(TOKENS)]) expect(names).not.toContain(secret);
  });

  it('passes a GitHub token only when named with --pass-env', async () => {
    const names = await namesSeenByServer(['--pass-env', 'GITHUB_TOKEN'], { ...RUNNER_SECRETS, ...TOKENS });
    expect(names).toContain('GITHUB_TOKEN');
    expect(names).not.toContain('GH_TOKEN');
  });

  it('--isolate-env: the allow-list, the --env values and the --pass-env names, nothing else; node still starts', async () => {
    const names = await namesSeenByServer(['--isolate-env', '--pass-env', 'MY_SETTING', '--env', 'EXPLICIT=1'], {
      ...RUNNER_SECRETS,
      ...TOKENS,
      MY_SETTING: 'on',
      OTHER_SETTING: 'on',
      LC_ALL: 'C.UTF-8',
      HTTPS_PROXY: 'http://user:hunter2@proxy.example:3128',
      HTTP_PROXY: 'http://proxy.example:3128',
    });
    expect(names).toEqual(expect.arrayContaining(['PATH', 'HOME', 'LC_ALL', 'HTTP_PROXY', 'MY_SETTING', 'EXPLICIT']));
    for (const withheld of ['OTHER_SETTING', 'HTTPS_PROXY', ...Object.keys(RUNNER_SECRETS), ...Object.keys(TOKENS)]) expect(names).not.toContain(withheld);
    // Only allow-listed names, the marker and what was named: the whole set, not a sample.
    const named = new Set(['MY_SETTING', 'EXPLICIT', 'MCP_CONTRACT_GUARD_SERVER']);
    const unexpected = names.filter((name) => !named.has(name) && serverEnvironment({ [name]: 'x' }, { isolateEnv: true })[name] === undefined);
    expect(unexpected).toEqual([]);
  });

  it('refuses to pass a runner internal by name, from a flag or a config', async () => {
    const flag = await cli(['compile', '--command', REPORT, '--pass-env', 'INPUT_GITHUB-TOKEN']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--pass-env: INPUT_GITHUB-TOKEN is never passed to a server: the Action's inputs");
    const config = join(dir, 'mcp-contract-guard.config.json');
    writeFileSync(config, JSON.stringify({ servers: { report: { command: REPORT, passEnv: ['ACTIONS_RUNTIME_TOKEN'] } } }));
    const fromConfig = await cli(['compile', '--config', config]);
    expect(fromConfig.code).toBe(2);
    expect(fromConfig.stderr).toContain('servers.report.passEnv.0: ACTIONS_RUNTIME_TOKEN is never passed to a server');
  });

  it('a config passes its passEnv names', async () => {
    const config = join(dir, 'named.config.json');
    writeFileSync(config, JSON.stringify({ servers: { report: { command: REPORT, passEnv: ['GH_TOKEN'] } } }));
    const result = await cli(['compile', '--config', config, '--format', 'json', '--quiet'], { env: TOKENS });
    expect(result.code).toBe(0);
    const names = (JSON.parse(result.stdout).tools.environment.contract.description as string).split(' ');
    expect(names).toContain('GH_TOKEN');
    expect(names).not.toContain('GITHUB_TOKEN');
  });

  it('a variable the server needs but the isolation withheld: says so, and names the flag', async () => {
    const needsEnv = `node ${fixture('needs-env.mjs')}`;
    const env = { WEATHER_API_KEY: 'set-here' };
    const withheld = await cli(['compile', '--command', needsEnv, '--isolate-env'], { env });
    expect(withheld.code).toBe(2);
    expect(withheld.stderr).toContain('What to do: WEATHER_API_KEY is set here but was not passed to the server: its environment is isolated');
    expect(withheld.stderr).toContain('Pass it by name: --pass-env WEATHER_API_KEY');
    const passed = await cli(['compile', '--command', needsEnv, '--isolate-env', '--pass-env', 'WEATHER_API_KEY', '--quiet'], { env });
    expect(passed.code).toBe(0);
  });
});

describe('the Action', () => {
  const push = actionPushes();

  it('starts the server isolated: no token, input, runtime credential or command file reaches it; a pass-env name does', async () => {
    const out = join(dir, 'action-names.json');
    const run = await runAction({
      ...push(),
      inputs: { command: `${REPORT} ${out}`, 'pass-env': 'WEATHER_API_KEY', headers: 'Authorization: Bearer header-secret', 'lockfile-check': 'off', comment: 'never' },
      env: { ...RUNNER_SECRETS, ...TOKENS, WEATHER_API_KEY: 'named', DEPLOY_KEY: 'not-named', MY_SETTING: 'on' },
    });
    expect(run.stdout).toContain('connected to env-report');
    const names: string[] = JSON.parse(readFileSync(out, 'utf8'));
    expect(names).toEqual(expect.arrayContaining(['PATH', 'HOME', 'CI', 'RUNNER_TEMP', 'WEATHER_API_KEY']));
    for (const withheld of ['DEPLOY_KEY', 'MY_SETTING', 'GITHUB_REPOSITORY', 'GITHUB_WORKSPACE', 'GITHUB_API_URL', ...Object.keys(RUNNER_SECRETS), ...Object.keys(TOKENS)]) {
      expect(names).not.toContain(withheld);
    }
  });
});
