/**
 * How every format names an entry: by its name, and a renamed one by the name callers know and
 * the one it has now (`add → get-sum`), so the text, Markdown, the changelog and SARIF all name
 * a renamed tool the same way.
 */
import { entryRenameOf, type EntryReport } from '../protocol/index.js';

export function entryName(name: string, entry: Pick<EntryReport, 'deltas'>): string {
  for (const delta of entry.deltas) {
    const renamed = entryRenameOf(delta);
    if (renamed !== undefined) return `${renamed.from} → ${renamed.to}`;
  }
  return name;
}
