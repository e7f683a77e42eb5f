/**
 * The allow-list entries a failing review offers to paste. They must work as pasted, in every
 * setup: every change that fails the gate is listed (however many), each with an `expires`
 * date within the horizon, and the text fits where it goes: a whole config file when the head
 * has none (a file holding only `allow` is valid beside the `command`/`url`/`file` input), or
 * the `allow` key to add to the one it has.
 */
import { CONFIG_NAME } from '../../config-location.js';
import { truncate } from '../../report/index.js';
import type { ServerReview } from '../../protocol/index.js';

export interface AllowSnippet {
  /** The config file to paste into, from the repository root. */
  file: string;
  /** `file`: the head has no config file, this is its whole content; `key`: add this `allow` list (or its entries) to the file. */
  form: 'file' | 'key';
  /** The JSON to paste, one entry per line. */
  text: string;
  /** How many entries it holds. */
  count: number;
}

/**
 * The snippet for a review whose gate is blocked: one entry per change that blocks it (with an
 * approval on the pull request, the changes it does not cover). Undefined when nothing blocks.
 */
export function allowSnippet(review: Pick<ServerReview, 'gate' | 'approvalCoverage' | 'allowList'>): AllowSnippet | undefined {
  if (review.gate.verdict !== 'blocked') return undefined;
  const fresh = review.approvalCoverage && new Set(review.approvalCoverage.newSinceApproval);
  const changes = fresh ? review.gate.blocking.filter((b) => fresh.has(b.fingerprint)) : review.gate.blocking;
  if (changes.length === 0) return undefined;
  const { file = CONFIG_NAME, fileExists = true, expires } = review.allowList ?? {};
  const entries = changes.map((b) => {
    const reason = truncate(`${b.severity} ${b.kind} in ${b.entry}${b.field ? ` ${b.field}` : ''}: why it is fine`, 200);
    return JSON.stringify({ fingerprint: b.fingerprint, reason, ...(expires !== undefined ? { expires } : {}) });
  });
  const text = fileExists ? `"allow": [\n  ${entries.join(',\n  ')}\n]` : `{\n  "allow": [\n    ${entries.join(',\n    ')}\n  ]\n}`;
  return { file, form: fileExists ? 'key' : 'file', text, count: entries.length };
}
