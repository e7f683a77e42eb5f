/**
 * A server's pattern cannot stall the proxy (issue 21): its tool takes a `code` matching
 * `^(a+)+c$` with at least 40 characters. On JavaScript's backtracking engine, testing forty
 * `a`s against it takes hours (2^40 ways to split them; 25 already take a third of a second),
 * and the proxy runs it twice: the validator checks the client's string, and the explanation
 * samples an example (`sampleString`) by trying candidates such as forty `a`s. Each request
 * below gets a generous bound: that it is answered at all shows the pattern ran in linear time.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers/processes.js';
import { connect, listeningProxy, proxyArgs, textOf } from './helpers.js';

const SERVER = [process.execPath, fixture('catastrophic-pattern.mjs')];
/** Far beyond the milliseconds a linear-time answer takes here, far below the hours a backtracking one would. */
const ANSWERED_WITHIN = { timeout: 15_000 };
const FORTY_AS = 'a'.repeat(40);

describe('a catastrophic pattern in a tool argument', () => {
  it('stdio: a call missing the argument, a call with forty a\'s and a valid one are answered, and a ping after each', async () => {
    const { client, close } = await connect(process.execPath, proxyArgs([], SERVER));
    try {
      const missing = await client.callTool({ name: 'lookup', arguments: {} }, undefined, ANSWERED_WITHIN);
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toContain('^(a+)+c$');
      await client.ping(ANSWERED_WITHIN);

      const forty = await client.callTool({ name: 'lookup', arguments: { code: FORTY_AS } }, undefined, ANSWERED_WITHIN);
      expect(forty.isError).toBe(true);
      expect(textOf(forty)).toContain('pattern');
      await client.ping(ANSWERED_WITHIN);

      const valid = await client.callTool({ name: 'lookup', arguments: { code: `${FORTY_AS}c` } }, undefined, ANSWERED_WITHIN);
      expect(textOf(valid)).toBe(`found ${FORTY_AS}c`);
    } finally {
      await close();
    }
  });

  it('--listen: while one session sends forty a\'s, another session\'s ping is answered', async () => {
    const { url, proxy } = await listeningProxy([], SERVER);
    const session = async (name: string) => {
      const client = new Client({ name, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url));
      return client;
    };
    const [first, second] = await Promise.all([session('first'), session('second')]);
    try {
      const [call, ping] = await Promise.all([first.callTool({ name: 'lookup', arguments: { code: FORTY_AS } }, undefined, ANSWERED_WITHIN), second.ping(ANSWERED_WITHIN)]);
      expect(call.isError).toBe(true);
      expect(ping).toEqual({});
    } finally {
      await Promise.all([first.close(), second.close()]);
      proxy.child.kill('SIGTERM');
      await proxy.exited;
    }
  });
});
