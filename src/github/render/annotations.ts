import { ENTRY_KINDS } from '../../contract/model.js';
import { SEVERITY_RANK, type DiffReport, type Severity } from '../../protocol/index.js';
import { lockfileLines } from '../../contract/lockfile.js';
import { ENTRY_NOUN } from '../../contract/model.js';

export type AnnotationLevel = 'error' | 'warning' | 'notice';

export interface Annotation {
  level: AnnotationLevel;
  title: string;
  message: string;
  /** Relative to the repository root, as GitHub expects. */
  file?: string;
  line?: number;
  /** Higher is shown first within a level. */
  rank: number;
}

export const LEVEL_OF: Record<Severity, AnnotationLevel> = { BREAKING: 'error', RISKY: 'warning', SAFE: 'notice', COSMETIC: 'notice' };

/** GitHub shows at most 10 annotations per level for each step's workflow commands. */
export const ANNOTATIONS_PER_LEVEL = 10;

/**
 * One annotation per changed entry, on its line in the head lockfile (an entry the PR removed
 * points at its kind's line). The level follows the entry's worst delta.
 */
export function entryAnnotations(options: {
  server: string;
  report: DiffReport;
  lockfile?: { file: string; text: string };
  isAccepted: (fingerprint: string) => boolean;
}): Annotation[] {
  const { report, lockfile, server } = options;
  const lines = lockfile ? lockfileLines(lockfile.text) : undefined;
  const out: Annotation[] = [];
  for (const kind of ENTRY_KINDS) {
    for (const [name, entry] of Object.entries(report[kind] ?? {})) {
      if (entry.deltas.length === 0 || entry.maxSeverity === null) continue;
      const severity = entry.maxSeverity;
      const shown = entry.deltas.slice(0, 5).map((d) => `${d.severity}${options.isAccepted(d.fingerprint) ? ' (allow-listed)' : ''}: ${d.message}`);
      if (entry.deltas.length > shown.length) shown.push(`… and ${entry.deltas.length - shown.length} more (see the job summary)`);
      const annotation: Annotation = {
        level: LEVEL_OF[severity],
        title: `${severity} change to ${ENTRY_NOUN[kind]} ${name} (${server})`,
        message: shown.join('\n'),
        rank: SEVERITY_RANK[severity] * 1000 + Math.min(999, entry.deltas.filter((d) => d.severity === severity).length),
      };
      if (lockfile) {
        annotation.file = lockfile.file;
        annotation.line = lines?.entry(kind, name) ?? lines?.kind(kind) ?? 1;
      }
      out.push(annotation);
    }
  }
  return out;
}

/**
 * Keep what GitHub will show: per level, the worst first; when a level overflows, its last
 * slot says how many more there are (an 11th annotation would just vanish).
 */
export function selectAnnotations(candidates: Annotation[], perLevel = ANNOTATIONS_PER_LEVEL): Annotation[] {
  const out: Annotation[] = [];
  for (const level of ['error', 'warning', 'notice'] as const) {
    const all = candidates.filter((a) => a.level === level).sort((a, b) => b.rank - a.rank);
    if (all.length <= perLevel) {
      out.push(...all);
      continue;
    }
    const kept = all.slice(0, perLevel - 1);
    const more = all.length - kept.length;
    out.push(...kept, {
      level,
      title: `${more} more ${level === 'error' ? 'errors' : level === 'warning' ? 'warnings' : 'notices'}`,
      message: `${more} more contract ${level === 'notice' ? 'notices' : `${level}s`} are not shown as annotations (GitHub shows ${perLevel} per level): the job summary lists them all.`,
      rank: -1,
    });
  }
  return out;
}
