/** Schema keywords that bound a value: type, enum/const, ranges, multipleOf, pattern, format, uniqueItems. Read per direction. */
import { object, both } from './examples.js';
import { textOf } from '../protocol/index.js';
import { family, show, at, fromTo, B, narrowing, widening, reshaping } from './rule.js';
import { typePhrase, fewerValuesPhrase, acceptsFewerPhrase, valuesMoved } from './words.js';

export const SCHEMA_VALUE_RULES = family({
  'type-narrowed': {
    usage: 'senders',
    ...narrowing('Arguments of a type no longer listed are rejected.',
      'Keep accepting the old type (list both) and convert server-side.',
      (f) => `${at(f)}type narrowed ${fromTo(f)}.`),
    phrase: typePhrase,
    example: both({
      shows: 'a string-or-number field takes only strings',
      previous: object({ id: { type: ['number', 'string'] } }),
      current: object({ id: { type: 'string' } }),
    }),
  },
  'type-widened': {
    ...widening('The server may return a type consumers never saw.',
      (f) => `${at(f)}type widened ${fromTo(f)}.`),
    phrase: typePhrase,
    example: both({
      shows: 'a string field also takes numbers',
      previous: object({ id: { type: 'string' } }),
      current: object({ id: { type: ['number', 'string'] } }),
    }),
  },
  'type-changed': {
    usage: 'senders',
    scope: 'schema', effect: 'reshapes', severity: { input: B, output: B },
    reason: {
      input: 'Arguments of the old type are rejected.',
      output: 'The server returns a type consumers do not expect in place of the one they parse.',
    },
    hint: {
      input: 'Keep accepting the old type (list both) and convert server-side.',
      output: 'Keep returning the old type; add a new field for the new one.',
    },
    message: (f) => `${at(f)}type changed ${fromTo(f)}.`,
    phrase: typePhrase,
    example: both({
      shows: 'a string field becomes an integer',
      previous: object({ count: { type: 'string' } }),
      current: object({ count: { type: 'integer' } }),
    }),
  },
  'enum-narrowed': {
    usage: 'values',
    ...narrowing('Arguments using a value no longer listed are rejected.',
      'Keep accepting the removed values (map them to their replacement) for a release.',
      (f) => `${at(f)}fewer values accepted${valuesMoved(f)}.`),
    phrase: fewerValuesPhrase,
    example: both({
      shows: 'an enum loses a value',
      previous: object({ unit: { type: 'string', enum: ['celsius', 'fahrenheit', 'kelvin'] } }),
      current: object({ unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }),
    }),
  },
  'enum-widened': {
    ...widening('The server may return a value consumers never saw (a new enum member).',
      (f) => `${at(f)}more values allowed${valuesMoved(f)}.`),
    example: both({
      shows: 'an enum gains a value',
      previous: object({ unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }),
      current: object({ unit: { type: 'string', enum: ['celsius', 'fahrenheit', 'kelvin'] } }),
    }),
  },
  'enum-changed': {
    usage: 'values',
    ...reshaping('Arguments using a removed value are rejected.', 'The server may return a value consumers never saw.',
      'Keep accepting the removed values (map them to their replacement) for a release.',
      (f) => `${at(f)}allowed values changed${valuesMoved(f)}.`),
    phrase: fewerValuesPhrase,
    example: both({
      shows: 'an enum swaps one value for another',
      previous: object({ unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }),
      current: object({ unit: { type: 'string', enum: ['celsius', 'kelvin'] } }),
    }),
  },
  'number-range-narrowed': {
    usage: 'senders',
    ...narrowing('Numbers between the old and the new bound are rejected.',
      'Keep the old bound, or clamp out-of-range values server-side.',
      (f) => `${at(f)}${f.subject} tightened ${fromTo(f)}.`),
    phrase: (_, say) => say.located('tighter range'),
    example: both({
      shows: 'a maximum is lowered',
      previous: object({ limit: { type: 'integer', maximum: 100 } }),
      current: object({ limit: { type: 'integer', maximum: 50 } }),
    }),
  },
  'number-range-widened': {
    ...widening('The server may return numbers outside the range consumers relied on.',
      (f) => `${at(f)}${f.subject} relaxed ${fromTo(f)}.`),
    example: both({
      shows: 'a maximum is raised',
      previous: object({ limit: { type: 'integer', maximum: 50 } }),
      current: object({ limit: { type: 'integer', maximum: 100 } }),
    }),
  },
  'length-range-narrowed': {
    usage: 'senders',
    ...narrowing('Strings of a length that used to be fine are rejected.',
      'Keep the old length limit, or truncate server-side.',
      (f) => `${at(f)}${f.subject} tightened ${fromTo(f)}.`),
    phrase: (_, say) => say.located('tighter length limit'),
    example: both({
      shows: 'a maxLength is lowered',
      previous: object({ query: { type: 'string', maxLength: 500 } }),
      current: object({ query: { type: 'string', maxLength: 200 } }),
    }),
  },
  'length-range-widened': {
    ...widening('The server may return strings longer or shorter than consumers expect.',
      (f) => `${at(f)}${f.subject} relaxed ${fromTo(f)}.`),
    example: both({
      shows: 'a maxLength is raised',
      previous: object({ query: { type: 'string', maxLength: 200 } }),
      current: object({ query: { type: 'string', maxLength: 500 } }),
    }),
  },
  'item-count-range-narrowed': {
    usage: 'senders',
    ...narrowing('Arrays with a count of items that used to be fine are rejected.',
      'Keep the old item limit, or split/pad server-side.',
      (f) => `${at(f)}${f.subject} tightened ${fromTo(f)}.`),
    phrase: (_, say) => say.located('tighter item count'),
    example: both({
      shows: 'a maxItems is lowered',
      previous: object({ tags: { type: 'array', items: { type: 'string' }, maxItems: 10 } }),
      current: object({ tags: { type: 'array', items: { type: 'string' }, maxItems: 5 } }),
    }),
  },
  'item-count-range-widened': {
    ...widening('The server may return more or fewer items than consumers expect.',
      (f) => `${at(f)}${f.subject} relaxed ${fromTo(f)}.`),
    example: both({
      shows: 'a maxItems is raised',
      previous: object({ tags: { type: 'array', items: { type: 'string' }, maxItems: 5 } }),
      current: object({ tags: { type: 'array', items: { type: 'string' }, maxItems: 10 } }),
    }),
  },
  'property-count-range-narrowed': {
    usage: 'senders',
    ...narrowing('Objects with a number of properties that used to be fine are rejected.',
      'Keep the old property-count limit.',
      (f) => `${at(f)}${f.subject} tightened ${fromTo(f)}.`),
    phrase: (_, say) => say.located('tighter property count'),
    example: both({
      shows: 'a maxProperties is lowered',
      previous: object({ labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 20 } }),
      current: object({ labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 10 } }),
    }),
  },
  'property-count-range-widened': {
    ...widening('The server may return objects of a size consumers do not expect.',
      (f) => `${at(f)}${f.subject} relaxed ${fromTo(f)}.`),
    example: both({
      shows: 'a maxProperties is raised',
      previous: object({ labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 10 } }),
      current: object({ labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 20 } }),
    }),
  },
  'multiple-of-narrowed': {
    usage: 'senders',
    ...narrowing('Numbers that were multiples of the old step but not of the new one are rejected.',
      'Keep the old multipleOf, or round server-side.',
      (f) => `${at(f)}multipleOf changed ${fromTo(f)}.`),
    phrase: acceptsFewerPhrase,
    example: both({
      shows: 'a step of 5 becomes a step of 10',
      previous: object({ quantity: { type: 'integer', multipleOf: 5 } }),
      current: object({ quantity: { type: 'integer', multipleOf: 10 } }),
    }),
  },
  'multiple-of-widened': {
    ...widening('The server may return numbers off the step consumers relied on.',
      (f) => `${at(f)}multipleOf relaxed ${fromTo(f)}.`),
    example: both({
      shows: 'a step of 10 becomes a step of 5',
      previous: object({ quantity: { type: 'integer', multipleOf: 10 } }),
      current: object({ quantity: { type: 'integer', multipleOf: 5 } }),
    }),
  },
  'multiple-of-changed': {
    usage: 'senders',
    ...reshaping('Multiples of the old step are rejected.', 'The server may return numbers off the old step.',
      'Keep the old multipleOf, or round server-side.',
      (f) => `${at(f)}multipleOf changed ${fromTo(f)}.`),
    phrase: acceptsFewerPhrase,
    example: both({
      shows: 'a step of 4 becomes a step of 6',
      previous: object({ quantity: { type: 'integer', multipleOf: 4 } }),
      current: object({ quantity: { type: 'integer', multipleOf: 6 } }),
    }),
  },
  'pattern-added': {
    usage: 'senders',
    ...narrowing('Strings that do not match the new pattern are rejected.',
      'Accept the previously valid strings too, or normalize them server-side.',
      (f) => `${at(f)}now must match pattern ${show(f.current)}.`),
    phrase: (_, say) => say.located('must match a new pattern'),
    example: both({
      shows: 'a free-form string must match a pattern',
      previous: object({ sku: { type: 'string' } }),
      current: object({ sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' } }),
    }),
  },
  'pattern-removed': {
    ...widening('The server may return strings of a shape consumers never saw.',
      (f) => `${at(f)}pattern ${show(f.previous)} removed.`),
    example: both({
      shows: 'a string no longer has to match a pattern',
      previous: object({ sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' } }),
      current: object({ sku: { type: 'string' } }),
    }),
  },
  'pattern-widened': {
    ...widening('The server may return strings the old pattern did not allow.',
      (f) => `${at(f)}pattern widened ${fromTo(f)}: every string the old one matched still matches.`),
    example: both({
      shows: 'a pattern also admits digits, so everything it matched still matches',
      previous: object({ slug: { type: 'string', pattern: '^[a-z]+$' } }),
      current: object({ slug: { type: 'string', pattern: '^[a-z0-9]+$' } }),
    }),
  },
  'pattern-narrowed': {
    usage: 'senders',
    ...narrowing('Strings the old pattern matched and the new one does not are rejected.',
      'Keep the old pattern, or accept the strings it matched and normalize them server-side.',
      (f) => `${at(f)}pattern narrowed ${fromTo(f)}: every string the new one matches was matched before.`),
    phrase: (_, say) => say.located('pattern narrowed'),
    example: both({
      shows: 'a pattern stops admitting digits, so it matches a subset of what it matched',
      previous: object({ slug: { type: 'string', pattern: '^[a-z0-9]+$' } }),
      current: object({ slug: { type: 'string', pattern: '^[a-z]+$' } }),
    }),
  },
  'pattern-changed': {
    usage: 'senders',
    ...reshaping('Strings that matched the old pattern may not match the new one.',
      'The server may return strings that did not match the old pattern.',
      'Widen the pattern so previously valid strings still match, or normalize them server-side.',
      (f) => `${at(f)}pattern changed ${fromTo(f)}.`),
    phrase: (_, say) => say.located('pattern changed'),
    example: both({
      shows: 'lower-case slugs become upper-case',
      previous: object({ slug: { type: 'string', pattern: '^[a-z]+$' } }),
      current: object({ slug: { type: 'string', pattern: '^[A-Z]+$' } }),
    }),
  },
  'format-added': {
    usage: 'senders',
    ...narrowing('Strings that are not in the new format are rejected.',
      'Accept the previous strings too, or normalize them server-side.',
      (f) => `${at(f)}now must be in format ${show(f.current)}.`),
    phrase: (d, say) => say.located(`must be in format ${say.code(textOf(d.current))}`, undefined, textOf(d.current)),
    example: both({
      shows: 'a string must be an email address',
      previous: object({ contact: { type: 'string' } }),
      current: object({ contact: { type: 'string', format: 'email' } }),
    }),
  },
  'format-removed': {
    ...widening('The server may return strings that are not in the format consumers parse.',
      (f) => `${at(f)}format ${show(f.previous)} removed.`),
    example: both({
      shows: 'a string no longer has to be an email address',
      previous: object({ contact: { type: 'string', format: 'email' } }),
      current: object({ contact: { type: 'string' } }),
    }),
  },
  'format-changed': {
    usage: 'senders',
    ...reshaping('Strings in the old format are rejected.', 'The server returns strings in a format consumers do not parse.',
      'Accept both formats and normalize server-side.',
      (f) => `${at(f)}format changed ${fromTo(f)}.`),
    phrase: (d, say) => say.located(`format ${say.code(textOf(d.previous))} → ${say.code(textOf(d.current))}`, undefined, `${textOf(d.previous)}>${textOf(d.current)}`),
    example: both({
      shows: 'a date becomes a date-time',
      previous: object({ since: { type: 'string', format: 'date' } }),
      current: object({ since: { type: 'string', format: 'date-time' } }),
    }),
  },
  'unique-items-added': {
    usage: 'senders',
    ...narrowing('Arrays with duplicates are rejected.',
      'De-duplicate server-side instead of rejecting duplicates.',
      (f) => `${at(f)}items must now be unique.`),
    phrase: (_, say) => say.located('items must be unique'),
    example: both({
      shows: 'an array may no longer hold duplicates',
      previous: object({ tags: { type: 'array', items: { type: 'string' } } }),
      current: object({ tags: { type: 'array', items: { type: 'string' }, uniqueItems: true } }),
    }),
  },
  'unique-items-removed': {
    ...widening('The server may return duplicates consumers never saw.',
      (f) => `${at(f)}items no longer need to be unique.`),
    example: both({
      shows: 'an array may hold duplicates',
      previous: object({ tags: { type: 'array', items: { type: 'string' }, uniqueItems: true } }),
      current: object({ tags: { type: 'array', items: { type: 'string' } } }),
    }),
  },
});
