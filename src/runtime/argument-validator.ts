/**
 * Checks `tools/call` arguments against the input schema the server published, with ajv in the
 * dialect the schema declares (`$schema`: draft-07 and older drafts, 2019-09, 2020-12). A schema
 * that declares none is read as 2020-12, MCP's default dialect, and as draft-07 when it only
 * compiles there (servers that predate the default write draft-07 without saying so).
 *
 * Two rules keep the proxy from refusing a call the server would have accepted:
 * - `format` is not checked: it is an annotation in 2020-12 and optional in draft-07, and
 *   validators disagree on what a valid email or URI is. A server that checks formats rejects
 *   the call itself, and its error is then explained like ours.
 * - A call that fails only on types a lenient server coerces (`"5"` for an integer, which
 *   pydantic accepts) is forwarded: it is blocked only when it also fails with ajv's
 *   `coerceTypes`. The errors reported are always the strict ones: what the contract says.
 *
 * Each schema is compiled once, on the first call to its tool, and again only when the server
 * publishes a different one. A schema ajv cannot compile (a remote `$ref`) leaves its tool
 * unchecked rather than blocked.
 *
 * The server's patterns run on a linear-time engine (runtime/patterns.ts), never on
 * JavaScript's backtracking one: a client's string cannot stall the proxy, and with it every
 * session it serves. A pattern that engine refuses (a lookaround, a backreference) is not
 * checked; the rest of the schema is, and the operator is told which pattern was skipped.
 */
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { linearPattern } from './patterns.js';

type Dialect = 'draft-07' | '2019-09' | '2020-12';
type AjvInstance = Ajv | Ajv2019 | Ajv2020;

export type ArgumentVerdict =
  /** `notChecked`: the schema's patterns the linear-time engine refuses, each with why (not run). */
  | { readonly kind: 'valid'; readonly notChecked: readonly string[] }
  /** The schema cannot be compiled: the call goes to the server as it is. */
  | { readonly kind: 'unchecked'; readonly reason: string }
  /** `blocking` is false when a server that coerces types could still accept the call. */
  | { readonly kind: 'invalid'; readonly errors: readonly ErrorObject[]; readonly blocking: boolean; readonly notChecked: readonly string[] };

interface CompiledSchema {
  /** The schema object last seen for the tool, and its JSON: a relisted equal schema is not recompiled. */
  schema: object;
  readonly text: string;
  readonly dialect: Dialect | undefined;
  readonly strict: ValidateFunction | undefined;
  lenient: ValidateFunction | undefined;
  readonly failure: string | undefined;
  /** Its patterns the linear-time engine refused, with why: they accept any string. */
  readonly notChecked: readonly string[];
}


const OPTIONS: Options = {
  // Server schemas carry vendor keywords and loose notation: never refuse a schema for style.
  strict: false,
  allErrors: true,
  validateFormats: false,
  validateSchema: false,
  // Two tools may declare the same $id; each schema stands alone.
  addUsedSchema: false,
  // A stray console line on stdout would corrupt the protocol stream.
  logger: false,
};

/** ajv's three dialects (ajv takes some 40 ms to load: see `ajv()`). */
interface AjvClasses {
  Ajv: typeof Ajv;
  Ajv2019: typeof Ajv2019;
  Ajv2020: typeof Ajv2020;
}

let classes: AjvClasses | undefined;

/**
 * ajv, loaded on the first schema compiled rather than on import: the proxy relays the
 * session's `initialize` before any call needs it, so a client's first answer never waits for
 * it (measured on Node 20: some 40 ms of CPU, about a proxy's whole start-up).
 */
function ajv(): AjvClasses {
  if (classes === undefined) {
    const require = createRequire(import.meta.url);
    classes = {
      Ajv: (require('ajv') as typeof import('ajv')).Ajv,
      Ajv2019: (require('ajv/dist/2019.js') as typeof import('ajv/dist/2019.js')).Ajv2019,
      Ajv2020: (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020,
    };
  }
  return classes;
}

export class ArgumentValidator {
  private readonly compiled = new Map<string, CompiledSchema>();
  private readonly instances = new Map<string, AjvInstance>();
  /** The refusals of the schema being compiled (ajv compiles its patterns as it compiles the schema). */
  private refused: string[] = [];
  /** ajv's `code.regExp`: every pattern goes through the linear-time engine. */
  private readonly regExp: RegExpEngine = Object.assign(
    (pattern: string) => {
      const verdict = linearPattern(pattern);
      if ('pattern' in verdict) return verdict.pattern;
      this.refused.push(`${JSON.stringify(pattern)}: ${verdict.refused}`);
      // It checks nothing (it is reported instead); ajv tells patterns apart by their text.
      return { test: () => true, toString: () => `(not checked) /${pattern}/` };
    },
    { code: 'linearPattern' },
  );

  check(toolName: string, schema: unknown, args: unknown): ArgumentVerdict {
    const compiled = this.compile(toolName, schema);
    if (compiled.strict === undefined) return { kind: 'unchecked', reason: compiled.failure ?? 'no input schema' };
    const value = args ?? {};
    const { notChecked } = compiled;
    if (compiled.strict(value)) return { kind: 'valid', notChecked };
    const errors = compiled.strict.errors ?? [];
    compiled.lenient ??= this.instance(compiled.dialect, true).compile(compiled.schema);
    // Coercion rewrites the data it checks: give it a copy, the call goes out byte for byte.
    return { kind: 'invalid', errors, blocking: !compiled.lenient(structuredClone(value)), notChecked };
  }

  /** The strict errors for arguments a server rejected (none when they match the schema or it cannot be compiled). */
  errors(toolName: string, schema: unknown, args: unknown): readonly ErrorObject[] {
    const strict = this.compile(toolName, schema).strict;
    if (strict === undefined || strict(args ?? {})) return [];
    return strict.errors ?? [];
  }

  /** Forgets the schemas of tools the server no longer lists. */
  retain(toolNames: ReadonlySet<string>): void {
    for (const [name, compiled] of this.compiled) {
      if (toolNames.has(name)) continue;
      this.forget(compiled);
      this.compiled.delete(name);
    }
  }

  private compile(toolName: string, schema: unknown): CompiledSchema {
    const cached = this.compiled.get(toolName);
    if (cached !== undefined && cached.schema === schema) return cached;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      return { schema: {}, text: '', dialect: undefined, strict: undefined, lenient: undefined, failure: 'its inputSchema is not an object', notChecked: [] };
    }
    const text = JSON.stringify(schema);
    if (cached !== undefined && cached.text === text) {
      cached.schema = schema;
      return cached;
    }
    if (cached !== undefined) this.forget(cached);
    const declared = declaredDialect(schema);
    let failure = '';
    let result: CompiledSchema | undefined;
    for (const dialect of declared !== undefined ? [declared] : (['2020-12', 'draft-07'] as const)) {
      this.refused = [];
      try {
        const strict = this.instance(dialect, false).compile(schema);
        result = { schema, text, dialect, strict, lenient: undefined, failure: undefined, notChecked: [...new Set(this.refused)] };
        break;
      } catch (error) {
        failure ||= error instanceof Error ? error.message : String(error);
      }
    }
    result ??= { schema, text, dialect: declared, strict: undefined, lenient: undefined, failure, notChecked: [] };
    this.compiled.set(toolName, result);
    return result;
  }

  private forget(compiled: CompiledSchema): void {
    // ajv caches every compiled schema object; a server relisting new schemas must not grow it.
    for (const [key, instance] of this.instances) {
      if (key.startsWith(`${compiled.dialect}:`)) instance.removeSchema(compiled.schema);
    }
  }

  private instance(dialect: Dialect | undefined, coerce: boolean): AjvInstance {
    const chosen = dialect ?? '2020-12';
    const key = `${chosen}:${coerce}`;
    let instance = this.instances.get(key);
    if (instance === undefined) {
      const options: Options = { ...OPTIONS, code: { regExp: this.regExp }, ...(coerce ? { coerceTypes: true } : {}) };
      const { Ajv, Ajv2019, Ajv2020 } = ajv();
      instance = chosen === '2020-12' ? new Ajv2020(options) : chosen === '2019-09' ? new Ajv2019(options) : new Ajv(options);
      this.instances.set(key, instance);
    }
    return instance;
  }
}

function declaredDialect(schema: object): Dialect | undefined {
  const uri = (schema as { $schema?: unknown }).$schema;
  if (typeof uri !== 'string') return undefined;
  if (/json-schema\.org\/draft\/2020-12\//.test(uri)) return '2020-12';
  if (/json-schema\.org\/draft\/2019-09\//.test(uri)) return '2019-09';
  // draft-04 and draft-06 are close enough to read with draft-07; what is not compiles to "unchecked".
  if (/json-schema\.org\/draft-0[4-7]\//.test(uri)) return 'draft-07';
  return undefined;
}
