/** Defaults, deprecation, examples, annotations, inapplicable keywords, and what json-schema-diff's cross-check finds. */
import { object, both, ONE_SIDED_CROSS_CHECK } from './examples.js';
import { family, show, at, fromTo, B, R, S, C, cosmetic } from './rule.js';
import { acceptsFewerPhrase } from './words.js';

export const SCHEMA_NOTE_RULES = family({
  'default-changed': {
    scope: 'schema', effect: 'neutral', severity: { input: R, output: C },
    reason: {
      input: 'Calls that omit the argument now get different behaviour.',
      output: 'An annotation on a returned value; nothing is validated against it.',
    },
    // Both defaults exist, so a null is the value null (Python's `= None`), not "none".
    message: (f) => `${at(f)}default changed from ${show(f.previous)} to ${show(f.current)}.`,
    phrase: (_, say) => say.located('default changed'),
    example: both({
      shows: 'a default changes',
      previous: object({ units: { type: 'string', default: 'metric' } }),
      current: object({ units: { type: 'string', default: 'imperial' } }),
    }),
  },
  'default-removed': {
    scope: 'schema', effect: 'neutral', severity: { input: R, output: C },
    reason: {
      input: 'Calls that omit the argument relied on a documented default that is gone.',
      output: 'An annotation on a returned value; nothing is validated against it.',
    },
    message: (f) => `${at(f)}default ${show(f.previous)} removed.`,
    phrase: (_, say) => say.located('default removed'),
    example: both({
      shows: 'a default is dropped',
      previous: object({ units: { type: 'string', default: 'metric' } }),
      current: object({ units: { type: 'string' } }),
    }),
  },
  'default-added': {
    ...cosmetic('schema', 'Documents what omitting the argument means; no call is refused.',
      (f) => `${at(f)}default ${show(f.current)} documented.`),
    example: both({
      shows: 'a default is documented',
      previous: object({ units: { type: 'string' } }),
      current: object({ units: { type: 'string', default: 'metric' } }),
    }),
  },
  'deprecation-added': {
    scope: 'schema', effect: 'neutral', severity: { input: S, output: S },
    reason: { input: 'Still accepted; callers are told to move away.', output: 'Still returned; consumers are told to move away.' },
    message: (f) => `${at(f)}marked deprecated.`,
    group: 'deprecated',
    example: both({
      shows: 'a property is marked deprecated',
      previous: object({ zip: { type: 'string' } }),
      current: object({ zip: { type: 'string', deprecated: true } }),
    }),
  },
  'deprecation-removed': {
    ...cosmetic('schema', 'No longer marked deprecated; nothing is refused.',
      (f) => `${at(f)}no longer marked deprecated.`),
    example: both({
      shows: 'a property is no longer marked deprecated',
      previous: object({ zip: { type: 'string', deprecated: true } }),
      current: object({ zip: { type: 'string' } }),
    }),
  },
  'examples-changed': {
    ...cosmetic('schema', 'Examples are documentation; nothing is validated against them.',
      (f) => `${at(f)}examples changed.`),
    example: both({
      shows: 'the examples of a property change',
      previous: object({ city: { type: 'string', examples: ['Paris'] } }),
      current: object({ city: { type: 'string', examples: ['Paris', 'Tokyo'] } }),
    }),
  },
  'annotation-changed': {
    ...cosmetic('schema', 'A keyword validators ignore (readOnly, $comment, contentMediaType, vendor x-…) changed.',
      (f) => `${at(f)}${f.subject} changed ${fromTo(f)}.`),
    example: both({
      shows: 'a contentMediaType changes',
      previous: object({ body: { type: 'string', contentMediaType: 'text/markdown' } }),
      current: object({ body: { type: 'string', contentMediaType: 'text/html' } }),
    }),
  },
  'inapplicable-keyword-changed': {
    ...cosmetic('schema', 'The keyword cannot apply to the declared type, so nothing is accepted or rejected differently.',
      (f) => `${at(f)}${f.subject} changed ${fromTo(f)}, but it does not apply to type ${(f.facts.types as string[] | undefined)?.join(' | ')}.`),
    example: both({
      shows: 'a maximum on a string schema changes',
      previous: object({ code: { type: 'string', maximum: 10 } }),
      current: object({ code: { type: 'string', maximum: 20 } }),
    }),
  },
  'semantic-narrowing': {
    usage: 'senders',
    scope: 'schema', effect: 'narrows', severity: { input: B, output: S },
    reason: {
      input: 'json-schema-diff found arguments the old schema accepted and the new one rejects, which no keyword rule explained.',
      output: 'The server returns a subset of what it returned before.',
    },
    hint: { input: 'Compare both schemas: relax the new one until every previously valid argument passes, or migrate callers first.' },
    message: (f) => `${at(f)}json-schema-diff found values accepted before and rejected now; the values lost are described by ${show(f.current, 200)}.`,
    phrase: acceptsFewerPhrase,
    example: {
      input: {
        shows: 'json-schema-diff finds arguments the new schema rejects',
        previous: object({ n: { type: 'number' } }),
        current: object({ n: { type: 'integer' } }),
        semantic: true,
        unsure: 'a blind spot of the keyword rules (simulated: the rules judge this one exactly)',
      },
      output: { cannotOccur: ONE_SIDED_CROSS_CHECK },
    },
  },
  'semantic-widening': {
    scope: 'schema', effect: 'widens', severity: { input: S, output: R },
    reason: {
      input: 'Every argument accepted before is still accepted.',
      output: 'json-schema-diff found values the server may now return that the old schema excluded, which no keyword rule explained.',
    },
    message: (f) => `${at(f)}json-schema-diff found values allowed now that were not before: ${show(f.current, 200)}.`,
    example: {
      input: { cannotOccur: ONE_SIDED_CROSS_CHECK },
      output: {
        shows: 'json-schema-diff finds results the old schema excluded',
        previous: object({ n: { type: 'integer' } }),
        current: object({ n: { type: 'number' } }),
        semantic: true,
        unsure: 'a blind spot of the keyword rules (simulated: the rules judge this one exactly)',
      },
    },
  },
});
