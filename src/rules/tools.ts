/** Tool behaviour declared outside the schemas: annotations, execution, the output schema, the schema dialect. */
import { object, forecast, annotated, executed } from './examples.js';
import { family, at, quoted, showOrNone, fromTo, B, R, S, cosmetic } from './rule.js';

export const TOOL_RULES = family({
  // Tool behaviour declared outside the schemas.
  'tool-no-longer-read-only': {
    scope: 'tool', severity: R,
    reason: 'readOnlyHint true → false: clients that auto-approved it as harmless may now let it change state.',
    message: () => 'The tool no longer declares itself read-only (readOnlyHint true → false).',
    phrase: (_, say) => say.fixed('no longer read-only'),
    example: annotated('readOnlyHint goes from true to false', { readOnlyHint: true }, { readOnlyHint: false }),
  },
  'tool-became-destructive': {
    scope: 'tool', severity: R,
    reason: 'destructiveHint false → true: the tool may now delete or overwrite; approval policies should change.',
    message: () => 'The tool now declares that it may be destructive (destructiveHint false → true).',
    phrase: (_, say) => say.fixed('now declares itself destructive'),
    example: annotated('destructiveHint goes from false to true', { destructiveHint: false }, { destructiveHint: true }),
  },
  'tool-no-longer-idempotent': {
    scope: 'tool', severity: R,
    reason: 'idempotentHint true → false: retrying a call may now repeat its effect.',
    message: () => 'The tool no longer declares itself idempotent (idempotentHint true → false): retries may repeat effects.',
    phrase: (_, say) => say.fixed('no longer idempotent'),
    example: annotated('idempotentHint goes from true to false', { idempotentHint: true }, { idempotentHint: false }),
  },
  'tool-became-open-world': {
    scope: 'tool', severity: R,
    reason: 'openWorldHint false → true: the tool now reaches external systems (network, third parties).',
    message: () => 'The tool now declares that it interacts with an open world (openWorldHint false → true).',
    phrase: (_, say) => say.fixed('now reaches an open world'),
    example: annotated('openWorldHint goes from false to true', { openWorldHint: false }, { openWorldHint: true }),
  },
  'tool-became-read-only': {
    scope: 'tool', severity: S,
    reason: 'The tool promises less impact than before.',
    message: () => 'The tool now declares itself read-only (readOnlyHint false → true).',
    example: annotated('readOnlyHint goes from false to true', { readOnlyHint: false }, { readOnlyHint: true }),
  },
  'tool-no-longer-destructive': {
    scope: 'tool', severity: S,
    reason: 'The tool promises less impact than before.',
    message: () => 'The tool no longer declares itself destructive (destructiveHint true → false).',
    example: annotated('destructiveHint goes from true to false', { destructiveHint: true }, { destructiveHint: false }),
  },
  'tool-became-idempotent': {
    scope: 'tool', severity: S,
    reason: 'Retries became safer.',
    message: () => 'The tool now declares itself idempotent (idempotentHint false → true).',
    example: annotated('idempotentHint goes from false to true', { idempotentHint: false }, { idempotentHint: true }),
  },
  'tool-became-closed-world': {
    scope: 'tool', severity: S,
    reason: 'The tool reaches fewer systems than before.',
    message: () => 'The tool no longer declares open-world interaction (openWorldHint true → false).',
    example: annotated('openWorldHint goes from true to false', { openWorldHint: true }, { openWorldHint: false }),
  },
  'task-support-required': {
    usage: 'calls',
    scope: 'tool', severity: B,
    reason: 'Clients that cannot run the tool as a task can no longer call it at all.',
    hint: 'Keep execution.taskSupport "optional" so clients without task support keep working.',
    message: (f) => `The tool now requires task-augmented calls (execution.taskSupport ${fromTo(f)}).`,
    phrase: (_, say) => say.fixed('must now be called as a task'),
    example: executed('the tool must now be called as a task', { taskSupport: 'optional' }, { taskSupport: 'required' }),
  },
  'task-support-withdrawn': {
    usage: 'calls',
    scope: 'tool', severity: B,
    reason: 'Clients that call it as a task are now refused.',
    hint: 'Keep accepting task-augmented calls for a release, or ship the change as a new tool.',
    message: (f) => `The tool no longer accepts task-augmented calls (execution.taskSupport ${fromTo(f)}).`,
    phrase: (_, say) => say.fixed('can no longer be called as a task'),
    example: executed('the tool can no longer be called as a task', { taskSupport: 'optional' }, { taskSupport: 'forbidden' }),
  },
  'task-support-relaxed': {
    scope: 'tool', severity: S,
    reason: 'Every way of calling it that worked before still works.',
    message: (f) => `execution.taskSupport changed ${fromTo(f)}.`,
    example: executed('a task-only tool may now be called directly too', { taskSupport: 'required' }, { taskSupport: 'optional' }),
  },
  'execution-changed': {
    scope: 'tool', severity: R,
    reason: 'An execution setting this tool does not know how to judge changed; review it.',
    message: (f) => `${at(f)}execution setting ${quoted(f.subject)} changed ${fromTo(f)}.`,
    example: executed('an execution setting no rule knows changes', { taskSupport: 'optional' }, { taskSupport: 'optional', priority: 'low' }),
  },
  'output-schema-removed': {
    scope: 'tool', severity: B,
    reason: 'Consumers that validate or read structured results lose their contract.',
    hint: 'Keep declaring the output schema; consumers validate structuredContent against it.',
    message: () => 'The output schema was removed: structured results are no longer described.',
    phrase: (_, say) => say.fixed('no longer declares its output schema'),
    example: {
      shows: 'the tool stops declaring its structured result',
      previous: { tools: [forecast({ outputSchema: object({ celsius: { type: 'number' } }) })] },
      current: { tools: [forecast()] },
    },
  },
  'output-schema-added': {
    scope: 'tool', severity: S,
    reason: 'Results gain a contract; nothing that worked before stops working.',
    message: () => 'An output schema was added.',
    example: {
      shows: 'the tool starts declaring its structured result',
      previous: { tools: [forecast()] },
      current: { tools: [forecast({ outputSchema: object({ celsius: { type: 'number' } }) })] },
    },
  },
  'schema-dialect-changed': {
    ...cosmetic('tool', 'The declared JSON Schema dialect changed; what the schema accepts did not.',
      (f) => `${f.subject} now declares $schema ${showOrNone(f.current)} (was ${showOrNone(f.previous)}).`),
    example: {
      shows: 'the input schema moves from draft-07 to 2020-12',
      previous: { tools: [forecast({ inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', ...object({ city: { type: 'string' } }, ['city']) } })] },
      current: { tools: [forecast({ inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...object({ city: { type: 'string' } }, ['city']) } })] },
    },
  },
});
