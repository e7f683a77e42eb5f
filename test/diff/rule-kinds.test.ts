/**
 * Every rule kind has an example that makes the diff report it: generated from the vocabulary
 * (RULE_KINDS), so a kind added without an example fails here, by name. Each example (its
 * rule's record, src/rules) runs through `diffContracts` and must produce its kind with the
 * direction and the severity the rule table gives; schema kinds once as arguments (inputSchema)
 * and once as a result (outputSchema), or with the recorded reason why a direction cannot occur.
 *
 * The cross-check's kinds (`semantic-narrowing`, `semantic-widening`) are a safety net for what
 * the keyword walker cannot judge exactly; the walker says where it is unsure, and the
 * cross-check runs only there. No known input slips past the rules (the gaps this table once
 * relied on, a property constrained inside an `allOf` member and constraints moving between
 * members, are closed), so their examples run the cross-check itself on a pair, with the doubt
 * stated (`unsure`): what the kind reports, and that its severity is the table's.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/contract/model.js';
import { normalizeTool } from '../../src/contract/normalize.js';
import { crossCheck } from '../../src/diff/cross-check.js';
import type { Finding } from '../../src/diff/finding.js';
import { diffContracts, type DiffOptions } from '../../src/diff/index.js';
import { entryReports, type Delta, type Direction } from '../../src/protocol/index.js';
import { RULES, RULE_KINDS, isRuleKind, severityOf, type EntryExample, type SchemaExample, type SchemaExamples } from '../../src/rules/index.js';

type KindExamples = EntryExample | SchemaExamples;
/** Each rule's example, as its record gives it. */
const RULE_EXAMPLES: Partial<Record<string, KindExamples>> = Object.fromEntries(RULE_KINDS.map((kind) => [kind, RULES[kind].example]));
import { contractsOf, inputDeltas, outputDeltas } from './helpers.js';

const DIRECTIONS = ['input', 'output'] as const;
const KEYWORDS_ONLY: DiffOptions = { semantic: false };
const WITH_CROSS_CHECK: DiffOptions = { semantic: true, semanticWorkers: 1 };

/** `kind (direction) SEVERITY`: compared as text, so a failure lists what the example did produce. */
const label = (d: Pick<Delta, 'kind' | 'direction' | 'severity'>) => `${d.kind} (${d.direction ?? 'no direction'}) ${d.severity}`;

const isSchemaExamples = (examples: KindExamples): examples is SchemaExamples => 'input' in examples && 'output' in examples;

async function entryDeltas(example: EntryExample): Promise<Delta[]> {
  const report = await diffContracts(contractsOf(example.previous), contractsOf(example.current), KEYWORDS_ONLY);
  return [...entryReports(report)].flatMap(({ entry }) => entry.deltas);
}

/** The example's schemas as tool `t`'s inputSchema or outputSchema. */
function schemaDeltas(direction: Direction, example: SchemaExample, options: DiffOptions): Promise<Delta[]> {
  return (direction === 'input' ? inputDeltas : outputDeltas)(example.previous, example.current, options);
}

/** The cross-check on one schema pair the walker is unsure of (see `unsure`). */
async function crossCheckedFindings(direction: Direction, example: SchemaExample, doubt: string): Promise<Finding[]> {
  const field = direction === 'input' ? 'inputSchema' : 'outputSchema';
  const entry = (schema: JsonObject) => normalizeTool({ name: 't', inputSchema: direction === 'input' ? schema : { type: 'object' }, ...(direction === 'output' ? { outputSchema: schema } : {}) });
  const found = new Map<string, Finding[]>();
  await crossCheck(found, [{ key: 't', previous: entry(example.previous), current: entry(example.current), uncertain: { [field]: [doubt] } }], { perPairMs: 10_000, totalMs: 20_000, workers: 1 });
  return found.get('t') ?? [];
}

describe('every rule kind has an example that produces it (its record\'s `example`, in src/rules)', () => {
  it('the examples are of kinds in the vocabulary, each saying what it shows in one phrase', () => {
    expect(Object.keys(RULE_EXAMPLES).filter((kind) => !isRuleKind(kind))).toEqual([]);
    for (const [kind, examples] of Object.entries(RULE_EXAMPLES)) {
      const all = isSchemaExamples(examples) ? [examples.input, examples.output] : [examples];
      for (const example of all) {
        if ('shows' in example) expect(example.shows, kind).toMatch(/^[^\n]{10,100}$/);
      }
    }
  });

  for (const kind of RULE_KINDS) {
    const examples = RULE_EXAMPLES[kind];
    const missing = `${kind} has no example in its rule record (src/rules)`;

    if (RULES[kind].scope !== 'schema') {
      it(kind, async () => {
        expect(examples, missing).toBeDefined();
        if (examples === undefined) return;
        expect(isSchemaExamples(examples), `${kind} is not a schema rule: its example is a previous and a current server`).toBe(false);
        const produced = (await entryDeltas(examples as EntryExample)).map(label);
        expect(produced).toContain(label({ kind, direction: null, severity: severityOf(kind, null) }));
      });
      continue;
    }

    for (const direction of DIRECTIONS) {
      it(`${kind} in ${direction}Schema`, async () => {
        expect(examples, missing).toBeDefined();
        if (examples === undefined) return;
        expect(isSchemaExamples(examples), `${kind} is a schema rule: give an input and an output example, or why one cannot occur`).toBe(true);
        const example = (examples as SchemaExamples)[direction];

        if ('cannotOccur' in example) {
          expect(example.cannotOccur.trim().length, `${kind}: say why it cannot occur in ${direction}Schema`).toBeGreaterThan(20);
          // A kind that occurs in neither direction is dead vocabulary, not a one-sided rule.
          const other = (examples as SchemaExamples)[direction === 'input' ? 'output' : 'input'];
          expect('cannotOccur' in other, `${kind} occurs in neither direction`).toBe(false);
          // And the claim holds for the other direction's example read this way.
          const mirrored = other as SchemaExample;
          const produced = await schemaDeltas(direction, mirrored, mirrored.semantic === true ? WITH_CROSS_CHECK : KEYWORDS_ONLY);
          expect(produced.filter((d) => d.kind === kind).map(label)).toEqual([]);
          return;
        }

        const semantic = example.semantic === true;
        if (example.unsure !== undefined) {
          const found = await crossCheckedFindings(direction, example, example.unsure);
          expect(found.map((f) => label({ kind: f.kind, direction: f.direction, severity: severityOf(f.kind, f.direction) }))).toContain(label({ kind, direction, severity: severityOf(kind, direction) }));
          return;
        }
        const produced = (await schemaDeltas(direction, example, semantic ? WITH_CROSS_CHECK : KEYWORDS_ONLY)).map(label);
        expect(produced).toContain(label({ kind, direction, severity: severityOf(kind, direction) }));
        if (semantic) {
          // The flag is needed: the keyword rules alone do not find it.
          const keywordsOnly = await schemaDeltas(direction, example, KEYWORDS_ONLY);
          expect(keywordsOnly.map((d) => d.kind)).not.toContain(kind);
        }
      });
    }
  }
});
