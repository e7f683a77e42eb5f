import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ChannelError, RpcError, type AttemptEvidence } from './channel.js';
import { portOf } from './http.js';
import { HANDSHAKE_PROTOCOL_VERSION, STATELESS_PROTOCOL_VERSION } from './protocol.js';
import type { ServerSource } from './source.js';

/**
 * Why a server could not be captured, in the words a user acts on. The classifier reads only
 * what the failed attempt left (`AttemptEvidence`) plus the source it tried, and the file
 * system facts a user would check first (does the script exist, is the binary under
 * node_modules/.bin). Detectors run in order; the first that recognises the failure wins.
 */
export type FailureCategory =
  | 'command-not-found'
  | 'permission-denied'
  | 'missing-build-output'
  | 'missing-env'
  | 'missing-dependency'
  | 'auth-failed'
  | 'connection-refused'
  | 'tls-failed'
  | 'port-taken'
  | 'port-mismatch'
  | 'timeout'
  | 'transport-mismatch'
  | 'protocol-mismatch'
  | 'crashed'
  | 'invalid-response'
  | 'unknown';

export interface Diagnosis {
  category: FailureCategory;
  /** What happened and why, in plain words. */
  explanation: string;
  /** How sure the classifier is (0–1). */
  confidence: number;
  /** Environment variable names the server said it needs. */
  missingEnv?: string[];
  /** The file the command points at that does not exist. */
  missingPath?: string;
  /** The package the server imports that is not installed where it runs. */
  missingPackage?: string;
  /** The HTTP address the server's log said it listens on (not the one we were told). */
  announcedUrl?: string;
  /** JSON-RPC messages arrived prefixed by log text on the same stdout line. */
  pollutedStdout?: boolean;
  /** The URL's host name does not resolve: no server to start, a name to fix. */
  unresolvedHost?: boolean;
  /** The TLS handshake failed: the certificate is not trusted, or the port speaks plain HTTP. */
  tls?: 'untrusted-certificate' | 'plain-http';
}

export interface FailedAttempt {
  source: ServerSource;
  error: unknown;
  evidence: AttemptEvidence;
}

type Detector = (attempt: FailedAttempt) => Diagnosis | undefined;

export function diagnose(attempt: FailedAttempt): Diagnosis {
  for (const detector of DETECTORS) {
    const diagnosis = detector(attempt);
    if (diagnosis) return diagnosis;
  }
  return {
    category: 'unknown',
    confidence: 0.2,
    explanation: `${describeError(attempt.error)}.${stderrExcerpt(attempt.evidence)}`,
  };
}

/** Why Node refused a server's certificate, by the error code it gives (OpenSSL's names). */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'it is signed by a certificate authority Node does not know (a private or self-signed one)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'it is signed by a certificate authority Node does not know (a private one, or a corporate proxy)',
  UNABLE_TO_GET_ISSUER_CERT: 'its issuer is not known',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'it is signed by a certificate authority Node does not know (a private one), or the server does not send its intermediate certificates',
  CERT_HAS_EXPIRED: 'it has expired',
  CERT_NOT_YET_VALID: 'it is not valid yet (or this machine\'s clock is wrong)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'it was not issued for this host name',
  CERT_REVOKED: 'it was revoked',
};

const DETECTORS: Detector[] = [
  function commandNotFound({ source, evidence }) {
    if (source.kind !== 'command' || evidence.spawnErrorCode !== 'ENOENT') return undefined;
    if (source.cwd && !existsSync(source.cwd)) {
      return { category: 'command-not-found', confidence: 0.95, explanation: `The working directory "${oneLine(source.cwd)}" does not exist.` };
    }
    const program = source.command[0] as string;
    const local = projectBinary(source.cwd ?? process.cwd(), program);
    const hint = local !== undefined
      ? ` It is installed in this project (${oneLine(local)}) but not on PATH.`
      : ` Check the spelling, or install it first (a package's own binary lives in node_modules/.bin after npm install).`;
    return { category: 'command-not-found', confidence: 0.95, explanation: `The command "${oneLine(program)}" was not found on PATH.${hint}` };
  },

  function permissionDenied({ source, evidence }) {
    if (source.kind !== 'command' || evidence.spawnErrorCode !== 'EACCES') return undefined;
    const program = oneLine(source.command[0] as string);
    return {
      category: 'permission-denied',
      confidence: 0.95,
      explanation: `"${program}" exists but is not executable (permission denied). Make it executable (chmod +x ${program}) or run it through its interpreter (e.g. "node ${program}").`,
    };
  },

  function missingBuildOutput({ source, evidence }) {
    if (source.kind !== 'command') return undefined;
    const missing = missingScript(source) ?? missingModuleInStderr(evidence);
    if (!missing) return undefined;
    return {
      category: 'missing-build-output',
      confidence: 0.9,
      missingPath: missing,
      explanation: `The command points at "${oneLine(missing)}", which does not exist: the server has probably not been built yet.`,
    };
  },

  function missingDependency({ source, evidence }) {
    if (source.kind !== 'command') return undefined;
    const name = missingPackageIn(evidence.stderrTail.join('\n'));
    if (name === undefined) return undefined;
    return {
      category: 'missing-dependency',
      confidence: 0.85,
      missingPackage: name,
      explanation: `The server stopped because it imports "${oneLine(name)}", which is not installed where it runs.${stderrExcerpt(evidence)}`,
    };
  },

  function portTaken({ error, source, evidence }) {
    if (!(error instanceof ChannelError) || error.failure !== 'port-taken' || source.kind !== 'command' || !source.url) return undefined;
    const port = portOf(source.url);
    if (evidence.pid === undefined) {
      return {
        category: 'port-taken',
        confidence: 0.95,
        explanation: `Port ${port} is already in use by another process, so the server was not started: it could not have listened there, and we would have captured whatever answers instead.`,
      };
    }
    return {
      category: 'port-taken',
      confidence: 0.85,
      explanation: `The server ${error.message.replace(/^the server /, '')}, so it was not captured.${stderrExcerpt(evidence)}`,
    };
  },

  function portMismatch({ error, evidence }) {
    if (!(error instanceof ChannelError) || error.failure !== 'port-mismatch' || !evidence.announcedUrl) return undefined;
    return {
      category: 'port-mismatch',
      confidence: 0.9,
      announcedUrl: evidence.announcedUrl,
      explanation: `The server does not listen where --url says: ${error.message.replace(/^the server /, 'it ')}.`,
    };
  },

  function missingEnv({ evidence }) {
    const names = envNamesIn(evidence.stderrTail.join('\n'));
    if (names.length === 0) return undefined;
    return {
      category: 'missing-env',
      confidence: 0.85,
      missingEnv: names,
      explanation: `The server stopped because it needs environment variable${names.length > 1 ? 's' : ''} ${names.join(', ')}.${stderrExcerpt(evidence)}`,
    };
  },

  function authFailed({ error, evidence }) {
    const status = evidence.httpStatus;
    const text = `${describeError(error)}\n${evidence.stderrTail.join('\n')}`;
    const byStatus = status === 401 || status === 403;
    if (!byStatus && !/\b(unauthori[sz]ed|authentication (failed|required)|invalid (api[ _-]?key|token|credentials)|forbidden)\b/i.test(text)) return undefined;
    return {
      category: 'auth-failed',
      confidence: byStatus ? 0.9 : 0.7,
      explanation: `The server refused the credentials${status ? ` (HTTP ${status})` : ''}: the token or key it was given is missing, wrong or lacks permission.`,
    };
  },

  function tlsFailed({ evidence }) {
    const code = evidence.networkErrorCode;
    if (code === undefined) return undefined;
    if (code === 'ERR_SSL_WRONG_VERSION_NUMBER') {
      return { category: 'tls-failed', confidence: 0.9, tls: 'plain-http', explanation: `${evidence.target} does not speak TLS (HTTPS) on that port: the server there answers in plain HTTP.` };
    }
    const why = CERTIFICATE_PROBLEMS[code];
    if (why === undefined) return undefined;
    return { category: 'tls-failed', confidence: 0.95, tls: 'untrusted-certificate', explanation: `The TLS certificate of ${evidence.target} is not trusted: ${why} (${code}).` };
  },

  function connectionRefused({ evidence }) {
    const code = evidence.networkErrorCode;
    if (!code) return undefined;
    const unresolved = code === 'ENOTFOUND' || code === 'EAI_AGAIN';
    const what = code === 'ECONNREFUSED' ? 'nothing is listening there' : unresolved ? `the host name does not resolve (${code})` : code;
    return {
      category: 'connection-refused',
      confidence: 0.9,
      ...(unresolved ? { unresolvedHost: true } : {}),
      explanation: `Could not connect to ${evidence.target}: ${what}.${unresolved ? '' : ' Start the server first, or check the host and port.'}`,
    };
  },

  function transportMismatch({ evidence }) {
    if (evidence.transport === 'stdio' && evidence.pollutedStdout) {
      return {
        category: 'transport-mismatch',
        confidence: 0.85,
        pollutedStdout: true,
        explanation: `The server's stdout is polluted by logs: its JSON-RPC messages arrive after other text on the same line (e.g. ${JSON.stringify(evidence.strayStdout[0]?.slice(0, 80))}). Over stdio, stdout carries protocol messages only: logs belong on stderr.`,
      };
    }
    if (evidence.transport === 'stdio' && !evidence.spokeJsonRpc) {
      const announced = evidence.announcedUrl;
      if (announced) {
        return {
          category: 'transport-mismatch',
          confidence: 0.8,
          announcedUrl: announced,
          explanation: `The server started an HTTP server (${announced}) instead of speaking MCP over stdio.`,
        };
      }
      if (evidence.strayStdout.length > 0) {
        return {
          category: 'transport-mismatch',
          confidence: 0.6,
          explanation: `The server wrote to stdout, but never a JSON-RPC message (first line: ${JSON.stringify(evidence.strayStdout[0])}). Over stdio, stdout carries protocol messages only: logs belong on stderr.`,
        };
      }
    }
    if (evidence.transport === 'http' && (evidence.httpStatus === 404 || evidence.httpStatus === 405 || evidence.httpStatus === 406)) {
      return {
        category: 'transport-mismatch',
        confidence: 0.6,
        explanation: `${evidence.target} answered HTTP ${evidence.httpStatus}: no MCP endpoint there, of the streamable HTTP transport or of the older HTTP+SSE one.`,
      };
    }
    return undefined;
  },

  function protocolMismatch({ error }) {
    const text = describeError(error);
    if (!(error instanceof RpcError || error instanceof ChannelError) || !/protocol|version|both protocol generations|-32004/i.test(text)) return undefined;
    if (error instanceof ChannelError && error.failure !== 'protocol') return undefined;
    return {
      category: 'protocol-mismatch',
      confidence: 0.7,
      explanation: `The server does not speak a protocol version we do (we offer ${HANDSHAKE_PROTOCOL_VERSION} with the initialize handshake and ${STATELESS_PROTOCOL_VERSION} with server/discover): ${text}.`,
    };
  },

  function timeout({ evidence, error }) {
    if (!evidence.timedOutOn) return undefined;
    const what = error instanceof ChannelError && error.failure === 'timeout' ? error.message.replace(/^the server /, '') : `did not answer ${evidence.timedOutOn}`;
    return {
      category: 'timeout',
      confidence: 0.75,
      explanation: `The server ${what}. It may be slow to start (installing, downloading, warming a cache) or waiting for input it will never get.${stderrExcerpt(evidence)}`,
    };
  },

  function invalidResponse({ error }) {
    if (!(error instanceof ChannelError) || error.failure !== 'protocol') return undefined;
    return { category: 'invalid-response', confidence: 0.8, explanation: `The server answered, but not as MCP requires: ${error.message}.` };
  },

  function crashed({ evidence }) {
    if (evidence.exitCode === undefined && evidence.signal === undefined) return undefined;
    const how = evidence.signal ? `was killed by ${evidence.signal}` : `exited with code ${evidence.exitCode}`;
    const when = evidence.spokeJsonRpc ? 'while answering' : 'before answering initialize';
    // A launched HTTP server whose command succeeded and returned: it went to the background.
    const daemon =
      evidence.transport === 'http' && evidence.exitCode === 0
        ? ' A command that returns while its server keeps running in the background (a daemon, docker run -d) cannot be captured this way: start the server before mcp-contract-guard and give only --url.'
        : '';
    // Said when there is nothing to quote, so no one looks for a log that was never written.
    const stderr = stderrExcerpt(evidence) || ' It wrote nothing on stderr.';
    return { category: 'crashed', confidence: 0.6, explanation: `The server ${how} ${when}.${daemon}${stderr}` };
  },
];

/**
 * `relative` in `start` or the nearest folder above it that has it; undefined when none does.
 * A project's packages may sit above the server's own folder (npm, pnpm and yarn workspaces
 * hoist them to the workspace's root).
 */
export function findUpwards(start: string, relative: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The project's own install of `program` (`node_modules/.bin/program`, found upwards from
 * `cwd`): what the diagnosis names and what the healer runs in its place, so both find the same.
 */
export function projectBinary(cwd: string, program: string): string | undefined {
  return findUpwards(cwd, join('node_modules', '.bin', program));
}

/** The first argument that names a script file (by extension) and does not exist. */
function missingScript(source: ServerSource & { kind: 'command' }): string | undefined {
  for (const arg of source.command) {
    if (arg.startsWith('-') || !/\.(m?js|cjs|ts|mts|py|rb|jar|php)$/.test(arg)) continue;
    const path = isAbsolute(arg) ? arg : resolve(source.cwd ?? '.', arg);
    if (!existsSync(path)) return arg;
  }
  return undefined;
}

/** "Cannot find module '/x/dist/server.js'" (node), "can't open file '/x/server.py'" (python). */
function missingModuleInStderr(evidence: AttemptEvidence): string | undefined {
  const text = evidence.stderrTail.join('\n');
  const match = /Cannot find module '([^']+)'/.exec(text) ?? /can't open file '([^']+)'/.exec(text);
  if (!match) return undefined;
  const path = match[1] as string;
  // A missing dependency (a bare package name) is not build output.
  return path.startsWith('/') || path.startsWith('.') || /^[A-Za-z]:\\/.test(path) ? path : undefined;
}

/**
 * The package an import could not find: Python's "No module named 'pydantic.fields'" (its top
 * package), Node's "Cannot find package 'zod'" (ESM) and "Cannot find module 'zod'" (require of
 * a bare name; a path is missing build output instead).
 */
function missingPackageIn(text: string): string | undefined {
  const python = /ModuleNotFoundError: No module named '([^']+)'/.exec(text);
  if (python) return (python[1] as string).split('.')[0];
  const node = /Cannot find package '([^']+)'/.exec(text) ?? /Cannot find module '([^'./][^']*)'/.exec(text);
  return node && !/^[A-Za-z]:\\/.test(node[1] as string) ? (node[1] as string) : undefined;
}

const ENV_PATTERNS = [
  /(?:environment variable|env(?:ironment)? var(?:iable)?|env)\s*[:=]?\s*[`'"]?([A-Z][A-Z0-9_]{2,})\b/g,
  /\b([A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{3,}[A-Z0-9]*)[`'"]?\s+(?:is not set|is required|must be set|is missing|not set|is undefined|is not defined|environment variable is required)/g,
  /missing (?:required )?(?:environment variables?|env(?:ironment)? vars?)\s*[:=]?\s*((?:[A-Z][A-Z0-9_]{2,}[,\s]*(?:and\s+)?)+)/gi,
];

export function envNamesIn(text: string): string[] {
  const names = new Set<string>();
  for (const pattern of ENV_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      for (const name of (match[1] ?? '').split(/[\s,]+|\band\b/)) {
        if (/^[A-Z][A-Z0-9_]{2,}$/.test(name) && !['ERROR', 'WARN', 'WARNING', 'FATAL', 'THE', 'AND', 'ENV'].includes(name)) names.add(name);
      }
    }
  }
  return [...names].sort();
}

/**
 * Whether a server we started that has not answered yet looks like it is still starting (worth
 * waiting for on the same process), rather than like one that stopped or speaks another
 * transport: over stdio, nothing at all on stdout and no address announced in its log.
 */
export function looksSlowToStart(evidence: AttemptEvidence): boolean {
  if (evidence.spawnErrorCode !== undefined || evidence.exitCode !== undefined || evidence.signal !== undefined) return false;
  if (evidence.transport === 'http') return true;
  return evidence.strayStdout.length === 0 && !evidence.pollutedStdout && evidence.announcedUrl === undefined;
}

/** A line of a JavaScript or Java stack trace ("    at main (server.js:3:9)"). */
const STACK_FRAME = /^\s+at\s/;
/** The line that names a thrown error ("TypeError: x is not a function", "java.io.IOException: …"). */
const ERROR_LINE = /^(?:Uncaught )?[A-Za-z_$][\w$.]*(?:Error|Exception)\b/;

/**
 * The last lines the server wrote on stderr, without stack frames: an uncaught exception in
 * Node prints its message and then a dozen frames, so the plain tail would quote frames only.
 * The error's own line is kept even when more lines follow it.
 */
function stderrExcerpt(evidence: AttemptEvidence): string {
  // An entry can hold line breaks (a lone \r on stderr, an HTTP error body): each of its lines is quoted as one.
  const lines = evidence.stderrTail.flatMap((entry) => entry.split(LINE_BREAK)).filter((line) => line.trim() !== '' && !STACK_FRAME.test(line));
  let tail = lines.slice(-6);
  const errorLine = lines.findLast((line) => ERROR_LINE.test(line));
  if (errorLine !== undefined && !tail.includes(errorLine)) tail = [errorLine, '…', ...lines.slice(-4)];
  if (tail.length === 0) return '';
  return ` Its last stderr lines:\n${tail.map((l) => `    ${l}`).join('\n')}`;
}

export function describeError(error: unknown): string {
  return oneLine(error instanceof Error ? error.message : String(error));
}

const LINE_BREAK = /\r\n|\r|\n/;

/**
 * What a server or a config says, set within a sentence: on one line. Only the indented lines
 * of a stderr excerpt may follow an explanation; a blank line in a server's error message or in
 * a command would start a paragraph that reads as ours (the PR comment quotes each on its own).
 */
export function oneLine(text: string): string {
  return text.split(LINE_BREAK).join(' ');
}
