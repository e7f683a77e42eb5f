/**
 * The tools a server lists, learned the way a client learns them: a `tools/list` handed to the
 * server's protocol as if the transport had received it, with an id of our own, its answer kept
 * to ourselves, every page followed. Kept until the server says
 * `notifications/tools/list_changed`. `withSelfHealing` asks for it when a call's decision or
 * explanation depends on the current contract (never for a call the artifact says nothing about).
 */
import { isJsonObject } from '../protocol/index.js';
import type { ListedTools } from './routing.js';

/** Hands a request to the protocol as if the transport had received it. */
export type Deliver = (request: unknown, extra: unknown) => void;

/** The ids of the listings asked for here: no client sends these. */
export const OWN_ID_PREFIX = 'mcp-contract-guard/tools-list/';

/** More tools or pages than any server lists: past them the listing is given up on. */
const MAX_TOOLS = 10_000;
const MAX_PAGES = 100;
/** How long a page of our own listing may take; past it, the listing is given up on. */
const PAGE_TIMEOUT_MS = 5_000;

interface Waiting {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** Tool name → input schema, as a `ListedTools`. */
class Listed implements ListedTools {
  constructor(readonly schemas: ReadonlyMap<string, unknown>) {}
  has(name: string): boolean {
    return this.schemas.has(name);
  }
  inputSchemaOf(name: string): unknown {
    return this.schemas.get(name);
  }
}

export class ToolListing {
  private nextId = 1;
  private readonly waiting = new Map<string, Waiting>();
  private listing: Promise<Listed | undefined> | undefined;
  private known: Listed | undefined;
  /** Bumped by `forget`: a listing that was under way then is stale when it ends. */
  private generation = 0;

  constructor(private readonly deliver: Deliver) {}

  /** The tools as last listed, or undefined while not known (not listed yet, changed since, or the listing failed). */
  get current(): ListedTools | undefined {
    return this.known;
  }

  /** The tools as the server lists them now (undefined when it cannot be listed); listed once, then kept. */
  tools(extra: unknown): Promise<ListedTools | undefined> {
    if (this.listing === undefined) {
      const generation = this.generation;
      this.listing = this.list(extra).then(
        (listed) => {
          if (generation === this.generation) this.known = listed;
          return listed;
        },
        () => {
          if (generation === this.generation) this.listing = undefined;
          return undefined;
        },
      );
    }
    return this.listing;
  }

  /** Whether `message` answers one of our own requests: then it is ours, never the client's. */
  isOwnAnswer(message: unknown): message is Readonly<Record<string, unknown>> {
    return isJsonObject(message) && typeof message.id === 'string' && message.id.startsWith(OWN_ID_PREFIX) && !('method' in message);
  }

  ownAnswer(message: Readonly<Record<string, unknown>>): void {
    const waiting = this.waiting.get(message.id as string);
    if (waiting === undefined) return;
    this.waiting.delete(message.id as string);
    if ('result' in message) waiting.resolve(message.result);
    else waiting.reject(new Error('the server refused its own tools/list'));
  }

  /** The tool list changed: the next need lists again. */
  forget(): void {
    this.generation += 1;
    this.listing = undefined;
    this.known = undefined;
  }

  private async list(extra: unknown): Promise<Listed> {
    const schemas = new Map<string, unknown>();
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.request('tools/list', cursor === undefined ? {} : { cursor }, extra);
      const tools = isJsonObject(result) && Array.isArray(result.tools) ? result.tools : [];
      for (const tool of tools) if (isJsonObject(tool) && typeof tool.name === 'string') schemas.set(tool.name, tool.inputSchema);
      const next = isJsonObject(result) ? result.nextCursor : undefined;
      if (typeof next !== 'string' || next === '') return new Listed(schemas);
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
