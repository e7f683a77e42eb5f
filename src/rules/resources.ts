/** A resource's or resource template's own fields. */
import { readme } from './examples.js';
import { family, fromTo, R, cosmetic } from './rule.js';

export const RESOURCE_RULES = family({
  // Resources and resource templates.
  'mime-type-changed': {
    scope: 'resource', severity: R,
    reason: 'Clients that parse the content by its type may misread it.',
    message: (f) => `mimeType changed ${fromTo(f)}.`,
    example: {
      shows: 'a resource is served as another media type',
      previous: { resources: [readme] },
      current: { resources: [{ ...readme, mimeType: 'text/plain' }] },
    },
  },
  'name-changed': {
    ...cosmetic('resource', 'The display name changed; the URI, which clients use, did not.',
      (f) => `name changed ${fromTo(f)}.`),
    example: {
      shows: "a resource's display name changes",
      previous: { resources: [readme] },
      current: { resources: [{ ...readme, name: 'Read me first' }] },
    },
  },
});
