/**
 * The capture file: what a job that runs the pull request's servers (`mode: capture`, with a
 * token that may do nothing and no secret) hands to the job that reviews and comments without
 * running any code of the pull request (`capture-file`). Its types, its one reader with caps,
 * and its writer.
 *
 * It is written where pull request code ran, so the reader takes it as hostile: its size and
 * nesting are capped before parsing; every object must hold exactly the fields this version
 * writes (an unknown one, `__proto__` included, is refused); every string and list is capped,
 * the commit SHA and the runner's command files checked; the servers, named by the pull
 * request, are kept in a null-prototype record (a server called `__proto__` is a name like any
 * other). Problems are collected, at most 20, into one `CaptureFileError` naming where and why.
 *
 * Each server's contracts are a lockfile's text, which this reader only caps: the lockfile's
 * own reader (contract/lockfile.ts) parses it and checks its digests, and the Action checks
 * that the file is of its repository and of the commit under review (github/io/capture-file.ts).
 */
import { Reader, formChecks, type Check } from './form.js';
import { canonicalJson, isJsonObject, nullPrototypeRecord } from './json.js';
import { describe, kindOf, parseWithin } from './read.js';

export const CAPTURE_VERSION = 1;
export const CAPTURE_KIND = 'mcp-contract-guard-capture';
/** The name of the file `mode: capture` writes (in RUNNER_TEMP), as the reviewing job downloads it. */
export const CAPTURE_FILE_NAME = 'mcp-contract-guard-capture.json';

/**
 * The runner's command files (GITHUB_OUTPUT sets outputs, GITHUB_ENV a later step's
 * environment…): the Action undoes what a server writes to them (github/io/command-files.ts),
 * and the capture file names those it had to, for the reviewing job to fail on.
 */
export const COMMAND_FILES = ['GITHUB_OUTPUT', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY'] as const;
export type CommandFile = (typeof COMMAND_FILES)[number];

/** Plain numbers, which a bundler can leave out of a bundle that reads no capture file (the runtime's); the tests hold them to what they stand for. */
export const CAPTURE_FILE_CAPS = {
  /** The longest text read, 64 MiB: the Action reads no larger file (github/io/paths.ts); a lockfile's text may be as long. */
  length: 67_108_864,
  /** The deepest nesting this version writes: the file, its servers, a server, its notes. */
  depth: 4,
  servers: 100,
  /** The longest server name (an id from the config, or a lockfile's path). */
  serverName: 500,
} as const;

/** One server as captured: its contracts as a lockfile's text, or why it could not be captured. */
export type CapturedServer = { lockfile: string; notes: string[]; warnings: string[] } | { error: string };

export interface CaptureFile {
  version: typeof CAPTURE_VERSION;
  kind: typeof CAPTURE_KIND;
  repository: string;
  headSha: string;
  /** Runner command files the servers wrote to (their lines were undone): the review fails on them. */
  tampered: CommandFile[];
  /** By server id; read back as a null-prototype record. */
  servers: Record<string, CapturedServer>;
}

/** The text is not a capture file of this version; `problems` says where and why. */
export class CaptureFileError extends Error {
  override readonly name = 'CaptureFileError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/** The file as written: canonical JSON (sorted keys, 2-space indent, newline). */
export function renderCaptureFile(file: CaptureFile): string {
  return canonicalJson(file, true);
}

/** Parse capture file text within the caps, then read it (see the module comment). */
export function readCaptureFileText(text: string): CaptureFile {
  const limits = { maxLength: CAPTURE_FILE_CAPS.length, maxDepth: CAPTURE_FILE_CAPS.depth };
  return readCaptureFile(parseWithin(text, limits, (problem) => new CaptureFileError([`it ${problem}`])));
}

/** Read parsed data as a capture file. Throws `CaptureFileError`. */
export function readCaptureFile(data: unknown): CaptureFile {
  if (!isJsonObject(data)) throw new CaptureFileError([`it must be a JSON object (a capture file), got ${kindOf(data)}`]);
  if (data.kind !== CAPTURE_KIND) {
    throw new CaptureFileError([`it is not a capture file: its kind is ${data.kind === undefined ? 'missing' : describe(data.kind)}, not ${JSON.stringify(CAPTURE_KIND)}`]);
  }
  if (data.version !== CAPTURE_VERSION) {
    throw new CaptureFileError([`it has version ${describe(data.version)}; this mcp-contract-guard reads version ${CAPTURE_VERSION} (capture and review with the same version)`]);
  }
  const reader = new Reader();
  captureFileForm()(data, '', reader);
  if (reader.problems.length > 0) throw new CaptureFileError(reader.problems);
  const file = data as unknown as CaptureFile;
  const servers = nullPrototypeRecord<CapturedServer>();
  for (const [id, server] of Object.entries(file.servers)) servers[id] = server;
  return { ...file, servers };
}

/**
 * The form of a capture file, as checks. Built when a file is read rather than when the module
 * loads: a bundle that reads none (the runtime's) then leaves all of it out.
 */
function captureFileForm(): Check {
  const { list, matching, object, oneOf, record, text } = formChecks();
  const captured = object('a captured server', {
    lockfile: text(CAPTURE_FILE_CAPS.length),
    notes: list(text(3_000), 50),
    warnings: list(text(3_000), 500),
  });
  const failed = object('a server that could not be captured', { error: text(20_000) });
  /** Captured, or why not: a server's entry holds its lockfile's text or an error, never both. */
  const server: Check = (value, at, reader) => (isJsonObject(value) && Object.hasOwn(value, 'error') ? failed : captured)(value, at, reader);
  return object('a capture file', {
    version: oneOf([CAPTURE_VERSION]),
    kind: oneOf([CAPTURE_KIND]),
    repository: text(200),
    /** SHA-1, or SHA-256 in a repository that uses it. */
    headSha: matching(/^[0-9a-f]{40}$|^[0-9a-f]{64}$/, 'a commit SHA (40 or 64 hex digits)'),
    tampered: list(oneOf(COMMAND_FILES), COMMAND_FILES.length),
    servers: record('an object of servers by id', server, { max: CAPTURE_FILE_CAPS.servers, maxName: CAPTURE_FILE_CAPS.serverName }),
  });
}
