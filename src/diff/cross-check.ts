/**
 * The semantic cross-check, wired into the engine: json-schema-diff is asked whether values
 * were lost (input) or gained (output) only where the keyword walker said it could not judge
 * every difference exactly (a `not`, an `allOf` restructured, union variants without a partner,
 * a `$ref` cycle…) and reached no harmful verdict of its own. Everywhere else the walker's rules
 * already judged each keyword that changed, and asking again would only cost time. A finding
 * becomes a `semantic-narrowing` / `semantic-widening` delta; a skipped check becomes a `note`
 * on the walker's deltas for that schema.
 */
import type { ContractEntry } from '../contract/model.js';
import { jsonEqual } from '../protocol/index.js';
import type { SchemaField } from './entries.js';
import { finding, type Finding } from './finding.js';
import { isHarmful } from '../rules/index.js';
import { asToolRoot } from './schema-walker.js';
import { projectForSemanticCheck, runSemanticChecks, type SemanticBudget, type SemanticJob } from './semantic.js';

/** A changed tool with, per schema, why the walker was not sure. */
export interface UncertainTool {
  key: string;
  previous: ContractEntry;
  current: ContractEntry;
  uncertain: Partial<Record<SchemaField, string[]>>;
}

/** The schema a finding sits in (`inputSchema`, or inside an action's input), if any. */
function schemaFieldOf(d: Finding): SchemaField | null {
  if (d.direction === null) return null;
  const field = d.segments[0] === 'actions' ? d.segments[2] : d.segments[0];
  return field === 'inputSchema' || field === 'outputSchema' ? field : null;
}

/** Mutates `toolDeltas`: adds findings, and notes when the check could not run. */
export async function crossCheck(toolDeltas: Map<string, Finding[]>, tools: readonly UncertainTool[], budget: SemanticBudget): Promise<void> {
  const jobs: SemanticJob[] = [];
  const pending = new Map<string, { key: string; field: SchemaField; related: Finding[] }>();
  const noteOn = (related: Finding[], reason: string) => {
    for (const d of related) d.note = `Semantic cross-check not run (${reason}); classified by the keyword rules alone.`;
  };

  for (const { key, previous, current, uncertain } of tools) {
    for (const field of ['inputSchema', 'outputSchema'] as const) {
      if (uncertain[field] === undefined) continue;
      const p = previous.contract[field];
      const c = current.contract[field];
      if (p === undefined || c === undefined || jsonEqual(p, c)) continue;
      const related = (toolDeltas.get(key) ?? []).filter((d) => schemaFieldOf(d) === field);
      // The check can only add what the walker did not find: harm to callers (input) or consumers (output).
      const direction = field === 'inputSchema' ? 'input' : 'output';
      if (related.some((d) => isHarmful(d.kind, direction))) continue;
      // Equal once reduced to what json-schema-diff reads: the difference lies in keywords the walker judges exactly.
      const plainP = projectForSemanticCheck(asToolRoot(p));
      const plainC = projectForSemanticCheck(asToolRoot(c));
      if ('schema' in plainP && 'schema' in plainC && jsonEqual(plainP.schema, plainC.schema)) continue;
      // Close the side whose values are enumerated: old arguments, new results (see ProjectionOptions).
      const input = field === 'inputSchema';
      const pp = projectForSemanticCheck(asToolRoot(p), { closeObjects: input, defaultsAreOptional: input });
      const pc = projectForSemanticCheck(asToolRoot(c), { closeObjects: !input, defaultsAreOptional: input });
      if ('skip' in pp || 'skip' in pc) {
        noteOn(related, 'skip' in pp ? pp.skip : (pc as { skip: string }).skip);
        continue;
      }
      const id = `${key}\u0000${field}`;
      jobs.push({ id, previous: pp.schema, current: pc.schema });
      pending.set(id, { key, field, related });
    }
  }
  if (jobs.length === 0) return;

  const results = await runSemanticChecks(jobs, budget);
  for (const [id, { key, field, related }] of pending) {
    const result = results.get(id);
    if (result === undefined) continue;
    if (result.status === 'skipped') {
      noteOn(related, result.reason);
      continue;
    }
    const input = field === 'inputSchema';
    if (input ? !result.removalsFound : !result.additionsFound) continue;
    const found = finding(input ? 'semantic-narrowing' : 'semantic-widening', [field], {
      where: input ? 'arguments' : 'result',
      direction: input ? 'input' : 'output',
      subject: field,
      previous: null,
      current: input ? result.removed : result.added,
      note: 'Found by json-schema-diff on the schemas without the keywords it ignores (enum, const, pattern, format, multipleOf); no keyword rule pinpointed it.',
    });
    toolDeltas.set(key, [...(toolDeltas.get(key) ?? []), found]);
  }
}
