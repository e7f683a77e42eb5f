import fc from 'fast-check';
import { expect } from 'vitest';

/** Below this, a run is too short to time: noise (a collection, a scheduler slice) is most of it. */
const TOO_SHORT_TO_TIME_MS = 50;
/**
 * Linear work grows about 10× for a 10× input, up to 35× measured here (caches and collections
 * do worse as the input grows); quadratic work grows 100×.
 */
const MOST_GROWTH_FOR_10X = 50;

/**
 * That `work` takes time linear in its input, without a wall-clock budget a busy machine would
 * break: `work(1)` and `work(10)` (the caller scales its input by that factor) are each timed at
 * their fastest of three interleaved runs (load only ever adds time, so the fastest run is the
 * one load touched least), and the larger may take at most `MOST_GROWTH_FOR_10X` times the
 * smaller. Work that finishes in a few milliseconds even at 10× passes as it is.
 */
export async function expectLinearTime(what: string, work: (scale: 1 | 10) => unknown): Promise<void> {
  const fastest = { 1: Infinity, 10: Infinity };
  for (let round = 0; round < 3; round++) {
    for (const scale of [1, 10] as const) {
      const started = performance.now();
      await work(scale);
      fastest[scale] = Math.min(fastest[scale], performance.now() - started);
      // Back to the event loop between runs (see returnsToEventLoop).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  if (fastest[10] < TOO_SHORT_TO_TIME_MS) return;
  const growth = fastest[10] / Math.max(fastest[1], 0.1);
  expect(growth, `${what}: ${fastest[1].toFixed(1)} ms for 1×, ${fastest[10].toFixed(1)} ms for 10× the input`).toBeLessThan(MOST_GROWTH_FOR_10X);
}

/**
 * For `fc.assert(asyncProperty, { plugins: [returnsToEventLoop] })`: between draws, the test
 * worker gets back to its event loop. A thousand draws back to back keep it away for over a
 * minute on a busy machine, long enough for vitest to give up on its own messages ("Timeout
 * calling onTaskUpdate") and fail a run whose every test passed.
 */
export const returnsToEventLoop = fc.beforeEach(() => new Promise<void>((resolve) => setImmediate(resolve)));

/**
 * For `vi.waitFor(check, soon)`: something that happens promptly (a killed process reaped, a
 * line written), bounded far past what a busy machine takes. vitest's default, 1 s, is not.
 */
export const soon = { timeout: 60_000, interval: 50 };
