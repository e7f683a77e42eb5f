/**
 * The one decision about an incoming call that the runtime and the proxy share (CallRouter):
 * from the artifact and the tools the server lists now, served as it is, served under the new
 * names with a notice, or refused with what changed. Through a real McpServer and the proxy
 * see renames.test.ts; here, every rule of the decision on its own.
 */
import { describe, expect, it } from 'vitest';
import { CallRouter, NEEDS_LISTING, NOTICE_META_KEY, withNotice, type ListedTools, type RoutingOptions } from '../../src/runtime/routing.js';
import { loadDeltaMap } from '../../src/runtime/index.js';
import type { Delta, Release } from '../../src/protocol/index.js';
import { delta, report } from './helpers.js';

const string = (description?: string) => ({ type: 'string', ...(description !== undefined ? { description } : {}) });
const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });

/** The artifact of a release that renamed `ref` → `target` (also inside `fields[]`), removed `days`, and renamed a tool. */
const TOOLS: Record<string, Delta[]> = {
  browser_evaluate: [
    delta({ field: 'inputSchema.properties.target', kind: 'property-renamed', previous: 'ref', current: 'target', facts: { sameSchema: true } }),
  ],
  browser_fill_form: [
    delta({ field: 'inputSchema.properties.fields.items.properties.target', kind: 'property-renamed', previous: 'ref', current: 'target', facts: { pairedByName: true, sameSchema: true } }),
  ],
  search: [delta({ field: 'inputSchema.properties.days', kind: 'property-removed', severity: 'RISKY', previous: { type: 'integer', description: 'Only results of the last N days' }, current: null })],
  check_stock: [delta({ field: 'name', kind: 'tool-renamed', previous: 'get_stock', current: 'check_stock', renamedFrom: 'get_stock', renamedTo: 'check_stock', facts: { sameShape: true, sameName: false, sameDescription: true } })],
  remove_directory: [delta({ field: 'name', kind: 'tool-renamed', previous: 'remove_file', current: 'remove_directory', renamedFrom: 'remove_file', renamedTo: 'remove_directory', facts: { sameShape: true, sameName: false, sameDescription: false } })],
};

/** What the server lists after that release. */
const LISTED = new Map<string, unknown>([
  ['browser_evaluate', object({ function: string(), target: string(), filename: string() }, ['function'])],
  ['browser_fill_form', object({ fields: { type: 'array', items: object({ name: string(), target: string(), value: string() }, ['name', 'target', 'value']) } }, ['fields'])],
  ['search', object({ query: string() }, ['query'])],
  ['check_stock', object({ sku: string() }, ['sku'])],
  ['remove_directory', object({ path: string() }, ['path'])],
]);

function listed(schemas: ReadonlyMap<string, unknown> = LISTED): ListedTools {
  return { has: (name) => schemas.has(name), inputSchemaOf: (name) => schemas.get(name) };
}

function router(options: RoutingOptions = {}, release?: Release, tools: Record<string, Delta[]> = TOOLS): CallRouter {
  return new CallRouter(loadDeltaMap({ ...report(tools), ...(release !== undefined ? { release } : {}) }), options);
}

const RELEASE: Release = { version: '2.0.0', date: '2025-06-01' };
const at = (day: string) => () => Date.parse(`${day}T12:00:00Z`);

describe('the identity path: a call the artifact says nothing about', () => {
  it('is served as it is, without asking for the listing', () => {
    const routes = router({ renames: 'route' });
    expect(routes.decide('browser_click', { ref: 'e1' }, undefined)).toBeUndefined();
    expect(routes.decide('browser_evaluate', { function: '() => 1', target: 'e1' }, undefined)).toBeUndefined();
    expect(routes.decide('search', { query: 'x' }, undefined)).toBeUndefined();
    expect(routes.decide('browser_fill_form', { fields: [{ name: 'n', target: 'e1', value: 'v' }] }, undefined)).toBeUndefined();
    expect(routes.decide('search', 'not an object', undefined)).toBeUndefined();
  });

  it('is the only path of an artifact with nothing renamed or removed', () => {
    expect(router({}, undefined, { search: [delta({ field: 'inputSchema.properties.query.maxLength', kind: 'length-range-narrowed', previous: null, current: 10 })] }).active).toBe(false);
  });

  it('needs the listing only for a call that sends an old name (or, routing, calls an old tool)', () => {
    expect(router().decide('search', { query: 'x', days: 7 }, undefined)).toBe(NEEDS_LISTING);
    expect(router({ renames: 'route' }).decide('get_stock', { sku: 'A-1' }, undefined)).toBe(NEEDS_LISTING);
    // Explaining a moved tool needs no decision: the server's "not found" is explained as it is today.
    expect(router().decide('get_stock', { sku: 'A-1' }, undefined)).toBeUndefined();
  });
});

describe('explain (the default): an old-shaped argument is refused with what changed, never dropped', () => {
  it('refuses a removed argument and a renamed one, naming each where it was sent', () => {
    const routes = router();
    expect(routes.decide('search', { query: 'x', days: 7 }, listed())).toEqual({ kind: 'refuse', name: 'search', args: { query: 'x', days: 7 }, fields: [{ at: [], name: 'days' }] });
    const form = { fields: [{ name: 'a', target: 'e1', value: 'v' }, { name: 'b', ref: 'e2', value: 'w' }] };
    expect(routes.decide('browser_fill_form', form, listed())).toEqual({ kind: 'refuse', name: 'browser_fill_form', args: form, fields: [{ at: ['fields', 1], name: 'ref', renamedTo: 'target' }] });
  });

  it('leaves an old name the server still takes to the server', () => {
    const still = new Map(LISTED).set('search', object({ query: string(), days: { type: 'integer' } }));
    expect(router().decide('search', { query: 'x', days: 7 }, listed(still))).toBeUndefined();
    // A map (additionalProperties saying what its values are) takes any name: its business too.
    const map = new Map(LISTED).set('search', { ...object({ query: string() }), additionalProperties: { type: 'integer' } });
    expect(router().decide('search', { query: 'x', days: 7 }, listed(map))).toBeUndefined();
    // A passthrough object accepts the name without declaring it: the handler has no reason to read it.
    const loose = new Map(LISTED).set('search', { ...object({ query: string() }), additionalProperties: {} });
    expect(router().decide('search', { query: 'x', days: 7 }, listed(loose))).toMatchObject({ kind: 'refuse', fields: [{ at: [], name: 'days' }] });
  });
});

describe('route: served under the new names, with a notice', () => {
  it('translates a renamed argument at any depth, leaving the arguments as sent untouched', () => {
    const sent = { fields: [{ name: 'a', ref: 'e1', value: 'v' }, { name: 'b', target: 'e2', value: 'w' }] };
    const decision = router({ renames: 'route', now: at('2025-07-01') }, RELEASE).decide('browser_fill_form', sent, listed());
    expect(decision).toMatchObject({ kind: 'serve', name: 'browser_fill_form', args: { fields: [{ name: 'a', target: 'e1', value: 'v' }, { name: 'b', target: 'e2', value: 'w' }] } });
    expect(sent.fields[0]).toEqual({ name: 'a', ref: 'e1', value: 'v' });
  });

  it('drops a removed argument and says what was ignored, with what it was', () => {
    const decision = router({ renames: 'route', now: at('2025-07-01') }, RELEASE).decide('search', { query: 'x', days: 7 }, listed());
    expect(decision).toEqual({
      kind: 'serve',
      name: 'search',
      args: { query: 'x' },
      notice: {
        text: [
          '<contract_notice>',
          '<message>"days" was ignored: the tool no longer takes it in 2.0.0 (it was: Only results of the last N days).</message>',
          '<recovery>Do not send what was ignored again.</recovery>',
          '</contract_notice>',
        ].join('\n'),
        meta: { [NOTICE_META_KEY]: { ignored: ['days'], release: RELEASE } },
      },
    });
  });

  it('runs a renamed tool the server no longer lists, when the diff is sure, translating its arguments too', () => {
    const decision = router({ renames: 'route', now: at('2025-07-01') }, RELEASE).decide('get_stock', { sku: 'A-1' }, listed());
    expect(decision).toEqual({
      kind: 'serve',
      name: 'check_stock',
      args: { sku: 'A-1' },
      notice: {
        text: [
          '<contract_notice>',
          '<message>The tool "get_stock" was renamed to "check_stock" in 2.0.0: this call was served by "check_stock".</message>',
          '<recovery>Use the new names from now on (the old ones are served until 2026-06-01).</recovery>',
          '</contract_notice>',
        ].join('\n'),
        meta: { [NOTICE_META_KEY]: { tool: { from: 'get_stock', to: 'check_stock' }, release: RELEASE, servedUntil: '2026-06-01' } },
      },
    });
  });

  it('never routes to a tool the diff is not sure is the same one, nor while the server still lists the old name', () => {
    const routes = router({ renames: 'route', now: at('2025-07-01') }, RELEASE);
    // Same arguments, different name and description: remove_file is not remove_directory.
    expect(routes.decide('remove_file', { path: '/tmp/a' }, listed())).toBeUndefined();
    expect(routes.decide('get_stock', { sku: 'A-1' }, listed(new Map(LISTED).set('get_stock', object({ sku: string() }))))).toBeUndefined();
    expect(routes.decide('get_stock', { sku: 'A-1' }, listed(new Map([...LISTED].filter(([name]) => name !== 'check_stock'))))).toBeUndefined();
  });

  it('explains instead where routing would guess: both names sent, a rename the diff is not sure of, a new name the server does not take', () => {
    const routes = router({ renames: 'route', now: at('2025-07-01') }, RELEASE);
    expect(routes.decide('browser_evaluate', { function: 'f', ref: 'e1', target: 'e2' }, listed())).toMatchObject({ kind: 'refuse', fields: [{ at: [], name: 'ref', renamedTo: 'target' }] });
    const unsure = router({ renames: 'route', now: at('2025-07-01') }, RELEASE, { browser_evaluate: [delta({ field: 'inputSchema.properties.target', kind: 'property-renamed', previous: 'ref', current: 'target', facts: { sameSchema: false } })] });
    expect(unsure.decide('browser_evaluate', { function: 'f', ref: 'e1' }, listed())).toMatchObject({ kind: 'refuse' });
    const stale = new Map(LISTED).set('browser_evaluate', object({ function: string() }));
    expect(routes.decide('browser_evaluate', { function: 'f', ref: 'e1' }, listed(stale))).toMatchObject({ kind: 'refuse' });
  });

  it('an older artifact: a property rename without facts was paired by equal schemas, and is routed', () => {
    const old = router({ renames: 'route' }, undefined, { browser_evaluate: [delta({ field: 'inputSchema.properties.target', kind: 'property-renamed', previous: 'ref', current: 'target' })] });
    expect(old.decide('browser_evaluate', { function: 'f', ref: 'e1' }, listed())).toMatchObject({ kind: 'serve', args: { function: 'f', target: 'e1' } });
  });

  it('keeps a member called __proto__ as data when it moves it', () => {
    const routes = router({ renames: 'route' }, undefined, { t: [delta({ field: 'inputSchema.properties.__proto__', kind: 'property-renamed', previous: 'constructor', current: '__proto__' })] });
    const sent = JSON.parse('{"constructor": {"polluted": true}}') as Record<string, unknown>;
    const decision = routes.decide('t', sent, listed(new Map([['t', object({ ['__proto__']: { type: 'object' } })]])));
    expect(decision).toMatchObject({ kind: 'serve' });
    const args = (decision as { args: Record<string, unknown> }).args;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(args, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('the deprecation window', () => {
  it('routes until renameWindowDays after the release date, then explains (the clock is injectable)', () => {
    const decide = (now: string, days?: number) => (router({ renames: 'route', now: at(now), ...(days !== undefined ? { renameWindowDays: days } : {}) }, RELEASE).decide('browser_evaluate', { function: 'f', ref: 'e1' }, listed()) as { kind: string }).kind;
    expect(decide('2025-06-01')).toBe('serve');
    expect(decide('2026-05-31')).toBe('serve');
    expect(decide('2026-06-01')).toBe('refuse');
    expect(decide('2025-06-15', 10)).toBe('refuse');
    expect(decide('2025-06-05', 10)).toBe('serve');
    // After the window a renamed tool is no longer run: the server's "not found" is explained.
    expect(router({ renames: 'route', now: at('2026-06-02') }, RELEASE).decide('get_stock', { sku: 'A-1' }, listed())).toBeUndefined();
  });

  it('an artifact without a release date routes with no end to the window, and its notice names no date', () => {
    const decision = router({ renames: 'route', now: at('2099-01-01') }).decide('get_stock', { sku: 'A-1' }, listed());
    expect(decision).toMatchObject({ kind: 'serve', name: 'check_stock' });
    expect((decision as { notice: { text: string } }).notice.text).toContain('<recovery>Use the new names from now on.</recovery>');
  });

  it('refuses bad options at construction, never in a request', () => {
    expect(() => router({ renames: 'always' as never })).toThrow(/renames must be "route" or "explain"/);
    expect(() => router({ renameWindowDays: -1 })).toThrow(RangeError);
    expect(() => router({ renameWindowDays: 1.5 })).toThrow(RangeError);
  });
});

describe('the notice in a result', () => {
  it('is a text item after the tool\'s own content and its _meta: a structured result stays as it was', () => {
    const notice = { text: '<contract_notice>…</contract_notice>', meta: { [NOTICE_META_KEY]: { ignored: ['days'] } } };
    const result = { content: [{ type: 'text', text: '{"total":3}' }], structuredContent: { total: 3 }, _meta: { 'acme/trace': 'x' } };
    expect(withNotice(result, notice)).toEqual({
      content: [{ type: 'text', text: '{"total":3}' }, { type: 'text', text: '<contract_notice>…</contract_notice>' }],
      structuredContent: { total: 3 },
      _meta: { 'acme/trace': 'x', [NOTICE_META_KEY]: { ignored: ['days'] } },
    });
    // A task's handle has no content: left alone.
    expect(withNotice({ task: { taskId: 't1' } }, notice)).toEqual({ task: { taskId: 't1' } });
  });
});
