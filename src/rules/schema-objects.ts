/** An object schema's members: properties required, added, removed, renamed; undeclared properties; false schemas. Read per direction. */
import { object, both } from './examples.js';
import { textOf } from '../protocol/index.js';
import { family, show, at, quoted, B, R, S, narrowing, widening } from './rule.js';

export const SCHEMA_OBJECT_RULES = family({
  'required-property-added': {
    usage: 'holders',
    scope: 'schema', effect: 'reshapes', severity: { input: B, output: R },
    reason: {
      input: 'Calls that do not send the new property are rejected.',
      output: 'Every result now carries a property consumers never saw.',
    },
    hint: { input: 'Make the property optional with a default, so existing calls keep working.' },
    message: (f) => `${at(f)}new required property ${quoted(f.subject)}.`,
    phrase: (d, say) => say.property(d.direction === 'output' ? 'now always returns' : 'now requires'),
    example: both({
      shows: 'a new property is required',
      previous: object({ city: { type: 'string' } }, ['city']),
      current: object({ city: { type: 'string' }, country: { type: 'string' } }, ['city', 'country']),
    }),
  },
  'defaulted-property-added': {
    scope: 'schema', effect: 'widens', severity: { input: R, output: R },
    reason: {
      input: 'The published schema lists it as required, but it has a default: the server fills it in for calls that omit it. Strict clients that validate against the schema now have to send it.',
      output: 'Every result now carries a property consumers never saw.',
    },
    message: (f) => `${at(f)}new property ${quoted(f.subject)}, listed as required but with default ${show(f.facts.default)}: calls that omit it get the default.`,
    phrase: (_, say) => say.property('lists as required (with a default)'),
    example: {
      input: {
        shows: 'a new argument is listed as required but has a default',
        previous: object({ city: { type: 'string' } }, ['city']),
        current: object({ city: { type: 'string' }, units: { type: 'string', default: 'metric' } }, ['city', 'units']),
      },
      output: { cannotOccur: 'a default never makes a result property optional: a new required result property is required-property-added' },
    },
  },
  'property-became-required': {
    usage: 'holders',
    ...narrowing('Calls that omitted the property are rejected.',
      'Keep the property optional with a default, so existing calls keep working.',
      (f) => `${at(f)}property ${quoted(f.subject)} is now required.`),
    phrase: (d, say) => say.property(d.direction === 'output' ? 'now always returns' : 'now requires'),
    // The message says which way the flag went: `false → true` would only repeat it.
    showsValues: false,
    example: both({
      shows: 'an optional property becomes required',
      previous: object({ city: { type: 'string' }, country: { type: 'string' } }, ['city']),
      current: object({ city: { type: 'string' }, country: { type: 'string' } }, ['city', 'country']),
    }),
  },
  'defaulted-property-became-required': {
    scope: 'schema', effect: 'neutral', severity: { input: S, output: S },
    reason: {
      input: 'Listed as required now, but it has a default: calls that omit it still work (the server fills it in).',
      output: 'The server returns a subset of what it returned before.',
    },
    message: (f) => `${at(f)}property ${quoted(f.subject)} is now listed as required; it has a default, so calls that omit it still work.`,
    // The message says which way the flag went: `false → true` would only repeat it.
    showsValues: false,
    example: {
      input: {
        shows: 'an argument with a default is now listed as required',
        previous: object({ units: { type: 'string', default: 'metric' } }),
        current: object({ units: { type: 'string', default: 'metric' } }, ['units']),
      },
      output: { cannotOccur: 'a default never makes a result property optional: a result property newly listed as required is property-became-required' },
    },
  },
  'property-became-optional': {
    ...widening('Consumers may no longer find a property they always got.',
      (f) => `${at(f)}property ${quoted(f.subject)} is no longer required.`),
    phrase: (d, say) => say.property(d.direction === 'output' ? 'may no longer return' : 'no longer requires'),
    // The message says which way the flag went: `false → true` would only repeat it.
    showsValues: false,
    example: both({
      shows: 'a required property becomes optional',
      previous: object({ city: { type: 'string' }, country: { type: 'string' } }, ['city', 'country']),
      current: object({ city: { type: 'string' }, country: { type: 'string' } }, ['city']),
    }),
  },
  'property-added': {
    scope: 'schema', effect: 'widens', severity: { input: S, output: R },
    reason: {
      input: 'A new optional argument; existing calls do not send it and still work.',
      output: 'Results may carry a property consumers never saw (harmless to lenient parsers, rejected by strict ones).',
    },
    message: (f) => `${at(f)}new optional property ${quoted(f.subject)}.`,
    phrase: (d, say) => say.property(d.direction === 'output' ? 'may now return' : 'accepts new'),
    example: both({
      shows: 'a new optional property',
      previous: object({ city: { type: 'string' } }),
      current: object({ city: { type: 'string' }, country: { type: 'string' } }),
    }),
  },
  'property-removed': {
    usage: 'senders',
    scope: 'schema', effect: 'reshapes', severity: { input: B, output: B },
    reason: {
      input: 'The object rejects undeclared properties, so calls that still send it are refused.',
      output: 'Consumers that read the property no longer get it.',
    },
    hint: {
      input: 'Keep accepting the property (ignore it if unused) until callers have moved.',
      output: 'Keep returning the property (deprecate it first) until consumers have moved.',
    },
    message: (f) => `${at(f)}property ${quoted(f.subject)} was removed.`,
    phrase: (d, say) => say.property(d.direction === 'output' ? 'no longer returns' : 'no longer accepts'),
    example: both({
      shows: 'a property of a closed object disappears',
      previous: { ...object({ city: { type: 'string' }, zip: { type: 'string' } }), additionalProperties: false },
      current: { ...object({ city: { type: 'string' } }), additionalProperties: false },
    }),
  },
  'property-removed-ignored': {
    scope: 'schema', effect: 'widens', severity: { input: R, output: B },
    reason: {
      input: 'Calls that still send it are accepted, but the server may now silently ignore it.',
      output: 'Consumers that read the property no longer get it.',
    },
    hint: { output: 'Keep returning the property (deprecate it first) until consumers have moved.' },
    message: (f) => `${at(f)}property ${quoted(f.subject)} is no longer declared.`,
    phrase: (d, say) => say.property(d.direction === 'output' ? 'no longer returns' : 'may now ignore'),
    title: 'property no longer declared',
    example: both({
      shows: 'a property of an open object disappears',
      previous: object({ city: { type: 'string' }, zip: { type: 'string' } }),
      current: object({ city: { type: 'string' } }),
    }),
  },
  'property-renamed': {
    usage: 'senders',
    scope: 'schema', effect: 'reshapes', severity: { input: B, output: B },
    reason: {
      input: 'Calls that send the old name are refused or lose the value: the same argument now has another name.',
      output: 'Consumers reading the old name no longer find it: the same value is returned under another name.',
    },
    hint: {
      input: 'Accept the old name as a deprecated alias for a release, or keep the old name.',
      output: 'Return the value under both names for a release, then drop the old one.',
    },
    message: (f) => `${at(f)}property ${show(f.previous)} was renamed to ${show(f.current)} (same schema).`,
    phrase: (d, say) => say.fixed(`${d.direction === 'output' ? 'result field' : 'argument'} ${say.code(textOf(d.previous))} renamed to ${say.code(textOf(d.current))}`),
    example: both({
      shows: 'a property gets a new name, same schema',
      previous: object({ zip: { type: 'string' } }, ['zip']),
      current: object({ postal_code: { type: 'string' } }, ['postal_code']),
    }),
  },
  'additional-properties-forbidden': {
    usage: 'senders',
    ...narrowing('Calls that send a property the schema does not list are rejected.',
      'Keep accepting unknown properties (and ignore them), or list the ones callers send.',
      (f) => `${at(f)}undeclared properties are now rejected.`),
    phrase: (_, say) => say.located('rejects unknown properties', 'rejects unknown {subject}'),
    example: both({
      shows: 'an object starts rejecting undeclared properties',
      previous: object({ city: { type: 'string' } }),
      current: { ...object({ city: { type: 'string' } }), additionalProperties: false },
    }),
  },
  'additional-properties-allowed': {
    ...widening('The server may return properties consumers never saw.',
      (f) => `${at(f)}undeclared properties are now allowed.`),
    phrase: (d, say) => (d.direction === 'output' ? say.located('may return unknown properties') : say.located('accepts unknown properties', 'accepts unknown arguments')),
    example: both({
      shows: 'an object stops rejecting undeclared properties',
      previous: { ...object({ city: { type: 'string' } }), additionalProperties: false },
      current: object({ city: { type: 'string' } }),
    }),
  },
  'schema-became-false': {
    usage: 'senders',
    ...narrowing('Nothing is accepted at this location any more.',
      'Restore the previous schema at this location.',
      (f) => `${at(f)}no value is accepted here any more.`),
    phrase: (_, say) => say.located('accepts nothing'),
    example: both({
      shows: 'a property admits no value at all any more',
      previous: object({ debug: { type: 'boolean' } }),
      current: object({ debug: false }),
    }),
  },
  'schema-was-false': {
    ...widening('The server may return values where it never returned any.',
      (f) => `${at(f)}values are now allowed where none were.`),
    example: both({
      shows: 'a property that admitted no value now admits booleans',
      previous: object({ debug: false }),
      current: object({ debug: { type: 'boolean' } }),
    }),
  },
});
