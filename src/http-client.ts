/**
 * What every HTTP exchange with a server shares (compile's channel, the proxy's upstream): how
 * redirects are followed, how much of a body is read, and how the older transport shows.
 *
 * Redirects are followed by hand. fetch's own `redirect: 'follow'` forwards every header
 * to wherever a redirect points: it drops `Authorization` on a cross-origin hop, but not an
 * `X-Api-Key` or any other header that holds a secret. Here the method and body are kept (an
 * MCP endpoint that moved, such as /mcp to /mcp/, still takes POSTs), and once a hop leaves the
 * first URL's origin, the headers for another origin are sent for the rest of the chain.
 *
 * Bodies are read up to a limit, never whole (`readBody`): what a server sends must not grow
 * our memory without bound.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * How a server of the older HTTP+SSE transport (protocol 2024-11-05) answers a POST to its
 * stream's URL: no such route (404), GET only (405), or a GET handler reading a body it does
 * not expect (400). Per the specification's backwards-compatibility rule, a client then GETs
 * the URL, expecting an event stream whose first event names the endpoint for messages.
 * Never 401 or 403: an authentication failure is the user's to fix under any transport.
 */
export const REFUSED_BY_OLDER_SERVERS: ReadonlySet<number> = new Set([400, 404, 405]);

/** Redirects followed for one request: an http→https hop and a path that moved, with room to spare. More is a loop. */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A redirect that is not followed: a loop, or to an address that is not HTTP. The message reads after the URL. */
export class RedirectError extends Error {
  override readonly name = 'RedirectError';
}

export interface FetchRequest {
  method: 'GET' | 'POST' | 'DELETE';
  body?: string | undefined;
  signal: AbortSignal;
  /** The headers of each hop: `sameOrigin` is false from the first hop that leaves the URL's origin on. */
  headers: (sameOrigin: boolean) => Record<string, string>;
}

export async function fetchFollowingRedirects(url: string | URL, { method, body, signal, headers }: FetchRequest): Promise<Response> {
  let at = new URL(url);
  const origin = at.origin;
  let sameOrigin = true;
  for (let hop = 0; ; hop++) {
    const response = await fetch(at, { method, headers: headers(sameOrigin), body, redirect: 'manual', signal });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    await response.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw new RedirectError(`redirected more than ${MAX_REDIRECTS} times (a redirect loop?)`);
    const next = new URL(location, at);
    if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new RedirectError(`redirected to a ${next.protocol} address, which is not HTTP`);
    sameOrigin &&= next.origin === origin;
    at = next;
  }
}

/** A body's text, read up to `limit` bytes; undefined when it is longer (the rest is not read). */
export async function readBody(response: Response, limit: number): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > limit) return undefined;
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** What GETting a URL of the older HTTP+SSE transport found. */
export type OlderTransportStream =
  /** The stream named this endpoint, on the URL's origin, and is read on into `onEvent`. */
  | { found: 'endpoint'; endpoint: URL; status: number }
  /** An event stream whose endpoint is not to be used: not a URL, or on another origin. */
  | { found: 'unusable endpoint'; status: number; text: string; origin?: string }
  /** No such stream here (no event stream, none that named an endpoint in time, a network error). */
  | { found: 'nothing' };

export interface OlderTransportOptions {
  /** GETs the URL under the caller's header and redirect rules. */
  get: (signal: AbortSignal) => Promise<Response>;
  url: URL;
  /** How long the stream may take to name its endpoint. */
  timeoutMs: number;
  /** Ends the stream (the session's stop or close). */
  signal: AbortSignal;
  /** The largest event read, in characters: past it the stream ends (`onEnd('overflow')`). */
  maxEventChars: number;
  /** Every event after the endpoint's. */
  onEvent: (event: EventSourceMessage) => void;
  /** The stream ended: closed by the server, broken off, or an event over the limit (even before the endpoint). */
  onEnd: (how: 'closed' | 'broken' | 'overflow') => void;
}

/**
 * Open the event stream of a server of the older HTTP+SSE transport (protocol 2024-11-05), as
 * the specification's backwards-compatibility rule finds it: a GET of the URL whose first
 * event, `endpoint`, names where to POST messages. The endpoint must be on the URL's own
 * origin, since the user's headers go there. Once it is named, the stream is read on, into
 * `onEvent`, until it ends or `signal` aborts; otherwise it is not read on.
 */
export async function openOlderTransportStream({ get, url, timeoutMs, signal, maxEventChars, onEvent, onEnd }: OlderTransportOptions): Promise<OlderTransportStream> {
  const gaveUp = new AbortController();
  const timer = setTimeout(() => gaveUp.abort(), timeoutMs);
  let named = false;
  try {
    const response = await get(AbortSignal.any([signal, gaveUp.signal]));
    if (!response.ok || !(response.headers.get('content-type') ?? '').includes('text/event-stream') || !response.body) {
      await response.body?.cancel();
      return { found: 'nothing' };
    }
    let endpointEvent: (text: string | undefined) => void = () => {};
    const endpoint = new Promise<string | undefined>((resolve) => (endpointEvent = resolve));
    let overflow = false;
    const parser = createParser({
      maxBufferSize: maxEventChars,
      onError: (error) => void (overflow ||= error.type === 'max-buffer-size-exceeded'),
      onEvent: (event) => {
        if (named) onEvent(event);
        else if (event.event === 'endpoint') endpointEvent(event.data.trim());
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async (): Promise<'closed' | 'broken' | 'overflow'> => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return 'closed';
          parser.feed(value);
          if (overflow) return 'overflow';
        }
      } catch {
        return 'broken';
      } finally {
        await reader.cancel().catch(() => {});
      }
    })().then((how) => {
      endpointEvent(undefined);
      onEnd(how);
    });
    const text = await endpoint;
    if (text === undefined) return { found: 'nothing' };
    const base = response.url || url.href;
    if (!URL.canParse(text, base)) return { found: 'unusable endpoint', status: response.status, text };
    const target = new URL(text, base);
    if (target.origin !== url.origin) return { found: 'unusable endpoint', status: response.status, text, origin: target.origin };
    named = true;
    return { found: 'endpoint', endpoint: target, status: response.status };
  } catch {
    return { found: 'nothing' };
  } finally {
    clearTimeout(timer);
    // Not this transport after all: its stream is not read on.
    if (!named) gaveUp.abort();
  }
}
