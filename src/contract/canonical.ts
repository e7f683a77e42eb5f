import * as crypto from 'node:crypto';
import { canonicalJson } from '../protocol/index.js';
import type { ContractEntry } from './model.js';

// Digests are of the canonical JSON every lockfile is written in: the protocol's one implementation.

export function sha256(text: string): string {
  return `sha256:${hexDigest(text)}`;
}

/**
 * The one-shot `crypto.hash` (Node 20.12 and later) where there is one: a lockfile hashes every
 * entry, and a Hash object per entry costs more than hashing a few kilobytes. Older Node 20
 * releases (package.json's engines) build the Hash object; hence the namespace import, since a
 * named import of an export this Node lacks would fail to link.
 */
const hexDigest: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text).digest('hex');

/** Digest of a value's canonical (compact) JSON. */
export function digestOf(value: unknown): string {
  return sha256(canonicalJson(value));
}

/** Contracts are immutable once built: each is hashed at most once (normalize or verify, then compare). */
const digests = new WeakMap<object, string>();

/** Digest of one entry's contract: what `check` and the diff compare to skip unchanged entries. */
export function entryDigest(entry: ContractEntry): string {
  let digest = digests.get(entry.contract);
  if (digest === undefined) {
    digest = digestOf(entry.contract);
    digests.set(entry.contract, digest);
  }
  return digest;
}

/**
 * Record the digest of a contract already known: hashed from the canonical bytes its builder
 * wrote, or verified against a twin. The caller vouches that it is `digestOf(contract)`.
 */
export function rememberDigest(contract: object, digest: string): void {
  digests.set(contract, digest);
}
