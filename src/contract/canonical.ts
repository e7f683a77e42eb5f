import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted by code unit, 2-space indent, trailing newline when
 * `pretty`. The same value always gives the same bytes, whatever order it was built in, so
 * digests and lockfiles are reproducible.
 */
export function canonicalJson(value: unknown, pretty = false): string {
  const sorted = sortKeys(value);
  return pretty ? `${JSON.stringify(sorted, null, 2)}\n` : JSON.stringify(sorted);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const child = (value as Record<string, unknown>)[key];
    if (child !== undefined) out[key] = sortKeys(child);
  }
  return out;
}

export function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** Digest of a value's canonical (compact) JSON. */
export function digestOf(value: unknown): string {
  return sha256(canonicalJson(value));
}
