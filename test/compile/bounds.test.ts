/**
 * Nothing a server sends grows our memory without bound: over 1 GB of output on stdout and
 * stderr, an endless HTTP body or SSE event, pages that never end. Each capture ends with a
 * clear error, and the CLI's peak resident memory stays bounded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '../../src/compile/channel.js';
import { fixture, freePort } from '../helpers/processes.js';
import { startCli } from '../helpers/cli.js';

/**
 * Far below what keeping the output would take (over 1 GB), with room over what reading one
 * message of `MAX_MESSAGE_BYTES` (64 MiB) costs on top of a running CLI (about 150 MB).
 */
const PEAK_RSS_LIMIT_KB = 400 * 1024;

describe('a server that floods stdio', () => {
  it('1.1 GB on stderr (a 550 MB line, then 1 KB lines), then an endless stdout line: bounded memory, a clear error', async () => {
    const result = await startCli(['compile', '--command', `node ${fixture('flood.mjs')}`, '--timeout', '120', '--no-heal'], { FLOOD_STDERR_MB: '1100' }).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`the server wrote more than ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB on one stdout line (a flood, not a message); capture stopped`);
    expect(result.peakRssKb).toBeGreaterThan(0);
    expect(result.peakRssKb).toBeLessThan(PEAK_RSS_LIMIT_KB);
    // What is quoted of the flood is a few bounded lines, not the flood.
    expect(result.stderr.length).toBeLessThan(5000);
  });
});

describe('an HTTP server whose answer never ends', () => {
  let server: ChildProcess;
  let base: string;
  beforeAll(async () => {
    const port = await freePort();
    server = spawn(process.execPath, [fixture('http-flood.mjs')], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    await new Promise((resolve) => server.stderr!.once('data', resolve));
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => server.kill());

  it.each([
    ['/json', 'answered initialize with a body of more than 64 MiB; capture stopped'],
    ['/sse', 'sent an event of more than 64 MiB for initialize; capture stopped'],
  ])('%s: stops at the message cap, with bounded memory', async (path, message) => {
    const result = await startCli(['compile', '--url', `${base}${path}`, '--timeout', '60', '--no-heal']).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${base}${path} ${message}`);
    expect(result.peakRssKb).toBeLessThan(PEAK_RSS_LIMIT_KB);
  });
});

describe('pagination', () => {
  it('empty pages with fresh cursors forever: stops at the page cap, saying why', async () => {
    const result = await startCli(['compile', '--command', `node ${fixture('empty-pages.mjs')}`, '--no-heal']).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tools/list sent 1,000 pages (0 tools in all) and still handed out a new cursor; capture stopped (is its pagination looping?)');
  });
});
