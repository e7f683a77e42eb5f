/**
 * `usage summarize <FILE…> [--out usage.json] [--days N] [--server NAME]`: merges the usage
 * recordings of many replicas and days (`withSelfHealing(…, { usage })`, `proxy --usage`) into
 * the one summary `check --usage`, `diff --usage` and the Action read.
 *
 * Recordings are read as hostile, a line at a time (no line longer than a recorder writes is
 * kept in memory): a line cut short or damaged is skipped and said (where, how many), a line of a
 * newer format stops the command (summarizing it as if it were ours would be wrong), and so do
 * counts that cannot all be true (past 2^53). What is kept is bounded by the summary's caps.
 */
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { UserError } from '../errors.js';
import { writeTextAtomically } from '../files.js';
import { MAX_RECORD_LENGTH, UsageRecordError, UsageSummaryBuilder, UsageSummaryError, addDays, readUsageRecordLine, renderUsageSummary, type UsageRecord } from '../protocol/index.js';
import { todayUtc } from '../policy/allow.js';
import { CLI_COMMAND } from '../version.js';
import { CommandContext, type Runner } from './context.js';

const USAGE = `${CLI_COMMAND} usage summarize <FILE…> [--out usage.json] [--days N] [--server NAME]`;
/** Damaged lines named one by one in the warning; the rest are counted. */
const MAX_NAMED = 5;

export const run: Runner = async (args, io) => {
  const context = new CommandContext(args, io);
  const [subcommand, ...files] = args.positionals;
  if (subcommand !== 'summarize') throw new UserError(`usage takes the subcommand "summarize": ${USAGE}`);
  if (files.length === 0) throw new UserError(`usage summarize needs the recordings to merge: ${USAGE}`);
  const days = args.flags.days === undefined ? undefined : parseDays(args.flags.days);
  const since = days === undefined ? undefined : addDays(todayUtc(process.env.MCP_CONTRACT_GUARD_TODAY), -(days - 1));
  const builder = new UsageSummaryBuilder({ ...(args.flags.server !== undefined ? { server: args.flags.server } : {}), ...(since !== undefined ? { since } : {}) });
  const damaged: string[] = [];
  let skipped = 0;
  for (const file of files) {
    const path = resolve(io.cwd, file);
    let read = 0;
    let firstDamage: string | undefined;
    const lines = await eachLine(path, file, (line, number) => {
      let record: UsageRecord;
      try {
        if (line === null) throw new UsageRecordError(`is longer than ${MAX_RECORD_LENGTH.toLocaleString('en-US')} bytes, the longest record`);
        record = readUsageRecordLine(line);
      } catch (error) {
        if (error instanceof UsageRecordError && error.newer) throw new UserError(`${file} line ${number} ${error.message}.`);
        skipped++;
        firstDamage ??= `line ${number} ${(error as Error).message}`;
        if (damaged.length < MAX_NAMED) damaged.push(`${file} line ${number} (${(error as Error).message})`);
        return;
      }
      read++;
      try {
        builder.add(record);
      } catch (error) {
        if (error instanceof UsageSummaryError) throw new UserError(`${file} line ${number}: ${error.message}.`);
        throw error;
      }
    });
    if (read === 0 && lines > 0) throw new UserError(`${file} holds no usage record: its ${firstDamage}. Is it a recording written by "proxy --usage" or withSelfHealing's usage option?`);
    context.progress(`read ${file}: ${read.toLocaleString('en-US')} record${read === 1 ? '' : 's'}`);
  }
  if (skipped > 0) context.warn(`skipped ${skipped} damaged line${skipped === 1 ? '' : 's'} (a recorder stopped mid-write, or the file was edited): ${damaged.join('; ')}${skipped > damaged.length ? ', …' : ''}.`);
  for (const [name, count] of builder.otherServers) context.warn(`left out ${count} record${count === 1 ? '' : 's'} of the server "${name}" (--server ${args.flags.server}).`);
  if (builder.olderRecords > 0) context.progress(`left out ${builder.olderRecords} record${builder.olderRecords === 1 ? '' : 's'} older than ${since} (--days ${days})`);
  if (builder.empty) throw new UserError(`No usage record to summarize${since !== undefined ? ` since ${since}` : ''}${args.flags.server !== undefined ? ` of the server "${args.flags.server}"` : ''}.`);
  if (builder.unnamedRecords > 0) context.warn(`${builder.unnamedRecords} record${builder.unnamedRecords === 1 ? '' : 's'} did not name the server (written before any client initialized a session); they are counted as its.`);
  const summary = builder.summary(skipped);
  const text = renderUsageSummary(summary);
  const { window } = summary;
  const described = `${summary.server.name === null ? 'an unnamed server' : `"${summary.server.name}"`}: ${summary.calls.toLocaleString('en-US')} calls of ${Object.keys(summary.tools).length} tools from ${window.from} to ${window.to} (${window.days} day${window.days === 1 ? '' : 's'}${window.missingCount > 0 ? `, ${window.missingCount} without a recording` : ''})`;
  if (args.flags.out === undefined) io.stdout(text);
  else {
    const out = resolve(io.cwd, args.flags.out);
    await writeTextAtomically(out, text, 'the usage summary');
    context.progress(`wrote the usage summary to ${context.display(out)}`);
  }
  context.progress(`summarized ${described}`);
  return 0;
};

function parseDays(value: string): number {
  const days = /^\d{1,5}$/.test(value) ? Number(value) : 0;
  if (days < 1 || days > 3650) throw new UserError(`--days takes a whole number of days from 1 to 3650; got "${value}".`);
  return days;
}

/**
 * Calls `onLine` with each line of `path` and its number, never holding more than
 * `MAX_RECORD_LENGTH` bytes of one (a longer line is passed as null). Resolves to the number of lines.
 */
async function eachLine(path: string, label: string, onLine: (line: string | null, number: number) => void): Promise<number> {
  const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let overlong = false;
  let number = 0;
  const emit = () => {
    number++;
    const line = overlong ? null : Buffer.concat(pending).toString('utf8').replace(/\r$/, '');
    pending = [];
    pendingLength = 0;
    overlong = false;
    if (line === null || line.trim() !== '') onLine(line, number);
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, start)) {
        keep(chunk.subarray(start, at));
        emit();
        start = at + 1;
      }
      keep(chunk.subarray(start));
    }
  } catch (error) {
    if (error instanceof UserError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(`Cannot read the recording ${label}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message}.`, 2, { cause: error });
  }
  if (pendingLength > 0 || overlong) emit();
  return number;

  function keep(part: Buffer): void {
    if (part.length === 0 || overlong) return;
    if (pendingLength + part.length > MAX_RECORD_LENGTH) {
      overlong = true;
      pending = [];
      return;
    }
    pending.push(part);
    pendingLength += part.length;
  }
}
