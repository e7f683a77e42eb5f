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
 * A value the `<current>` type accepts, as a model would pick one from reading it: the block
 * shows a schema as a TypeScript-like type (`"EUR" | "GBP" | "USD"`, `integer`, `{ id: string }`).
 */
function valueFromType(type: string): unknown {
  const first = type.split(' | ')[0]?.trim() ?? '';
  try {
    return JSON.parse(first); // a literal: "EUR", 3, true
  } catch {
    if (first === 'integer' || first === 'number') return 1;
    if (first === 'boolean') return true;
    if (first.endsWith('[]')) return [];
    if (first.startsWith('{')) return {};
    return 'example';
  }
}

/**
 * A scripted stand-in for the LLM of `callWithSelfHealing`: it knows the arguments it sent and
 * reads nothing but the error text, and from that text only the `<contract_awareness>` block
 * (not the `<field>` hints, not the `<example>`): for each property a `…required…` delta added
 * (DESIGN.md's `required-property-added` on `inputSchema.properties.X`),
 * it adds a value the property's new schema accepts.
 */
export function correctFromContractAwareness(request: { args: Readonly<Record<string, unknown>>; errorText: string }): Record<string, unknown> | null {
  const block = /<contract_awareness[\s\S]*<\/contract_awareness>/.exec(request.errorText)?.[0];
  if (block === undefined) return null;
  const corrected: Record<string, unknown> = { ...request.args };
  let changed = false;
  for (const match of block.matchAll(/<delta [^>]*kind="[^"]*required[^"]*"[^>]*field="([^"]+)"[^>]*>[\s\S]*?<current>([\s\S]*?)<\/current>/g)) {
    const field = unescapeXml(match[1] as string);
    const name = /(?:^|\.)properties\.([^.]+)$/.exec(field)?.[1];
    if (name === undefined || name in corrected) continue;
    corrected[name] = valueFromType(unescapeXml(match[2] as string));
    changed = true;
  }
  return changed ? corrected : null;
}
