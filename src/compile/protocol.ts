import { isJsonObject, objectOr, type JsonObject, type ProtocolEra, type ServerInfo } from '../contract/model.js';
import { ChannelError, RpcError, type RpcChannel } from './channel.js';

/** What we send in `initialize`: the newest revision of the handshake era. */
export const HANDSHAKE_PROTOCOL_VERSION = '2025-11-25';
/** The stateless revision: no handshake, `server/discover`, `_meta` on every request. */
export const STATELESS_PROTOCOL_VERSION = '2026-07-28';
const CLIENT_INFO = { name: 'mcp-contract-guard', version: '0.1.0' };

export interface Session {
  era: ProtocolEra;
  protocolVersion: string;
  server: ServerInfo;
  capabilities: JsonObject;
  /** Agent-visible guidance the server sends with its handshake, when it sends any. */
  instructions?: string;
}

/** More entries than any real server lists; past it the server is paginating forever. */
export const MAX_ENTRIES = 10_000;

/**
 * Open a session in whichever protocol generation the server speaks. `initialize` first,
 * because that is what almost every server answers today; a server that only speaks the
 * stateless revision rejects it with a JSON-RPC error, and we then ask `server/discover`.
 */
export async function openSession(channel: RpcChannel, timeoutMs: number): Promise<Session> {
  let handshakeError: RpcError;
  try {
    const result = await channel.request(
      'initialize',
      { protocolVersion: HANDSHAKE_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
      { timeoutMs },
    );
    const protocolVersion = typeof result.protocolVersion === 'string' ? result.protocolVersion : HANDSHAKE_PROTOCOL_VERSION;
    channel.setProtocolVersion?.(protocolVersion);
    await channel.notify('notifications/initialized');
    return withInstructions({ era: 'legacy', protocolVersion, server: serverInfoOf(result), capabilities: objectOr(result.capabilities) }, result);
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    handshakeError = error;
  }
  try {
    const result = await channel.request('server/discover', { _meta: requestMeta(STATELESS_PROTOCOL_VERSION) }, {
      timeoutMs,
      headers: statelessHeaders('server/discover', STATELESS_PROTOCOL_VERSION),
    });
    const supported = Array.isArray(result.supportedVersions) ? result.supportedVersions.filter((v) => typeof v === 'string') : [];
    const protocolVersion = supported.includes(STATELESS_PROTOCOL_VERSION)
      ? STATELESS_PROTOCOL_VERSION
      : ((supported.sort().at(-1) as string | undefined) ?? STATELESS_PROTOCOL_VERSION);
    channel.setProtocolVersion?.(protocolVersion);
    return withInstructions({ era: 'stateless', protocolVersion, server: serverInfoOf(result), capabilities: objectOr(result.capabilities) }, result);
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
 * Stops with an error on a cursor seen before or past `MAX_ENTRIES`: a broken server must not
 * make us loop. List-level fields (`nextCursor`, `_meta`, cache hints) are not kept.
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
    if (session.era === 'stateless') params._meta = requestMeta(session.protocolVersion);
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
    cursors.add(next);
    cursor = next;
  }
}

function requestMeta(protocolVersion: string): JsonObject {
  return {
    'io.modelcontextprotocol/protocolVersion': protocolVersion,
    'io.modelcontextprotocol/clientCapabilities': {},
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
