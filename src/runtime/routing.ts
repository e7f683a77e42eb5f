/**
 * What becomes of a call shaped for an older contract: the one decision `withSelfHealing`
 * (inside a TypeScript server) and the proxy (in front of any server) make about an incoming
 * `tools/call`, from the artifact and the tools the server lists now, so the two cannot drift.
 *
 * The artifact says which tools and arguments were renamed and which arguments were removed.
 * A call that names none of them is not this module's business (`decide` returns undefined:
 * the identity path, a `Map` lookup and, for a tool with such changes, an own-key check per
 * change). A call that does is, because the SDK (and most frameworks) drop the keys a schema
 * does not declare: an agent that sends `ref` after `ref → target`, or `days` after it was
 * removed, would get a successful call that ignored what it asked for. So, per argument the
 * current schema does not take:
 *
 * - `explain` (the default): the call is refused with a validation error that says what
 *   happened to it (renamed to what, or removed), before any handler runs;
 * - `route`: a renamed argument is passed under its new name, a removed one is dropped, and
 *   the result carries a notice saying so (a text item and `_meta`), so the agent's next call
 *   is right; a call to a renamed tool the server no longer lists runs the new tool.
 *
 * Routing is limited to what the diff is sure of (`isSureRename`: a property renamed with the
 * same schema, never across a type change; a tool whose name only changed notation, or whose
 * description stayed), to what the live listing confirms (the old name is not taken any more,
 * the new one is), and to the deprecation window: `renameWindowDays` (default 365) from the
 * artifact's release date. Past it, the call is explained instead. An artifact without a
 * release date routes with no end to the window (see docs/runtime.md for why).
 *
 * Everything that depends only on the artifact (which changes, their paths, the notice lines)
 * is compiled once, in the constructor.
 */
import { argumentLabel, argumentLocationOf, entryRenameOf, escapeText, flagsText, isSureRename, memberRemovalOf, memberRenameOf, truncate, type Delta, type Release } from '../protocol/index.js';
import type { DeltaMap, ToolDeltas } from './delta-map.js';
import { isSchema, schemaAt, takesMember, type ArgPath, type JsonSchema } from './json-schema.js';

export type RenameMode = 'route' | 'explain';

export interface RoutingOptions {
  /**
   * What a call using a renamed tool or argument, or sending a removed argument, gets:
   * `explain` (default) a validation error saying what changed; `route` the call served under
   * the new names (removed arguments dropped), with a notice in the result.
   */
  renames?: RenameMode;
  /** How many days after the artifact's release date renames are routed (default 365, the MCP deprecation window); past it they are explained. */
  renameWindowDays?: number;
  /** The clock, in milliseconds since the epoch (default `Date.now`): what the window is compared with. */
  now?: () => number;
}

/** The tools the server lists now, as far as a decision reads them. */
export interface ListedTools {
  has(name: string): boolean;
  inputSchemaOf(name: string): unknown;
}

/** What the result of a served call carries so that the agent's next call is right. */
export interface CallNotice {
  /** A `<contract_notice>`: a text content item of the result. */
  readonly text: string;
  /** Machine-readable, under `NOTICE_META_KEY` in the result's `_meta`. */
  readonly meta: Readonly<Record<string, unknown>>;
}

/** The key of the notice in a result's `_meta`. */
export const NOTICE_META_KEY = 'mcp-contract-guard/notice';

/** An argument of a call, shaped for the old contract, that the current one does not take. */
export interface OldShapedArgument {
  /** Where the object holding it sits in the arguments (`["fields", 0]`; `[]` for the arguments themselves). */
  readonly at: ArgPath;
  readonly name: string;
  /** Its new name, when it was renamed (else it was removed). */
  readonly renamedTo?: string;
}

export type CallDecision =
  /** Call `name` with `args` (the tool under its new name, arguments translated or dropped); the result carries `notice`. */
  | { readonly kind: 'serve'; readonly name: string; readonly args: unknown; readonly notice: CallNotice }
  /**
   * Answer with an explanation of `fields` (old-shaped arguments of tool `name`, as sent in
   * `args`); nothing reaches the tool. `notice` is set when the tool itself was routed.
   */
  | { readonly kind: 'refuse'; readonly name: string; readonly args: unknown; readonly fields: readonly OldShapedArgument[]; readonly notice?: CallNotice };

/** The decision depends on the tools the server lists now, not known yet: list them, then decide again. */
export const NEEDS_LISTING = Symbol('needs the tool listing');

export const DEFAULT_RENAME_WINDOW_DAYS = 365;
const DAY_MS = 86_400_000;
/** Objects of the arguments looked into per call, at most (an array of thousands of items is not walked whole). */
const MAX_VISITS = 10_000;
/** Longest description of a removed argument quoted in a notice. */
const MAX_DESCRIPTION_LENGTH = 120;

/** An argument the artifact says was renamed or removed, compiled. */
interface ArgumentChange {
  /** The object holding it, as an argument path (`[]` for any item, `*` for any value of a map). */
  readonly parent: readonly string[];
  readonly name: string;
  /** The new name; undefined for a removal. */
  readonly renamedTo: string | undefined;
  /** A rename the diff is sure of (a removal is a fact, always). */
  readonly sure: boolean;
  /** The action it is scoped to, for a tool whose arguments are a discriminated union. */
  readonly action: string | null;
  /** Its line of the notice. */
  readonly note: string;
  readonly label: string;
  readonly renamedLabel: string | undefined;
}

interface ToolChanges {
  readonly changes: readonly ArgumentChange[];
  readonly discriminator: string;
}

interface MovedTool {
  readonly from: string;
  readonly to: string;
  readonly sure: boolean;
  readonly note: string;
}

/** An old-shaped argument found in a call: its change, and the object holding it. */
interface Hit {
  readonly change: ArgumentChange;
  readonly at: ArgPath;
  readonly container: Readonly<Record<string, unknown>>;
}

export class CallRouter {
  /** False when the artifact names nothing a call could use: every call is served as it is. */
  readonly active: boolean;
  readonly mode: RenameMode;
  private readonly tools = new Map<string, ToolChanges>();
  /** Old tool name → where it went (route mode only: explaining a moved tool needs no decision). */
  private readonly moved = new Map<string, MovedTool>();
  private readonly windowEnd: number | undefined;
  private readonly now: () => number;
  private readonly since: string;
  private readonly until: string | undefined;
  private readonly release: Readonly<Release> | undefined;

  /** Throws a `RangeError` on a bad option: at start-up, never in a request. */
  constructor(deltas: DeltaMap, options: RoutingOptions = {}) {
    const mode = options.renames ?? 'explain';
    if (mode !== 'route' && mode !== 'explain') throw new RangeError(`renames must be "route" or "explain", got ${JSON.stringify(mode)}.`);
    const days = options.renameWindowDays ?? DEFAULT_RENAME_WINDOW_DAYS;
    if (!Number.isInteger(days) || days < 0 || days > 36_500) throw new RangeError(`renameWindowDays must be a whole number of days from 0 to 36500, got ${String(days)}.`);
    if (options.now !== undefined && typeof options.now !== 'function') throw new RangeError('now must be a function returning milliseconds since the epoch.');
    this.mode = mode;
    this.now = options.now ?? Date.now;
    this.release = deltas.release;
    const released = deltas.release?.date === undefined ? undefined : Date.parse(`${deltas.release.date}T00:00:00Z`);
    this.windowEnd = released === undefined || !Number.isFinite(released) ? undefined : released + days * DAY_MS;
    this.since = deltas.release?.version === undefined ? '' : ` in ${deltas.release.version}`;
    this.until = this.windowEnd === undefined ? undefined : new Date(this.windowEnd).toISOString().slice(0, 10);
    for (const [name, entry] of deltas) {
      const changes = this.compileTool(entry);
      if (changes.length > 0) this.tools.set(name, { changes, discriminator: entry.discriminator ?? 'action' });
      if (mode === 'route') this.compileMoves(name, entry);
    }
    this.active = this.tools.size > 0 || this.moved.size > 0;
  }

  /**
   * The decision for a call to `name` with `args`: undefined to serve it as it is (almost
   * always), `NEEDS_LISTING` when it depends on the tools the server lists now (`listed`
   * unknown), else serve it changed or refuse it (see `CallDecision`).
   */
  decide(name: string, args: unknown, listed: ListedTools | undefined): CallDecision | typeof NEEDS_LISTING | undefined {
    const moved = this.moved.get(name);
    let tool = this.tools.get(name);
    let hits = tool === undefined ? NONE : oldShaped(tool, args);
    if (moved === undefined && hits.length === 0) return undefined;
    if (listed === undefined) return NEEDS_LISTING;
    let target = name;
    let routedTool: MovedTool | undefined;
    if (moved !== undefined && !listed.has(name)) {
      // The server answers "not found" to a tool it no longer lists; that is explained as a move.
      if (!moved.sure || !listed.has(moved.to) || this.closed()) return undefined;
      target = moved.to;
      routedTool = moved;
      tool = this.tools.get(target);
      hits = tool === undefined ? NONE : oldShaped(tool, args);
    } else if (hits.length === 0) {
      return undefined;
    }
    const schema = listed.inputSchemaOf(target);
    const root = isSchema(schema) ? schema : undefined;
    // Only what the current schema does not take: an old name the server still declares is its business.
    hits = hits.filter((hit) => !takesMember(root ?? {}, root === undefined ? undefined : schemaAt(root, hit.at, args), hit.container, hit.change.name));
    if (hits.length === 0) return routedTool === undefined ? undefined : { kind: 'serve', name: target, args, notice: this.notice(routedTool, []) };
    if (hits.every((hit) => this.canServe(hit, root, args))) {
      return { kind: 'serve', name: target, args: translated(args, hits), notice: this.notice(routedTool, hits) };
    }
    const fields = hits.map(({ change, at }) => (change.renamedTo === undefined ? { at, name: change.name } : { at, name: change.name, renamedTo: change.renamedTo }));
    return routedTool === undefined ? { kind: 'refuse', name: target, args, fields } : { kind: 'refuse', name: target, args, fields, notice: this.notice(routedTool, []) };
  }

  /** Whether the deprecation window is over (never, without a release date). */
  private closed(): boolean {
    return this.windowEnd !== undefined && this.now() >= this.windowEnd;
  }

  /** In route mode, within the window: a removal is dropped; a sure rename is moved to its new name when that is free and taken. */
  private canServe(hit: Hit, root: JsonSchema | undefined, args: unknown): boolean {
    if (this.mode !== 'route' || this.closed()) return false;
    const { change, container, at } = hit;
    if (change.renamedTo === undefined) return true;
    if (!change.sure || Object.hasOwn(container, change.renamedTo)) return false;
    return root !== undefined && takesMember(root, schemaAt(root, at, args), container, change.renamedTo);
  }

  private notice(tool: MovedTool | undefined, hits: readonly Hit[]): CallNotice {
    const changes = [...new Set(hits.map((hit) => hit.change))];
    const lines = ['<contract_notice>'];
    if (tool !== undefined) lines.push(`<message>${escapeText(tool.note)}</message>`);
    for (const change of changes) lines.push(`<message>${escapeText(change.note)}</message>`);
    const renamed = tool !== undefined || changes.some((change) => change.renamedTo !== undefined);
    const removed = changes.some((change) => change.renamedTo === undefined);
    const steps: string[] = [];
    if (renamed) steps.push(`use the new names from now on${this.until === undefined ? '' : ` (the old ones are served until ${this.until})`}`);
    if (removed) steps.push('do not send what was ignored again');
    const recovery = steps.join('; ');
    lines.push(`<recovery>${escapeText(recovery.charAt(0).toUpperCase() + recovery.slice(1))}.</recovery>`, '</contract_notice>');
    const meta: Record<string, unknown> = {};
    if (tool !== undefined) meta.tool = { from: tool.from, to: tool.to };
    const arguments_ = changes.filter((change) => change.renamedTo !== undefined).map((change) => ({ from: change.label, to: change.renamedLabel }));
    if (arguments_.length > 0) meta.arguments = arguments_;
    const ignored = changes.filter((change) => change.renamedTo === undefined).map((change) => change.label);
    if (ignored.length > 0) meta.ignored = ignored;
    if (this.release !== undefined) meta.release = { ...this.release };
    if (this.until !== undefined && renamed) meta.servedUntil = this.until;
    return { text: lines.join('\n'), meta: { [NOTICE_META_KEY]: meta } };
  }

  private compileTool(entry: ToolDeltas): ArgumentChange[] {
    const changes: ArgumentChange[] = [];
    for (const delta of entry.deltas) {
      const location = argumentLocationOf(delta.field);
      if (location === undefined || location.keyword !== undefined || location.path.length === 0) continue;
      const renamed = memberRenameOf(delta);
      if (renamed !== undefined) {
        const last = location.path.at(-1);
        const parent = last === renamed.from || last === renamed.to ? location.path.slice(0, -1) : location.path;
        const label = argumentLabel([...parent, renamed.from]);
        const renamedLabel = argumentLabel([...parent, renamed.to]);
        const sure = isSureRename(delta) && !flagged(entry.deltas, renamed.to);
        const note = `The argument "${label}" was renamed to "${renamedLabel}"${this.since}: it was passed as "${renamed.to}".`;
        changes.push({ parent, name: renamed.from, renamedTo: renamed.to, sure, action: delta.action, note, label, renamedLabel });
        continue;
      }
      const removed = memberRemovalOf(delta);
      if (removed === undefined || removed.name !== location.path.at(-1)) continue;
      const parent = location.path.slice(0, -1);
      const label = argumentLabel(location.path);
      const description = isSchema(removed.schema) && typeof removed.schema.description === 'string' && !flagged(entry.deltas, removed.schema.description) ? removed.schema.description.trim() : '';
      const was = description === '' ? '' : ` (it was: ${truncate(description, MAX_DESCRIPTION_LENGTH)})`;
      const note = `"${label}" was ignored: the tool no longer takes it${this.since}${was}.`;
      changes.push({ parent, name: removed.name, renamedTo: undefined, sure: true, action: delta.action, note, label, renamedLabel: undefined });
    }
    return changes;
  }

  private compileMoves(name: string, entry: ToolDeltas): void {
    for (const delta of entry.deltas) {
      const renamed = entryRenameOf(delta);
      if (renamed === undefined || renamed.to !== name) continue;
      const sure = isSureRename(delta) && !flagged(entry.deltas, name);
      this.moved.set(renamed.from, { from: renamed.from, to: name, sure, note: `The tool "${renamed.from}" was renamed to "${name}"${this.since}: this call was served by "${name}".` });
    }
  }
}

const NONE: readonly Hit[] = [];

/** Whether the contract lint flagged `text` in this tool: never routed to, never repeated. */
function flagged(deltas: readonly Readonly<Delta>[], text: string): boolean {
  return deltas.some((delta) => flagsText(delta) && delta.current === text);
}

/** The arguments of `tool` that a call sends under a name the artifact says is gone (at most `MAX_VISITS` objects looked into). */
function oldShaped(tool: ToolChanges, args: unknown): readonly Hit[] {
  if (!isSchema(args)) return NONE;
  let hits: Hit[] | undefined;
  let budget = MAX_VISITS;
  const action = actionOf(args, tool.discriminator);
  for (const change of tool.changes) {
    if (change.action !== null && change.action !== action) continue;
    const visit = (value: unknown, depth: number, at: (string | number)[]): void => {
      if (--budget < 0) return;
      if (depth === change.parent.length) {
        if (isSchema(value) && Object.hasOwn(value, change.name)) (hits ??= []).push({ change, at: [...at], container: value });
        return;
      }
      const segment = change.parent[depth] as string;
      if (segment === '[]') {
        if (Array.isArray(value)) value.forEach((item, index) => visit(item, depth + 1, [...at, index]));
      } else if (segment === '*') {
        if (isSchema(value)) for (const key of Object.keys(value)) visit(value[key], depth + 1, [...at, key]);
      } else if (isSchema(value) && Object.hasOwn(value, segment)) {
        visit(value[segment], depth + 1, [...at, segment]);
      }
    };
    visit(args, 0, []);
  }
  return hits ?? NONE;
}

/** The call's action: the value of the property discriminating the tool's union (`action` when the artifact names none). */
function actionOf(args: Readonly<Record<string, unknown>>, discriminator: string): string | null {
  const value = Object.hasOwn(args, discriminator) ? args[discriminator] : undefined;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
}

/** The arguments with each hit moved to its new name, or dropped; the arguments as sent are left as they are. */
function translated(args: unknown, hits: readonly Hit[]): unknown {
  const copy = structuredClone(args) as Record<string, unknown>;
  // Deepest first: moving an object's member never breaks the path to a member of an object inside it.
  for (const { change, at } of [...hits].sort((a, b) => b.at.length - a.at.length)) {
    let container: unknown = copy;
    for (const segment of at) container = isSchema(container) || Array.isArray(container) ? (container as Record<string | number, unknown>)[segment] : undefined;
    if (!isSchema(container)) continue;
    const holder = container as Record<string, unknown>;
    // Defined, not assigned: a member called `__proto__` is data here, never the prototype.
    if (change.renamedTo !== undefined) Object.defineProperty(holder, change.renamedTo, { value: holder[change.name], enumerable: true, writable: true, configurable: true });
    delete holder[change.name];
  }
  return copy;
}

/**
 * A tool result with `notice` added: a text item after the tool's own content (so a
 * `structuredContent` and the text item that serializes it stay as they were, valid against
 * the output schema) and its `_meta`. A result without content (a task's handle) is left alone.
 */
export function withNotice<T>(result: T, notice: CallNotice): T {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return result;
  const { content, _meta: meta } = result as { content?: unknown; _meta?: unknown };
  if (!Array.isArray(content)) return result;
  return { ...result, content: [...content, { type: 'text', text: notice.text }], _meta: { ...(isSchema(meta) ? meta : {}), ...notice.meta } };
}
