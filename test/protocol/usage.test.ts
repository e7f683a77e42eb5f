/**
 * The usage formats as hostile input: a recording line or a summary that is corrupt, cut short,
 * of a newer version, with counts past 2^53, names that are prototype keys or nesting without
 * end is a clear error naming the problem, never a crash and never a summary that downgrades.
 */
import { describe, expect, it } from 'vitest';
import {
  USAGE_CAPS,
  UsageRecordError,
  UsageSummaryBuilder,
  UsageSummaryError,
  readUsageRecordLine,
  readUsageSummaryText,
  renderUsageSummary,
  usageRecordLine,
  type Counts,
  type UsageRecord,
} from '../../src/protocol/index.js';
import { toolRecord } from '../helpers/usage.js';

const server = { name: 'shop', version: '1.0.0' };
const day = (d: string, listed: string[] = []): UsageRecord => ({ type: 'day', day: d, server, listed, overflowTools: 0, overflowCalls: 0 });
const tool = (d: string, name: string, calls: number, fields?: Counts, values?: Record<string, Counts>): UsageRecord => toolRecord(d, server, name, calls, fields, values);

function summaryOf(records: UsageRecord[], options = {}) {
  const builder = new UsageSummaryBuilder(options);
  for (const record of records) builder.add(readUsageRecordLine(usageRecordLine(record)));
  return builder.summary();
}

describe('a recording line', () => {
  it('round-trips what a recorder writes, names that are prototype keys included', () => {
    const record = tool('2026-03-01', '__proto__', 3, { 'inputSchema.properties.constructor': 2 }, { 'inputSchema.properties.constructor': { '"toString"': 2 } });
    const read = readUsageRecordLine(usageRecordLine(record));
    expect(read).toMatchObject({ type: 'tool', tool: '__proto__', calls: 3 });
    const fields = (read as Extract<UsageRecord, { type: 'tool' }>).fields;
    expect(Object.getPrototypeOf(fields)).toBeNull();
    expect(fields['inputSchema.properties.constructor']).toBe(2);
    expect(Object.keys(fields)).toEqual(['inputSchema.properties.constructor']);
  });

  it.each([
    ['cut short', usageRecordLine(tool('2026-03-01', 'search', 3)).slice(0, 60), /not a JSON object/],
    ['not a record', '{"tools":[]}', /not a usage record/],
    ['a day that is not one', usageRecordLine(day('2026-02-30')), /no valid "day"/],
    ['a count past 2^53', usageRecordLine(tool('2026-03-01', 'search', 3)).replace('"calls":3', '"calls":9007199254740993'), /whole number from 0 to 2\^53/],
    ['a count written as 1e400', usageRecordLine(tool('2026-03-01', 'search', 3)).replace('"calls":3', '"calls":1e400'), /whole number/],
    ['a negative count', usageRecordLine(tool('2026-03-01', 'search', 3)).replace('"calls":3', '"calls":-1'), /whole number/],
    ['a field counted more often than the tool was called', usageRecordLine(tool('2026-03-01', 'search', 1, { 'inputSchema.properties.q': 2 })), /more than the 1 calls/],
    ['nesting without end', `{"format":"mcp-contract-guard/usage","version":1,"x":${'['.repeat(100_000)}`, /nests deeper/],
    ['a line longer than any record', `{"x":"${'a'.repeat(300_000)}"}`, /longest record/],
    ['a tool name past the cap', usageRecordLine(tool('2026-03-01', 'x'.repeat(USAGE_CAPS.nameLength + 1), 1)), /"tool" must be a name/],
  ])('refuses %s', (_, line, message) => {
    expect(() => readUsageRecordLine(line)).toThrow(message);
  });

  it('refuses a line of a newer version, and says so (never read as if it were this one)', () => {
    const line = usageRecordLine(tool('2026-03-01', 'search', 3)).replace('"version":1', '"version":2');
    let error: unknown;
    try {
      readUsageRecordLine(line);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageRecordError);
    expect((error as UsageRecordError).newer).toBe(true);
    expect((error as Error).message).toMatch(/written by a newer one/);
  });
});

describe('merging recordings into a summary', () => {
  it('adds up replicas and days, keeps which tools were listed, and states the window with the days nobody recorded', () => {
    const summary = summaryOf([
      day('2026-03-01', ['search', 'report']),
      tool('2026-03-01', 'search', 3, { 'inputSchema.properties.q': 3 }, { 'inputSchema.properties.sort': { '"date"': 2 } }),
      tool('2026-03-01', 'search', 2, { 'inputSchema.properties.q': 1 }, { 'inputSchema.properties.sort': { '"date"': 1, '(other)': 1 } }),
      day('2026-03-04'),
      tool('2026-03-04', 'search', 1),
    ]);
    expect(summary.calls).toBe(6);
    expect(summary.window).toEqual({ from: '2026-03-01', to: '2026-03-04', days: 4, missing: ['2026-03-02', '2026-03-03'], missingCount: 2 });
    expect(summary.tools.search).toMatchObject({ calls: 6, listed: true, fields: { 'inputSchema.properties.q': 4 }, values: { 'inputSchema.properties.sort': { '"date"': 3, '(other)': 1 } } });
    expect(summary.tools.report).toMatchObject({ calls: 0, listed: true });
    // What it writes, it reads back exactly, in canonical order.
    const text = renderUsageSummary(summary);
    expect(renderUsageSummary(readUsageSummaryText(text))).toBe(text);
  });

  it('refuses counts that add up past 2^53 rather than write a summary that lies', () => {
    const half = 2 ** 52 + 1;
    expect(() => summaryOf([day('2026-03-01'), tool('2026-03-01', 'search', half), tool('2026-03-02', 'search', half)])).toThrow(/past 2\^53/);
  });

  it('refuses recordings of two servers unless one is picked, and then leaves the other out', () => {
    const other = { ...tool('2026-03-01', 'search', 1), server: { name: 'other' } } as UsageRecord;
    expect(() => summaryOf([day('2026-03-01'), other])).toThrow(/more than one server/);
    const builder = new UsageSummaryBuilder({ server: 'shop' });
    builder.add(day('2026-03-01'));
    builder.add(other);
    expect(builder.summary().calls).toBe(0);
    expect(builder.otherServers.get('other')).toBe(1);
  });
});

describe('reading a summary', () => {
  const good = renderUsageSummary(summaryOf([day('2026-03-01', ['search']), tool('2026-03-01', 'search', 5, { 'inputSchema.properties.q': 5 })]));

  it.each([
    ['not JSON', '{"format":', /not valid JSON/],
    ['cut short', good.slice(0, good.length / 2), /not valid JSON/],
    ['a report instead of a summary', '{"version":1,"summary":{},"tools":{}}', /not a usage summary/],
    ['a newer version', good.replace('"version": 1', '"version": 2'), /version 2.*newer/],
    ['nesting without end', `${'['.repeat(50_000)}`, /levels deep/],
    ['calls past 2^53', good.replace('"calls": 5,\n  "format"', '"calls": 9007199254740993,\n  "format"'), /2\^53/],
    ['tools whose calls do not add up', good.replace('"calls": 5,\n  "format"', '"calls": 4,\n  "format"'), /add up to 5, but "calls" says 4/],
    ['a field counted more than its tool', good.replace('"inputSchema.properties.q": 5', '"inputSchema.properties.q": 6'), /more than the tool's 5/],
    ['a window that ends before it starts', good.replace('"from": "2026-03-01"', '"from": "2026-03-09"'), /window must run/],
    ['a window whose days do not match', good.replace('"days": 1', '"days": 30'), /window.days must be 1/],
  ])('refuses %s with a clear error', (_, text, message) => {
    expect(() => readUsageSummaryText(text)).toThrow(UsageSummaryError);
    expect(() => readUsageSummaryText(text)).toThrow(message);
  });

  it('keeps tool and field names that are prototype keys as data', () => {
    const text = renderUsageSummary(summaryOf([day('2026-03-01'), tool('2026-03-01', '__proto__', 2, { 'inputSchema.properties.constructor': 1 }), tool('2026-03-01', 'constructor', 1)]));
    const summary = readUsageSummaryText(text);
    expect(Object.keys(summary.tools).sort()).toEqual(['__proto__', 'constructor']);
    expect(summary.tools.__proto__?.calls).toBe(2);
    expect(summary.tools.constructor?.fields['inputSchema.properties.constructor']).toBeUndefined();
    expect(({} as Record<string, unknown>).calls).toBeUndefined();
  });
});
