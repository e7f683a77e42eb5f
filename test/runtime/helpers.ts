import type { Delta, DiffReport, Severity } from '../../src/protocol/index.js';

/** A delta with sensible defaults; `field` and `severity` are what most tests vary. */
export function delta(overrides: Partial<Delta> & { field: string }): Delta {
  return {
    severity: 'BREAKING',
    kind: 'property-changed',
    action: null,
    message: `Changed ${overrides.field}.`,
    previous: null,
    current: null,
    fingerprint: `fp-${overrides.field}-${overrides.action ?? ''}-${overrides.severity ?? 'BREAKING'}`,
    ...overrides,
  };
}

/** A version-1 report over `tools` (name → deltas). */
export function report(tools: Record<string, Delta[]>): DiffReport {
  const counts: Record<Severity, number> = { BREAKING: 0, RISKY: 0, SAFE: 0, COSMETIC: 0 };
  const rank: Record<Severity, number> = { BREAKING: 3, RISKY: 2, SAFE: 1, COSMETIC: 0 };
  const entries: DiffReport['tools'] = {};
  let worst: Severity | null = null;
  for (const [name, deltas] of Object.entries(tools)) {
    let max: Severity | null = null;
    for (const d of deltas) {
      counts[d.severity] += 1;
      if (max === null || rank[d.severity] > rank[max]) max = d.severity;
    }
    if (max !== null && (worst === null || rank[max] > rank[worst])) worst = max;
    entries[name] = { maxSeverity: max, deltas };
  }
  return { version: 1, summary: { maxSeverity: worst, counts }, tools: entries, prompts: {}, resources: {}, resourceTemplates: {} };
}

/** The `<delta …>` opening tags of an enriched error, in order. */
export function deltaTags(xml: string): string[] {
  return [...xml.matchAll(/<delta [^>]*>/g)].map((m) => m[0]);
}

/** The `field` attribute of every injected delta, in order. */
export function deltaFields(xml: string): string[] {
  return [...xml.matchAll(/<delta [^>]*field="([^"]*)"/g)].map((m) => m[1] as string);
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&amp;': '&' };
function unescapeXml(text: string): string {
  return text.replace(/&(?:lt|gt|quot|apos|amp);/g, (entity) => ENTITIES[entity] ?? entity);
}

/**
 * A value an `Expected:` phrase accepts, as a model would pick one from reading it: the first
 * allowed value of `string, one of "EUR", "USD"`, the lower bound of `integer of at least 2`,
 * `"example"` for a plain string.
 */
function valueFrom(expected: string): unknown {
  const literal = /one of (\S+?)(?:,|\.?$)/.exec(expected)?.[1] ?? /^exactly (.+?)\.?$/.exec(expected)?.[1];
  if (literal !== undefined) return JSON.parse(literal);
  const bound = /(?:at least|between) (-?\d+(?:\.\d+)?)/.exec(expected)?.[1];
  if (/^(?:integer|number)\b/.test(expected)) return bound === undefined ? 1 : Number(bound);
  if (/^boolean\b/.test(expected)) return true;
  if (/^array\b/.test(expected)) return [];
  if (/^object\b/.test(expected)) return {};
  return 'example';
}

/**
 * A scripted stand-in for the LLM of `callWithSelfHealing`: it knows the arguments it sent and
 * reads nothing but the `<field>` lines of the error (not the `<example>`): a missing top-level
 * field gets a value its `Expected:` accepts, a renamed one moves to its new name, one the tool
 * does not declare is dropped.
 */
export function correctFromFieldLines(request: { args: Readonly<Record<string, unknown>>; errorText: string }): Record<string, unknown> | null {
  const corrected: Record<string, unknown> = { ...request.args };
  let changed = false;
  for (const match of request.errorText.matchAll(/<field name="([^".[]+)">([^<]*)<\/field>/g)) {
    const name = unescapeXml(match[1] as string);
    const text = unescapeXml(match[2] as string);
    const renamed = /^Renamed to "([^"]+)"\./.exec(text)?.[1];
    const expected = /Expected: (.*?)(?:\. [A-Z]|\.?$)/.exec(text)?.[1];
    if (renamed !== undefined) {
      corrected[renamed] = corrected[name];
      delete corrected[name];
    } else if (text.startsWith('Not a field of this tool.')) delete corrected[name];
    else if (expected !== undefined) corrected[name] = valueFrom(expected);
    else continue;
    changed = true;
  }
  return changed ? corrected : null;
}
