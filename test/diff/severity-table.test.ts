import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RULES, RULE_KINDS, classify, isHarmful, renderSeverityTable, severityOf, SEVERITY_TABLE_END, SEVERITY_TABLE_START, type Rule, type RuleKind } from '../../src/rules/index.js';

const page = readFileSync(new URL('../../docs/rules.md', import.meta.url), 'utf8');
const between = page.includes(SEVERITY_TABLE_START) && page.includes(SEVERITY_TABLE_END)
  ? page.slice(page.indexOf(SEVERITY_TABLE_START) + SEVERITY_TABLE_START.length, page.indexOf(SEVERITY_TABLE_END)).trim()
  : null;
const hasTable = between !== null && between !== '';

describe('the rule table', () => {
  it('every rule is complete: a severity per direction, a reason, a fix wherever it is BREAKING', () => {
    expect(Object.keys(RULES).sort()).toEqual([...RULE_KINDS].sort());
    for (const [kind, rule] of Object.entries(RULES)) {
      expect(kind).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      for (const direction of ['input', 'output'] as const) {
        const severity = typeof rule.severity === 'string' ? rule.severity : rule.severity[direction];
        const reason = typeof rule.reason === 'string' ? rule.reason : rule.reason[direction];
        expect(reason.length, `${kind} reason`).toBeGreaterThan(10);
        if (severity === 'BREAKING') {
          const hint = typeof rule.hint === 'string' ? rule.hint : rule.hint?.[direction];
          expect(hint, `${kind} (${direction}) is BREAKING and needs a fix hint`).toBeTruthy();
        }
      }
    }
  });

  it('every schema rule says what it does to values, consistently with its default severities', () => {
    // The walker pairs union variants by effect, never by severity; the table's defaults agree:
    // harmful to callers exactly when BREAKING for inputs, to consumers when RISKY or worse for outputs.
    for (const [kind, rule] of Object.entries(RULES) as Array<[RuleKind, Rule]>) {
      if (rule.scope !== 'schema') continue;
      expect(rule.effect, `${kind} needs an effect`).toBeDefined();
      expect(isHarmful(kind, 'input'), `${kind} input`).toBe(severityOf(kind, 'input') === 'BREAKING');
      expect(isHarmful(kind, 'output'), `${kind} output`).toBe(['BREAKING', 'RISKY'].includes(severityOf(kind, 'output')));
    }
  });

  it('an override re-levels a kind in one direction and says what the table said', () => {
    const overrides = { 'enum-widened': { output: 'SAFE' }, 'tool-removed': 'RISKY' } as const;
    expect(classify('enum-widened', 'output', overrides)).toMatchObject({ severity: 'SAFE', defaultSeverity: 'RISKY' });
    expect(classify('enum-widened', 'input', overrides)).not.toHaveProperty('defaultSeverity');
    expect(classify('tool-removed', null, overrides)).toEqual({ severity: 'RISKY', defaultSeverity: 'BREAKING', reason: expect.any(String) });
    // Raised to BREAKING, a kind without a fix of its own still gets one.
    expect(classify('property-added', 'input', { 'property-added': 'BREAKING' }).hint).toMatch(/configuration classifies this change as BREAKING/);
  });

  it('the rendered table lists every kind once', () => {
    const table = renderSeverityTable();
    for (const kind of Object.keys(RULES)) expect(table.match(new RegExp(`\\| \`${kind}\` \\|`, 'g')), kind).toHaveLength(1);
  });

  it('docs/rules.md between the severity-table markers matches the rule table', () => {
    expect(hasTable, `docs/rules.md needs the generated table between ${SEVERITY_TABLE_START} and ${SEVERITY_TABLE_END}`).toBe(true);
    expect(between, 'regenerate with renderSeverityTable() and paste it between the markers').toBe(renderSeverityTable().trim());
  });
});
