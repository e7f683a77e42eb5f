/**
 * File-system trouble is the user's to fix, so it is said plainly (what, which path) with
 * exit 2 and no stack trace, and no temporary file is left behind; output into a closed pipe
 * ends quietly with the exit code the command would have had.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { ROOT, fixture } from '../helpers/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'mcg-files-'));
const tools = (count: number, required: string[]) =>
  JSON.stringify({
    tools: Array.from({ length: count }, (_, i) => ({
      name: `tool_${i}`,
      description: `Does thing number ${i}, carefully, with a description long enough to fill a pipe quickly.`,
      inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } }, required },
    })),
  });
const small = join(dir, 'small.json');
const smallV2 = join(dir, 'small-v2.json');

function noStackTrace(text: string) {
  expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

/** Every file under `path` whose name says it is a temporary one. */
function temporaryFiles(path: string): string[] {
  return readdirSync(path, { recursive: true, encoding: 'utf8' }).filter((name) => /\.tmp$/.test(name));
}

beforeAll(() => {
  writeFileSync(small, tools(2, ['a']));
  writeFileSync(smallV2, tools(2, ['a', 'b']));
});

describe('file-system errors', () => {
  it('a lockfile path that is a directory: said before any server starts, no temporary file left', async () => {
    const target = join(dir, 'a-directory');
    mkdirSync(target);
    // A server that never answers: had it been started, this would wait for the whole timeout.
    const lock = await cli(['lock', '--command', `node ${fixture('never-answers.mjs')}`, '--lockfile', target]);
    expect(lock.code).toBe(2);
    expect(lock.stderr).toBe(`error: Cannot write the lockfile ${target}: it is a directory, not a file.\n`);
    expect(temporaryFiles(dir)).toEqual([]);
    const check = await cli(['check', small, '--lockfile', target]);
    expect(check.code).toBe(2);
    expect(check.stderr).toBe(`error: Cannot read the lockfile ${target}: it is a directory, not a file.\n`);
  });

  it('a missing parent directory, and a directory that cannot be written', async () => {
    const missing = join(dir, 'no-such-dir', 'x.lock.json');
    const result = await cli(['lock', small, '--lockfile', missing]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: Cannot write the lockfile ${missing}: the directory ${join(dir, 'no-such-dir')} does not exist: create it first.\n`);

    // Root writes anywhere a mode allows, but not in /sys.
    const readOnly = process.getuid?.() === 0 ? '/sys' : join(dir, 'read-only');
    if (readOnly !== '/sys') {
      mkdirSync(readOnly);
      chmodSync(readOnly, 0o555);
    }
    const path = join(readOnly, 'x.lock.json');
    const denied = await cli(['lock', small, '--lockfile', path]);
    expect(denied.code).toBe(2);
    expect(denied.stderr).toMatch(new RegExp(`^error: Cannot write the lockfile ${path}: (permission denied|its directory ${readOnly} is not writable \\(EACCES\\))\\.\\n$`));
    noStackTrace(denied.stderr);
  });

  it('an artifact path that cannot be written: exit 2 before any report is printed', async () => {
    const missing = join(dir, 'out', 'deltas.json');
    const result = await cli(['diff', small, smallV2, '--artifact', missing]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`error: Cannot write the delta artifact ${missing}: the directory ${join(dir, 'out')} does not exist: create it first.\n`);
    const check = await cli(['check', smallV2, '--lockfile', join(dir, 'none.lock.json'), '--artifact', dir]);
    expect(check.code).toBe(2);
    expect(check.stderr).toBe(`error: Cannot write the delta artifact ${dir}: it is a directory, not a file.\n`);
  });

  it('an artifact on /dev/stderr redirected to a file is appended in place, after what was logged there', () => {
    const err = join(dir, 'redirected-stderr.txt');
    const script = `node ${resolve(ROOT, 'lib/cli.js')} diff '${small}' '${smallV2}' --format json --artifact /dev/stderr --quiet 2>"$ERR" >/dev/null; echo "status=$?"`;
    const result = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: { ...process.env, ERR: err, NO_COLOR: '1' } });
    expect(result.stdout).toContain('status=1');
    const logged = readFileSync(err, 'utf8');
    const at = logged.indexOf('{\n');
    expect(logged.slice(0, at)).toContain('✗ 2 changes at or above --fail-on BREAKING');
    expect(JSON.parse(logged.slice(at)).summary.counts.BREAKING).toBe(2);
  });

  it('a directory given where a file is read', async () => {
    const result = await cli(['diff', dir, small]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: Cannot read the file ${dir}: it is a directory, not a file.\n`);
  });

  it('a byte order mark (as Windows tools write) is read past, in a dump, a config and a lockfile', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'mcg-bom-'));
    const withMark = (name: string, text: string) => writeFileSync(join(repo, name), `\uFEFF${text}`);
    withMark('old.json', tools(2, ['a']));
    withMark('new.json', tools(2, ['a', 'b']));
    const diff = await cli(['diff', 'old.json', 'new.json'], { cwd: repo });
    expect(diff.stderr).not.toContain('not valid JSON');
    expect(diff.stdout).toContain('property "b" is now required');
    expect(diff.code).toBe(1);
    withMark('mcp-contract-guard.config.json', JSON.stringify({ servers: { demo: { file: 'old.json' } } }));
    expect((await cli(['lock', '--quiet'], { cwd: repo })).code).toBe(0);
    withMark('mcp-contracts.lock.json', readFileSync(join(repo, 'mcp-contracts.lock.json'), 'utf8'));
    const check = await cli(['check'], { cwd: repo });
    expect(check.stdout).toContain('✓ unknown matches mcp-contracts.lock.json (2 tools)');
    expect(check.code).toBe(0);
  });

  it('UTF-16 (as Windows PowerShell\'s `>` writes a dump) is decoded, with or without a byte order mark, in either byte order', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'mcg-utf16-'));
    const littleEndian = (text: string) => Buffer.from(text, 'utf16le');
    const encodings: Record<string, (text: string) => Buffer> = {
      'UTF-16LE with a mark': (text) => Buffer.concat([Buffer.from([0xff, 0xfe]), littleEndian(text)]),
      'UTF-16LE': littleEndian,
      'UTF-16BE with a mark': (text) => Buffer.concat([Buffer.from([0xfe, 0xff]), littleEndian(text).swap16()]),
      'UTF-16BE': (text) => littleEndian(text).swap16(),
    };
    const dump = (required: string[]) =>
      JSON.stringify({ tools: [{ name: 'café', description: 'Réserve ✓', inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required } }] });
    for (const [encoding, encode] of Object.entries(encodings)) {
      writeFileSync(join(repo, 'old.json'), encode(dump(['a'])));
      writeFileSync(join(repo, 'new.json'), encode(dump(['a', 'b'])));
      const diff = await cli(['diff', 'old.json', 'new.json'], { cwd: repo });
      expect(diff.stdout, encoding).toContain('tool café');
      expect(diff.stdout, encoding).toContain('property "b" is now required');
      const compiled = await cli(['compile', 'old.json', '--format', 'json'], { cwd: repo });
      expect(JSON.parse(compiled.stdout).tools['café'].contract.description, encoding).toBe('Réserve ✓');
    }
  });

  it('lock replaces the lockfile atomically, keeping its permissions and leaving no temporary file', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'mcg-atomic-'));
    const lockfile = join(repo, 'mcp-contracts.lock.json');
    expect((await cli(['lock', small, '--quiet'], { cwd: repo })).code).toBe(0);
    chmodSync(lockfile, 0o600);
    const updated = await cli(['lock', smallV2, '--quiet'], { cwd: repo });
    expect(updated.stdout).toContain('(updated)');
    expect(readFileSync(lockfile, 'utf8')).toContain('"b"');
    expect(statSync(lockfile).mode & 0o777).toBe(0o600);
    expect(readdirSync(repo)).toEqual(['mcp-contracts.lock.json']);
  });
});

describe('a closed pipe (EPIPE)', () => {
  const big = join(dir, 'big.json');
  const bigV2 = join(dir, 'big-v2.json');

  beforeAll(() => {
    // Far more than a pipe holds, so the writer really meets the closed pipe.
    writeFileSync(big, tools(3000, ['a']));
    writeFileSync(bigV2, tools(3000, ['a', 'b']));
  });

  /** `mcp-contract-guard ARGS | head -1` in bash: what head printed, the CLI's exit status and its stderr. */
  function piped(args: string[]): { head: string; status: number; stderr: string } {
    const quoted = args.map((a) => `'${a}'`).join(' ');
    const script = `node ${resolve(ROOT, 'lib/cli.js')} ${quoted} 2>"$ERR" | head -1; echo "status=\${PIPESTATUS[0]}"`;
    const err = join(dir, `stderr-${Math.random().toString(36).slice(2)}.txt`);
    const result = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: { ...process.env, ERR: err, NO_COLOR: '1' } });
    const status = Number(/status=(\d+)/.exec(result.stdout)?.[1]);
    return { head: result.stdout.split('\n')[0]!, status, stderr: readFileSync(err, 'utf8') };
  }

  it('compile … | head -1 ends quietly with exit 0', () => {
    expect(piped(['compile', big, '--quiet'])).toEqual({ head: 'unknown: 3000 tools', status: 0, stderr: '' });
    expect(piped(['compile', big, '--format', 'json', '--quiet'])).toEqual({ head: '{', status: 0, stderr: '' });
  });

  it('diff … | head -1 keeps the exit code of the gate', () => {
    expect(piped(['diff', big, bigV2])).toEqual({ head: 'BREAKING 3000 · RISKY 0 · SAFE 0 · COSMETIC 0 · semver: major', status: 1, stderr: '' });
    expect(piped(['diff', big, bigV2, '--fail-on', 'never'])).toMatchObject({ status: 0, stderr: '' });
  });
  // The CLI writes a pipe synchronously (src/cli/process.ts); one another process left
  // non-blocking refuses a write once full (EAGAIN), and the stream must then take the rest.
  it('a pipe left non-blocking and full: the whole output arrives, in order, once the reader reads', () => {
    const args = ['diff', big, bigV2, '--format', 'json'];
    const expected = spawnSync(process.execPath, [resolve(ROOT, 'lib/cli.js'), ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(expected.stdout.length).toBeGreaterThan(1 << 20);
    // Python sets O_NONBLOCK on the pipe's write end and reads nothing until the pipe is full.
    const harness = [
      'import fcntl, os, struct, subprocess, sys, termios',
      'r, w = os.pipe()',
      'os.set_blocking(w, False)',
      'child = subprocess.Popen(sys.argv[1:], stdout=w, stderr=subprocess.DEVNULL)',
      'os.close(w)',
      'size = fcntl.fcntl(r, 1032)  # F_GETPIPE_SZ',
      'while struct.unpack("i", fcntl.ioctl(r, termios.FIONREAD, b"    "))[0] < size and child.poll() is None: os.sched_yield()',
      'chunks = []',
      'while (chunk := os.read(r, 1 << 16)): chunks.append(chunk)',
      'sys.stdout.buffer.write(b"".join(chunks))',
      'sys.exit(child.wait())',
    ].join('\n');
    const result = spawnSync('python3', ['-c', harness, process.execPath, resolve(ROOT, 'lib/cli.js'), ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(result.status).toBe(expected.status);
    expect(result.stdout === expected.stdout).toBe(true);
  });

  // A terminal is written synchronously too (src/cli/process.ts), and still known to be one.
  it('a terminal: the whole output arrives, colored, as a pipe gets it but for the colors', () => {
    const args = ['diff', big, bigV2];
    const { NO_COLOR: _noColor, FORCE_COLOR: _forceColor, ...env } = process.env;
    const piped = spawnSync(process.execPath, [resolve(ROOT, 'lib/cli.js'), ...args], { encoding: 'utf8', env, maxBuffer: 1 << 26 });
    // Python gives the CLI a pseudo-terminal as stdout and reads it until the CLI closes it.
    const harness = [
      'import os, pty, subprocess, sys',
      'main, terminal = pty.openpty()',
      'child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=terminal, stderr=subprocess.DEVNULL)',
      'os.close(terminal)',
      'chunks = []',
      'while True:',
      '    try: chunk = os.read(main, 1 << 16)',
      '    except OSError: break  # EIO: the CLI closed the terminal',
      '    if not chunk: break',
      '    chunks.append(chunk)',
      'sys.stdout.buffer.write(b"".join(chunks))',
      'sys.exit(child.wait())',
    ].join('\n');
    const result = spawnSync('python3', ['-c', harness, process.execPath, resolve(ROOT, 'lib/cli.js'), ...args], { encoding: 'utf8', env, maxBuffer: 1 << 26 });
    expect(result.status).toBe(piped.status);
    // The terminal turns each newline into CR LF.
    const shown = result.stdout.replaceAll('\r\n', '\n');
    expect(shown).toContain('\u001b[');
    expect(shown.replace(/\u001b\[[0-9;]*m/g, '') === piped.stdout).toBe(true);
  });
});
