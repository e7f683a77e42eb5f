import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { CaptureOptions, ServerCapture } from './capture.js';
import { CompileError, START_BUDGET_FACTOR } from './capture.js';
import { findUpwards, oneLine, projectBinary, type Diagnosis, type FailureCategory } from './diagnose.js';
import { withheldFrom } from './env.js';
import { portOf } from './http.js';
import { redactUrl } from './redact.js';
import { sourceFlags, type ServerSource } from './source.js';

/**
 * Self-healing compilation: when a server cannot be captured, diagnose why, apply at most one
 * safe change, and try again, a bounded number of times. What is safe is decided here, per
 * failure category, in one table: a fixer may find a binary the project installed, switch
 * transport or port to where the server said it listens, read past log noise on stdout, or
 * retry a crash that looks transient. It never guesses secrets, installs packages, runs build
 * scripts or retries an authentication failure: those end the loop with the exact thing a
 * person must do. A slow start is not restarted: the capture waits on the same live process
 * (capture.ts), and the report says so, with the timeout that works first time.
 *
 * Every attempt shares one budget, `START_BUDGET_FACTOR` × the timeout from the first start. A
 * retry is started while the budget lasts and gets at least `RETRY_MIN_SHARE` of a timeout, so
 * the worst case is (`START_BUDGET_FACTOR` + `RETRY_MIN_SHARE`) × the timeout.
 */

export const DEFAULT_MAX_ATTEMPTS = 3;
/** A retry gets at least this share of a timeout, however little of the budget is left: enough to start. */
const RETRY_MIN_SHARE = 0.5;
/** The timeout we suggest after a slow start: half again what the start took, in whole seconds. */
const SLOW_START_MARGIN = 1.5;

export interface Fix {
  /** What was changed, as a past-tense phrase for the report. */
  description: string;
  source: ServerSource;
}

export type Proposal = { fix: Fix } | { userAction: string };

export interface Attempt {
  number: number;
  /** The flags this attempt ran with. */
  flags: string;
  durationMs: number;
  outcome: 'captured' | 'failed';
  diagnosis?: Diagnosis;
  /** The change made for the next attempt, if any. */
  fixApplied?: string;
}

export interface HealingReport {
  attempts: Attempt[];
  totalMs: number;
  /** Set when a fix made the capture work: the source to commit so it works first time. */
  healedSource?: ServerSource;
}

/** Capturing failed and healing could not fix it: what was tried, and what a person must do. */
export class HealingFailedError extends CompileError {
  constructor(
    cause: CompileError,
    readonly report: HealingReport,
    readonly userActionNeeded: string,
  ) {
    super(cause.diagnosis, cause.evidence, cause);
    const tried = report.attempts.length > 1 ? `\n\nTried ${report.attempts.length} times in ${(report.totalMs / 1000).toFixed(1)} s:\n${describeAttempts(report.attempts)}` : '';
    this.message = `${cause.message}\n\nWhat to do: ${oneLine(userActionNeeded)}${tried}`;
  }
}

/** `budgetFactor`: start-up may take this many times the timeout (1 with healing off). */
type Fixer = (diagnosis: Diagnosis, source: ServerSource, history: Attempt[], budgetFactor: number) => Proposal;

/** One fixer per failure category: the whole healing policy, readable in one screen. */
const FIXERS: Record<FailureCategory, Fixer> = {
  timeout(_diagnosis, source, _history, budgetFactor) {
    // The capture already waited on the same live process as long as the budget allows.
    const budget =
      budgetFactor === 1
        ? `with healing off, start-up gets --timeout and no more, ${source.timeoutMs / 1000} s now`
        : `start-up gets up to ${budgetFactor} × --timeout, ${(budgetFactor * source.timeoutMs) / 1000} s now`;
    return {
      userAction: `Check that the server starts on its own (no prompt, no missing service) and how long it takes by hand; if it is just slow, pass a longer --timeout (${budget}).`,
    };
  },

  'command-not-found'(_diagnosis, source) {
    if (source.kind !== 'command') return { userAction: 'Check the command.' };
    const [program, ...args] = source.command as [string, ...string[]];
    const cwd = source.cwd ?? process.cwd();
    const local = projectBinary(cwd, program);
    if (local) {
      return { fix: { description: `ran "${program}" from the project's node_modules/.bin`, source: { ...source, command: [local, ...args] } } };
    }
    if (findUpwards(cwd, join('node_modules', program, 'package.json'))) {
      return { fix: { description: `ran the installed package "${program}" through npx --no-install`, source: { ...source, command: ['npx', '--no-install', program, ...args] } } };
    }
    return { userAction: `Install "${program}" (or fix its name) so that it is on PATH, or point --command at the server's entry file.` };
  },

  'missing-dependency'(diagnosis, source, history) {
    const name = diagnosis.missingPackage ?? 'a package';
    if (source.kind === 'command' && isPython(source.command[0] as string)) {
      const [, ...args] = source.command;
      // The dependencies of a Python project usually live in its virtual environment, which a
      // bare `python` does not use.
      const cwd = source.cwd ?? process.cwd();
      const venv = VENV_PYTHONS.map((path) => findUpwards(cwd, path)).find((found) => found !== undefined);
      const triedIt = resolve(cwd, source.command[0] as string) === venv || history.some((a) => a.fixApplied?.startsWith('ran the Python of'));
      if (venv !== undefined && !triedIt) {
        // Relative to the working directory, so the command to commit works on any checkout.
        const python = relative(cwd, venv) || venv;
        return { fix: { description: `ran the Python of the project's virtual environment (${python}), where its dependencies are installed`, source: { ...source, command: [python, ...args] } } };
      }
      return {
        userAction: `Install the server's dependencies before capturing it, "${name}" among them (in CI, a step before this one: pip install -r requirements.txt, pip install -e . or uv sync), or run it with the Python that has them (--command ".venv/bin/python …", or uv run).`,
      };
    }
    return { userAction: `Install the server's dependencies before capturing it, "${name}" among them (in CI, a step before this one: npm ci, or the package manager the project uses).` };
  },

  'permission-denied'(_diagnosis, source) {
    const program = source.kind === 'command' ? source.command[0] : '';
    return { userAction: `Make ${program} executable (chmod +x ${program}, and commit the mode with git update-index --chmod=+x), or run it through its interpreter.` };
  },

  'missing-build-output'(diagnosis, source) {
    const cwd = source.kind === 'command' ? (source.cwd ?? process.cwd()) : process.cwd();
    const build = buildCommand(cwd);
    const run = build === undefined ? 'run its build step' : `run \`${build}\``;
    return { userAction: `Build the server before capturing it: ${run} (in CI, as a step before this one), so that ${diagnosis.missingPath} exists.` };
  },

  'missing-env'(diagnosis, source) {
    const names = diagnosis.missingEnv ?? [];
    // Set here but kept from the server by the environment policy (env.ts): say so, name the switch.
    const withheld = source.kind === 'command' ? names.filter((name) => withheldFrom(source, name)) : [];
    if (withheld.length > 0) {
      const list = withheld.join(', ');
      return {
        userAction: `${list} ${withheld.length > 1 ? 'are' : 'is'} set here but was not passed to the server: ${source.kind === 'command' && source.isolateEnv ? 'its environment is isolated (only runtime variables and the ones you name reach it)' : 'GitHub tokens reach a server only by name'}. Pass ${withheld.length > 1 ? 'them' : 'it'} by name: ${withheld.map((n) => `--pass-env ${n}`).join(' ')} (in the Action, the input pass-env; in the config, "passEnv"). Nothing is passed unasked.`,
      };
    }
    const flags = names.map((n) => `--env ${n}=…`).join(' ');
    return {
      userAction: `Give the server ${names.join(', ')}: pass ${flags}, or export ${names.length > 1 ? 'them' : 'it'} and pass ${names.map((n) => `--pass-env ${n}`).join(' ')} (in CI: set it in the step's env: from a secret, and name it in the Action's pass-env input or the config's "passEnv"). Nothing is guessed.`,
    };
  },

  'auth-failed'() {
    return { userAction: 'Provide valid credentials: --header "Authorization: Bearer …" for an HTTP server, --env NAME=… for a stdio one (in CI, from a secret). Authentication failures are never retried.' };
  },

  'connection-refused'(diagnosis, source) {
    if (diagnosis.unresolvedHost) {
      return { userAction: 'Check the host name in --url: it does not resolve from this machine (in a GitHub workflow, a service container is reached as localhost on its mapped port; a job container reaches it by its service name).' };
    }
    const url = source.kind === 'url' ? redactUrl(source.url) : '';
    return { userAction: `Start the server before capturing it, or let mcp-contract-guard start it: --command "<start command>" --url ${url}.` };
  },

  'tls-failed'(diagnosis, source) {
    if (diagnosis.tls === 'plain-http' && source.url !== undefined) {
      const url = new URL(source.url);
      url.protocol = 'http:';
      return { userAction: `Reach it over plain HTTP: --url ${redactUrl(url.href)} (only on a network you trust: headers such as Authorization then travel unencrypted).` };
    }
    // Verification is never turned off for the user: a capture that trusts anyone captures anyone's contracts.
    return {
      userAction:
        'Make Node trust the certificate: set NODE_EXTRA_CA_CERTS to the PEM file of the certificate authority that signed it (in CI, in the step\'s env), or fix the certificate itself (expired, wrong host name, missing intermediates).',
    };
  },

  'port-taken'(_diagnosis, source) {
    const port = source.kind === 'command' && source.url ? portOf(source.url) : '';
    return {
      userAction: `Free port ${port}: stop what listens there (\`lsof -i :${port}\` or \`ss -ltnp\` names it), or run the server on a free port and give that port in --url. If the command starts the server in the background and returns (a daemon, docker run -d), start it before mcp-contract-guard and give only --url.`,
    };
  },

  'port-mismatch'(diagnosis, source, history) {
    if (source.kind !== 'command' || !source.url || !diagnosis.announcedUrl) return { userAction: diagnosis.explanation };
    const port = portOf(diagnosis.announcedUrl);
    if (history.some((a) => a.fixApplied?.startsWith('used port'))) {
      return { userAction: `The server listens on a different port each time it starts (now ${port}). Make it listen on a fixed port and give that port in --url.` };
    }
    const url = new URL(source.url);
    url.port = String(port);
    return { fix: { description: `used port ${port}, where the server said it listens`, source: { ...source, url: url.href } } };
  },

  'transport-mismatch'(diagnosis, source, history) {
    if (source.kind === 'command' && !source.url && diagnosis.announcedUrl) {
      return { fix: { description: `switched to streamable HTTP at ${diagnosis.announcedUrl}, where the server said it listens`, source: { ...source, url: diagnosis.announcedUrl } } };
    }
    if (source.kind === 'command' && !source.url && !source.lenientStdout && diagnosis.pollutedStdout) {
      return { fix: { description: 'read JSON-RPC messages out of stdout lines that a logger had prefixed', source: { ...source, lenientStdout: true } } };
    }
    // The error's message already says what went wrong (the explanation): the action says only what to do.
    // Reached over HTTP, it was the address that held no MCP endpoint: stdout is not the problem.
    if (source.url !== undefined) {
      const usual = usualPathAfter(source.url, history);
      if (usual) return { fix: { description: usual.description, source: { ...source, url: usual.url } } };
      return { userAction: "Point --url at the server's MCP endpoint (often /mcp, or /sse for a server of the older HTTP+SSE transport), or capture the server over stdio (--command without --url) or from a tools/list dump (--file)." };
    }
    return { userAction: 'Make the server speak MCP over stdio with nothing else on stdout (logs go to stderr), or give its HTTP address with --url.' };
  },

  'protocol-mismatch'() {
    return { userAction: 'Upgrade the server (or its MCP SDK) to a protocol version from 2024-11-05 on, or capture a tools/list dump with --file.' };
  },

  'invalid-response'() {
    return { userAction: 'Fix the server so it answers as the MCP specification requires, or capture a tools/list dump with --file.' };
  },

  crashed(diagnosis, source, history) {
    const retried = history.some((a) => a.fixApplied?.startsWith('retried'));
    if (!retried && looksTransient(diagnosis)) {
      return { fix: { description: 'retried once: the crash looks transient (a busy resource or a network hiccup)', source } };
    }
    return { userAction: 'Run the server by hand with the same command and fix what makes it exit.' };
  },

  unknown() {
    return { userAction: 'Run the server by hand with the same command to see what goes wrong; rerun with --debug for details.' };
  },
};

/**
 * Given a bare origin (`http://localhost:8000`), the paths MCP servers usually serve, in turn:
 * /mcp (the streamable transport's, in every SDK), then /sse (the older transport's). A path
 * the user gave is theirs: it is not second-guessed.
 */
function usualPathAfter(url: string, history: Attempt[]): { url: string; description: string } | undefined {
  const next = new URL(url);
  const tried = (path: string) => history.some((a) => a.fixApplied?.startsWith(`tried ${path},`));
  if (next.pathname === '/' && next.search === '') {
    next.pathname = '/mcp';
    return { url: next.href, description: 'tried /mcp, where MCP servers usually serve' };
  }
  if (next.pathname === '/mcp' && tried('/mcp') && !tried('/sse')) {
    next.pathname = '/sse';
    return { url: next.href, description: 'tried /sse, where servers of the older HTTP+SSE transport usually serve' };
  }
  return undefined;
}

export function proposeFix(diagnosis: Diagnosis, source: ServerSource, history: Attempt[] = [], budgetFactor = START_BUDGET_FACTOR): Proposal {
  return FIXERS[diagnosis.category](diagnosis, source, history, budgetFactor);
}

export interface HealingOptions extends Omit<CaptureOptions, 'deadline'> {
  maxAttempts?: number;
  /**
   * Wait past the timeout on a server that is still starting (same process, up to
   * `START_BUDGET_FACTOR` × the timeout). Default on; off with healing, where --timeout is
   * the whole start-up.
   */
  waitForSlowStart?: boolean;
}

/**
 * Run `capture` on `source`; on failure, diagnose, fix and retry up to `maxAttempts` times,
 * within the start-up budget. When the first attempt works this costs nothing more than the
 * capture itself.
 */
export async function withHealing(
  source: ServerSource,
  capture: (source: ServerSource, options: CaptureOptions) => Promise<ServerCapture>,
  options: HealingOptions = {},
): Promise<{ value: ServerCapture; healing: HealingReport }> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const progress = options.onProgress ?? (() => {});
  const started = Date.now();
  const budgetFactor = options.waitForSlowStart === false ? 1 : START_BUDGET_FACTOR;
  const deadline = started + budgetFactor * source.timeoutMs;
  const attempts: Attempt[] = [];
  let current = source;
  for (let number = 1; ; number++) {
    const attemptStarted = Date.now();
    try {
      const value = await capture(current, { ...options, deadline: number === 1 ? deadline : Math.max(deadline, attemptStarted + current.timeoutMs * RETRY_MIN_SHARE) });
      const healing: HealingReport = { attempts, totalMs: 0 };
      const slowStartMs = value.evidence.slowStartMs;
      if (slowStartMs === undefined) {
        attempts.push({ number, flags: sourceFlags(current), durationMs: Date.now() - attemptStarted, outcome: 'captured' });
        if (number > 1) healing.healedSource = current;
      } else {
        // Healed in place: the wait past the timeout reads as the failure it would have been, then the fix.
        const healed = { ...current, timeoutMs: Math.ceil((slowStartMs * SLOW_START_MARGIN) / 1000) * 1000 };
        attempts.push({
          number,
          flags: sourceFlags(current),
          durationMs: current.timeoutMs,
          outcome: 'failed',
          diagnosis: { category: 'timeout', confidence: 0.9, explanation: `The server did not answer within ${current.timeoutMs / 1000} s, but was still starting.` },
          fixApplied: `kept waiting on the same process past the ${current.timeoutMs / 1000} s timeout (a slow start): it answered after ${(slowStartMs / 1000).toFixed(1)} s`,
        });
        attempts.push({ number: number + 1, flags: sourceFlags(healed), durationMs: Math.max(0, Date.now() - attemptStarted - current.timeoutMs), outcome: 'captured' });
        healing.healedSource = healed;
      }
      healing.totalMs = Date.now() - started;
      return { value, healing };
    } catch (error) {
      if (!(error instanceof CompileError)) throw error;
      const attempt: Attempt = { number, flags: sourceFlags(current), durationMs: Date.now() - attemptStarted, outcome: 'failed', diagnosis: error.diagnosis };
      attempts.push(attempt);
      const proposal = proposeFix(error.diagnosis, current, attempts, budgetFactor);
      const report = (): HealingReport => ({ attempts, totalMs: Date.now() - started });
      if ('userAction' in proposal) throw new HealingFailedError(error, report(), proposal.userAction);
      if (number >= maxAttempts) {
        const advice =
          maxAttempts === 1
            ? `Healing is off; it would have ${proposal.fix.description} and tried again.`
            : `Still failing after ${number} attempts (next it would have ${proposal.fix.description}). Run the server by hand with the same command to see what goes wrong.`;
        throw new HealingFailedError(error, report(), advice);
      }
      if (Date.now() >= deadline) {
        const budget = (budgetFactor * source.timeoutMs) / 1000;
        throw new HealingFailedError(error, report(), `Next it would have ${proposal.fix.description}, but start-up has used its budget (${budgetFactor} × --timeout, ${budget} s). Run the server by hand with the same command to see what goes wrong, or pass a longer --timeout.`);
      }
      attempt.fixApplied = proposal.fix.description;
      progress(`attempt ${number} failed (${error.diagnosis.category}); ${proposal.fix.description}, trying again`);
      current = proposal.fix.source;
    }
  }
}

export function describeAttempts(attempts: Attempt[]): string {
  return attempts
    .map((a) => {
      const result = a.outcome === 'captured' ? 'captured' : `failed: ${a.diagnosis?.category}`;
      const fix = a.fixApplied ? `; then ${a.fixApplied}` : '';
      return `  ${a.number}. ${result} in ${(a.durationMs / 1000).toFixed(1)} s${fix}`;
    })
    .join('\n');
}

/** Where a Python project keeps its virtual environment's interpreter (uv, venv, poetry in-project; Windows). */
const VENV_PYTHONS = [join('.venv', 'bin', 'python'), join('venv', 'bin', 'python'), join('.venv', 'Scripts', 'python.exe'), join('venv', 'Scripts', 'python.exe')];

/** `python`, `python3`, `python3.12`, a path to one. */
function isPython(program: string): boolean {
  return /^python(\d+(\.\d+)?)?(\.exe)?$/i.test(basename(program));
}

/** A crash worth one more try: resources that were busy or a network that hiccuped. */
function looksTransient(diagnosis: Diagnosis): boolean {
  return /\b(EBUSY|EAGAIN|EADDRINUSE|ECONNRESET|ETIMEDOUT|EAI_AGAIN|temporar(y|ily)|try again|resource busy|locked)\b/i.test(diagnosis.explanation);
}

/** The build command a person would run, from the nearest package.json's scripts; undefined when none is known. */
export function buildCommand(cwd: string): string | undefined {
  const manifest = findUpwards(cwd, 'package.json');
  if (!manifest) return undefined;
  const dir = dirname(manifest);
  let scripts: Record<string, string> = {};
  try {
    scripts = (JSON.parse(readFileSync(manifest, 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
  } catch {
    // An unreadable package.json: fall through to the generic advice.
  }
  const runner = existsSync(join(dir, 'pnpm-lock.yaml')) ? 'pnpm' : existsSync(join(dir, 'yarn.lock')) ? 'yarn' : 'npm run';
  const script = ['build', 'compile', 'prepare', 'tsc'].find((name) => scripts[name] !== undefined);
  if (script) return `${runner} ${script}`;
  if (existsSync(join(dir, 'tsconfig.json'))) return 'npx tsc';
  return undefined;
}

