import { ENTRY_KINDS, countOf, type JsonObject, type RawCapture } from '../contract/model.js';
import { UserError } from '../errors.js';
import type { AttemptEvidence, RpcChannel } from './channel.js';
import { diagnose, looksSlowToStart, oneLine, type Diagnosis } from './diagnose.js';
import { HttpChannel, LaunchedHttpChannel } from './http.js';
import { listAll, openSession } from './protocol.js';
import { CONTAINMENT_DESCRIPTION, containmentPlan } from './containment.js';
import { redactUrl } from './redact.js';
import { clientCapabilitiesOf, type ClientCapability, type ServerSource } from './source.js';
import { StdioChannel } from './stdio.js';

export type Progress = (message: string) => void;

/**
 * Start-up, healing included, waits about this many times the source's timeout in all: a slow
 * start is waited for on the same process until then, and retries share the budget (heal.ts),
 * so a server that hangs holds CI for about 2 × --timeout, not a ladder of longer waits. Once a
 * server answers, each later request gets its own timeout (and `MAX_PAGES` bounds the lists).
 */
export const START_BUDGET_FACTOR = 2;

export interface CaptureOptions {
  onProgress?: Progress;
  /** When start-up must be over (epoch ms); default `START_BUDGET_FACTOR` timeouts from now. */
  deadline?: number;
}

export interface ServerCapture {
  capture: RawCapture;
  /** Things the server did that work but are worth fixing (stray stdout lines…). */
  warnings: string[];
  evidence: AttemptEvidence;
}

/** Capturing a server failed; `diagnosis` says why in plain words, `evidence` what was seen. */
export class CompileError extends UserError {
  constructor(
    readonly diagnosis: Diagnosis,
    readonly evidence: AttemptEvidence,
    cause: unknown,
  ) {
    super(`Could not capture the contracts of ${oneLine(evidence.target)}. ${diagnosis.explanation}`, 2, { cause });
  }
}

/** The lists a server may expose, the capability that announces each, and the result key. */
const LISTS = [
  { capability: 'tools', method: 'tools/list', key: 'tools' },
  { capability: 'prompts', method: 'prompts/list', key: 'prompts' },
  { capability: 'resources', method: 'resources/list', key: 'resources' },
  { capability: 'resources', method: 'resources/templates/list', key: 'resourceTemplates' },
] as const;

/**
 * Start (stdio) or reach (HTTP) an MCP server, open a session in the protocol generation it
 * speaks, and capture every list it declares, raw. The server is always stopped afterwards.
 */
export async function captureServer(source: ServerSource, options: CaptureOptions = {}): Promise<ServerCapture> {
  const progress = options.onProgress ?? (() => {});
  const startedAt = Date.now();
  const deadline = options.deadline ?? startedAt + START_BUDGET_FACTOR * source.timeoutMs;
  const capabilities = clientCapabilitiesOf(source);
  const channel = openChannel(source, capabilities);
  progress(source.kind === 'command' ? `starting ${source.command.join(' ')} (${CONTAINMENT_DESCRIPTION[containmentPlan().containment]})` : `connecting to ${redactUrl(source.url)}`);
  try {
    // A server we started that is still starting is waited for until the deadline, same process.
    const patience =
      source.kind === 'command'
        ? {
            until: deadline,
            keepWaiting: () => looksSlowToStart(channel.evidence),
            onSlow: (waitedMs: number) =>
              progress(`no answer after ${(waitedMs / 1000).toFixed(1)} s; the server looks like it is still starting, so waiting on it up to ${((deadline - Date.now()) / 1000).toFixed(1)} s more`),
          }
        : undefined;
    // The first answer gets the timeout, or what the budget has left when the attempt starts (a
    // retry): counted from before the spawn, so the time the spawn takes on a busy machine is
    // not taken out of it and the message names the timeout the user gave.
    const startWaitMs = Math.max(1, Math.min(source.timeoutMs, deadline - startedAt));
    const session = await openSession(channel, { timeoutMs: startWaitMs, capabilities, ...(patience ? { patience } : {}) });
    const version = session.server.version ? ` ${session.server.version}` : '';
    progress(`connected to ${session.server.name}${version} (protocol ${session.protocolVersion})`);
    const capture: RawCapture = {
      server: session.server,
      protocolVersion: session.protocolVersion,
      era: session.era,
      capabilities: session.capabilities,
      ...(session.instructions !== undefined ? { instructions: session.instructions } : {}),
      tools: [],
      prompts: [],
      resources: [],
      resourceTemplates: [],
      clientCapabilities: [...capabilities],
    };
    for (const list of LISTS) {
      if (session.capabilities[list.capability] === undefined) continue;
      const items: JsonObject[] = await listAll(channel, session, list.method, list.key, {
        timeoutMs: source.timeoutMs,
        onPage: (page, total) => page > 1 && progress(`${list.method}: page ${page}, ${total} ${list.key} so far`),
      });
      capture[list.key] = items;
    }
    progress(`captured ${ENTRY_KINDS.map((kind) => countOf(kind, capture[kind].length)).join(', ')}`);
    await channel.close();
    return { capture, warnings: warningsFrom(channel.evidence), evidence: channel.evidence };
  } catch (error) {
    // Stop the server before diagnosing, so the stderr tail is complete.
    await channel.close();
    throw new CompileError(diagnose({ source, error, evidence: channel.evidence }), channel.evidence, error);
  } finally {
    await channel.close();
  }
}

function openChannel(source: ServerSource, clientCapabilities: readonly ClientCapability[]): RpcChannel {
  if (source.kind === 'url') return new HttpChannel({ url: source.url, headers: source.headers, clientCapabilities });
  const { command, cwd, env, passEnv, isolateEnv } = source;
  const launch = { command, cwd, env, passEnv, isolateEnv, clientCapabilities };
  if (source.url) return new LaunchedHttpChannel({ ...launch, url: source.url, headers: source.headers });
  return new StdioChannel({ ...launch, lenientStdout: source.lenientStdout });
}

function warningsFrom(evidence: AttemptEvidence): string[] {
  const warnings: string[] = [];
  if (evidence.survivors.length > 0) {
    warnings.push(`${evidence.survivors.length} process(es) the server started could not be stopped (${CONTAINMENT_DESCRIPTION[evidence.containment ?? 'process-group']}): ${evidence.survivors.join(', ')}`);
  }
  if (evidence.transport === 'stdio' && evidence.strayStdout.length > 0) {
    warnings.push(
      `the server wrote ${evidence.strayStdout.length} non-JSON line(s) to stdout, e.g. ${JSON.stringify(evidence.strayStdout[0])}; ` +
        'they were ignored, but MCP clients may choke on them: log to stderr instead',
    );
  }
  return warnings;
}
