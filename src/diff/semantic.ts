/**
 * The semantic cross-check: ask `json-schema-diff` (set algebra over schemas) whether the set
 * of accepted values lost members (input) or gained members (output), to catch what the
 * keyword walker cannot see (constraints moved between `allOf` branches, restructured unions…).
 *
 * What we measured about json-schema-diff 1.0.0, and how each limit is handled:
 * - It ignores `enum`, `const`, `pattern`, `format`, `multipleOf`, `uniqueItems` (and treats
 *   unknown keywords as absent). We strip them, so both sides are over-approximated the same
 *   way; the walker judges those keywords exactly.
 * - It honours `additionalProperties: false` but ignores `patternProperties`, and reads `items`
 *   the draft-07 way, which would invent losses: where those appear we drop the pair (relaxing
 *   both sides again). `not` would turn the over-approximation into an under-approximation, and
 *   `$ref` may make it fetch files or URLs or throw on cycles: schemas with either are skipped.
 * - Its public API validates input against draft-07 (and throws on a 2020-12 `$schema`), which
 *   is most of its cost: the worker skips that step for our projected schemas (see below), and
 *   every throw is caught.
 * - `oneOf` costs it exponential time (a flat 5→6 branch oneOf took 65 s on this machine):
 *   `oneOf` is projected to `anyOf` (again an equal relaxation of both sides), which it handles
 *   in milliseconds.
 * - It is synchronous once started: a Promise timeout cannot stop it. It runs in worker
 *   threads that are terminated when a pair exceeds its time, or the whole diff its budget.
 */
import { existsSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import type { JsonObject, JsonSchema, JsonValue } from '../contract/model.js';
import { isJsonObject } from './json.js';

export interface SemanticJob {
  id: string;
  previous: JsonSchema;
  current: JsonSchema;
}

export type SemanticResult =
  | { status: 'done'; removalsFound: boolean; additionsFound: boolean; removed: JsonValue; added: JsonValue }
  | { status: 'skipped'; reason: string };

export interface SemanticBudget {
  /** Longest a single schema pair may take. */
  perPairMs: number;
  /** Longest the whole cross-check may take; pairs not started by then are skipped. */
  totalMs: number;
  /** Worker threads to use at most (default: available cores, at most 4; one per 20 pairs). */
  workers?: number;
}

/** Keywords json-schema-diff ignores (or that only annotate): stripped from both sides. */
const IGNORED = new Set([
  'enum', 'const', 'pattern', 'format', 'multipleOf', 'uniqueItems', 'title', 'description', 'default', 'examples',
  'deprecated', 'readOnly', 'writeOnly', '$comment', 'contentMediaType', 'contentEncoding', 'contentSchema', '$id',
  '$anchor', 'propertyNames', 'dependentRequired', 'dependentSchemas', 'if', 'then', 'else', 'contains', 'minContains',
  'maxContains', 'unevaluatedProperties', 'unevaluatedItems', '$defs',
]);
/** Keywords it understands; anything else is dropped (it would ignore it anyway). */
const UNDERSTOOD = new Set([
  'type', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'items', 'minItems',
  'maxItems', 'properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', 'allOf', 'anyOf',
  'oneOf', 'not',
]);
/**
 * Pairs per worker thread. Measured (Node 20, this engine's projected pairs): a worker costs
 * about 95 ms of CPU to start (it loads json-schema-diff), a typical pair about 5 ms; another
 * worker pays for its start only past some 20 pairs.
 */
const PAIRS_PER_WORKER = 20;
/** Beyond this the pair is not worth a worker: known to be slow, or simply huge. */
const MAX_BRANCHES = 64;
const MAX_SCHEMA_CHARS = 200_000;

export type Projection = { schema: JsonSchema } | { skip: string };

export interface ProjectionOptions {
  /**
   * Close objects that do not say what to do with undeclared properties. The engine's
   * convention is that callers send only declared properties (so a new optional property is
   * SAFE) and servers return only declared ones: the side whose values we enumerate (the old
   * input, the new output) is closed, so json-schema-diff judges by the same convention.
   */
  closeObjects?: boolean;
  /**
   * Read a required property that has a default as optional: in arguments the server fills it
   * in when a call leaves it out (the walker's rule for defaulted arguments), which
   * json-schema-diff cannot know.
   */
  defaultsAreOptional?: boolean;
}

/**
 * The schema as json-schema-diff should see it: only the keywords it understands, `oneOf` as
 * `anyOf`, or a reason to skip the pair.
 */
export function projectForSemanticCheck(schema: JsonSchema, options: ProjectionOptions = {}): Projection {
  let branches = 0;
  let reason: string | null = null;
  /** `part`: an allOf member, which describes the same object as its parent and is closed with it. */
  const visit = (node: JsonSchema, part = false): JsonSchema => {
    if (typeof node === 'boolean') return node;
    if (typeof node.$ref === 'string') reason ??= 'the schema is recursive ($ref)';
    if ('not' in node) reason ??= 'the schema uses "not"';
    // json-schema-diff reads `items` the draft-07 way: a tuple would be compared as something else.
    if (Array.isArray(node.prefixItems)) reason ??= 'the schema has a tuple (prefixItems), which json-schema-diff reads the draft-07 way';
    const out: JsonObject = {};
    const patterned = isJsonObject(node.patternProperties);
    for (const [key, value] of Object.entries(node)) {
      if (IGNORED.has(key) || !UNDERSTOOD.has(key)) continue;
      if (key === 'additionalProperties' && patterned) continue; // would reject pattern-matched names
      if (key === 'properties' && isJsonObject(value)) {
        out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v as JsonSchema)]));
      } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
        branches += value.length;
        const list = value.map((v) => visit(v as JsonSchema, key === 'allOf'));
        // oneOf → anyOf: the same relaxation on both sides, and polynomial instead of exponential.
        const target = key === 'allOf' ? 'allOf' : 'anyOf';
        out[target] = [...((out[target] as JsonValue[] | undefined) ?? []), ...list] as JsonValue;
      } else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && (isJsonObject(value) || typeof value === 'boolean')) {
        out[key] = visit(value as JsonSchema);
      } else if (key === 'required' && Array.isArray(value) && options.defaultsAreOptional === true) {
        const properties = isJsonObject(node.properties) ? node.properties : {};
        const needed = value.filter((name) => !(typeof name === 'string' && isJsonObject(properties[name]) && 'default' in (properties[name] as JsonObject)));
        if (needed.length > 0) out.required = needed;
      } else {
        out[key] = value;
      }
    }
    const members = Array.isArray(node.allOf) ? node.allOf.filter(isJsonObject) : [];
    const objectLike = 'properties' in node || node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object')) || members.some((m) => 'properties' in m);
    if (options.closeObjects === true && objectLike && !part && !('additionalProperties' in node) && !patterned) {
      // Closed once, with every name the object or its allOf members declare or require (each
      // member closed on its own would admit no object that any other member describes).
      const properties = { ...(isJsonObject(out.properties) ? out.properties : {}) };
      for (const source of [node, ...members]) {
        for (const name of [...Object.keys(isJsonObject(source.properties) ? source.properties : {}), ...(Array.isArray(source.required) ? source.required : [])]) {
          if (typeof name === 'string' && !Object.hasOwn(properties, name)) properties[name] = {};
        }
      }
      out.properties = properties;
      out.additionalProperties = false;
    }
    return out;
  };
  const projected = visit(schema);
  if (reason !== null) return { skip: reason };
  if (branches > MAX_BRANCHES) return { skip: `the schema has ${branches} union branches` };
  if (JSON.stringify(projected).length > MAX_SCHEMA_CHARS) return { skip: 'the schema is larger than 200,000 characters' };
  return { schema: projected };
}

type WorkerReply =
  | { id: string; ok: true; removalsFound: boolean; additionsFound: boolean; removed: JsonValue; added: JsonValue }
  | { id: string; ok: false; error: string };

/**
 * The worker module sits beside this one: lib/diff/ in the package, dist/ in the Action's
 * bundle (where `import.meta.url` is dist/index.js and the worker is bundled on its own).
 * Named through constants so the bundler leaves the URLs alone instead of copying the
 * unbundled file. Run from the TypeScript sources (the tests), the compiled worker in lib/
 * is used: a worker thread cannot load a .ts file.
 */
const WORKER_CANDIDATES = ['./semantic-worker.js', '../../lib/diff/semantic-worker.js'];
/** Looked for when a diff first has a pair to check, not on import: most diffs never do. */
let workerUrl: URL | null | undefined;
const findWorker = () => (workerUrl ??= WORKER_CANDIDATES.map((file) => new URL(file, import.meta.url)).find((url) => existsSync(url)) ?? null);

/**
 * Run json-schema-diff on every job, in worker threads, within the budget. Never throws: a
 * pair that fails, times out or is not reached gets `{ status: 'skipped', reason }`.
 */
export async function runSemanticChecks(jobs: readonly SemanticJob[], budget: SemanticBudget): Promise<Map<string, SemanticResult>> {
  const results = new Map<string, SemanticResult>();
  if (jobs.length === 0) return results;
  const workerUrl = findWorker();
  if (workerUrl === null) {
    for (const job of jobs) results.set(job.id, { status: 'skipped', reason: 'the json-schema-diff worker is not installed' });
    return results;
  }
  // Loaded with the first pair to check: worker threads are some 26 of Node's own modules (and
  // os one more), which most diffs never need.
  const [{ Worker }, { availableParallelism }] = await Promise.all([import('node:worker_threads'), import('node:os')]);

  const deadline = Date.now() + budget.totalMs;
  const queue = [...jobs];
  const poolSize = Math.max(1, Math.min(budget.workers ?? Math.min(availableParallelism(), 4), Math.ceil(jobs.length / PAIRS_PER_WORKER)));

  const lane = async (): Promise<void> => {
    let worker: Worker | null = null;
    try {
      for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
          results.set(job.id, { status: 'skipped', reason: `the ${budget.totalMs} ms budget of the semantic check ran out` });
          continue;
        }
        try {
          worker ??= new Worker(workerUrl);
        } catch (error) {
          results.set(job.id, { status: 'skipped', reason: `no worker thread could be started (${error instanceof Error ? error.message : String(error)})` });
          continue;
        }
        const limit = Math.min(budget.perPairMs, remaining);
        const outcome = await runOne(worker, job, limit);
        results.set(job.id, outcome.result);
        if (outcome.killWorker) {
          // The only way to stop a synchronous computation: terminate its thread.
          await worker.terminate();
          worker = null;
        }
      }
    } finally {
      if (worker !== null) await worker.terminate();
    }
  };

  await Promise.all(Array.from({ length: poolSize }, lane));
  return results;
}

function runOne(worker: Worker, job: SemanticJob, limitMs: number): Promise<{ result: SemanticResult; killWorker: boolean }> {
  return new Promise((resolve) => {
    const finish = (result: SemanticResult, killWorker: boolean) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      resolve({ result, killWorker });
    };
    const onMessage = (reply: WorkerReply) => {
      if (reply.id !== job.id) return;
      if (reply.ok) {
        finish({ status: 'done', removalsFound: reply.removalsFound, additionsFound: reply.additionsFound, removed: reply.removed, added: reply.added }, false);
      } else {
        finish({ status: 'skipped', reason: `json-schema-diff failed: ${reply.error.slice(0, 200)}` }, false);
      }
    };
    const onError = (error: Error) => finish({ status: 'skipped', reason: `json-schema-diff failed: ${error.message.slice(0, 200)}` }, true);
    const onExit = () => finish({ status: 'skipped', reason: 'json-schema-diff stopped unexpectedly' }, true);
    const timer = setTimeout(() => finish({ status: 'skipped', reason: `json-schema-diff took longer than ${limitMs} ms` }, true), limitMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage({ id: job.id, previous: job.previous, current: job.current });
  });
}
