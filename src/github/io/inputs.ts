import { isAbsolute, resolve } from 'node:path';
import { checkPassEnv, parseClientCapabilities, type ClientCapability } from '../../compile/index.js';
import { UserError } from '../../errors.js';
import { DEFAULT_ALLOW_MAX_DAYS } from '../../policy/allow.js';
import { DEFAULT_UNUSED_DAYS, type CheckMode, type FailOn } from '../../protocol/index.js';
import { parseCheckMode, parseFailOn } from '../../policy/checks.js';
import { redactUrl } from './redact.js';

export type Mode = 'review' | 'comment-only' | 'capture' | 'watch';
export type CommentMode = 'on-change' | 'always' | 'never';

/** The Action's inputs, validated, with paths resolved against the working directory. */
export interface ActionInputs {
  mode: Mode;
  command?: string;
  url?: string;
  file?: string;
  /** Config path (absolute) when given or found; resolved later when not given. */
  config?: string;
  server?: string;
  /** Explicit name for a single server (sticky-comment identity and display). */
  name?: string;
  headers: Record<string, string>;
  /** Variables of the step's environment a server gets by name; its environment is otherwise isolated. */
  passEnv: string[];
  /** The client capabilities to declare; undefined: the default (all), or the config's. */
  clientCapabilities?: ClientCapability[];
  timeoutMs?: number;
  /** Absolute; undefined means "the default beside the server". */
  lockfile?: string;
  compile: boolean;
  failOn: FailOn;
  lockfileCheck: CheckMode;
  /** Whether a head version smaller than its changes call for fails the gate, warns, or is not checked. */
  versionCheck: CheckMode;
  comment: CommentMode;
  approveLabel: string;
  artifactPath: string;
  sarifPath?: string;
  /**
   * The capture file a `mode: capture` job wrote: the review takes the servers' contracts from it
   * instead of starting them (capture-file.ts). Absolute.
   */
  captureFile?: string;
  /** Review mode writes the review file here (default: RUNNER_TEMP); comment-only reads it. */
  reviewPath?: string;
  token: string;
  baselineRef?: string;
  workingDirectory: string;
  /** Start servers under privileged events (pull_request_target, workflow_run…); the old input name still works. */
  unsafeAllowPrivilegedEvents: boolean;
  /** How many days ahead an allow-list entry may expire. */
  allowMaxDays: number;
  /** Usage summaries (`usage summarize`): paths (absolute) or https URLs, one per server. */
  usage: UsageSource[];
  /** HTTP headers for the usage URLs (secrets). */
  usageHeaders: Record<string, string>;
  /** The days without a call that make a break RISKY. */
  unusedDays: number;
  /** `mode: watch`: the pin file whose servers are checked at their latest release (absolute). */
  pinFile: string;
  /** `mode: watch`: the label of the issues it opens (and finds again). */
  watchLabel: string;
}

/** Where a usage summary is: a file of the workspace, or an https URL. */
export type UsageSource = { kind: 'file'; path: string } | { kind: 'url'; url: string };

export const INPUT_DEFAULTS = {
  mode: 'review',
  'fail-on': 'BREAKING',
  'lockfile-check': 'fail',
  'version-check': 'warn',
  comment: 'on-change',
  'approve-label': 'contract-change-approved',
  'artifact-path': 'contract-deltas.json',
  compile: 'true',
  'working-directory': '.',
  'unsafe-allow-privileged-events': 'false',
  'unsafe-allow-pull-request-target': 'false',
  'allow-max-days': String(DEFAULT_ALLOW_MAX_DAYS),
  'unused-days': String(DEFAULT_UNUSED_DAYS),
  'pin-file': 'mcp-pins.lock.json',
  'watch-label': 'mcp-pin-drift',
} as const;

/**
 * Read and check every input. `get` returns the raw value ('' when unset, as `core.getInput`
 * does); defaults are applied here too so a runner without action.yml defaults (the tests,
 * `node dist/index.js` by hand) behaves the same.
 */
export function readInputs(get: (name: string) => string, workspace: string): ActionInputs {
  const raw = (name: string): string | undefined => {
    const value = get(name).trim();
    if (value !== '') return value;
    return (INPUT_DEFAULTS as Record<string, string>)[name];
  };
  const workingDirectory = resolve(workspace, raw('working-directory') ?? '.');
  const path = (value: string | undefined) => (value === undefined ? undefined : isAbsolute(value) ? value : resolve(workingDirectory, value));

  const sources = (['command', 'url', 'file'] as const).filter((n) => raw(n) !== undefined);
  if (sources.length > 1) throw new UserError(`Give one source: ${sources.map((s) => `"${s}"`).join(' and ')} were both set. Use "command", "url" or "file" for one server, or "config" for several.`);
  if (sources.length === 1 && raw('config') !== undefined) throw new UserError(`"${sources[0]}" and "config" were both set: use "${sources[0]}" for one server, or "config" (with an optional "server") for the servers listed there.`);
  if (sources.length === 1 && raw('server') !== undefined) throw new UserError(`"server" picks a server of the config file; it cannot be combined with "${sources[0]}" (use "name" to label a single server).`);
  const url = raw('url');
  if (url !== undefined && !/^https?:\/\//.test(url)) throw new UserError(`"url" must be an http:// or https:// address; got "${redactUrl(url)}".`);

  const inputs: ActionInputs = {
    mode: oneOf('mode', raw('mode')!, ['review', 'comment-only', 'capture', 'watch'] as const),
    headers: parseHeaders(get('headers')),
    passEnv: checkPassEnv(get('pass-env').split(/[\s,]+/).filter((name) => name !== ''), 'The input "pass-env"'),
    compile: bool('compile', raw('compile')!),
    failOn: parseFailOn(raw('fail-on')!, 'The input "fail-on"'),
    lockfileCheck: parseCheckMode(raw('lockfile-check')!, 'The input "lockfile-check"'),
    versionCheck: parseCheckMode(raw('version-check')!, 'The input "version-check"'),
    comment: oneOf('comment', raw('comment')!.toLowerCase(), ['on-change', 'always', 'never'] as const),
    approveLabel: raw('approve-label')!,
    artifactPath: path(raw('artifact-path'))!,
    token: get('github-token').trim(),
    workingDirectory,
    unsafeAllowPrivilegedEvents:
      bool('unsafe-allow-privileged-events', raw('unsafe-allow-privileged-events')!) || bool('unsafe-allow-pull-request-target', raw('unsafe-allow-pull-request-target')!),
    allowMaxDays: parseDays(raw('allow-max-days')!),
    usage: parseUsage(get('usage'), path),
    usageHeaders: parseHeaders(get('usage-headers'), 'usage-headers'),
    unusedDays: parseDays(raw('unused-days')!, 'unused-days', 3650),
    pinFile: path(raw('pin-file'))!,
    watchLabel: raw('watch-label')!,
  };
  if (Object.keys(inputs.usageHeaders).length > 0 && !inputs.usage.some((u) => u.kind === 'url')) throw new UserError('"usage-headers" are sent with a "usage" URL; no "usage" is an https:// URL.');
  const optional = {
    command: raw('command'),
    url,
    file: path(raw('file')),
    config: path(raw('config')),
    server: raw('server'),
    name: raw('name'),
    lockfile: path(raw('lockfile')),
    sarifPath: path(raw('sarif-path')),
    reviewPath: path(raw('review-path')),
    captureFile: path(raw('capture-file')),
    baselineRef: raw('baseline-ref'),
    timeoutMs: parseTimeout(raw('timeout')),
    clientCapabilities: raw('capabilities') === undefined ? undefined : parseClientCapabilities(raw('capabilities')!, 'The input "capabilities"'),
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) (inputs as unknown as Record<string, unknown>)[key] = value;
  if (inputs.captureFile !== undefined && (inputs.mode !== 'review' || !inputs.compile)) {
    throw new UserError(`"capture-file" gives the contracts a "mode: capture" job captured, to a review that would otherwise start the servers: it needs "mode: review" and "compile: true".`);
  }
  if (inputs.mode === 'watch' && sources.length + (raw('config') !== undefined ? 1 : 0) > 0) {
    throw new UserError('mode: watch checks the servers of the pin file ("pin-file"); "command", "url", "file" and "config" name servers to review, not to watch.');
  }
  if (!/^[^,\n]{1,50}$/.test(inputs.watchLabel)) throw new UserError(`"watch-label" is one issue label (at most 50 characters, no comma); got "${inputs.watchLabel}".`);
  if (inputs.name !== undefined && !/^[\w.@/-]{1,100}$/.test(inputs.name)) throw new UserError(`"name" may use letters, digits and "_ . @ / -" (at most 100); got "${inputs.name}".`);
  return inputs;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UserError(`The input "${name}" must be one of ${allowed.join(', ')}; got "${value}".`);
  return value as T;
}

function bool(name: string, value: string): boolean {
  const lower = value.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw new UserError(`The input "${name}" must be true or false; got "${value}".`);
}

function parseTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) throw new UserError(`The input "timeout" is in seconds, more than 0 and at most 3600; got "${value}".`);
  return Math.round(seconds * 1000);
}

function parseDays(value: string, name = 'allow-max-days', max = 3660): number {
  const days = Number(value);
  if (!Number.isInteger(days) || days < 1 || days > max) throw new UserError(`The input "${name}" is a whole number of days, from 1 to ${max}; got "${value}".`);
  return days;
}

/**
 * `usage`: one usage summary per line, a path (relative to the working directory) or an https
 * URL. A URL is never shown in full (its query may hold a credential).
 */
function parseUsage(text: string, path: (value: string) => string | undefined): UsageSource[] {
  const out: UsageSource[] = [];
  for (const line of text.split(/\r?\n/).map((l) => l.trim())) {
    if (line === '') continue;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(line)) {
      if (!/^https:\/\//i.test(line) || !URL.canParse(line)) throw new UserError(`The input "usage" takes a path in the workspace or an https:// URL; got "${redactUrl(line)}".`);
      out.push({ kind: 'url', url: line });
    } else out.push({ kind: 'file', path: path(line) as string });
  }
  if (out.length > 20) throw new UserError(`The input "usage" lists ${out.length} summaries; at most 20 (one per server).`);
  return out;
}

/** `headers`: one `Name: value` per line (values usually come from secrets). */
function parseHeaders(text: string, input = 'headers'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const at = line.indexOf(':');
    const name = at > 0 ? line.slice(0, at).trim() : '';
    // The value is never echoed: it is usually a secret.
    if (!/^[\w-]+$/.test(name)) throw new UserError(`The input "${input}" takes one "Name: value" per line; a line has no valid header name before ":".`);
    out[name] = line.slice(at + 1).trim();
  }
  return out;
}
