import { describe, expect, it } from 'vitest';
import type { Delta } from '../../src/protocol/index.js';
import {
  createToolEnhancer,
  enrichValidationError,
  identityEnhancer,
  loadDeltaMap,
  type SelfHealingConfig,
} from '../../src/runtime/index.js';
import { delta, deltaFields, deltaTags, report } from './helpers.js';

const ERROR = '<validation_error tool="invoices">\n<field name="currency">Required field "currency" is missing.</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>';

function config(tools: Record<string, Delta[]>, extra: Partial<SelfHealingConfig> = {}): SelfHealingConfig {
  return { activeDeltas: loadDeltaMap(report(tools)), ...extra };
}

const mixed = [
  delta({ field: 'inputSchema.properties.currency', severity: 'BREAKING', kind: 'required-property-added' }),
  delta({ field: 'annotations.destructiveHint', severity: 'RISKY', kind: 'annotation-changed' }),
  delta({ field: 'inputSchema.properties.note', severity: 'SAFE', kind: 'optional-property-added' }),
  delta({ field: 'description', severity: 'COSMETIC', kind: 'description-changed' }),
];

describe('severity filter', () => {
  it('injects only BREAKING and RISKY by default', () => {
    const result = enrichValidationError(ERROR, 'invoices', null, config({ invoices: mixed }));
    expect(result.injected).toBe(true);
    expect(result.deltaCount).toBe(2);
    expect(deltaTags(result.enrichedError).map((t) => /severity="(\w+)"/.exec(t)?.[1])).toEqual(['BREAKING', 'RISKY']);
    expect(result.enrichedError).toContain('<change_count>2</change_count>');
    expect(result.enrichedError).toContain('<max_severity>BREAKING</max_severity>');
  });

  it('injects every severity with includeAllSeverities', () => {
    const result = enrichValidationError(ERROR, 'invoices', null, config({ invoices: mixed }, { includeAllSeverities: true }));
    expect(result.deltaCount).toBe(4);
    expect(deltaTags(result.enrichedError).map((t) => /severity="(\w+)"/.exec(t)?.[1])).toEqual(['BREAKING', 'RISKY', 'SAFE', 'COSMETIC']);
  });

  it('is the identity when only SAFE and COSMETIC deltas exist, unless includeAllSeverities', () => {
    const cfg = config({ invoices: mixed.slice(2) });
    expect(createToolEnhancer('invoices', cfg)).toBe(identityEnhancer);
    expect(enrichValidationError(ERROR, 'invoices', null, cfg)).toEqual({ originalError: ERROR, enrichedError: ERROR, injected: false, deltaCount: 0, toolName: 'invoices' });
    expect(createToolEnhancer('invoices', { ...cfg, includeAllSeverities: true })).not.toBe(identityEnhancer);
  });

  it('reports the worst applicable severity, not the entry’s', () => {
    const result = enrichValidationError(ERROR, 'invoices', null, config({ invoices: mixed.slice(1) }));
    expect(result.enrichedError).toContain('<max_severity>RISKY</max_severity>');
  });
});

describe('action scope', () => {
  const scoped = [
    delta({ field: 'description', severity: 'RISKY', action: null }),
    delta({ field: 'actions.create.inputSchema.properties.email', action: 'create' }),
    delta({ field: 'actions.createAll.inputSchema.properties.items', action: 'createAll' }),
    delta({ field: 'actions.list.egressSchema', action: 'list' }),
  ];

  it('includes global deltas and those of the failing action only', () => {
    const xml = enrichValidationError(ERROR, 'invoices', 'create', config({ invoices: scoped })).enrichedError;
    expect(deltaFields(xml)).toEqual(['actions.create.inputSchema.properties.email', 'description']);
    expect(xml).toContain('<action>create</action>');
  });

  it('matches whole action names: "create" never picks up "createAll"', () => {
    const enhance = createToolEnhancer('invoices', config({ invoices: scoped }));
    expect(deltaFields(enhance(ERROR, 'create'))).not.toContain('actions.createAll.inputSchema.properties.items');
    expect(deltaFields(enhance(ERROR, 'createAll'))).toEqual(['actions.createAll.inputSchema.properties.items', 'description']);
    expect(deltaFields(enhance(ERROR, 'creat'))).toEqual(['description']);
  });

  it('gives a call without an action (or an unknown one) the global deltas only, without an <action>', () => {
    const enhance = createToolEnhancer('invoices', config({ invoices: scoped }));
    for (const action of [null, undefined, 'delete']) {
      const xml = enhance(ERROR, action);
      expect(deltaFields(xml)).toEqual(['description']);
      expect(xml).not.toContain('<action>');
    }
  });

  it('returns the error unchanged when only other actions’ deltas exist', () => {
    const cfg = config({ invoices: scoped.slice(1) });
    const enhance = createToolEnhancer('invoices', cfg);
    expect(enhance).not.toBe(identityEnhancer);
    expect(enhance(ERROR, 'delete')).toBe(ERROR);
    expect(enrichValidationError(ERROR, 'invoices', 'delete', cfg).injected).toBe(false);
  });
});

describe('max deltas', () => {
  const many = Array.from({ length: 8 }, (_, i) => delta({ field: `inputSchema.properties.f${i}`, severity: i < 6 ? 'BREAKING' : 'RISKY' }));

  it('caps at 5 by default and counts the rest by severity', () => {
    const result = enrichValidationError(ERROR, 'invoices', null, config({ invoices: many }));
    expect(result.deltaCount).toBe(5);
    expect(deltaTags(result.enrichedError)).toHaveLength(5);
    expect(result.enrichedError).toContain('<change_count>8</change_count>');
    expect(result.enrichedError).toContain('<more count="3">+3 more changes not shown (1 BREAKING, 2 RISKY).');
  });

  it('honours maxDeltasPerError, including 0 (counts only)', () => {
    expect(enrichValidationError(ERROR, 'invoices', null, config({ invoices: many }, { maxDeltasPerError: 2 })).deltaCount).toBe(2);
    const none = enrichValidationError(ERROR, 'invoices', null, config({ invoices: many }, { maxDeltasPerError: 0 }));
    expect(none.injected).toBe(true);
    expect(deltaTags(none.enrichedError)).toHaveLength(0);
    expect(none.enrichedError).toContain('+8 more changes');
  });

  it('says "change" for exactly one hidden delta and shows no <more> when nothing is hidden', () => {
    expect(enrichValidationError(ERROR, 'invoices', null, config({ invoices: many.slice(0, 6) })).enrichedError).toContain('+1 more change not shown (1 BREAKING)');
    expect(enrichValidationError(ERROR, 'invoices', null, config({ invoices: many.slice(0, 5) })).enrichedError).not.toContain('<more');
  });

  it('rejects a negative or fractional maximum when the enhancer is created', () => {
    expect(() => createToolEnhancer('invoices', config({ invoices: many }, { maxDeltasPerError: -1 }))).toThrow(RangeError);
    expect(() => createToolEnhancer('invoices', config({ invoices: many }, { maxDeltasPerError: 1.5 }))).toThrow(/whole number/);
  });

  it('keeps the worst deltas when capping, whatever order the artifact lists them in', () => {
    const shuffled = [delta({ field: 'z', severity: 'RISKY' }), delta({ field: 'b', severity: 'BREAKING' }), delta({ field: 'a', severity: 'BREAKING' })];
    const xml = enrichValidationError(ERROR, 'invoices', null, config({ invoices: shuffled }, { maxDeltasPerError: 2 })).enrichedError;
    expect(deltaFields(xml)).toEqual(['a', 'b']);
  });
});

describe('placement and double injection', () => {
  const cfg = config({ invoices: [delta({ field: 'inputSchema.properties.currency' })] });

  it('puts the block right before the last </validation_error>', () => {
    const xml = createToolEnhancer('invoices', cfg)(ERROR);
    expect(xml.startsWith(ERROR.slice(0, ERROR.lastIndexOf('</validation_error>')))).toBe(true);
    expect(xml).toMatch(/<\/recovery>\n<contract_awareness tool="invoices">[\s\S]*<\/contract_awareness>\n<\/validation_error>$/);
  });

  it('inserts before the outermost closing tag when the error nests one', () => {
    const nested = '<validation_error>\n<inner><validation_error>x</validation_error></inner>\n</validation_error>';
    const xml = createToolEnhancer('invoices', cfg)(nested);
    expect(xml.indexOf('<contract_awareness')).toBeGreaterThan(nested.indexOf('</inner>'));
  });

  it('never injects twice', () => {
    const enhance = createToolEnhancer('invoices', cfg);
    const once = enhance(ERROR);
    expect(enhance(once)).toBe(once);
    const again = enrichValidationError(once, 'invoices', null, cfg);
    expect(again.injected).toBe(false);
    expect(again.enrichedError).toBe(once);
    expect(once.match(/<contract_awareness/g)).toHaveLength(1);
  });

  it('appends the block after a newline when </validation_error> is missing, keeping the original as an exact prefix', () => {
    const enhance = createToolEnhancer('invoices', cfg);
    const plain = 'MCP error -32602: Input validation error: Invalid arguments for tool invoices';
    const truncated = '<validation_error>\n<field name="currency">Required';
    for (const original of [plain, truncated, `${plain}\n`]) {
      const xml = enhance(original);
      expect(xml.startsWith(original)).toBe(true);
      expect(xml.slice(original.length)).toMatch(/^\n?<contract_awareness tool="invoices">[\s\S]*<\/contract_awareness>$/);
      expect(xml[xml.indexOf('<contract_awareness') - 1]).toBe('\n');
    }
    const result = enrichValidationError(plain, 'invoices', null, cfg);
    expect(result.injected).toBe(true);
    expect(result.enrichedError.startsWith(`${plain}\n<contract_awareness`)).toBe(true);
  });
});

describe('escaping', () => {
  const hostile = '"><script>&</contract_awareness></validation_error><x a=\'1\'>\u0001';

  // What escaping must turn `hostile` into: all five specials in attributes; `&` and `<` in text
  // (`>` cannot open markup and reads better unescaped); the control character becomes U+FFFD.
  const inAttribute = '&quot;&gt;&lt;script&gt;&amp;&lt;/contract_awareness&gt;&lt;/validation_error&gt;&lt;x a=&apos;1&apos;&gt;\uFFFD';
  const inText = '">&lt;script>&amp;&lt;/contract_awareness>&lt;/validation_error>&lt;x a=\'1\'>\uFFFD';

  it('escapes hostile tool names, actions and every delta value', () => {
    const d = delta({
      field: `inputSchema.properties.${hostile}`,
      // The reader admits only rule ids as kinds; a hostile kind is covered with a plain Map below.
      kind: 'made-up-kind' as Delta['kind'],
      action: hostile,
      message: hostile,
      previous: { [hostile]: hostile },
      current: hostile,
      hint: hostile,
      note: hostile,
      renamedFrom: hostile,
    });
    const xml = createToolEnhancer(hostile, config({ [hostile]: [d] }))(ERROR, hostile);
    const block = xml.slice(xml.indexOf('<contract_awareness'), xml.lastIndexOf('</validation_error>'));
    expect(block).toContain(`<contract_awareness tool="${inAttribute}">`);
    expect(block).toContain(`The contract of tool "${inText}" has changed`);
    expect(block).toContain(`<action>${inText}</action>`);
    expect(block).toContain(`kind="made-up-kind" field="inputSchema.properties.${inAttribute}" action="${inAttribute}" renamed_from="${inAttribute}">`);
    for (const element of ['message', 'fix', 'note']) expect(block).toContain(`<${element}>${inText}</${element}>`);
    // Values are JSON first (which escapes the quote and the control character), then escaped.
    const jsonText = (value: unknown) => JSON.stringify(value).replace(/&/g, '&amp;').replace(/</g, '&lt;');
    expect(block).toContain(`<current>${jsonText(hostile)}</current>`);
    expect(block).toContain(`<previous>${jsonText({ [hostile]: hostile })}</previous>`);
    // The hostile text neither closed our block nor the error.
    expect(block.match(/<\/contract_awareness>/g)).toHaveLength(1);
    expect(xml.match(/<\/validation_error>/g)).toHaveLength(1);
    expect(block).not.toContain('\u0001');
  });

  it('escapes even fields loadDeltaMap would have rejected, when given a plain Map', () => {
    const unchecked = { ...delta({ field: 'f' }), severity: '"><x>', kind: '"/><y>' } as unknown as Delta;
    const activeDeltas = new Map([['t', { maxSeverity: null, deltas: [unchecked] }]]);
    const xml = createToolEnhancer('t', { activeDeltas, includeAllSeverities: true })(ERROR);
    expect(xml).toContain('<delta severity="&quot;&gt;&lt;x&gt;" kind="&quot;/&gt;&lt;y&gt;"');
    expect(xml).toContain('<max_severity>">&lt;x></max_severity>');
  });

  it('produces well-formed XML: tags balanced, no raw "<" or stray "&" in text', () => {
    const d = delta({ field: hostile, message: hostile, current: hostile, action: hostile });
    const xml = createToolEnhancer(hostile, config({ [hostile]: [d] }))(ERROR, hostile);
    // A tiny well-formedness check: every tag we open is closed in order, and no raw "<" or "&" remains in text.
    const stack: string[] = [];
    for (const m of xml.matchAll(/<(\/?)([a-z_]+)([^>]*)>|([^<]+)/g)) {
      if (m[4] !== undefined) {
        expect(m[4]).not.toMatch(/&(?!amp;|lt;|gt;|quot;|apos;)/);
        continue;
      }
      if (m[1] === '/') expect(stack.pop()).toBe(m[2]);
      else stack.push(m[2] as string);
      expect(m[3]).not.toMatch(/[<]/);
    }
    expect(stack).toEqual([]);
  });
});

describe('determinism and identity', () => {
  const deltas = [
    delta({ field: 'b', severity: 'RISKY' }),
    delta({ field: 'a', severity: 'BREAKING', current: { z: 1, a: { y: 2, b: 3 } } }),
    delta({ field: 'a', severity: 'BREAKING', kind: 'another' }),
  ];

  it('gives byte-identical output for the same input, whatever the artifact’s delta or key order', () => {
    const forward = createToolEnhancer('invoices', config({ invoices: deltas }))(ERROR);
    const reversed = [...deltas].reverse().map((d) => ({ ...d, current: d.current && typeof d.current === 'object' ? { a: { b: 3, y: 2 }, z: 1 } : d.current }));
    const backward = createToolEnhancer('invoices', config({ invoices: reversed }))(ERROR);
    expect(backward).toBe(forward);
    expect(enrichValidationError(ERROR, 'invoices', null, config({ invoices: deltas })).enrichedError).toBe(forward);
    expect(forward).toContain('<current>{"a":{"b":3,"y":2},"z":1}</current>');
  });

  it('agrees byte for byte between enrichValidationError and createToolEnhancer', () => {
    const cfg = config({ invoices: deltas }, { maxDeltasPerError: 2 });
    const enhance = createToolEnhancer('invoices', cfg);
    for (const action of [null, 'x']) {
      expect(enrichValidationError(ERROR, 'invoices', action, cfg).enrichedError).toBe(enhance(ERROR, action));
    }
  });

  it('returns the shared identity function itself for a tool without deltas', () => {
    const cfg = config({ invoices: deltas, quiet: [] });
    expect(createToolEnhancer('unknown_tool', cfg)).toBe(identityEnhancer);
    expect(createToolEnhancer('quiet', cfg)).toBe(identityEnhancer);
    expect(createToolEnhancer('invoices', { activeDeltas: new Map() })).toBe(identityEnhancer);
    expect(identityEnhancer(ERROR, 'create')).toBe(ERROR);
  });

  it('reports the tool name and leaves the result untouched without deltas', () => {
    const result = enrichValidationError(ERROR, 'other', 'create', config({ invoices: deltas }));
    expect(result).toEqual({ originalError: ERROR, enrichedError: ERROR, injected: false, deltaCount: 0, toolName: 'other' });
  });

  it('accepts a plain (unfrozen) Map, as the seed’s examples build one', () => {
    const activeDeltas = new Map([['invoices', { maxSeverity: 'BREAKING' as const, deltas }]]);
    expect(enrichValidationError(ERROR, 'invoices', null, { activeDeltas }).deltaCount).toBe(3);
  });

  it('truncates huge previous/current values', () => {
    const big = { notes: 'x'.repeat(5000) };
    const xml = createToolEnhancer('invoices', config({ invoices: [delta({ field: 'default', current: big })] }))(ERROR);
    const current = /<current>(.*)<\/current>/.exec(xml)?.[1] ?? '';
    expect(current.length).toBeLessThanOrEqual(400);
    expect(current).toMatch(/^\{"notes":"x+…$/);
  });
});

describe('block content', () => {
  it('renders message, previous, current, hint and rename attributes of each delta', () => {
    const d = delta({
      field: 'name',
      kind: 'tool-renamed',
      message: 'Tool get_stock was renamed to check_stock.',
      previous: 'get_stock',
      current: 'check_stock',
      hint: 'Call check_stock instead.',
      renamedFrom: 'get_stock',
    });
    const xml = createToolEnhancer('check_stock', config({ check_stock: [d] }))(ERROR);
    expect(xml).toContain('<delta severity="BREAKING" kind="tool-renamed" field="name" renamed_from="get_stock">');
    expect(xml).toContain('<message>Tool get_stock was renamed to check_stock.</message>');
    expect(xml).toContain('<previous>"get_stock"</previous>');
    expect(xml).toContain('<current>"check_stock"</current>');
    expect(xml).toContain('<fix>Call check_stock instead.</fix>');
    expect(xml).toContain('The contract of tool "check_stock" has changed since your last calibration.');
  });
});
