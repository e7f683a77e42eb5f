/**
 * Server-level detectors: what changed in the server itself, outside its tools, prompts and
 * resources. Its `instructions` are agent-visible text (clients often put them in the system
 * prompt), so they are diffed and linted like descriptions; its declared capabilities are
 * promises clients build on (subscriptions, list-change notifications, logging…), so a
 * withdrawn one is reported.
 *
 * Both sides must have recorded these: a tools/list dump or a lockfile written before format 2
 * does not know them, and "unknown" is never compared as "empty".
 */
import type { Contracts, JsonObject, JsonValue } from '../contract/model.js';
import { isJsonObject, jsonEqual } from '../protocol/index.js';
import { finding, type Finding } from './finding.js';
import { lintText, type LintContext } from './lint.js';

/** The server section's findings, or null when neither side says who the server is. `context`: see compareEntry. */
export function compareServers(previous: Contracts, current: Contracts, context?: LintContext): Finding[] | null {
  const named = (c: Contracts) => c.server.name !== 'unknown';
  if (!named(previous) && !named(current) && previous.serverContract === undefined && current.serverContract === undefined) return null;
  const out: Finding[] = [];
  if (named(previous) && named(current) && previous.server.name !== current.server.name) {
    out.push(finding('server-renamed', ['serverInfo', 'name'], { previous: previous.server.name, current: current.server.name }));
  }
  const p = previous.serverContract;
  const c = current.serverContract;
  if (p === undefined || c === undefined) return out;
  if ((p.instructions ?? null) !== (c.instructions ?? null)) {
    out.push(finding('instructions-changed', ['instructions'], { previous: p.instructions ?? null, current: c.instructions ?? null }));
    for (const s of lintText(p.instructions, c.instructions ?? '', ['instructions'], context)) {
      out.push(finding('suspicious-text', s.segments, { where: 'instructions', previous: s.previous, current: s.current, match: s.match, facts: { labels: s.labels } }));
    }
  }
  out.push(...capabilityChanges(p.capabilities, c.capabilities, previous, current));
  return out;
}

/**
 * Whether a capability has anything to act on in `contracts`: `prompts.*` without prompts,
 * `completions` without prompt arguments or resource templates, and the like, promise nothing a
 * client could have used (SDKs declare them wholesale). Such a capability appearing or
 * disappearing changes no client's experience, so it is not reported.
 */
function inUse(path: string[], contracts: Contracts): boolean {
  const has = (kind: 'tools' | 'prompts' | 'resources' | 'resourceTemplates') => Object.keys(contracts[kind]).length > 0;
  switch (path[0]) {
    case 'tools':
      return has('tools');
    case 'prompts':
      return has('prompts');
    case 'resources':
      return has('resources') || has('resourceTemplates');
    case 'completions':
      return has('resourceTemplates') || Object.values(contracts.prompts).some((p) => Array.isArray(p.contract.arguments) && p.contract.arguments.length > 0);
    default:
      return true;
  }
}

/**
 * One finding per capability flag that changed. Capabilities are objects of flags
 * (`resources: { subscribe: true, listChanged: true }`); an object is "declared" and a flag
 * counts only when true (normalization dropped the false ones). Losing either is a withdrawal.
 */
function capabilityChanges(previous: JsonObject, current: JsonObject, before: Contracts, after: Contracts): Finding[] {
  const was = flatten(previous);
  const is = flatten(current);
  const out: Finding[] = [];
  for (const path of [...new Set([...was.keys(), ...is.keys()])].sort()) {
    const p = was.get(path);
    const c = is.get(path);
    if (jsonEqual(p, c)) continue;
    const parts = path.split('\u0000');
    const segments = ['capabilities', ...parts];
    const subject = parts.join('.');
    if (c === undefined) {
      if (!inUse(parts, before)) continue;
      // A list-change promise withdrawn leaves calls working; anything else withdrawn fails requests.
      const kind = parts[parts.length - 1] === 'listChanged' ? 'list-changed-withdrawn' : 'capability-withdrawn';
      out.push(finding(kind, segments, { subject, previous: p, current: null }));
    } else if (p === undefined) {
      if (inUse(parts, after)) out.push(finding('capability-added', segments, { subject, previous: null, current: c }));
    } else out.push(finding('capability-changed', segments, { subject, previous: p, current: c }));
  }
  return out;
}

/**
 * Capability paths → values. Every declared object is an entry of its own (`{}`), so declaring
 * `resources` and one of its flags are separate facts: `{resources: {subscribe: true}}` →
 * `resources: {}`, `resources␀subscribe: true`. Vendor objects under `experimental` are
 * compared whole, and nesting is bounded (capabilities are two levels deep in the spec).
 */
function flatten(capabilities: JsonObject): Map<string, JsonValue> {
  const out = new Map<string, JsonValue>();
  const visit = (value: JsonValue, path: string[]) => {
    const whole = path.length >= 3 || (path[0] === 'experimental' && path.length === 2);
    if (!isJsonObject(value) || whole) {
      out.set(path.join('\u0000'), value);
      return;
    }
    out.set(path.join('\u0000'), {});
    for (const key of Object.keys(value)) visit(value[key] as JsonValue, [...path, key]);
  };
  for (const key of Object.keys(capabilities)) visit(capabilities[key] as JsonValue, [key]);
  return out;
}
