/**
 * The usage step of the gate: real diffs of real schema changes, judged with summaries built as
 * `usage summarize` builds them. A break no call used for the whole window is RISKY with its
 * evidence; one that calls used keeps BREAKING with its share; what usage cannot show is never
 * touched; a summary that cannot speak for the report downgrades nothing and says why.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/contract/model.js';
import { diffContracts } from '../../src/diff/index.js';
import { applyUsage } from '../../src/policy/usage.js';
import { UsageSummaryBuilder, readReport, type Counts, type DiffReport, type UsageRecord, type UsageSummary } from '../../src/protocol/index.js';
import { renderArtifact } from '../../src/report/index.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderSarif } from '../../src/report/sarif.js';
import { renderText } from '../../src/report/text.js';
import { contractsOf } from '../diff/helpers.js';
import { toolRecord } from '../helpers/usage.js';

const TODAY = '2026-03-30';
const object = (properties: JsonObject, required: string[] = []): JsonObject => ({ type: 'object', properties, required, additionalProperties: false });

const before: JsonObject[] = [
  { name: 'search', inputSchema: object({ query: { type: 'string' }, days: { type: 'integer' }, sort: { type: 'string', enum: ['relevance', 'date', 'price'] } }, ['query']) },
  { name: 'legacy_report', inputSchema: object({ month: { type: 'string' } }) },
  { name: 'add_to_cart', inputSchema: object({ sku: { type: 'string' } }, ['sku']), outputSchema: object({ total: { type: 'number' } }) },
  { name: 'get_stock', description: 'Units of a product in stock.', inputSchema: object({ sku: { type: 'string' } }) },
  { name: 'never_seen', inputSchema: object({ a: { type: 'string' } }) },
];
const after: JsonObject[] = [
  // `days` removed (nobody sent it), `relevance` dropped (someone sent it) with `date` (nobody).
  { name: 'search', inputSchema: object({ query: { type: 'string' }, sort: { type: 'string', enum: ['price', 'rating'] } }, ['query']) },
  // legacy_report removed: nobody called it.
  // add_to_cart: a new required argument (it is called), and its result loses `total` (an output).
  { name: 'add_to_cart', inputSchema: object({ sku: { type: 'string' }, currency: { type: 'string' } }, ['sku', 'currency']), outputSchema: object({}) },
  // get_stock renamed, same arguments: its old name was called.
  { name: 'check_stock', description: 'Units of a product in stock.', inputSchema: object({ sku: { type: 'string' } }) },
  // never_seen removed, but no recording ever saw it: no evidence.
];

async function diff(): Promise<DiffReport> {
  return diffContracts(contractsOf({ name: 'shop', tools: before }), contractsOf({ name: 'shop', tools: after }), { semantic: false });
}

const server = { name: 'shop' };
function summary(options: { from?: string; to?: string; skip?: string[]; name?: string; records?: UsageRecord[] } = {}): UsageSummary {
  const builder = new UsageSummaryBuilder();
  const from = options.from ?? '2026-03-01';
  const to = options.to ?? TODAY;
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    if (options.skip?.includes(day)) continue;
    builder.add({ type: 'day', day, server: { name: options.name ?? server.name }, listed: ['search', 'legacy_report', 'add_to_cart', 'get_stock'], overflowTools: 0, overflowCalls: 0 });
  }
  const tool = (name: string, calls: number, fields?: Counts, values?: Record<string, Counts>): UsageRecord => toolRecord(to, { name: options.name ?? server.name }, name, calls, fields, values);
  for (const record of options.records ?? [
    tool('search', 80, { 'inputSchema.properties.query': 80, 'inputSchema.properties.sort': 30 }, { 'inputSchema.properties.sort': { '"relevance"': 20, '"price"': 10 } }),
    tool('add_to_cart', 15, { 'inputSchema.properties.sku': 15 }),
    tool('get_stock', 5, { 'inputSchema.properties.sku': 5 }),
  ])
    builder.add(record);
  return builder.summary();
}

const judged = async (usage: UsageSummary, unusedDays = 30) => applyUsage(await diff(), ['shop'], { summary: usage, unusedDays, today: TODAY });
const find = (report: DiffReport, tool: string, field: string) => report.tools[tool]?.deltas.find((d) => d.field === field);

describe('a summary that covers the window', () => {
  it('downgrades the breaks nobody used, with the evidence, and leaves the used ones BREAKING with their share', async () => {
    const report = await judged(summary());
    expect(report.usage).toMatchObject({ applied: true, server: 'shop', from: '2026-03-01', to: TODAY, days: 30, calls: 100, unusedDays: 30 });

    // A tool nobody called: RISKY, with "0 of 100 calls were of legacy_report".
    const removed = find(report, 'legacy_report', '');
    expect(removed).toMatchObject({ severity: 'RISKY', usage: { basis: 'tool', tool: 'legacy_report', calls: 0, affected: 0, downgraded: true } });
    expect(removed?.reason).toMatch(/^Unused for 30 days .*the rule says BREAKING/);

    // An argument nobody sent: "0 of 80 calls of search sent days".
    expect(find(report, 'search', 'inputSchema.properties.days')).toMatchObject({ severity: 'RISKY', usage: { basis: 'field', tool: 'search', calls: 80, affected: 0, field: 'inputSchema.properties.days', downgraded: true } });

    // Enum values: `relevance` was sent 20 times, so dropping it (with `date`) breaks 20 calls.
    expect(find(report, 'search', 'inputSchema.properties.sort.enum')).toMatchObject({ severity: 'BREAKING', usage: { basis: 'values', affected: 20, values: ['date', 'relevance'] } });

    // A new required argument breaks every call of a tool that is called.
    expect(find(report, 'add_to_cart', 'inputSchema.properties.currency')).toMatchObject({ severity: 'BREAKING', usage: { basis: 'tool', calls: 15, affected: 15 } });

    // A renamed tool is judged by the calls of its old name.
    expect(report.tools.check_stock?.deltas.find((d) => d.renamedFrom === 'get_stock')).toMatchObject({ severity: 'BREAKING', usage: { tool: 'get_stock', affected: 5 } });

    // What usage cannot show is never touched: an output, a tool no recording ever saw.
    const output = report.tools.add_to_cart?.deltas.find((d) => d.direction === 'output' && d.severity === 'BREAKING');
    expect(output).toBeDefined();
    expect(output?.usage).toBeUndefined();
    expect(find(report, 'never_seen', '')).toMatchObject({ severity: 'BREAKING' });
    expect(find(report, 'never_seen', '')?.usage).toBeUndefined();

    expect(report.usage?.downgraded).toBe(2);
    expect(report.summary.counts.BREAKING).toBe((await diff()).summary.counts.BREAKING - 2);
  });

  it('keeps fingerprints, canonical order and a report the strict reader accepts', async () => {
    const original = await diff();
    const report = await judged(summary());
    const prints = (r: DiffReport) => Object.values(r.tools).flatMap((e) => e.deltas.map((d) => d.fingerprint)).sort();
    expect(prints(report)).toEqual(prints(original));
    const artifact = renderArtifact(report);
    const read = readReport(JSON.parse(artifact), 'strict');
    expect(read.usage).toEqual(report.usage);
    expect(find(read, 'legacy_report', '')?.usage).toEqual(find(report, 'legacy_report', '')?.usage);
  });

  it('says it in every format', async () => {
    const report = await judged(summary());
    const text = renderText(report, { color: false });
    expect(text).toContain('usage: unused for 30 days: 0 of 80 calls of `search` sent `days`');
    expect(text).toContain('usage: unused for 30 days: 0 of 100 calls were of `legacy_report`');
    expect(text).toContain('usage: breaks 15% of calls: 15 of 100 calls were of `add_to_cart`');
    expect(text).toContain('(usage: BREAKING → RISKY)');
    const markdown = renderMarkdown(report);
    expect(markdown).toContain('| | Tool | What changes for callers | Usage |');
    expect(markdown).toMatch(/`add_to_cart` \| [^|]+\| breaks 15% of calls \|/);
    expect(markdown).toMatch(/`legacy_report` \| [^|]+\| breaks nobody \(unused for 30 days\) \|/);
    expect(markdown).toContain('RISKY by usage (the rule says BREAKING): unused for 30 days: 0 of 80 calls of `search` sent `days`');
    const sarif = JSON.parse(renderSarif(report, { lockfilePath: 'mcp-contracts.lock.json' })) as { runs: Array<{ properties: unknown; results: Array<{ message: { text: string }; properties: { usage?: unknown } }> }> };
    expect(sarif.runs[0]?.properties).toEqual({ usage: report.usage });
    expect(sarif.runs[0]?.results.some((r) => r.message.text.includes('Usage: unused for 30 days: 0 of 100 calls were of `legacy_report`.'))).toBe(true);
  });
});

describe('what never downgrades', () => {
  it.each([
    ['another server', summary({ name: 'other' }), /about the server "other", not "shop"/],
    ['a summary that ends before the window', summary({ from: '2026-01-01', to: '2026-02-27' }), /ends on 2026-02-27, before the 30-day window/],
    ['a summary that starts inside the window', summary({ from: '2026-03-20' }), /covers only 11 of the 30 days/],
    ['days nobody recorded', summary({ skip: ['2026-03-10', '2026-03-11'] }), /no recorder wrote for some days of the window \(2026-03-10, 2026-03-11\)/],
    ['no traffic at all', summary({ records: [] }), /saw no call at all in 30 days/],
  ])('%s: nothing moves, and the report says why', async (_, usage, reason) => {
    const original = await diff();
    const report = await judged(usage);
    expect(report.usage).toMatchObject({ applied: false, downgraded: 0 });
    expect(report.usage?.reason).toMatch(reason);
    expect(report.summary).toEqual(original.summary);
    expect(report.tools).toEqual(original.tools);
    expect(renderText(report, { color: false })).toMatch(/Usage was not used to judge these changes: /);
  });

  it('an unnamed report cannot be matched to a summary', async () => {
    const report = applyUsage(await diff(), ['unknown'], { summary: summary(), unusedDays: 30, today: TODAY });
    expect(report.usage?.reason).toMatch(/do not say which server they are/);
  });

  it('fields past the recorder caps prove nothing absent', async () => {
    const base = summary();
    const overflowing: UsageSummary = { ...base, tools: { ...base.tools, search: { ...base.tools.search!, overflow: { fields: 3, values: 0 } } } };
    const report = await judged(overflowing);
    expect(find(report, 'search', 'inputSchema.properties.days')).toMatchObject({ severity: 'BREAKING' });
    expect(find(report, 'search', 'inputSchema.properties.days')?.usage).toBeUndefined();
  });

  it('values not recorded (the schema did not constrain them then) fall back to who sent the argument', async () => {
    const base = summary();
    const unrecorded: UsageSummary = { ...base, tools: { ...base.tools, search: { ...base.tools.search!, values: Object.create(null) } } };
    const report = await judged(unrecorded);
    expect(find(report, 'search', 'inputSchema.properties.sort.enum')).toMatchObject({ severity: 'BREAKING', usage: { basis: 'field', affected: 30 } });
  });
});
