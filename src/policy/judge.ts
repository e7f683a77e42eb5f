/**
 * The team's policy over the changes of a run, before the gate, in the one place the CLI and
 * the Action share: the usage summary first (a break no call used in the window is RISKY, with
 * its evidence), then the allow list, over the severities so judged (and so the approval's
 * record and the gate see the same changes the reports show).
 */
import type { DiffReport, UsageSummary } from '../protocol/index.js';
import { evaluateAllowList, type AllowEntry, type AllowEvaluation } from './allow.js';
import { applyUsage } from './usage.js';

export interface ReviewedServer {
  /** The server as messages name it. */
  server: string;
  /** The names the report's server goes by (its previous and current `serverInfo` names), matched against the usage summary's. */
  names: readonly string[];
  /** Null when the review could not be made. */
  report: DiffReport | null;
}

export interface ChangePolicy {
  allow: AllowEntry[];
  /** Today, YYYY-MM-DD (UTC): allow-list dates and the usage window are counted from it. */
  today: string;
  allowMaxDays?: number;
  /**
   * The usage summaries (each about one server: a server is judged with the one that names it,
   * else the first, which then says it is about another), and the days without a call that
   * make a break RISKY.
   */
  usage?: { summaries: readonly UsageSummary[]; unusedDays: number };
}

export interface JudgedChanges {
  /** The reports as judged (usage applied), in the order of the reviews. */
  reports: Array<DiffReport | null>;
  allow: AllowEvaluation;
}

export function judgeChanges(reviews: readonly ReviewedServer[], policy: ChangePolicy): JudgedChanges {
  const { usage, today } = policy;
  const reports = reviews.map(({ report, names }) => {
    if (report === null || usage === undefined || usage.summaries.length === 0) return report;
    const summary = usage.summaries.find((s) => s.server.name !== null && names.includes(s.server.name)) ?? (usage.summaries[0] as UsageSummary);
    return applyUsage(report, names, { summary, unusedDays: usage.unusedDays, today });
  });
  const allow = evaluateAllowList(
    reviews.map((review, i) => ({ server: review.server, report: reports[i] ?? null })),
    policy.allow,
    today,
    ...(policy.allowMaxDays !== undefined ? [policy.allowMaxDays] : []),
  );
  return { reports, allow };
}
