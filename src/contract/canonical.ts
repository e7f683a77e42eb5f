import { createHash } from 'node:crypto';
import { canonicalJson } from '../protocol/json.js';

/** The canonical JSON every digest and lockfile is written in (one implementation, the protocol's). */
export { canonicalJson, jsonEqual } from '../protocol/json.js';

export function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** Digest of a value's canonical (compact) JSON. */
export function digestOf(value: unknown): string {
  return sha256(canonicalJson(value));
}
