import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HealingFailedError, compileContracts, type Compiled, type ContractSource } from '../../src/compile/index.js';
import { ROOT, fixture, freePort, processesMentioning, timeoutForThisMachine } from '../helpers/processes.js';

const work = mkdtempSync(join(tmpdir(), 'mcg-heal-'));
const node = process.execPath;
/** Passed to every server started here, so the leftover check sees only this file's processes. */
const TAG = `heal-test-${process.pid}`;

function command(args: string[], extra: Partial<ContractSource & { kind: 'command' }> = {}, timeoutMs = 10_000): ContractSource {
  return { kind: 'command', command: args, cwd: ROOT, timeoutMs, ...extra };
}

async function healingFailure(source: ContractSource): Promise<HealingFailedError> {
  try {
    await compileContracts(source);
  } catch (error) {
    if (error instanceof HealingFailedError) return error;
    throw error;
  }
  throw new Error('expected healing to give up');
}

function categories(result: Compiled | HealingFailedError): Array<string | undefined> {
  const attempts = result instanceof HealingFailedError ? result.report.attempts : result.healing!.attempts;
  return attempts.map((a) => (a.outcome === 'captured' ? 'captured' : a.diagnosis?.category));
}

/** A minimal MCP server over stdio in Python (one tool), for the virtual-environment cases. */
const PYTHON_SERVE = `import json, sys

def serve():
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        if message.get("method") == "initialize":
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "venv-server", "version": "1.0.0"}}
        elif message.get("method") == "tools/list":
            result = {"tools": [{"name": "hello", "inputSchema": {"type": "object"}}]}
        else:
            print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
`;

/**
 * A Python project whose server imports a module installed only in its `.venv` (a stand-in
 * interpreter there puts it on the path); the server itself is run with `python3`.
 */
function pythonProject(name: string, withVenv: boolean): { dir: string } {
  const dir = join(work, name);
  const venvPython = join(dir, '.venv', 'bin', 'python');
  mkdirSync(join(dir, '.venv', 'site'), { recursive: true });
  mkdirSync(join(dir, '.venv', 'bin'), { recursive: true });
  writeFileSync(join(dir, '.venv', 'site', 'mcg_venv_helper.py'), PYTHON_SERVE);
  if (withVenv) {
    writeFileSync(venvPython, `#!/bin/sh\nPYTHONPATH="$(dirname "$0")/../site" exec python3 "$@"\n`);
    chmodSync(venvPython, 0o755);
  }
  writeFileSync(join(dir, 'server.py'), 'import mcg_venv_helper\nmcg_venv_helper.serve()\n');
  return { dir };
}

const hasPython = spawnSync('python3', ['--version']).status === 0;

afterAll(async () => {
  // No attempt may leave a server behind.
  expect(await processesMentioning(TAG)).toEqual([]);
});

describe('healing that succeeds without help', () => {
  it('slow start: waited for on the same process past the timeout; the report gives the timeout to use', async () => {
    // The server answers once the capture has said it waits on a slow start: past the timeout, within the budget.
    const ready = join(work, 'slow-start-ready');
    const onProgress = (message: string) => message.includes('still starting') && writeFileSync(ready, 'ready');
    const result = await compileContracts(command([node, fixture('slow-start.mjs'), TAG], { env: { READY_FILE: ready } }, 2000), { onProgress });
    expect(categories(result)).toEqual(['timeout', 'captured']);
    const answered = /^kept waiting on the same process past the 2 s timeout \(a slow start\): it answered after (\d+\.\d) s$/.exec(result.healing!.attempts[0]!.fixApplied!);
    expect(Number(answered?.[1])).toBeGreaterThanOrEqual(2);
    const healed = result.healing!.healedSource!;
    expect(healed.timeoutMs % 1000).toBe(0);
    expect(healed.timeoutMs).toBeGreaterThanOrEqual(3000);
    expect(Object.keys(result.contracts.tools)).toEqual(['ping']);
  });

  it.skipIf(!hasPython)('a Python server run with a bare python3, whose dependencies are in the project\'s virtual environment', async () => {
    const { dir } = pythonProject('venv-project', true);
    const result = await compileContracts(command(['python3', 'server.py', TAG], { cwd: dir }));
    expect(categories(result)).toEqual(['missing-dependency', 'captured']);
    expect(result.healing!.attempts[0]!.diagnosis!.missingPackage).toBe('mcg_venv_helper');
    // Relative to the working directory: the command to commit works on any checkout.
    expect(result.healing!.attempts[0]!.fixApplied).toBe("ran the Python of the project's virtual environment (.venv/bin/python), where its dependencies are installed");
    expect(result.healing!.healedSource).toMatchObject({ command: ['.venv/bin/python', 'server.py', TAG] });
    expect(Object.keys(result.contracts.tools)).toEqual(['hello']);
  });

  it('a command installed under node_modules/.bin', async () => {
    const project = join(work, 'bin-project');
    mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
    const bin = join(project, 'node_modules', '.bin', 'weather-mcp');
    writeFileSync(bin, `#!/bin/sh\nexec "${node}" "${fixture('raw-shapes.mjs')}" "$@"\n`);
    chmodSync(bin, 0o755);
    const result = await compileContracts(command(['weather-mcp', TAG], { cwd: project }));
    expect(categories(result)).toEqual(['command-not-found', 'captured']);
    expect(result.healing!.attempts[0]!.diagnosis!.explanation).toContain(`It is installed in this project (${bin}) but not on PATH.`);
    expect(result.healing!.attempts[0]!.fixApplied).toBe(`ran "weather-mcp" from the project's node_modules/.bin`);
    expect(result.healing!.healedSource).toMatchObject({ command: [bin, TAG] });
    expect(Object.keys(result.contracts.tools)).toEqual(['bare', 'tree', 'pair']);
    // A workspace's package: its binaries are hoisted to the workspace's root, above the server's folder.
    const member = join(project, 'packages', 'weather');
    mkdirSync(member, { recursive: true });
    const hoisted = await compileContracts(command(['weather-mcp', TAG], { cwd: member }));
    expect(hoisted.healing!.attempts[0]!.diagnosis!.explanation).toContain(`It is installed in this project (${bin}) but not on PATH.`);
    expect(hoisted.healing!.healedSource).toMatchObject({ command: [bin, TAG] });
  });

  it('transport mismatch: an HTTP server started as a stdio command', async () => {
    const port = await freePort();
    // The stdio attempt waits out its timeout, and the switch must start within the budget: a timeout as long as this machine needs now.
    const result = await compileContracts(command([node, fixture('http-only.mjs'), TAG], { env: { PORT: String(port) } }, await timeoutForThisMachine(1500)));
    expect(categories(result)).toEqual(['transport-mismatch', 'captured']);
    expect(result.healing!.attempts[0]!.fixApplied).toBe(`switched to streamable HTTP at http://127.0.0.1:${port}/mcp, where the server said it listens`);
    expect(result.healing!.healedSource).toMatchObject({ url: `http://127.0.0.1:${port}/mcp` });
    expect(Object.keys(result.contracts.tools)).toEqual(['ping']);
  });

  it('transport mismatch: stdout polluted by a logger, said as soon as the answer comes behind log text', async () => {
    const timeoutMs = 60_000;
    const result = await compileContracts(command([node, fixture('logs-to-stdout.mjs'), TAG], {}, timeoutMs));
    expect(categories(result)).toEqual(['transport-mismatch', 'captured']);
    // Not after the timeout: the first attempt ended on the answer it could not read.
    expect(result.healing!.attempts[0]!.durationMs).toBeLessThan(timeoutMs);
    expect(result.healing!.attempts[0]!.diagnosis!.pollutedStdout).toBe(true);
    expect(result.healing!.healedSource).toMatchObject({ lenientStdout: true });
    expect(result.warnings[0]).toContain('"[boot] logs-to-stdout starting"');
  });

  it('a crash that looks transient: retried once', async () => {
    const marker = join(work, 'crash-marker');
    const result = await compileContracts(command([node, fixture('crash-once.mjs'), TAG], { env: { CRASH_MARKER: marker } }));
    expect(categories(result)).toEqual(['crashed', 'captured']);
    expect(result.healing!.attempts[0]!.fixApplied).toMatch(/^retried once: the crash looks transient/);
  });

  it('costs nothing when the first attempt works', async () => {
    const result = await compileContracts(command([node, fixture('raw-shapes.mjs'), TAG]));
    expect(result.healing!.attempts).toHaveLength(1);
    expect(result.healing!.healedSource).toBeUndefined();
  });
});

describe('healing that stops with guidance', () => {
  it('a Node server whose dependencies are not installed: the package named, and npm ci', async () => {
    const dir = join(work, 'no-node-modules');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'server.mjs'), "import { z } from 'mcg-never-installed';\n");
    const error = await healingFailure(command([node, 'server.mjs', TAG], { cwd: dir }));
    expect(categories(error)).toEqual(['missing-dependency']);
    expect(error.message).toContain('The server stopped because it imports "mcg-never-installed", which is not installed where it runs.');
    expect(error.userActionNeeded).toContain('"mcg-never-installed" among them (in CI, a step before this one: npm ci');
  });

  it.skipIf(!hasPython)('a Python dependency that is installed nowhere: the package named, and how to install it', async () => {
    const { dir } = pythonProject('no-venv-project', false);
    const error = await healingFailure(command(['python3', 'server.py', TAG], { cwd: dir }));
    expect(categories(error)).toEqual(['missing-dependency']);
    expect(error.message).toContain('The server stopped because it imports "mcg_venv_helper", which is not installed where it runs.');
    expect(error.userActionNeeded).toContain('Install the server\'s dependencies before capturing it, "mcg_venv_helper" among them');
  });


  it('missing environment variable: names it, guesses nothing', async () => {
    const error = await healingFailure(command([node, fixture('needs-env.mjs'), TAG]));
    expect(categories(error)).toEqual(['missing-env']);
    expect(error.diagnosis.missingEnv).toEqual(['WEATHER_API_KEY']);
    expect(error.userActionNeeded).toContain('--env WEATHER_API_KEY=…');
    expect(error.message).toContain('What to do: Give the server WEATHER_API_KEY');
  });

  it('missing build output: suggests the build script', async () => {
    const project = join(work, 'unbuilt');
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'unbuilt', scripts: { build: 'tsc -p .' } }));
    const error = await healingFailure(command([node, 'dist/server.js'], { cwd: project }));
    expect(categories(error)).toEqual(['missing-build-output']);
    expect(error.diagnosis.missingPath).toBe('dist/server.js');
    expect(error.userActionNeeded).toContain('run `npm run build`');
  });

  it('missing build output with no build script to name: says so in words, no made-up command in backticks', async () => {
    const project = join(work, 'no-manifest');
    mkdirSync(project, { recursive: true });
    const error = await healingFailure(command([node, 'dist/server.js'], { cwd: project }));
    expect(categories(error)).toEqual(['missing-build-output']);
    expect(error.userActionNeeded).toBe('Build the server before capturing it: run its build step (in CI, as a step before this one), so that dist/server.js exists.');
  });

  it('non-JSON on stdout: the message says what went wrong once, then what to do', async () => {
    // It must have started and printed before the timeout: a timeout as long as this machine needs now.
    const error = await healingFailure(command([node, fixture('non-json-stdout.mjs'), TAG], {}, await timeoutForThisMachine(800)));
    expect(categories(error).at(-1)).toBe('transport-mismatch');
    expect(error.userActionNeeded).toBe('Make the server speak MCP over stdio with nothing else on stdout (logs go to stderr), or give its HTTP address with --url.');
    expect(error.message.match(/never a JSON-RPC message/g)).toHaveLength(1);
  });

  it('authentication failure: never retried', async () => {
    const port = await freePort();
    const server = await startHttpServerWithEnv(fixture('http-auth.mjs'), port);
    try {
      const error = await healingFailure({ kind: 'url', url: `http://127.0.0.1:${port}/mcp`, timeoutMs: 3000 });
      expect(categories(error)).toEqual(['auth-failed']);
      expect(error.message).toContain('HTTP 401');
      expect(error.userActionNeeded).toContain('never retried');
    } finally {
      server.kill();
    }
  });

  it('command not found, not executable, connection refused', async () => {
    const missing = await healingFailure(command(['weather-mcp-nowhere']));
    expect(categories(missing)).toEqual(['command-not-found']);
    const notExecutable = await healingFailure(command([fixture('not-executable.sh')]));
    expect(categories(notExecutable)).toEqual(['permission-denied']);
    expect(notExecutable.userActionNeeded).toContain('chmod +x');
    const refused = await healingFailure({ kind: 'url', url: `http://127.0.0.1:${await freePort()}/mcp`, timeoutMs: 2000 });
    expect(categories(refused)).toEqual(['connection-refused']);
  });

  it('protocol mismatch, crash during initialize, unknown', async () => {
    expect(categories(await healingFailure(command([node, fixture('old-protocol.mjs'), TAG])))).toEqual(['protocol-mismatch']);
    const crash = await healingFailure(command([node, fixture('exits-early.mjs'), TAG]));
    expect(categories(crash)).toEqual(['crashed']);
    expect(crash.message).toContain('fatal: could not open config.yaml');
    const unknown = await healingFailure(command([node, fixture('list-fails.mjs'), TAG]));
    expect(categories(unknown)).toEqual(['unknown']);
    expect(unknown.message).toContain('database handle is gone');
  });
});

/** http-auth.mjs reads its port from the environment. */
async function startHttpServerWithEnv(script: string, port: number) {
  const { spawn } = await import('node:child_process');
  const child = spawn(node, [script], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve) => child.stderr!.once('data', () => resolve()));
  return child;
}

