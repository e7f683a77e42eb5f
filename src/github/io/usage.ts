/**
 * The Action's `usage` input: the usage summaries the gate reads, each a file of the workspace
 * or an https URL. They decide which breaks count, so a pull request must not be able to bring
 * or change them, and they are read before any code of the pull request runs:
 * - a file committed at the base is read as the base has it (the pull request's edits to it do
 *   not count); a file the pull request itself commits is refused; any other file of the
 *   workspace (an artifact an earlier step downloaded) is read from the checkout, as hostile data,
 *   before the servers start (they run as the runner's user and could rewrite it);
 * - a URL is fetched with the repository's bounded HTTP client, `usage-headers` sent only to its
 *   own origin (a redirect elsewhere gets none), its body read up to the summary's size limit.
 *
 * A summary that cannot be had or read downgrades nothing: the run says why (a warning and a
 * note in the comment) and the gate judges as if there were none. It never fails the review.
 */
import { relative } from 'node:path';
import { shellQuote } from '../../compile/index.js';
import { errorMessage } from '../../errors.js';
import { fetchFollowingRedirects, readBody } from '../../http-client.js';
import { SUMMARY_CAPS, UsageSummaryError, readUsageSummaryText, type UsageSummary } from '../../protocol/index.js';
import type { Tree } from './baseline.js';
import type { ActionInputs, UsageSource } from './inputs.js';
import { redactUrl } from './redact.js';
import type { Runner } from './step.js';

/** How long fetching one summary may take. */
const FETCH_TIMEOUT_MS = 30_000;

export interface UsageRead {
  summaries: UsageSummary[];
  /** How a laptop gets each summary (by index): the lines that fetch it, and the path `--usage` then takes. */
  reproduce: Array<{ fetch: string[]; path: string }>;
  /** Why a summary was not used, one sentence each (for the log and every server's comment). */
  notes: string[];
}

export interface UsageTrees {
  /** The base commit, when the run has one. */
  base?: Tree | undefined;
  /** The head commit (never the checkout), when it can be read. */
  head?: Tree | undefined;
  /** The base's ref, for the reproduce commands. */
  baseRef?: string | undefined;
}

export async function readUsageInputs(inputs: ActionInputs, runner: Runner, trees: UsageTrees, log: (message: string) => void): Promise<UsageRead> {
  const read: UsageRead = { summaries: [], reproduce: [], notes: [] };
  for (const source of inputs.usage) {
    const label = source.kind === 'url' ? redactUrl(source.url) : relative(runner.workspace, source.path) || source.path;
    try {
      const file = source.kind === 'url' ? { text: await fetchSummary(source, inputs.usageHeaders), from: 'url' as const } : await readSummaryFile(source.path, label, runner, trees);
      const summary = readUsageSummaryText(file.text);
      read.summaries.push(summary);
      read.reproduce.push(reproduceLines(file.from, label, trees.baseRef));
      log(`Usage: ${label} covers ${summary.calls.toLocaleString('en-US')} calls of ${summary.server.name === null ? 'an unnamed server' : `"${summary.server.name}"`} from ${summary.window.from} to ${summary.window.to}.`);
    } catch (error) {
      const why = error instanceof UsageSummaryError ? `it is not a usage summary this version can read (${error.message})` : errorMessage(error);
      read.notes.push(`The usage summary ${label} was not used, so no break is downgraded by usage: ${why}.`);
    }
  }
  return read;
}

/** A summary file: the base's copy when the base commits it; refused when the pull request does; else the checkout's. */
async function readSummaryFile(path: string, label: string, runner: Runner, trees: UsageTrees): Promise<{ text: string; from: 'base' | 'workspace' }> {
  const atBase = trees.base === undefined ? null : await trees.base.read(path, 'the usage summary');
  if (atBase !== null) return { text: atBase, from: 'base' };
  if (trees.base !== undefined && trees.head !== undefined && (await trees.head.read(path, 'the usage summary')) !== null) {
    throw new Error(`${label} is committed by this pull request, not by its base, and a pull request cannot bring the evidence that downgrades its own breaks (commit it to the base branch, or download it in an earlier step)`);
  }
  const { readWorkspaceFile } = await import('./paths.js');
  const text = await readWorkspaceFile(path, runner.roots, 'the usage summary');
  if (text === null) throw new Error(`there is no ${label} in the workspace (download it in an earlier step, or give its https:// URL)`);
  return { text, from: 'workspace' };
}

/**
 * How "Reproduce locally" gets a summary: from git at the base when the base commits it, else
 * from where the workflow got it (a URL or an earlier step's download: said, never fetched with
 * its secrets).
 */
function reproduceLines(from: 'base' | 'workspace' | 'url', label: string, baseRef: string | undefined): { fetch: string[]; path: string } {
  const path = '/tmp/usage.json';
  if (from === 'base' && baseRef !== undefined) return { fetch: [`git show ${shellQuote(`${baseRef}:${label}`)} > ${path}`], path };
  const where = from === 'url' ? `from ${label}` : `as the workflow's earlier step got ${label}`;
  return { fetch: [`# the usage summary the review read, ${where}, saved to ${path}`], path };
}

async function fetchSummary(source: Extract<UsageSource, { kind: 'url' }>, headers: Record<string, string>): Promise<string> {
  const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetchFollowingRedirects(source.url, { method: 'GET', signal, headers: (sameOrigin) => ({ accept: 'application/json', ...(sameOrigin ? headers : {}) }) });
  } catch (error) {
    const name = (error as Error).name;
    throw new Error(name === 'TimeoutError' || name === 'AbortError' ? `fetching it took longer than ${FETCH_TIMEOUT_MS / 1000} s` : `fetching it failed (${errorMessage(error)})`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`fetching it answered HTTP ${response.status}${response.status === 401 || response.status === 403 ? ' (check "usage-headers")' : ''}`);
  }
  const body = await readBody(response, SUMMARY_CAPS.length);
  if (body === undefined) throw new Error(`it is larger than ${SUMMARY_CAPS.length.toLocaleString('en-US')} bytes`);
  return body;
}
