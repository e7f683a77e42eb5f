import { describe, expect, it } from 'vitest';
import { diffContracts, fingerprintOf } from '../../src/diff/index.js';
import { brief, contractsOf, diffTools, tool } from './helpers.js';

const args = { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'number' } }, required: ['path'] };

describe('tools', () => {
  it('identical contracts give an empty report with maxSeverity null', async () => {
    const report = await diffTools([tool(args, { description: 'Read' })], [tool(args, { description: 'Read' })]);
    expect(report).toEqual({
      version: 1,
      summary: { maxSeverity: null, counts: { BREAKING: 0, RISKY: 0, SAFE: 0, COSMETIC: 0 }, semverBump: 'none' },
      server: { previous: { name: 'test' }, current: { name: 'test' }, maxSeverity: null, deltas: [] },
      tools: {},
      prompts: {},
      resources: {},
      resourceTemplates: {},
    });
  });

  it('a removed tool is BREAKING, an added tool SAFE, and only entries with deltas appear', async () => {
    const report = await diffTools(
      [{ name: 'keep', inputSchema: args }, { name: 'old_tool', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }],
      [{ name: 'keep', inputSchema: args }, { name: 'brand_new', inputSchema: { type: 'object', properties: { id: { type: 'integer' }, n: { type: 'boolean' } } } }],
    );
    expect(Object.keys(report.tools).sort()).toEqual(['brand_new', 'old_tool']);
    expect(brief(report.tools.old_tool?.deltas ?? [])).toEqual(['tool-removed@=BREAKING']);
    expect(brief(report.tools.brand_new?.deltas ?? [])).toEqual(['tool-added@=SAFE']);
    expect(report.tools.old_tool?.deltas[0]?.hint).toMatch(/deprecated/);
    expect(report.summary).toEqual({ maxSeverity: 'BREAKING', counts: { BREAKING: 1, RISKY: 0, SAFE: 1, COSMETIC: 0 }, semverBump: 'major' });
  });

  it('a rename with equal arguments is ONE BREAKING delta naming both, with the alias hint', async () => {
    const report = await diffTools([{ name: 'getTinyImage', inputSchema: args }], [{ name: 'get-tiny-image', inputSchema: args }]);
    expect(Object.keys(report.tools)).toEqual(['get-tiny-image']);
    const deltas = report.tools['get-tiny-image']?.deltas ?? [];
    expect(deltas).toHaveLength(1);
    expect(deltas[0]).toMatchObject({
      severity: 'BREAKING',
      kind: 'tool-renamed',
      field: 'name',
      renamedFrom: 'getTinyImage',
      renamedTo: 'get-tiny-image',
      previous: 'getTinyImage',
      current: 'get-tiny-image',
    });
    expect(deltas[0]?.hint).toMatch(/alias/);
  });

  it('a rename with near-equal arguments also reports how the arguments changed', async () => {
    const after = { ...args, properties: { ...args.properties, encoding: { type: 'string' } } };
    const report = await diffTools([{ name: 'read_file', inputSchema: args, description: 'Read a file' }], [{ name: 'read_text_file', inputSchema: after, description: 'Read a text file' }]);
    expect(brief(report.tools.read_text_file?.deltas ?? [])).toEqual([
      'tool-renamed@name=BREAKING',
      'property-added@inputSchema.properties.encoding=SAFE',
      'description-changed@description=COSMETIC',
    ]);
  });

  it('unrelated tools with a common one-argument shape are not taken for a rename', async () => {
    const id = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    const report = await diffTools([{ name: 'delete_user', inputSchema: id, description: 'Delete a user account' }], [{ name: 'get_order', inputSchema: id, description: 'Fetch an order' }]);
    expect(brief(report.tools.delete_user?.deltas ?? [])).toEqual(['tool-removed@=BREAKING']);
    expect(brief(report.tools.get_order?.deltas ?? [])).toEqual(['tool-added@=SAFE']);
  });

  it('title and description rewording is COSMETIC', async () => {
    const report = await diffTools([tool(args, { title: 'Read', description: 'Reads a file' })], [tool(args, { title: 'Read file', description: 'Reads one file' })]);
    expect(brief(report.tools.t?.deltas ?? [])).toEqual(['description-changed@description=COSMETIC', 'title-changed@title=COSMETIC']);
  });

  it('annotations are compared after defaults and RISKY in the listed directions', async () => {
    const before = tool(args, { annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } });
    const after = tool(args, { annotations: {} });
    const deltas = (await diffTools([before], [after])).tools.t?.deltas ?? [];
    expect(brief(deltas)).toEqual([
      'tool-became-destructive@annotations.destructiveHint=RISKY',
      'tool-no-longer-idempotent@annotations.idempotentHint=RISKY',
      'tool-became-open-world@annotations.openWorldHint=RISKY',
      'tool-no-longer-read-only@annotations.readOnlyHint=RISKY',
    ]);
    // The other way round is reassuring, not risky.
    const back = (await diffTools([after], [before])).tools.t?.deltas ?? [];
    expect(back.every((d) => d.severity === 'SAFE')).toBe(true);
    expect(back).toHaveLength(4);
  });

  it('omitting an annotation equals sending its default', async () => {
    const report = await diffTools([tool(args, { annotations: { destructiveHint: true } })], [tool(args)]);
    expect(report.tools).toEqual({});
  });

  it('execution.taskSupport becoming required is BREAKING; relaxing it SAFE', async () => {
    const required = (await diffTools([tool(args)], [tool(args, { execution: { taskSupport: 'required' } })])).tools.t?.deltas ?? [];
    expect(brief(required)).toEqual(['task-support-required@execution.taskSupport=BREAKING']);
    const relaxed = (await diffTools([tool(args, { execution: { taskSupport: 'required' } })], [tool(args, { execution: { taskSupport: 'optional' } })])).tools.t?.deltas ?? [];
    expect(brief(relaxed)).toEqual(['task-support-relaxed@execution.taskSupport=SAFE']);
  });

  it('outputSchema removed is BREAKING, added SAFE', async () => {
    const out = { type: 'object', properties: { content: { type: 'string' } } };
    expect(brief((await diffTools([tool(args, { outputSchema: out })], [tool(args)])).tools.t?.deltas ?? [])).toEqual(['output-schema-removed@outputSchema=BREAKING']);
    expect(brief((await diffTools([tool(args)], [tool(args, { outputSchema: out })])).tools.t?.deltas ?? [])).toEqual(['output-schema-added@outputSchema=SAFE']);
  });

  it('a dialect-only change is exactly one COSMETIC delta', async () => {
    const draft07 = { $schema: 'http://json-schema.org/draft-07/schema#', ...args, definitions: {} };
    const draft2020 = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...args };
    const deltas = (await diffTools([tool(draft07)], [tool(draft2020)])).tools.t?.deltas ?? [];
    expect(brief(deltas)).toEqual(['schema-dialect-changed@inputSchema.$schema=COSMETIC']);
    expect(deltas[0]).toMatchObject({ previous: 'http://json-schema.org/draft-07/schema#', current: 'https://json-schema.org/draft/2020-12/schema' });
  });

  it('an added $schema with nothing else is COSMETIC at most', async () => {
    const report = await diffTools([tool(args)], [tool({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...args })]);
    expect(report.summary.maxSeverity).toBe('COSMETIC');
  });

  it('unknown tool fields are metadata (COSMETIC)', async () => {
    const deltas = (await diffTools([tool(args, { icons: [{ src: 'a.png' }] })], [tool(args, { icons: [{ src: 'b.png' }] })])).tools.t?.deltas ?? [];
    expect(brief(deltas)).toEqual(['metadata-changed@icons=COSMETIC']);
  });

  it('deltas are sorted by severity, then field, then kind', async () => {
    const before = tool({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string', enum: ['x', 'y'] } } }, { description: 'x' });
    const after = tool({ type: 'object', properties: { a: { type: 'string', description: 'A' }, b: { type: 'string', enum: ['x', 'y', 'z'] }, c: { type: 'string' } }, required: ['c'] }, { description: 'y' });
    const deltas = (await diffTools([before], [after])).tools.t?.deltas ?? [];
    expect(brief(deltas)).toEqual([
      'required-property-added@inputSchema.properties.c=BREAKING',
      'enum-widened@inputSchema.properties.b.enum=SAFE',
      'description-changed@description=COSMETIC',
      'description-changed@inputSchema.properties.a.description=COSMETIC',
    ]);
  });

  it('fingerprints are stable across runs and differ between deltas', async () => {
    const run = () => diffTools([tool(args)], [tool({ ...args, required: ['limit', 'path'] }, { description: 'new' })]);
    const [a, b] = await Promise.all([run(), run()]);
    expect(a).toEqual(b);
    const prints = a.tools.t?.deltas.map((d) => d.fingerprint) ?? [];
    expect(new Set(prints).size).toBe(prints.length);
    // Pinned: a fingerprint is an allow-list key, it must not drift between releases.
    const required = a.tools.t?.deltas.find((d) => d.kind === 'property-became-required');
    expect(required?.fingerprint).toBe(fingerprintOf('tools/t', { kind: 'property-became-required', field: 'inputSchema.properties.limit', previous: false, current: true }));
    expect(required?.fingerprint).toBe('d257ef0c39f35d5e');
  });
});

describe('prompts', () => {
  const prompt = (args: Array<{ name: string; required?: boolean; description?: string }>, extra = {}) => ({ name: 'p', arguments: args, ...extra });
  const diffPrompts = async (before: object[], after: object[]) =>
    diffContracts(contractsOf({ prompts: before as never }), contractsOf({ prompts: after as never }), { semantic: false });

  it('argument added as required is BREAKING, as optional SAFE', async () => {
    const report = await diffPrompts([prompt([{ name: 'a' }])], [prompt([{ name: 'a' }, { name: 'b', required: true }, { name: 'c' }])]);
    expect(brief(report.prompts.p?.deltas ?? [])).toEqual(['required-prompt-argument-added@arguments.b=BREAKING', 'prompt-argument-added@arguments.c=SAFE']);
  });

  it('argument removed or made required is BREAKING, made optional SAFE', async () => {
    const report = await diffPrompts([prompt([{ name: 'a' }, { name: 'b', required: true }, { name: 'c' }])], [prompt([{ name: 'b' }, { name: 'c', required: true }])]);
    expect(brief(report.prompts.p?.deltas ?? [])).toEqual([
      'prompt-argument-removed@arguments.a=BREAKING',
      'prompt-argument-became-required@arguments.c.required=BREAKING',
      'prompt-argument-became-optional@arguments.b.required=SAFE',
    ]);
  });

  it('prompt removed is BREAKING; renamed with the same arguments is one rename', async () => {
    const report = await diffPrompts([prompt([{ name: 'city', required: true }], { name: 'weather_prompt' })], [prompt([{ name: 'city', required: true }], { name: 'weather-prompt' })]);
    expect(brief(report.prompts['weather-prompt']?.deltas ?? [])).toEqual(['prompt-renamed@name=BREAKING']);
  });
});

describe('resources and resource templates', () => {
  const diffResources = async (before: object[], after: object[], key: 'resources' | 'resourceTemplates' = 'resources') =>
    diffContracts(contractsOf({ [key]: before as never }), contractsOf({ [key]: after as never }), { semantic: false });

  it('removed is BREAKING, added SAFE, mimeType changed RISKY, name COSMETIC', async () => {
    const report = await diffResources(
      [{ uri: 'file:///a', name: 'a', mimeType: 'text/plain' }, { uri: 'file:///gone', name: 'gone' }],
      [{ uri: 'file:///a', name: 'A', mimeType: 'application/json' }, { uri: 'file:///new', name: 'new' }],
    );
    expect(brief(report.resources['file:///a']?.deltas ?? [])).toEqual(['mime-type-changed@mimeType=RISKY', 'name-changed@name=COSMETIC']);
    expect(brief(report.resources['file:///gone']?.deltas ?? [])).toEqual(['resource-removed@=BREAKING']);
    expect(brief(report.resources['file:///new']?.deltas ?? [])).toEqual(['resource-added@=SAFE']);
  });

  it('templates get the same treatment', async () => {
    const report = await diffResources(
      [{ uriTemplate: 'db://{table}', name: 't', mimeType: 'text/csv' }, { uriTemplate: 'old://{x}', name: 'o' }],
      [{ uriTemplate: 'db://{table}', name: 't', mimeType: 'application/json' }],
      'resourceTemplates',
    );
    expect(brief(report.resourceTemplates['db://{table}']?.deltas ?? [])).toEqual(['mime-type-changed@mimeType=RISKY']);
    expect(brief(report.resourceTemplates['old://{x}']?.deltas ?? [])).toEqual(['resource-template-removed@=BREAKING']);
  });
});

describe('how sure a tool rename is (the facts a runtime routes by)', () => {
  const args = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
  it('says whether the names are the same words and whether the description stayed', async () => {
    const facts = async (before: Record<string, unknown>, after: Record<string, unknown>) =>
      Object.values((await diffTools([{ inputSchema: args, ...before }], [{ inputSchema: args, ...after }])).tools)
        .flatMap((entry) => entry.deltas)
        .find((d) => d.kind === 'tool-renamed')?.facts;
    expect(await facts({ name: 'getTinyImage', description: 'A tiny image' }, { name: 'get-tiny-image', description: 'Returns a tiny image' })).toEqual({ sameShape: true, sameName: true, sameDescription: false });
    expect(await facts({ name: 'take_memory_snapshot', description: 'Capture a heap snapshot.' }, { name: 'take_heapsnapshot', description: 'Capture a heap snapshot.' })).toEqual({ sameShape: true, sameName: false, sameDescription: true });
    // Reported as a rename (same arguments, a shared word), yet not the same tool by either sign.
    expect(await facts({ name: 'delete_file', description: 'Delete a file at a path' }, { name: 'delete_directory', description: 'Delete a directory at a path' })).toEqual({ sameShape: true, sameName: false, sameDescription: false });
  });
});
