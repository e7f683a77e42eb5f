/**
 * Fast, honest start-up failures, through the CLI as a process: a hung server gets guidance
 * after one attempt; a slow start is waited for on the same process; a port already taken, a
 * server listening elsewhere, or a command that returns while something else answers are each
 * said plainly, before the timeout. How long each wait lasts (the clock is the subject) is
 * pinned down with fake timers in budget.test.ts: here, on a machine that may be busy, only
 * what the user reads is checked.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, fixture, freePort, processesMentioning } from '../helpers/processes.js';
import { startCli } from '../helpers/cli.js';
import { occupyPort } from './helpers.js';

const EVERYTHING = `node ${ROOT}/node_modules/@modelcontextprotocol/server-everything/dist/index.js streamableHttp`;
/** Longer than any of these cases takes to be diagnosed, however busy the machine: each must end before it. */
const TIMEOUT_S = 60;
const work = mkdtempSync(join(tmpdir(), 'mcg-startup-'));

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

/** The slow-start fixture, ready once `release()` creates its file. */
function slowStart(name: string) {
  const file = join(work, `${name}-ready`);
  return { env: `READY_FILE=${file}`, release: () => writeFileSync(file, 'ready') };
}

describe('the start-up budget', () => {
  it('a server that never answers: waited for as a slow start, never restarted, then guidance', async () => {
    const result = await startCli(['compile', '--command', `node ${fixture('never-answers.mjs')}`, '--timeout', '1']).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The server did not answer initialize within 1 s');
    expect(result.stderr).toContain('start-up gets up to 2 × --timeout, 2 s now');
    expect(result.stderr).not.toContain('Tried 2 times');
  });

  it('a slow start is waited for on the same process, and the report gives the timeout that works first time', async () => {
    const server = slowStart('healed');
    const run = startCli(['compile', '--command', `node ${fixture('slow-start.mjs')}`, '--env', server.env, '--timeout', '3']);
    // It answers only once the CLI has given up on the timeout and waits on: past 3 s, within 6.
    await run.saysOnStderr('the server looks like it is still starting, so waiting on it up to');
    server.release();
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/no answer after \d+\.\d s; the server looks like it is still starting/);
    const answered = /healed after 2 attempts: kept waiting on the same process past the 3 s timeout \(a slow start\): it answered after (\d+\.\d) s\./.exec(result.stderr);
    const advised = /To make it work the first time, use: .* --env READY_FILE=… --timeout (\d+)\n/.exec(result.stderr);
    expect(Number(answered?.[1])).toBeGreaterThanOrEqual(3);
    // Half again the start, rounded up to whole seconds (from the unrounded time, hence the 0.1 s).
    expect(Number(advised?.[1])).toBeGreaterThanOrEqual(Number(answered?.[1]) * 1.5 - 0.1);
    expect(Number(advised?.[1])).toBeLessThan(Number(answered?.[1]) * 1.5 + 1);
    expect(result.stdout).toContain('ping');
  });

  it('--no-heal: --timeout is the whole start-up; a slow start is not waited for, and the advice says why', async () => {
    const result = await startCli(['compile', '--command', `node ${fixture('slow-start.mjs')}`, '--env', slowStart('no-heal').env, '--timeout', '1', '--no-heal']).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The server did not answer initialize within 1 s.');
    expect(result.stderr).not.toContain('waited for as a slow start');
    expect(result.stderr).not.toContain('healed');
    expect(result.stderr).toContain('pass a longer --timeout (with healing off, start-up gets --timeout and no more, 1 s now)');
  });
});

describe('a server started with --command and reached at --url', () => {
  it('a port already taken: refused before starting the server, naming the port', async () => {
    const { port, server } = await occupyPort();
    cleanups.push(() => server.close());
    // A command that leaves a file behind when it runs: none is left.
    const started = join(work, 'started');
    const result = await startCli(['compile', '--command', `touch ${started}`, '--url', `http://127.0.0.1:${port}/mcp`, '--timeout', String(TIMEOUT_S)]).done;
    expect(result.code).toBe(2);
    expect(existsSync(started)).toBe(false);
    expect(result.stderr).toContain(`Port ${port} is already in use by another process, so the server was not started`);
    expect(result.stderr).toContain(`What to do: Free port ${port}: stop what listens there`);
    expect(result.stdout).toBe('');
  });

  it('listening on another port than --url: read from its log, healed to that port (a real published server)', async () => {
    const [given, actual] = [await freePort(), await freePort()];
    const args = ['compile', '--command', EVERYTHING, '--env', `PORT=${actual}`, '--url', `http://127.0.0.1:${given}/mcp`, '--timeout', String(TIMEOUT_S), '--format', 'json'];
    const healed = await startCli(args).done;
    expect(healed.code).toBe(0);
    expect(healed.ms).toBeLessThan(TIMEOUT_S * 1000);
    expect(healed.stderr).toContain(`healed after 2 attempts: used port ${actual}, where the server said it listens.`);
    expect(healed.stderr).toContain(`--url http://127.0.0.1:${actual}/mcp`);
    expect(Object.keys(JSON.parse(healed.stdout).tools)).toContain('echo');

    const diagnosed = await startCli([...args, '--no-heal']).done;
    expect(diagnosed.code).toBe(2);
    expect(diagnosed.ms).toBeLessThan(TIMEOUT_S * 1000);
    expect(diagnosed.stderr).toContain(`The server does not listen where --url says: it listens on port ${actual} (its log says http://127.0.0.1:${actual}/mcp), not on port ${given}.`);
  });

  it('a command that returns, leaving its server in the background: not captured, said so, and the daemon stopped', async () => {
    const port = await freePort();
    const tag = `daemon-${process.pid}-${port}`;
    const result = await startCli(['compile', '--command', `node ${fixture('daemonizes.mjs')} ${tag}`, '--env', `PORT=${port}`, '--url', `http://127.0.0.1:${port}/mcp`, '--timeout', String(TIMEOUT_S)]).done;
    expect(result.code).toBe(2);
    expect(result.ms).toBeLessThan(TIMEOUT_S * 1000);
    expect(result.stderr).toContain('The server exited with code 0 before answering initialize. A command that returns while its server keeps running in the background (a daemon, docker run -d) cannot be captured this way');
    // The daemon carried our marker: stopping the attempt stopped it too.
    expect(await processesMentioning(tag)).toEqual([]);
  });
});
