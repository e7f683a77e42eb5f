/** Entries appearing, disappearing, being renamed: tools, prompts, resources, resource templates. */
import { object, forecast, review, readme, fileTemplate } from './examples.js';
import { family, type MessageFacts, show, quoted, B, S } from './rule.js';

export const LIFECYCLE_RULES = family({
  // Entries appearing, disappearing, being renamed.
  'tool-removed': {
    usage: 'calls',
    scope: 'tool', severity: B,
    reason: 'Agents that call it get "unknown tool".',
    hint: 'Keep the tool for a release, marked deprecated in its description, before removing it.',
    message: (f) => `Tool ${quoted(f.subject)} was removed.`,
    phrase: (_, say) => say.fixed('removed'),
    group: 'removed',
    example: {
      shows: 'a tool disappears',
      previous: { tools: [forecast(), { name: 'get_alerts', inputSchema: object({ state: { type: 'string' } }) }] },
      current: { tools: [forecast()] },
    },
  },
  'tool-added': {
    scope: 'tool', severity: S,
    reason: 'Nothing that worked before stops working.',
    message: (f) => `Tool ${quoted(f.subject)} was added.`,
    group: 'added',
    example: {
      shows: 'a tool appears',
      previous: { tools: [forecast()] },
      current: { tools: [forecast(), { name: 'get_alerts', inputSchema: object({ state: { type: 'string' } }) }] },
    },
  },
  'tool-renamed': {
    usage: 'calls',
    scope: 'tool', severity: B,
    reason: 'Agents calling the old name get "unknown tool", even though the tool still exists.',
    hint: 'Keep the old name registered as an alias of the renamed tool for a release.',
    message: (f) => `Tool ${show(f.previous)} was renamed to ${show(f.current)} (${sameShape(f)}).`,
    // Every format names a renamed entry `old → new`: the phrase need not repeat the new name.
    phrase: (_, say) => say.fixed('renamed'),
    example: {
      shows: 'a tool reappears under another name with the same arguments',
      previous: { tools: [forecast()] },
      current: { tools: [forecast({ name: 'fetch_forecast' })] },
    },
  },
  'prompt-removed': {
    scope: 'prompt', severity: B,
    reason: 'Clients that fetch it get an error.',
    hint: 'Keep the prompt for a release before removing it.',
    message: (f) => `Prompt ${quoted(f.subject)} was removed.`,
    phrase: (_, say) => say.fixed('removed'),
    group: 'removed',
    example: {
      shows: 'a prompt disappears',
      previous: { prompts: [review([{ name: 'code' }]), { name: 'explain_error', arguments: [{ name: 'message' }] }] },
      current: { prompts: [review([{ name: 'code' }])] },
    },
  },
  'prompt-added': {
    scope: 'prompt', severity: S,
    reason: 'Nothing that worked before stops working.',
    message: (f) => `Prompt ${quoted(f.subject)} was added.`,
    group: 'added',
    example: {
      shows: 'a prompt appears',
      previous: { prompts: [review([{ name: 'code' }])] },
      current: { prompts: [review([{ name: 'code' }]), { name: 'explain_error', arguments: [{ name: 'message' }] }] },
    },
  },
  'prompt-renamed': {
    scope: 'prompt', severity: B,
    reason: 'Clients fetching the old name get an error, even though the prompt still exists.',
    hint: 'Keep the old name registered as an alias of the renamed prompt for a release.',
    message: (f) => `Prompt ${show(f.previous)} was renamed to ${show(f.current)} (${sameShape(f)}).`,
    // Every format names a renamed entry `old → new`: the phrase need not repeat the new name.
    phrase: (_, say) => say.fixed('renamed'),
    example: {
      shows: 'a prompt reappears under another name with the same arguments',
      previous: { prompts: [review([{ name: 'code', required: true }, { name: 'language' }])] },
      current: { prompts: [review([{ name: 'code', required: true }, { name: 'language' }], 'review_code')] },
    },
  },
  'resource-removed': {
    scope: 'resource', severity: B,
    reason: 'Clients reading this URI get "not found".',
    hint: 'Keep serving the old URI (or redirect it to the new one) for a release.',
    message: (f) => `Resource ${quoted(f.subject)} was removed.`,
    phrase: (_, say) => say.fixed('removed'),
    group: 'removed',
    example: {
      shows: 'a resource disappears',
      previous: { resources: [readme] },
      current: {},
    },
  },
  'resource-added': {
    scope: 'resource', severity: S,
    reason: 'Nothing that worked before stops working.',
    message: (f) => `Resource ${quoted(f.subject)} was added.`,
    group: 'added',
    example: {
      shows: 'a resource appears',
      previous: {},
      current: { resources: [readme] },
    },
  },
  'resource-template-removed': {
    scope: 'resource', severity: B,
    reason: 'Clients expanding this template get "not found".',
    hint: 'Keep serving URIs of the old template for a release.',
    message: (f) => `Resource template ${quoted(f.subject)} was removed.`,
    phrase: (_, say) => say.fixed('removed'),
    group: 'removed',
    example: {
      shows: 'a resource template disappears',
      previous: { resourceTemplates: [fileTemplate] },
      current: {},
    },
  },
  'resource-template-added': {
    scope: 'resource', severity: S,
    reason: 'Nothing that worked before stops working.',
    message: (f) => `Resource template ${quoted(f.subject)} was added.`,
    group: 'added',
    example: {
      shows: 'a resource template appears',
      previous: {},
      current: { resourceTemplates: [fileTemplate] },
    },
  },
});

/** How sure the rename is: the arguments are the same, or only similar. */
function sameShape(f: MessageFacts): string {
  return f.facts.sameShape === true ? 'same arguments' : 'similar arguments';
}
