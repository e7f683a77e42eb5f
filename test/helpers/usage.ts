/** Usage records as a recorder writes them, for the tests of the summary, the gate and the Action. */
import type { Counts, UsageServer, UsageToolRecord } from '../../src/protocol/index.js';

/** One tool's line for `day`: its calls, and the fields and values they sent (no refusal, route or overflow). */
export function toolRecord(day: string, server: UsageServer, tool: string, calls: number, fields: Counts = {}, values: Record<string, Counts> = {}): UsageToolRecord {
  return { type: 'tool', day, server, tool, calls, fields, values, refused: {}, routed: {}, overflowFields: 0, overflowValues: 0 };
}
