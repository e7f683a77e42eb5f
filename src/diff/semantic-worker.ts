/**
 * The worker thread of the semantic cross-check (see semantic.ts): runs json-schema-diff on
 * the schema pairs it is sent. A file of its own, not an eval'd string, so that the Action's
 * bundler can bundle json-schema-diff into it (dist/semantic-worker.js): a runner has no
 * node_modules to find it in.
 *
 * json-schema-diff's public `diffSchemas` spends most of each call (measured: 8 of 9 ms)
 * building an Ajv and validating both schemas against the draft-07 meta-schema; our projected
 * schemas are valid by construction and hold no `$ref`. So the same set algebra as its
 * `diff-schemas.js` runs directly, falling back to the public API if those internals move. The
 * public API is loaded only then: it pulls in Ajv, a `$ref` parser and lodash, which more than
 * doubles the worker's start-up (measured: 121 ms against 49 ms to load). The imports are
 * "eager" for the Action's bundler: bundled into the worker's own file rather than split into
 * chunk files beside it, and still evaluated only when imported.
 */
import { parentPort } from 'node:worker_threads';

interface Job {
  id: string;
  previous: unknown;
  current: unknown;
}

interface Outcome {
  removalsFound: boolean;
  additionsFound: boolean;
  removedJsonSchema: unknown;
  addedJsonSchema: unknown;
}

interface JsonSet {
  type: string;
  intersect(other: JsonSet): JsonSet;
  complement(): JsonSet;
  toJsonSchema(): unknown;
}

async function directDiffer(): Promise<((previous: unknown, current: unknown) => Outcome) | null> {
  try {
    // @ts-expect-error: json-schema-diff's internals ship without type declarations.
    const { parseAsJsonSet } = (await import(/* webpackMode: "eager" */ 'json-schema-diff/dist/json-schema-diff/diff-schemas/parse-as-json-set.js')) as {
      parseAsJsonSet: (schema: unknown, context: unknown) => JsonSet;
    };
    // @ts-expect-error: as above.
    const { loadConfig } = (await import(/* webpackMode: "eager" */ 'json-schema-diff/dist/json-schema-diff/config.js')) as {
      loadConfig: (env: NodeJS.ProcessEnv) => { parseContext: unknown };
    };
    const context = loadConfig(process.env).parseContext;
    return (previous, current) => {
      const source = parseAsJsonSet(previous, context);
      const destination = parseAsJsonSet(current, context);
      const outside = source.intersect(destination).complement();
      const added = outside.intersect(destination);
      const removed = outside.intersect(source);
      return {
        additionsFound: added.type !== 'empty',
        removalsFound: removed.type !== 'empty',
        addedJsonSchema: added.toJsonSchema(),
        removedJsonSchema: removed.toJsonSchema(),
      };
    };
  } catch {
    return null;
  }
}

const direct = await directDiffer();

parentPort?.on('message', async (job: Job) => {
  try {
    const result: Outcome = direct
      ? direct(job.previous, job.current)
      : await (await import(/* webpackMode: "eager" */ 'json-schema-diff')).default.diffSchemas({ sourceSchema: job.previous as object, destinationSchema: job.current as object });
    parentPort?.postMessage({
      id: job.id,
      ok: true,
      removalsFound: result.removalsFound,
      additionsFound: result.additionsFound,
      removed: result.removedJsonSchema,
      added: result.addedJsonSchema,
    });
  } catch (error) {
    parentPort?.postMessage({ id: job.id, ok: false, error: String((error as Error)?.message ?? error) });
  }
});
