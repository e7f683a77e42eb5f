/**
 * The capture file as hostile input: the job that runs the pull request's servers writes it,
 * and the job that reviews and comments reads it. Every file this version writes reads back as
 * written, byte for byte; anything else (too big, too deep, a field it does not write, a
 * prototype key, a SHA that is not one, a string or list past its cap, another kind or version)
 * is refused with one error naming each place and why, never a crash. Server names come from
 * the pull request: `__proto__` and `constructor` are names like any other. The lockfile text
 * each server holds is only capped here: contract/lockfile.ts reads it (test/action/two-jobs).
 */
import { describe, expect, it } from 'vitest';
import {
  CAPTURE_FILE_CAPS,
  CAPTURE_KIND,
  CAPTURE_VERSION,
  COMMAND_FILES,
  CaptureFileError,
  readCaptureFile,
  readCaptureFileText,
  renderCaptureFile,
  type CaptureFile,
  type CapturedServer,
} from '../../src/protocol/index.js';
import { MAX_READ_BYTES } from '../../src/github/io/paths.js';

const SHA = 'b'.repeat(40);
/** Opaque to this reader: any text stands for a lockfile's. */
const LOCKFILE = '{\n  "lockfileVersion": 1\n}\n';

function fileOf(servers: Record<string, CapturedServer> = { 'mcp-contracts.lock.json': { lockfile: LOCKFILE, notes: ['Healed: the server needed --stdio.'], warnings: ['tool "x" has no description'] } }): CaptureFile {
  return { version: CAPTURE_VERSION, kind: CAPTURE_KIND, repository: 'acme/tools', headSha: SHA, tampered: [], servers };
}

/** The file as JSON data, to forge. */
function forgeable(file = fileOf()): Record<string, unknown> & { servers: Record<string, Record<string, unknown>> } {
  return JSON.parse(renderCaptureFile(file)) as Record<string, unknown> & { servers: Record<string, Record<string, unknown>> };
}

/** The problems `text` is refused for (fails when it is read). */
function problemsOf(text: string): readonly string[] {
  try {
    readCaptureFileText(text);
  } catch (error) {
    if (error instanceof CaptureFileError) return error.problems;
    throw error;
  }
  throw new Error('the file was read');
}

describe('a capture file this version writes', () => {
  it('reads back as written, byte for byte: servers captured and not, every command file, a SHA-256 commit', () => {
    const file: CaptureFile = {
      ...fileOf({ billing: { error: 'The server exited with code 1 before it answered.' }, 'mcp-contracts.lock.json': { lockfile: LOCKFILE, notes: [], warnings: [] } }),
      headSha: 'c'.repeat(64),
      tampered: [...COMMAND_FILES],
    };
    const text = renderCaptureFile(file);
    const read = readCaptureFileText(text);
    expect(read).toEqual(file);
    expect(renderCaptureFile(read)).toBe(text);
    expect(readCaptureFileText(renderCaptureFile(fileOf({}))).servers).toEqual({});
  });

  it('is written in canonical order: the same capture gives the same bytes, whatever order it was built in', () => {
    const file = fileOf({ zeta: { error: 'x' }, alpha: { warnings: [], notes: [], lockfile: LOCKFILE } });
    const reversed = { servers: file.servers, tampered: [], headSha: SHA, repository: 'acme/tools', kind: CAPTURE_KIND, version: CAPTURE_VERSION } as const;
    expect(renderCaptureFile({ ...reversed, tampered: [] })).toBe(renderCaptureFile(file));
    expect(renderCaptureFile(file)).toMatch(/^\{\n {2}"headSha": "b{40}",\n {2}"kind": "mcp-contract-guard-capture",\n {2}"repository": "acme\/tools",\n {2}"servers": \{\n {4}"alpha": \{\n {6}"lockfile": /);
    expect(renderCaptureFile(file).endsWith('}\n')).toBe(true);
  });

  it('keeps server names (the pull request\'s) as data, __proto__ and constructor included, in a null-prototype record', () => {
    // Written as the capture job could write it: a plain object literal cannot hold the key `__proto__`.
    const text = renderCaptureFile(fileOf({ _proto_x: { lockfile: LOCKFILE, notes: [], warnings: [] }, constructor: { error: 'no' } })).replace('"_proto_x"', '"__proto__"');
    const { servers } = readCaptureFileText(text);
    expect(Object.keys(servers).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.hasOwn(servers, '__proto__') && servers.__proto__).toEqual({ lockfile: LOCKFILE, notes: [], warnings: [] });
    expect(servers.constructor).toEqual({ error: 'no' });
    // Nothing inherited: no name the file did not give.
    expect('toString' in servers || 'hasOwnProperty' in servers).toBe(false);
    expect(renderCaptureFile(readCaptureFileText(text))).toBe(text);
  });

  it('is read with a byte order mark (a Windows editor saved it)', () => {
    expect(readCaptureFileText(`\ufeff${renderCaptureFile(fileOf())}`)).toEqual(fileOf());
  });

  it('is read up to the size the Action reads; a lockfile may be nearly all of it', () => {
    expect(CAPTURE_FILE_CAPS.length).toBe(MAX_READ_BYTES);
    const lockfile = 'x'.repeat(CAPTURE_FILE_CAPS.length - 1_000);
    expect(readCaptureFileText(renderCaptureFile(fileOf({ big: { lockfile, notes: [], warnings: [] } }))).servers.big).toEqual({ lockfile, notes: [], warnings: [] });
  });
});

describe('a hostile capture file is refused, each problem named with its place and why', () => {
  it('too big: refused before it is parsed', () => {
    const text = renderCaptureFile(fileOf());
    expect(problemsOf(text + ' '.repeat(CAPTURE_FILE_CAPS.length - text.length + 1))).toEqual(['it is 67,108,865 characters long; the limit is 67,108,864']);
  });

  it('too deep: refused before it is parsed, deeper than anything this version writes', () => {
    const file = forgeable();
    file.servers['mcp-contracts.lock.json']!.notes = [['nested']];
    expect(problemsOf(JSON.stringify(file))).toEqual(['it nests 5 levels deep; the limit is 4']);
    expect(problemsOf('['.repeat(100_000))).toEqual(['it nests over 10,000 levels deep; the limit is 4']);
  });

  it('not JSON, not an object, another kind of file, another version', () => {
    expect(problemsOf('{')[0]).toMatch(/^it is not valid JSON \(/);
    expect(problemsOf('[]')).toEqual(['it must be a JSON object (a capture file), got an array']);
    expect(problemsOf(JSON.stringify({ version: 1, repository: 'acme/tools', pullRequest: 7, headSha: SHA, reviews: [] }))).toEqual(['it is not a capture file: its kind is missing, not "mcp-contract-guard-capture"']);
    expect(problemsOf(JSON.stringify({ ...forgeable(), kind: 'mcp-contract-guard-review' }))).toEqual(['it is not a capture file: its kind is "mcp-contract-guard-review", not "mcp-contract-guard-capture"']);
    expect(problemsOf(JSON.stringify({ ...forgeable(), version: 2 }))).toEqual(['it has version 2; this mcp-contract-guard reads version 1 (capture and review with the same version)']);
  });

  it('a field this version does not write, at any level', () => {
    const file = forgeable(fileOf({ a: { lockfile: LOCKFILE, notes: [], warnings: [] }, b: { error: 'x' } }));
    file.token = 'ghs_x';
    file.servers.a!.contracts = {};
    file.servers.b!.lockfile = LOCKFILE;
    expect(problemsOf(JSON.stringify(file))).toEqual([
      'token is not a field of a capture file',
      'servers.a.contracts is not a field of a captured server',
      'servers.b.lockfile is not a field of a server that could not be captured',
    ]);
  });

  it('a __proto__ key, at every level where the file has fields, is refused (a server may be named so: the next test)', () => {
    const text = renderCaptureFile(fileOf({ a: { lockfile: LOCKFILE, notes: [], warnings: [] }, b: { error: 'x' } }));
    expect(problemsOf(`{"__proto__": {"tampered": []}, ${text.slice(1)}`)).toEqual(['__proto__ is not a field of a capture file']);
    expect(problemsOf(text.replace('"a": {', '"a": {"__proto__": {"lockfile": "x"},'))).toEqual(['servers.a.__proto__ is not a field of a captured server']);
    expect(problemsOf(text.replace('"b": {', '"b": {"__proto__": {},'))).toEqual(['servers.b.__proto__ is not a field of a server that could not be captured']);
  });

  it('a commit SHA that is not 40 (or 64) lower-case hex digits', () => {
    for (const headSha of ['abc1234', 'B'.repeat(40), 'b'.repeat(41), 7]) {
      expect(problemsOf(JSON.stringify({ ...forgeable(), headSha }))).toEqual([`headSha must be a commit SHA (40 or 64 hex digits), got ${JSON.stringify(headSha)}`]);
    }
  });

  it('strings past their cap: the repository, a note, a warning, an error, a server\'s name', () => {
    const file = forgeable(fileOf({ a: { lockfile: LOCKFILE, notes: ['x'.repeat(3_001)], warnings: ['w'.repeat(3_001)] }, b: { error: 'e'.repeat(20_001) }, ['n'.repeat(501)]: { error: 'x' } }));
    file.repository = 'r'.repeat(201);
    expect(problemsOf(JSON.stringify(file))).toEqual([
      'repository must be a string of at most 200 characters, got 201 characters',
      'servers.a.notes[0] must be a string of at most 3,000 characters, got 3,001 characters',
      'servers.a.warnings[0] must be a string of at most 3,000 characters, got 3,001 characters',
      'servers.b.error must be a string of at most 20,000 characters, got 20,001 characters',
      `servers["${'n'.repeat(59)}…] is a name of 501 characters; at most 500`,
    ]);
  });

  it('lists past their cap: servers, notes, warnings, command files', () => {
    const many = Object.fromEntries(Array.from({ length: CAPTURE_FILE_CAPS.servers + 1 }, (_, i) => [`server-${i}`, { error: 'x' }]));
    expect(problemsOf(renderCaptureFile(fileOf(many)))).toEqual(['servers holds 101 entries; at most 100']);
    const file = forgeable(fileOf({ a: { lockfile: LOCKFILE, notes: Array.from({ length: 51 }, () => 'n'), warnings: Array.from({ length: 501 }, () => 'w') } }));
    file.tampered = [...COMMAND_FILES, 'GITHUB_ENV'];
    expect(problemsOf(JSON.stringify(file))).toEqual(['tampered holds 6 items; at most 5', 'servers.a.notes holds 51 items; at most 50', 'servers.a.warnings holds 501 items; at most 500']);
  });

  it('wrong types, a command file that is not one, a server entry that is neither captured nor failed, a missing field', () => {
    const file = forgeable(fileOf({ a: { lockfile: LOCKFILE, notes: [], warnings: [] }, b: { error: 'x' } }));
    file.tampered = ['GITHUB_TOKEN'];
    file.repository = null;
    file.servers.a!.lockfile = 42;
    delete file.servers.a!.warnings;
    file.servers.c = [] as never;
    file.servers.d = {};
    expect(problemsOf(JSON.stringify(file))).toEqual([
      'repository must be a string of at most 200 characters, got null',
      'tampered[0] must be one of "GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY", got "GITHUB_TOKEN"',
      'servers.a.lockfile must be a string of at most 67,108,864 characters, got 42',
      'servers.a has no "warnings"',
      'servers.c must be a captured server, got an array',
      'servers.d has no "lockfile"',
      'servers.d has no "notes"',
      'servers.d has no "warnings"',
    ]);
    expect(problemsOf(JSON.stringify({ ...forgeable(), servers: [] }))).toEqual(['servers must be an object of servers by id, got an array']);
    const missing = forgeable();
    delete missing.servers;
    expect(problemsOf(JSON.stringify(missing))).toEqual(['it has no "servers"']);
  });

  it('at most 20 problems, however many the file holds', () => {
    const file = forgeable(fileOf(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`s${String(i).padStart(2, '0')}`, { error: 'x' }]))));
    for (const server of Object.values(file.servers)) server.error = 1;
    const problems = problemsOf(JSON.stringify(file));
    expect(problems).toHaveLength(20);
    expect(problems[19]).toBe('servers.s19.error must be a string of at most 20,000 characters, got 1');
  });

  it('parsed data is checked the same way', () => {
    expect(() => readCaptureFile({ ...forgeable(), extra: 1 })).toThrow(new CaptureFileError(['extra is not a field of a capture file']));
  });
});
