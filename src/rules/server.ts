/** The server itself: how it names itself, what it tells agents, what it declares. */
import { forecast, readme } from './examples.js';
import { family, show, quoted, fromTo, B, R, S, cosmetic } from './rule.js';

export const SERVER_RULES = family({
  // The server itself: how it names itself, what it tells agents, what it declares.
  'server-renamed': {
    ...cosmetic('server', 'The name the server reports changed; clients address it by their own configuration, not by this name.',
      (f) => `The server now calls itself ${show(f.current)} (was ${show(f.previous)}).`),
    example: {
      shows: 'the server reports another name',
      previous: { name: 'weather' },
      current: { name: 'weather-server' },
    },
  },
  'instructions-changed': {
    ...cosmetic('server', 'Text only: agents read the instructions (often in their system prompt), but no call is refused.',
      (f) => `The server's instructions were ${f.previous === null ? 'added' : f.current === null ? 'removed' : 'reworded'}.`),
    rewording: true,
    example: {
      shows: 'the instructions agents read are reworded',
      previous: { capabilities: {}, instructions: 'Forecasts cover the next 7 days.' },
      current: { capabilities: {}, instructions: 'Forecasts cover the next 14 days.' },
    },
  },
  'capability-added': {
    scope: 'server', severity: S,
    reason: 'The server offers more; clients that do not use it are unaffected.',
    message: (f) => `The server now declares the capability ${quoted(f.subject)}.`,
    group: 'added',
    example: {
      shows: 'resource subscriptions are offered',
      previous: { capabilities: { resources: {} }, resources: [readme] },
      current: { capabilities: { resources: { subscribe: true } }, resources: [readme] },
    },
  },
  'capability-withdrawn': {
    scope: 'server', severity: B,
    reason: 'Requests that need it (subscriptions, completions, logging levels, tasks, or a whole list) now fail for the clients that send them.',
    hint: 'Keep declaring and supporting the capability for a release, or ship its removal as a major version.',
    message: (f) => `The server no longer declares the capability ${quoted(f.subject)}.`,
    group: 'removed',
    phrase: (_, say) => say.capability('no longer declares the capability'),
    example: {
      shows: 'resource subscriptions are no longer offered',
      previous: { capabilities: { resources: { subscribe: true } }, resources: [readme] },
      current: { capabilities: { resources: {} }, resources: [readme] },
    },
  },
  'list-changed-withdrawn': {
    scope: 'server', severity: R,
    reason: 'Clients are no longer told when the list changes: their calls still work, but their view of it may go stale.',
    message: (f) => `The server no longer promises ${f.subject} notifications.`,
    example: {
      shows: 'tools/list_changed notifications are no longer promised',
      previous: { capabilities: { tools: { listChanged: true } }, tools: [forecast()] },
      current: { capabilities: { tools: {} }, tools: [forecast()] },
    },
  },
  'capability-changed': {
    scope: 'server', severity: R,
    reason: 'A capability setting changed in a way no rule knows how to judge; review it.',
    message: (f) => `The capability ${quoted(f.subject)} changed ${fromTo(f)}.`,
    example: {
      shows: "a vendor capability's settings change",
      previous: { capabilities: { experimental: { 'acme/streaming': { version: 1 } } } },
      current: { capabilities: { experimental: { 'acme/streaming': { version: 2 } } } },
    },
  },
});
