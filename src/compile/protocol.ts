import { isJsonObject, objectOr, type JsonObject, type ProtocolEra, type ServerInfo } from '../contract/model.js';
import { ChannelError, JSONRPC_METHOD_NOT_FOUND, RpcError, type Patience, type RpcChannel } from './channel.js';
import type { ClientCapability } from './source.js';
import { VERSION } from '../version.js';

/** What we send in `initialize`: the newest revision of the handshake era. */
export const HANDSHAKE_PROTOCOL_VERSION = '2025-11-25';
/** The stateless revision: no handshake, `server/discover`, `_meta` on every request. */
export const STATELESS_PROTOCOL_VERSION = '2026-07-28';
/** Who we are to the server: this package at its own version (a server may answer by the client's version). */
const CLIENT_INFO = { name: 'mcp-contract-guard', version: VERSION };

export interface Session {
  era: ProtocolEra;
  protocolVersion: string;
  server: ServerInfo;
  capabilities: JsonObject;
  /** Agent-visible guidance the server sends with its handshake, when it sends any. */
  instructions?: string;
  /** What we declared; the stateless revision repeats it in every request's `_meta`. */
  clientCapabilities: readonly ClientCapability[];
}

/** More entries than any real server lists; past it the server is paginating forever. */
export const MAX_ENTRIES = 10_000;
/**
 * More pages than any real server sends for one list: `MAX_ENTRIES` at 10 a page, a page size
 * smaller than any SDK's. A server answering empty pages with fresh cursors stops here, in
 * about a second over stdio, instead of never.
 */
export const MAX_PAGES = 1_000;

/**
 * What each client capability declares. With them a server shows the tools it offers only to
 * clients that can sample, elicit or share roots; what we then answer is `answerServerRequest`.
 * Elicitation declares both modes (form and URL) of the current revision.
 */
const CAPABILITY_DECLARATIONS: Record<ClientCapability, JsonObject> = {
  roots: {},
  sampling: {},
  elicitation: { form: {}, url: {} },
};

function declaredCapabilities(capabilities: readonly ClientCapability[]): JsonObject {
  return Object.fromEntries(capabilities.map((name) => [name, CAPABILITY_DECLARATIONS[name]]));
}

/** A JSON-RPC answer (without `jsonrpc` and `id`) to a request the server sent us. */
export type ServerRequestAnswer = { result: JsonObject } | { error: { code: number; message: string } };

/**
 * Answer a request the server sends during a capture, so it never waits on us: ping; an empty
 * roots list; a refusal for sampling (the error a client returns when its user rejects it) and
 * a declined elicitation (a result every server handles). A capability we did not declare is
 * a method we do not have.
 */
export function answerServerRequest(method: string, declared: readonly ClientCapability[]): ServerRequestAnswer {
  if (method === 'ping') return { result: {} };
  const capability = Object.hasOwn(SERVER_REQUESTS, method) ? SERVER_REQUESTS[method] : undefined;
  if (capability === undefined || !declared.includes(capability)) return { error: { code: JSONRPC_METHOD_NOT_FOUND, message: 'Method not found' } };
  switch (capability) {
    case 'roots':
      return { result: { roots: [] } };
    case 'sampling':
      return { error: { code: -1, message: 'mcp-contract-guard only reads contracts: it does not sample a model' } };
    case 'elicitation':
      return { result: { action: 'decline' } };
  }
}

const SERVER_REQUESTS: Record<string, ClientCapability> = {
  'roots/list': 'roots',
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
};

export interface SessionOptions {
  timeoutMs: number;
  /** The client capabilities to declare. */
  capabilities: readonly ClientCapability[];
  /** How long the first request may wait for a server that is still starting. */
  patience?: Patience;
}

/**
 * Open a session in whichever protocol generation the server speaks. `initialize` first,
 * because that is what almost every server answers today; a server that only speaks the
 * stateless revision rejects it with a JSON-RPC error, and we then ask `server/discover`.
 */
export async function openSession(channel: RpcChannel, options: SessionOptions): Promise<Session> {
  const { timeoutMs, capabilities, patience } = options;
  let handshakeError: RpcError;
  try {
    const result = await channel.request(
      'initialize',
      { protocolVersion: HANDSHAKE_PROTOCOL_VERSION, capabilities: declaredCapabilities(capabilities), clientInfo: CLIENT_INFO },
      { timeoutMs, ...(patience ? { patience } : {}) },
    );
    const protocolVersion = typeof result.protocolVersion === 'string' ? result.protocolVersion : HANDSHAKE_PROTOCOL_VERSION;
    channel.setProtocolVersion?.(protocolVersion);
    await channel.notify('notifications/initialized');
    return withInstructions({ era: 'legacy', protocolVersion, server: serverInfoOf(result), capabilities: objectOr(result.capabilities), clientCapabilities: capabilities }, result);
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    handshakeError = error;
  }
  try {
    const result = await channel.request('server/discover', { _meta: requestMeta(STATELESS_PROTOCOL_VERSION, capabilities) }, {
      timeoutMs,
      headers: statelessHeaders('server/discover', STATELESS_PROTOCOL_VERSION),
    });
    const supported = Array.isArray(result.supportedVersions) ? result.supportedVersions.filter((v) => typeof v === 'string') : [];
    const protocolVersion = supported.includes(STATELESS_PROTOCOL_VERSION)
      ? STATELESS_PROTOCOL_VERSION
      : ((supported.sort().at(-1) as string | undefined) ?? STATELESS_PROTOCOL_VERSION);
    channel.setProtocolVersion?.(protocolVersion);
    return withInstructions({ era: 'stateless', protocolVersion, server: serverInfoOf(result), capabilities: objectOr(result.capabilities), clientCapabilities: capabilities }, result);
  } catch (error) {
    if (error instanceof RpcError) {
      // Neither generation worked: the handshake's refusal is the more telling of the two.
      throw new ChannelError(
        'protocol',
        `the server refused both protocol generations: ${handshakeError.message}; and ${error.message}`,
        'initialize',
      );
    }
    throw error;
  }
}

export interface ListOptions {
  timeoutMs: number;
  onPage?: (page: number, total: number) => void;
}

/**
 * Every item of a paginated list (`tools/list`, `prompts/list`…), following `nextCursor`.
 * Stops with an error on a cursor seen before, past `MAX_ENTRIES` or past `MAX_PAGES`: a
 * broken server must not make us loop. List-level fields (`nextCursor`, `_meta`, cache hints)
 * are not kept.
 */
export async function listAll(
  channel: RpcChannel,
  session: Session,
  method: string,
  key: string,
  options: ListOptions,
): Promise<JsonObject[]> {
  const items: JsonObject[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const params: JsonObject = {};
    if (cursor !== undefined) params.cursor = cursor;
    if (session.era === 'stateless') params._meta = requestMeta(session.protocolVersion, session.clientCapabilities);
    const result = await channel.request(method, Object.keys(params).length > 0 ? params : undefined, {
      timeoutMs: options.timeoutMs,
      ...(session.era === 'stateless' ? { headers: statelessHeaders(method, session.protocolVersion) } : {}),
    });
    const batch = result[key];
    if (!Array.isArray(batch)) throw new ChannelError('protocol', `the answer to ${method} has no "${key}" array`, method);
    for (const item of batch) {
      if (!isJsonObject(item)) throw new ChannelError('protocol', `${method} returned an entry that is not an object: ${JSON.stringify(item)}`, method);
      items.push(item);
    }
    if (items.length > MAX_ENTRIES) {
      throw new ChannelError('protocol', `${method} returned more than ${MAX_ENTRIES.toLocaleString('en-US')} ${key}; capture stopped (is its pagination looping?)`, method);
    }
    options.onPage?.(page, items.length);
    const next = result.nextCursor;
    if (next === undefined || next === null || next === '') return items;
    if (typeof next !== 'string') throw new ChannelError('protocol', `${method} returned a nextCursor that is not a string`, method);
    if (cursors.has(next)) {
      throw new ChannelError('protocol', `${method} returned the cursor ${JSON.stringify(next)} a second time (page ${page}): its pagination loops, so capture stopped`, method);
    }
    if (page >= MAX_PAGES) {
      throw new ChannelError(
        'protocol',
        `${method} sent ${MAX_PAGES.toLocaleString('en-US')} pages (${items.length.toLocaleString('en-US')} ${key} in all) and still handed out a new cursor; capture stopped (is its pagination looping?)`,
        method,
      );
    }
    cursors.add(next);
    cursor = next;
  }
}

function requestMeta(protocolVersion: string, capabilities: readonly ClientCapability[]): JsonObject {
  return {
    'io.modelcontextprotocol/protocolVersion': protocolVersion,
    'io.modelcontextprotocol/clientCapabilities': declaredCapabilities(capabilities),
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  };
}

function statelessHeaders(method: string, protocolVersion: string): Record<string, string> {
  return { 'mcp-method': method, 'mcp-protocol-version': protocolVersion };
}

function withInstructions(session: Session, result: JsonObject): Session {
  return typeof result.instructions === 'string' && result.instructions !== '' ? { ...session, instructions: result.instructions } : session;
}

function serverInfoOf(result: JsonObject): ServerInfo {
  const info = objectOr(result.serverInfo);
  const name = typeof info.name === 'string' && info.name !== '' ? info.name : 'unknown';
  return typeof info.version === 'string' ? { name, version: info.version } : { name };
}
