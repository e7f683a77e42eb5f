/**
 * Words several rules share: how a type, a set of allowed values or a prompt argument is said,
 * in a sentence and in a digest phrase. Each is made from the delta's values and typed facts,
 * never from another sentence.
 */
import { compactJson, isJsonObject, type Delta } from '../protocol/index.js';
import { listOf, type MessageFacts, type Phrase, type PhraseKit } from './rule.js';

const valuesOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** "(removed "a"; added "b")", "(now restricted to "a", "b")": the enum values that moved, from the facts. */
export function valuesMoved(f: MessageFacts): string {
  const { removed, added, restrictedTo, wasRestrictedTo } = f.facts;
  if (restrictedTo !== undefined) return ` (now restricted to ${listOf(valuesOf(restrictedTo))})`;
  if (wasRestrictedTo !== undefined) return ` (no longer restricted to ${listOf(valuesOf(wasRestrictedTo))})`;
  const parts = [valuesOf(removed).length > 0 ? `removed ${listOf(valuesOf(removed))}` : '', valuesOf(added).length > 0 ? `added ${listOf(valuesOf(added))}` : ''].filter((s) => s !== '');
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}

/** A JSON Schema `type` as people write it: `integer`, `string | null`. */
function typeText(type: unknown): string {
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.map((t) => (typeof t === 'string' ? t : compactJson(t))).join(' | ');
  return type === null || type === undefined ? 'any' : compactJson(type);
}

/** "type `string` → `integer`", at the place of the type. */
export function typePhrase(d: Readonly<Delta>, say: PhraseKit): Phrase {
  const change = `type ${say.code(typeText(d.previous))} → ${say.code(typeText(d.current))}`;
  return say.located(change, `${d.direction === 'output' ? 'result' : 'arguments'}: ${change}`, change);
}

/** "no longer accepts `a`, `b`", "accepts only `a`", from the values the facts say were removed or kept. */
export function fewerValuesPhrase(d: Readonly<Delta>, say: PhraseKit): Phrase {
  const output = d.direction === 'output';
  const removed = valuesOf(d.facts?.removed);
  const only = d.facts?.restrictedTo !== undefined ? valuesOf(d.facts.restrictedTo) : null;
  const code = (values: unknown[]) => say.list(values.map((v) => say.code(compactJson(v))));
  const words =
    removed.length > 0
      ? `no longer ${output ? 'returns' : 'accepts'} ${code(removed)}`
      : only !== null
        ? `${output ? 'returns' : 'accepts'} only ${code(only)}`
        : `${output ? 'returns' : 'accepts'} fewer values`;
  return say.located(words, words, words);
}

/** For a change no plainer phrase fits: fewer values accepted, or different ones returned. */
export function acceptsFewerPhrase(d: Readonly<Delta>, say: PhraseKit): Phrase {
  return say.located(d.direction === 'output' ? 'returns different values' : 'accepts fewer values');
}

/** A prompt argument's values are worth a line unless it is only its name and whether it is required. */
export function describedArgument(d: Readonly<Delta>): boolean {
  const bare = (value: unknown) => value === null || value === undefined || (isJsonObject(value) && Object.keys(value).every((key) => key === 'name' || key === 'required'));
  return ![d.previous, d.current].every(bare);
}
