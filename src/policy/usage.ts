/**
 * Breaks that nobody calls are not breaks: a BREAKING change to a tool's input that a usage
 * summary shows no call used for its whole window is downgraded to RISKY, with the evidence on
 * the delta (GraphQL Hive's "conditional breaking changes", for MCP tools).
 *
 * What a change is about comes from its rule's `usage` reach (src/rules): every call of the
 * tool, the calls that sent an argument field, those that sent a value the change takes away,
 * those of an action. The calls it breaks are counted from the summary; a change whose count is
 * zero breaks nobody. Nothing else moves:
 * - a summary about another server, one that ends before the window or starts after it, one
 *   with days no recorder wrote for inside the window, or one that saw no call at all
 *   downgrades nothing, and the report says why (`usage.reason`);
 * - what usage cannot show is never downgraded: outputs, text, prompts, resources, a tool the
 *   summary never saw (neither called nor listed), a field or value past the recorder's caps;
 * - a downgraded change keeps its fingerprint (allow-lists and approvals still match it); its
 *   reason says why it is RISKY and what the rule says.
 *
 * Pure: the same report, summary and day give the same bytes.
 */
import {
  USAGE_CAPS,
  addDays,
  argumentLocationOf,
  compareDeltas,
  daysBetween,
  entryRenameOf,
  fieldOf,
  maxSeverityOf,
  memberRenameOf,
  summaryOf,
  type Delta,
  type DeltaUsage,
  type DiffReport,
  type EntryReport,
  type ReportUsage,
  type ToolUsage,
  type UsageSummary,
} from '../protocol/index.js';
import { ruleOf } from '../rules/index.js';

export interface UsageJudgement {
  summary: UsageSummary;
  /** The days without a call a change must show to be downgraded (the window, ending today). */
  unusedDays: number;
  /** Today, YYYY-MM-DD (UTC). */
  today: string;
}

/**
 * The report judged with `usage`: its BREAKING changes that the summary shows unused moved to
 * RISKY, every BREAKING change usage can speak for carrying its evidence, and `usage` saying
 * what the summary covers (or why it could not be used). `server` is the name the report's
 * server goes by (the previous side's, then the current one's, are accepted).
 */
export function applyUsage(report: DiffReport, servers: readonly string[], usage: UsageJudgement): DiffReport {
  const { summary, unusedDays, today } = usage;
  const { window } = summary;
  const covered: ReportUsage = {
    server: summary.server.name,
    from: window.from,
    to: window.to,
    days: window.days,
    calls: summary.calls,
    unusedDays,
    applied: false,
    downgraded: 0,
  };
  const refusal = refusalOf(summary, servers, unusedDays, today);
  if (refusal !== undefined) return { ...report, usage: { ...covered, reason: refusal } };

  let downgraded = 0;
  const judged = { ...report, tools: Object.create(null) as Record<string, EntryReport> };
  for (const [name, entry] of Object.entries(report.tools)) {
    const names = callerNames(name, entry);
    let changed = false;
    const deltas = entry.deltas.map((delta) => {
      if (delta.severity !== 'BREAKING' || delta.direction === 'output') return delta;
      const evidence = evidenceOf(delta, entry, names, summary);
      if (evidence === undefined) return delta;
      changed = true;
      if (evidence.affected > 0) return { ...delta, usage: evidence };
      downgraded++;
      return downgrade(delta, { ...evidence, downgraded: true }, window.days, summary.calls);
    });
    if (!changed) {
      judged.tools[name] = entry;
      continue;
    }
    deltas.sort(compareDeltas);
    judged.tools[name] = { ...entry, deltas, maxSeverity: maxSeverityOf(deltas.map((d) => d.severity)) };
  }
  judged.usage = { ...covered, applied: true, downgraded };
  judged.summary = summaryOf(judged);
  return judged;
}

/** Why the summary cannot speak for this report, if it cannot. */
function refusalOf(summary: UsageSummary, servers: readonly string[], unusedDays: number, today: string): string | undefined {
  const { window } = summary;
  const name = summary.server.name;
  const known = servers.filter((s) => s !== '' && s !== 'unknown');
  if (name === null) return 'the usage summary does not say which server it is about (its recordings never saw the server introduce itself)';
  if (known.length === 0) return `the contracts do not say which server they are (no serverInfo name), so the usage of "${name}" cannot be matched to them`;
  if (!known.includes(name)) return `the usage summary is about the server "${name}", not "${known[known.length - 1]}"`;
  const start = addDays(today, -(unusedDays - 1));
  const yesterday = addDays(today, -1);
  if (window.to < yesterday) return `the usage summary ends on ${window.to}, before the ${unusedDays}-day window (${start} to ${today}) ends: summarize recent recordings`;
  if (window.from > start) return `the usage summary starts on ${window.from}, so it covers only ${daysBetween(window.from, today)} of the ${unusedDays} days of the window (${start} to ${today})`;
  const missingInWindow = summary.window.missing.filter((day) => day >= start);
  const unlisted = summary.window.missingCount - summary.window.missing.length;
  if (missingInWindow.length > 0 || (unlisted > 0 && (summary.window.missing.at(-1) ?? window.from) >= start)) {
    const shown = missingInWindow.slice(0, 3).join(', ');
    return `no recorder wrote for ${missingInWindow.length + unlisted > 1 ? 'some days' : 'a day'} of the window (${shown}${missingInWindow.length > 3 || unlisted > 0 ? ', …' : ''}): their calls are unknown`;
  }
  if (summary.calls === 0) return `the usage summary saw no call at all in ${window.days} day${window.days === 1 ? '' : 's'}: no traffic is no evidence`;
  return undefined;
}

/** The names callers used for a tool: its own, and the old one of a renamed tool. */
function callerNames(name: string, entry: EntryReport): string[] {
  for (const delta of entry.deltas) {
    const renamed = entryRenameOf(delta);
    if (renamed !== undefined && renamed.to === name) return [renamed.from, name];
  }
  return [name];
}

/** The calls a change breaks, counted from the summary; undefined when usage cannot tell. */
function evidenceOf(delta: Readonly<Delta>, entry: EntryReport, names: readonly string[], summary: UsageSummary): DeltaUsage | undefined {
  const reach = ruleOf(delta.kind)?.usage;
  if (reach === undefined) return undefined;
  const tools = names.map((n) => summary.tools[n]).filter((t): t is ToolUsage => t !== undefined);
  // Never seen, neither called nor listed: its calls were not recorded, or it was never offered.
  if (tools.length === 0) return undefined;
  const tool = names[0] as string;
  const calls = tools.reduce((sum, t) => sum + t.calls, 0);
  const whole: DeltaUsage = { basis: 'tool', tool, calls, affected: calls };
  if (reach === 'calls') return whole;
  if (reach === 'action') {
    const discriminator = entry.discriminator;
    if (discriminator === undefined || delta.action === null) return whole;
    const field = fieldPathOf([discriminator]);
    return valuesEvidence(tools, whole, field, tools.reduce((sum, t) => sum + (t.fields[field] ?? 0), 0), [delta.action], 'action');
  }
  const location = argumentLocationOf(delta.field);
  if (location === undefined) return undefined;
  let path = [...location.path];
  if (reach === 'holders') {
    // A new required property breaks the calls that send the object it is required in.
    if (location.keyword === undefined) path = path.slice(0, -1);
  } else {
    const renamed = memberRenameOf(delta);
    if (renamed !== undefined && path.at(-1) === renamed.to) path[path.length - 1] = renamed.from;
  }
  const senders = fieldEvidence(tools, whole, path);
  if (senders === undefined || reach !== 'values' || senders.affected === 0) return senders;
  const removed = Array.isArray(delta.facts?.removed) ? (delta.facts.removed as unknown[]) : [];
  if (removed.length === 0) return senders;
  return valuesEvidence(tools, senders, fieldPathOf(path), senders.affected, removed, 'values') ?? senders;
}

/** The calls that sent the argument at `path` (the tool's calls at the root); undefined past the caps. */
function fieldEvidence(tools: readonly ToolUsage[], whole: DeltaUsage, path: readonly string[]): DeltaUsage | undefined {
  // Items of an array are sent with the array: its field is what was recorded.
  const trimmed = [...path];
  while (trimmed.at(-1) === '[]') trimmed.pop();
  if (trimmed.length === 0) return whole;
  const field = fieldPathOf(trimmed);
  let affected = 0;
  for (const tool of tools) {
    if (field.includes('*')) {
      // A member of a map (additionalProperties): every field that fits counts.
      for (const [recorded, n] of Object.entries(tool.fields)) if (fits(recorded, trimmed)) affected = Math.max(affected, n);
    } else affected += tool.fields[field] ?? 0;
  }
  // Nothing counted, but some fields were past the caps: the absence proves nothing.
  if (affected === 0 && tools.some((t) => t.overflow.fields > 0)) return undefined;
  return { basis: 'field', tool: whole.tool, calls: whole.calls, affected, field };
}

/**
 * The calls that sent one of `values` at `field`, when what was sent there was recorded (the
 * schema the clients were shown constrained it to an enum or a const, and nothing was past the
 * caps); undefined when it was not. `sent`: the calls that sent the argument at all.
 */
function valuesEvidence(tools: readonly ToolUsage[], base: DeltaUsage, field: string, sent: number, values: readonly unknown[], basis: 'values' | 'action'): DeltaUsage | undefined {
  const texts = values.map((v) => (typeof v === 'object' && v !== null ? undefined : JSON.stringify(v)));
  if (texts.some((t) => t === undefined || t.length > USAGE_CAPS.valueLength)) return undefined;
  if (tools.some((t) => t.overflow.values > 0)) return undefined;
  let affected = 0;
  let recordedCalls = 0;
  for (const tool of tools) {
    const recorded = tool.values[field];
    if (recorded === undefined) continue;
    for (const n of Object.values(recorded)) recordedCalls += n;
    for (const text of texts) affected += recorded[text as string] ?? 0;
  }
  // Calls sent the argument, but no value of it was recorded: the schema did not constrain it then.
  if (sent > 0 && recordedCalls === 0) return undefined;
  return { basis, tool: base.tool, calls: base.calls, affected, field, values: [...values] };
}

/** The recorded field path of an argument path (`[]` → the items of an array). */
function fieldPathOf(path: readonly string[]): string {
  const segments = ['inputSchema'];
  for (const name of path) {
    if (name === '[]') segments.push('items');
    else segments.push('properties', name);
  }
  return fieldOf(segments);
}

/** Whether a recorded field is at `path`, where `*` stands for any member name. */
function fits(recorded: string, path: readonly string[]): boolean {
  const location = argumentLocationOf(recorded);
  if (location === undefined || location.path.length !== path.length) return false;
  return path.every((name, i) => name === '*' || name === location.path[i]);
}

/** A BREAKING change that breaks nobody in the window, moved to RISKY with why. */
function downgrade(delta: Readonly<Delta>, evidence: DeltaUsage, days: number, calls: number): Delta {
  const why = `Unused for ${days} day${days === 1 ? '' : 's'} of recorded usage (${calls.toLocaleString('en-US')} calls, none affected), so it breaks nobody who called in that window`;
  const rule = delta.reason === undefined ? '' : `; the rule says BREAKING: ${delta.reason}`;
  return { ...delta, severity: 'RISKY', usage: evidence, reason: `${why}${rule}` };
}
