/**
 * The part of `withSelfHealing` that runs once a call has failed (loaded then, not on import):
 * reading the SDK's error, and learning the tool's input schema the way a client would, from
 * the server's own `tools/list`.
 */
import { isJsonObject } from '../protocol/index.js';
import type { Explainer } from './self-healing.js';
import { OWN_ID_PREFIX, type PendingCall } from './mcp-server.js';
import { explainServerError, isUnknownToolError, serverValidationIssues } from './server-errors.js';

/** Hands a request to the protocol as if the transport had received it. */
export type Deliver = (request: unknown, extra: unknown) => void;

/** More tools or pages than any server lists: past them the listing is given up on. */
const MAX_TOOLS = 10_000;
const MAX_PAGES = 100;
/** How long a page of our own listing may take; past it, the call is explained without the schema. */
const PAGE_TIMEOUT_MS = 5_000;

interface Waiting {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

export class HealingSession {
  private nextId = 1;
  private readonly waiting = new Map<string, Waiting>();
  private listing: Promise<ReadonlyMap<string, unknown> | undefined> | undefined;

  constructor(private readonly deliver: Deliver) {}

  /**
   * The explanation of a failed call, or undefined when its error is not one to explain: an
   * input-validation failure of a tool the explainer explains, or "not found" for a tool the
   * artifact says moved and the server no longer lists (both need the listing).
   */
  async explain(explainer: Explainer, call: PendingCall, text: string): Promise<string | undefined> {
    const moved = explainer.movedTool(call.name) !== undefined && isUnknownToolError(call.name, text);
    const invalid = explainer.explains(call.name) && serverValidationIssues(call.name, text) !== undefined;
    if (!moved && !invalid) return undefined;
    const tools = await this.tools(call.extra);
    return explainServerError(explainer, call.name, text, { schema: tools?.get(call.name), args: call.args, listed: tools?.has(call.name) })?.text;
  }

  /** An answer to one of our own requests (see `OWN_ID_PREFIX`). */
  ownAnswer(message: Readonly<Record<string, unknown>>): void {
    const waiting = this.waiting.get(message.id as string);
    if (waiting === undefined) return;
    this.waiting.delete(message.id as string);
    if ('result' in message) waiting.resolve(message.result);
    else waiting.reject(new Error('the server refused its own tools/list'));
  }

  /** The tool list changed: the next failure lists again. */
  forget(): void {
    this.listing = undefined;
  }

  /** Tool name → input schema, as the server lists them now (undefined when it cannot be listed). */
  private tools(extra: unknown): Promise<ReadonlyMap<string, unknown> | undefined> {
    this.listing ??= this.list(extra).catch(() => {
      this.listing = undefined;
      return undefined;
    });
    return this.listing;
  }

  private async list(extra: unknown): Promise<ReadonlyMap<string, unknown>> {
    const schemas = new Map<string, unknown>();
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.request('tools/list', cursor === undefined ? {} : { cursor }, extra);
      const tools = isJsonObject(result) && Array.isArray(result.tools) ? result.tools : [];
      for (const tool of tools) if (isJsonObject(tool) && typeof tool.name === 'string') schemas.set(tool.name, tool.inputSchema);
      const next = isJsonObject(result) ? result.nextCursor : undefined;
      if (typeof next !== 'string' || next === '') return schemas;
      if (cursors.has(next) || schemas.size > MAX_TOOLS) break;
      cursors.add(next);
      cursor = next;
    }
    throw new Error('the tool list does not end');
  }

  private request(method: string, params: Record<string, unknown>, extra: unknown): Promise<unknown> {
    const id = `${OWN_ID_PREFIX}${this.nextId++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error('the server did not answer its own tools/list'));
      }, PAGE_TIMEOUT_MS);
      timer.unref?.();
      const settle = <T>(done: (value: T) => void) => (value: T) => {
        clearTimeout(timer);
        done(value);
      };
      this.waiting.set(id, { resolve: settle(resolve), reject: settle(reject) });
      this.deliver({ jsonrpc: '2.0', id, method, params }, extra);
    });
  }
}
