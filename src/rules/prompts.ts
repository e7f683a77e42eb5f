/** A prompt's arguments. */
import { review } from './examples.js';
import { family, quoted, B, S } from './rule.js';
import { describedArgument } from './words.js';

export const PROMPT_RULES = family({
  // Prompts.
  'required-prompt-argument-added': {
    scope: 'prompt', severity: B,
    reason: 'Clients that fetch the prompt without it get an error.',
    hint: 'Make the argument optional, with a sensible default in the prompt.',
    message: (f) => `New required argument ${quoted(f.subject)}.`,
    phrase: (_, say) => say.argument('now requires argument', 'prompt-requires'),
    showsValues: describedArgument,
    example: {
      shows: 'a prompt needs a new argument',
      previous: { prompts: [review([{ name: 'code', required: true }])] },
      current: { prompts: [review([{ name: 'code', required: true }, { name: 'language', required: true }])] },
    },
  },
  'prompt-argument-added': {
    scope: 'prompt', severity: S,
    reason: 'A new optional argument; existing requests still work.',
    message: (f) => `New optional argument ${quoted(f.subject)}.`,
    showsValues: describedArgument,
    example: {
      shows: 'a prompt takes a new optional argument',
      previous: { prompts: [review([{ name: 'code', required: true }])] },
      current: { prompts: [review([{ name: 'code', required: true }, { name: 'language' }])] },
    },
  },
  'prompt-argument-removed': {
    scope: 'prompt', severity: B,
    reason: 'Clients that pass it may be refused, and its effect is gone.',
    hint: 'Keep accepting the argument (ignore it if unused) for a release.',
    message: (f) => `Argument ${quoted(f.subject)} was removed.`,
    phrase: (d, say) => say.argument('no longer accepts argument', d.kind),
    showsValues: describedArgument,
    example: {
      shows: 'a prompt argument disappears',
      previous: { prompts: [review([{ name: 'code', required: true }, { name: 'language' }])] },
      current: { prompts: [review([{ name: 'code', required: true }])] },
    },
  },
  'prompt-argument-became-required': {
    scope: 'prompt', severity: B,
    reason: 'Clients that omitted it get an error.',
    hint: 'Keep the argument optional, with a sensible default in the prompt.',
    message: (f) => `Argument ${quoted(f.subject)} is now required.`,
    phrase: (_, say) => say.argument('now requires argument', 'prompt-requires'),
    // The message says which way the flag went: `false → true` would only repeat it.
    showsValues: false,
    example: {
      shows: 'an optional prompt argument becomes required',
      previous: { prompts: [review([{ name: 'code', required: true }, { name: 'language' }])] },
      current: { prompts: [review([{ name: 'code', required: true }, { name: 'language', required: true }])] },
    },
  },
  'prompt-argument-became-optional': {
    scope: 'prompt', severity: S,
    reason: 'Every request that worked before still works.',
    message: (f) => `Argument ${quoted(f.subject)} is now optional.`,
    // The message says which way the flag went: `false → true` would only repeat it.
    showsValues: false,
    example: {
      shows: 'a required prompt argument becomes optional',
      previous: { prompts: [review([{ name: 'code', required: true }, { name: 'language', required: true }])] },
      current: { prompts: [review([{ name: 'code', required: true }, { name: 'language' }])] },
    },
  },
});
