/**
 * The start-up budget, where the clock is the subject: on a fake clock, so what is waited for
 * and when healing gives up are exact, however busy the machine running the tests is. The
 * server is real (a process that never answers); only the timers are not.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newEvidence } from '../../src/compile/channel.js';
import { CompileError, HealingFailedError, compileContracts, type ContractSource, type ServerCapture } from '../../src/compile/index.js';
import { withHealing } from '../../src/compile/heal.js';
import type { CaptureOptions } from '../../src/compile/capture.js';
import { ROOT, fixture } from '../helpers/processes.js';

afterEach(() => {
  vi.useRealTimers();
});

const neverAnswers: ContractSource = { kind: 'command', command: [process.execPath, fixture('never-answers.mjs')], cwd: ROOT, timeoutMs: 1000 };

/**
 * Settle `work` on a fake clock moved `stepMs` at a time, with real I/O in between (the
 * server's process is real); the outcome, thrown or returned.
 */
async function onFakeClock<T>(work: () => Promise<T>, stepMs = 50): Promise<T> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  let outcome: { value: T } | { error: unknown } | undefined;
  work().then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  for (let step = 0; outcome === undefined && step < 10_000; step++) {
    await vi.advanceTimersByTimeAsync(stepMs);
    // setImmediate is not faked: the server's output and exit come in here.
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (outcome === undefined) throw new Error('still running after 10,000 steps of the fake clock');
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

async function failureOf(work: () => Promise<unknown>): Promise<HealingFailedError> {
  const error = await onFakeClock(work).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof HealingFailedError)) throw new Error(`expected healing to give up, got ${String(error)}`);
  return error;
}

describe('a server that never answers', () => {
  it('is waited for as a slow start up to twice the timeout, once, then the guidance says so', async () => {
    const error = await failureOf(() => compileContracts(neverAnswers));
    expect(error.report.attempts).toHaveLength(1);
    expect(error.message).toContain('The server did not answer initialize within 1 s, nor in the 1 s more it was waited for as a slow start.');
    expect(error.userActionNeeded).toContain('start-up gets up to 2 × --timeout, 2 s now');
  });

  it('with healing off, --timeout is the whole start-up', async () => {
    const error = await failureOf(() => compileContracts(neverAnswers, { heal: false }));
    expect(error.report.attempts).toHaveLength(1);
    expect(error.message).toContain('The server did not answer initialize within 1 s.');
    expect(error.userActionNeeded).toContain('with healing off, start-up gets --timeout and no more, 1 s now');
  });

  it('the wait for the first answer starts with the attempt: the message names the timeout given, to the tenth', async () => {
    // The server's start is what a busy machine slows: on the fake clock, 0.3 s of it.
    const error = await failureOf(() => compileContracts({ ...neverAnswers, timeoutMs: 500 }, { heal: false, onProgress: (m) => m.startsWith('starting') && vi.advanceTimersByTime(300) }));
    expect(error.message).toContain('did not answer initialize within 0.5 s');
  });
});

describe('retries share the start-up budget (2 × the timeout)', () => {
  const source: ContractSource & { kind: 'command' } = { kind: 'command', command: ['server'], timeoutMs: 1000 };
  const transientCrash = () =>
    new CompileError({ category: 'crashed', confidence: 0.6, explanation: "The server exited with code 1. Error: EBUSY: resource busy or locked, open 'cache.db'" }, newEvidence('stdio', 'server'), undefined);
  const captured: ServerCapture = {
    capture: { server: { name: 's' }, protocolVersion: '2025-11-25', era: 'legacy', tools: [], prompts: [], resources: [], resourceTemplates: [] },
    warnings: [],
    evidence: newEvidence('stdio', 'server'),
  };
  /** A capture that fails once after `crashAfterMs` of the clock, then works; the deadlines it was given. */
  function crashingOnce(crashAfterMs: number) {
    const deadlines: number[] = [];
    let started = 0;
    const capture = async (_source: unknown, options: CaptureOptions) => {
      deadlines.push(options.deadline! - started);
      if (deadlines.length > 1) return captured;
      vi.advanceTimersByTime(crashAfterMs);
      throw transientCrash();
    };
    return { deadlines, run: () => ((started = Date.now()), withHealing(source, capture)) };
  }

  it('a transient crash within the budget is retried, and the retry gets what is left of it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { deadlines, run } = crashingOnce(500);
    const { healing } = await run();
    expect(healing.attempts.map((a) => a.outcome)).toEqual(['failed', 'captured']);
    expect(deadlines).toEqual([2000, 2000]);
  });

  it('a retry late in the budget still gets half a timeout to start', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { deadlines, run } = crashingOnce(1900);
    await run();
    expect(deadlines).toEqual([2000, 2400]);
  });

  it('once the budget is spent, no retry: healing stops and says why', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { deadlines, run } = crashingOnce(2200);
    const error = await run().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(HealingFailedError);
    expect(deadlines).toEqual([2000]);
    expect((error as HealingFailedError).userActionNeeded).toContain('Next it would have retried once: the crash looks transient');
    expect((error as HealingFailedError).userActionNeeded).toContain('but start-up has used its budget (2 × --timeout, 2 s)');
  });
});
