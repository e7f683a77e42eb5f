/** Unions, actions of a discriminated union, allOf, not, and the assertions no dedicated rule judges. Read per direction. */
import { object, both, create, archive, remove } from './examples.js';
import { textOf } from '../protocol/index.js';
import { family, show, at, quoted, fromTo, B, R, narrowing, widening, reshaping } from './rule.js';
import { acceptsFewerPhrase } from './words.js';

export const SCHEMA_COMBINATOR_RULES = family({
  'union-branch-removed': {
    usage: 'senders',
    ...narrowing('Arguments that only matched the removed variant are rejected.',
      'Keep accepting the removed variant, or convert it server-side.',
      (f) => `${at(f)}variant ${f.subject} removed (${show(f.previous)}).`),
    phrase: (_, say) => say.located('a variant was removed'),
    example: both({
      shows: 'a date that was an ISO string or a timestamp is only an ISO string',
      previous: object({ since: { anyOf: [{ type: 'string', format: 'date' }, { type: 'integer' }, { type: 'null' }] } }),
      current: object({ since: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] } }),
    }),
  },
  'union-branch-added': {
    ...widening('The server may return a variant consumers never saw.',
      (f) => `${at(f)}variant ${f.subject} added (${show(f.current)}).`),
    example: both({
      shows: 'a date may also be a timestamp',
      previous: object({ since: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] } }),
      current: object({ since: { anyOf: [{ type: 'string', format: 'date' }, { type: 'integer' }, { type: 'null' }] } }),
    }),
  },
  'union-made-exclusive': {
    usage: 'senders',
    ...narrowing('anyOf → oneOf: values matching several variants are now rejected.',
      'Keep anyOf, or make the variants disjoint.',
      (f) => `${at(f)}anyOf became oneOf: a value must now match exactly one variant.`),
    phrase: (_, say) => say.located('must match exactly one variant'),
    example: both({
      shows: 'anyOf becomes oneOf',
      previous: object({ id: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }),
      current: object({ id: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }),
    }),
  },
  'union-made-inclusive': {
    ...widening('oneOf → anyOf: the server may return values matching several variants.',
      (f) => `${at(f)}oneOf became anyOf.`),
    example: both({
      shows: 'oneOf becomes anyOf',
      previous: object({ id: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }),
      current: object({ id: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }),
    }),
  },
  'one-of-overlap': {
    usage: 'senders',
    scope: 'schema', effect: 'reshapes', severity: { input: B, output: R },
    reason: {
      input: 'oneOf rejects a value that matches two variants; its variants are not provably disjoint and changed, so some arguments may now match two.',
      output: 'Values that matched two variants (and were never returned) may now match exactly one.',
    },
    hint: { input: 'Use anyOf, or make the variants disjoint (a discriminator property with a distinct const per variant).' },
    message: (f) => `${at(f)}the oneOf variants changed and are not provably disjoint: values may start or stop matching exactly one variant.`,
    phrase: (_, say) => say.located('variants may overlap'),
    example: both({
      shows: 'a handle variant grows long enough that a UUID matches both variants of a oneOf',
      previous: object({ user: { oneOf: [{ type: 'string', format: 'uuid' }, { type: 'string', maxLength: 15 }] } }),
      current: object({ user: { oneOf: [{ type: 'string', format: 'uuid' }, { type: 'string', maxLength: 40 }] } }),
    }),
  },
  'action-removed': {
    usage: 'action',
    ...narrowing('Calls with this action are rejected.',
      'Keep the action as a deprecated alias that forwards to its replacement.',
      (f) => `Action ${quoted(f.subject)} was removed.`),
    phrase: (d, say) => say.fixed(`action ${say.code(d.action ?? textOf(d.previous))} removed`),
    example: both({
      shows: 'an action of a discriminated union disappears',
      previous: { oneOf: [create, archive, remove] },
      current: { oneOf: [create, remove] },
    }),
  },
  'action-added': {
    ...widening('The server may return results for an action consumers never saw.',
      (f) => `Action ${quoted(f.subject)} was added.`),
    example: both({
      shows: 'a discriminated union gains an action',
      previous: { oneOf: [create, remove] },
      current: { oneOf: [create, archive, remove] },
    }),
  },
  'all-of-branch-added': {
    usage: 'senders',
    ...narrowing('A new constraint every argument must satisfy.',
      'Enforce the new constraint in the handler with a helpful error, or make it optional.',
      (f) => `${at(f)}new allOf constraint ${f.subject}.`),
    phrase: acceptsFewerPhrase,
    example: both({
      shows: 'a password must also contain an upper-case letter',
      previous: object({ password: { type: 'string', allOf: [{ pattern: '[0-9]' }] } }),
      current: object({ password: { type: 'string', allOf: [{ pattern: '[0-9]' }, { pattern: '[A-Z]' }] } }),
    }),
  },
  'all-of-branch-removed': {
    ...widening('The server may return values that violated the removed constraint.',
      (f) => `${at(f)}allOf constraint ${f.subject} removed.`),
    example: both({
      shows: 'a password no longer needs an upper-case letter',
      previous: object({ password: { type: 'string', allOf: [{ pattern: '[0-9]' }, { pattern: '[A-Z]' }] } }),
      current: object({ password: { type: 'string', allOf: [{ pattern: '[0-9]' }] } }),
    }),
  },
  'not-added': {
    usage: 'senders',
    ...narrowing('Values matching the new exclusion are rejected.',
      'Drop the exclusion, or handle the excluded values in the handler.',
      (f) => `${at(f)}now excludes values matching ${show(f.current)}.`),
    phrase: acceptsFewerPhrase,
    example: both({
      shows: 'reserved user names are excluded',
      previous: object({ username: { type: 'string' } }),
      current: object({ username: { type: 'string', not: { enum: ['admin', 'root'] } } }),
    }),
  },
  'not-removed': {
    ...widening('The server may return values it used to exclude.',
      (f) => `${at(f)}no longer excludes values matching ${show(f.previous)}.`),
    example: both({
      shows: 'reserved user names are no longer excluded',
      previous: object({ username: { type: 'string', not: { enum: ['admin', 'root'] } } }),
      current: object({ username: { type: 'string' } }),
    }),
  },
  'not-excludes-more': {
    usage: 'senders',
    ...narrowing('The `not` schema now matches more values, all of them rejected.',
      'Narrow the exclusion back, or handle the newly excluded values in the handler.',
      (f) => `${at(f)}now excludes more: ${show(f.previous)} → ${show(f.current)}.`),
    phrase: acceptsFewerPhrase,
    example: both({
      shows: 'one more reserved user name',
      previous: object({ username: { type: 'string', not: { enum: ['admin', 'root'] } } }),
      current: object({ username: { type: 'string', not: { enum: ['admin', 'root', 'system'] } } }),
    }),
  },
  'not-excludes-less': {
    ...widening('The server may return values it used to exclude.',
      (f) => `${at(f)}now excludes less: ${show(f.previous)} → ${show(f.current)}.`),
    example: both({
      shows: 'one reserved user name fewer',
      previous: object({ username: { type: 'string', not: { enum: ['admin', 'root', 'system'] } } }),
      current: object({ username: { type: 'string', not: { enum: ['admin', 'root'] } } }),
    }),
  },
  'not-changed': {
    usage: 'senders',
    ...reshaping('Some values that passed the old exclusion are now excluded.', 'The server may return values it used to exclude.',
      'Keep excluding only what was excluded before, or handle the difference in the handler.',
      (f) => `${at(f)}exclusion changed: ${show(f.previous)} → ${show(f.current)}.`),
    phrase: acceptsFewerPhrase,
    example: both({
      shows: 'the reserved user names are swapped',
      previous: object({ username: { type: 'string', not: { enum: ['admin', 'root'] } } }),
      current: object({ username: { type: 'string', not: { enum: ['admin', 'system'] } } }),
    }),
  },
  'constraint-added': {
    usage: 'senders',
    ...narrowing('A new validation keyword may reject arguments that used to pass.',
      'Make sure every argument that was valid before still passes.',
      (f) => `${at(f)}new constraint ${f.subject}: ${show(f.current)}.`),
    phrase: acceptsFewerPhrase,
    example: both({
      shows: 'a card number now needs its CVV beside it (dependentRequired)',
      previous: object({ card_number: { type: 'string' }, cvv: { type: 'string' } }),
      current: { ...object({ card_number: { type: 'string' }, cvv: { type: 'string' } }), dependentRequired: { card_number: ['cvv'] } },
    }),
  },
  'constraint-removed': {
    ...widening('The server may return values the removed keyword used to exclude.',
      (f) => `${at(f)}constraint ${f.subject} removed (was ${show(f.previous)}).`),
    example: both({
      shows: 'a card number no longer needs its CVV beside it',
      previous: { ...object({ card_number: { type: 'string' }, cvv: { type: 'string' } }), dependentRequired: { card_number: ['cvv'] } },
      current: object({ card_number: { type: 'string' }, cvv: { type: 'string' } }),
    }),
  },
  'constraint-changed': {
    usage: 'senders',
    ...reshaping('The changed keyword may reject arguments that used to pass.',
      'The server may return values the old keyword excluded.',
      'Make sure every argument that was valid before still passes.',
      (f) => `${at(f)}constraint ${f.subject} changed ${fromTo(f)}.`),
    phrase: acceptsFewerPhrase,
    example: both({
      shows: 'a card number needs its expiry instead of its CVV',
      previous: { ...object({ card_number: { type: 'string' }, cvv: { type: 'string' }, expiry: { type: 'string' } }), dependentRequired: { card_number: ['cvv'] } },
      current: { ...object({ card_number: { type: 'string' }, cvv: { type: 'string' }, expiry: { type: 'string' } }), dependentRequired: { card_number: ['expiry'] } },
    }),
  },
});
