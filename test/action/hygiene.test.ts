/** What the Action writes about untrusted text: never a workflow command in the log, never a credential anywhere. */
import { describe, expect, test } from 'vitest';
import { inert } from '../../src/github/io/log.js';
import { REDACTED, Redactor, redactUrl } from '../../src/github/io/redact.js';
import { workflowCommands } from './harness.js';

/** The lines a runner would process as workflow commands, but the one that resumes. */
const commandsIn = (stdout: string) => workflowCommands(stdout).map((c) => c.line);

describe('log lines', () => {
  const hostile = [
    'inventory\n::error::forged annotation',
    'x\n   ::add-mask::ghp_token',
    '\u00a0::set-output name=gate::pass',
    'name\r::stop-commands::abc\n::error::after',
    'a ##[add-mask]secret in the middle',
    'lint: tool "x" description says\n  ::warning file=a.ts::look here',
  ];

  test.each(hostile)('%j reaches the log as text', (text) => {
    // The check is meaningful: unwrapped, each would be a command.
    expect(commandsIn(text)).not.toEqual([]);
    // Wrapped, the only command is the Action's own pause.
    expect(commandsIn(inert(text, 'f00d'))).toEqual(['::stop-commands::f00d']);
    expect(inert(text)).toContain(text);
  });

  test('ordinary text is left alone; the token is random', () => {
    expect(inert('Reviewing 2 servers against the base of PR #7 (main @ abc1234).')).toBe('Reviewing 2 servers against the base of PR #7 (main @ abc1234).');
    expect(inert('tool a::b and c::d')).toBe('tool a::b and c::d');
    const a = inert('::error::x');
    const b = inert('::error::x');
    expect(a).toMatch(/^::stop-commands::[0-9a-f]{32}\n::error::x\n::[0-9a-f]{32}::$/);
    expect(a).not.toBe(b);
  });

  test('text that holds a guessed resume token stays inert', () => {
    const wrapped = inert('::stop-commands::x\n::x::\n::error::still text', 'real0token');
    expect(commandsIn(wrapped)).toEqual(['::stop-commands::real0token']);
  });
});

describe('credentials', () => {
  test('a URL keeps its shape, its user:password and secret query values become ***', () => {
    expect(redactUrl('https://bob:hunter2xyz@mcp.example.com/mcp')).toBe('https://***@mcp.example.com/mcp');
    expect(redactUrl('https://ghp_abcdef123456@mcp.example.com/mcp')).toBe('https://***@mcp.example.com/mcp');
    expect(redactUrl('https://mcp.example.com/mcp?api_key=k3y-v4lue&region=eu&X-Amz-Signature=abcd1234')).toBe(
      'https://mcp.example.com/mcp?api_key=***&region=eu&X-Amz-Signature=***',
    );
    expect(redactUrl('http://localhost:3000/mcp')).toBe('http://localhost:3000/mcp');
    expect(redactUrl('not a url')).toBe('not a url');
  });

  test('every registered secret is reported once and replaced wherever it lands, JSON-escaped too', () => {
    const registered: string[] = [];
    const redactor = new Redactor((s) => registered.push(s));
    redactor.addUrl('https://bob:p%40ssw0rd!@mcp.example.com/mcp?token=t0k3n-value');
    redactor.addHeaderValues({ Authorization: 'Bearer s3cr"et-bearer', 'X-Team': 'ab' });
    redactor.addHeaderValues({ Authorization: 'Bearer s3cr"et-bearer' });
    expect(registered).toEqual(['p%40ssw0rd!', 'p@ssw0rd!', 't0k3n-value', 'Bearer s3cr"et-bearer', 's3cr"et-bearer']);
    const text = [
      'could not reach https://bob:p%40ssw0rd!@mcp.example.com/mcp?token=t0k3n-value (ECONNREFUSED)',
      JSON.stringify({ error: 'header was Bearer s3cr"et-bearer', password: 'p@ssw0rd!' }),
      "--url 'https://bob:p%40ssw0rd!@mcp.example.com/mcp?token=t0k3n-value' --header \"Authorization: s3cr\"et-bearer\"",
    ].join('\n');
    const redacted = redactor.redact(text);
    for (const secret of registered) expect(redacted).not.toContain(secret);
    expect(redacted).not.toMatch(/w0rd|t0k3n|et-bearer/);
    expect(redacted).toContain(`https://${REDACTED}@mcp.example.com/mcp?token=${REDACTED}`);
    // Short values are no secret worth garbling the log for.
    expect(redactor.redact('team ab')).toBe('team ab');
  });

  test("the step's secret-bearing variables and the ones passed by name; each found percent- and base64-encoded at any offset", () => {
    const registered: string[] = [];
    const redactor = new Redactor((s) => registered.push(s));
    const env = { 'INPUT_GITHUB-TOKEN': 'ghs_t0kenValue1', ACTIONS_RUNTIME_TOKEN: 'rt-0123456789', OPENAI_API_KEY: 'sk-abcdef', HOME: '/home/runner', PWD: '/home/runner/work', ACTIONS_ID_TOKEN_REQUEST_URL: 'https://example/idtoken', WEATHER: 'sunny/days' };
    redactor.addEnvironment(env, ['weather']);
    expect(registered.sort()).toEqual(['ghs_t0kenValue1', 'rt-0123456789', 'sk-abcdef', 'sunny/days']);
    for (const secret of registered) {
      for (const before of ['', 'a', 'ab', 'x-access-token:']) {
        for (const encoding of ['base64', 'base64url'] as const) {
          const encoded = Buffer.from(`${before}${secret}!`).toString(encoding);
          const redacted = redactor.redact(`AUTHORIZATION: basic ${encoded}`);
          expect(redacted, `${secret} after "${before}" in ${encoding}`).toContain(REDACTED);
          // What is left decodes to at most two bytes of the secret at each end.
          for (const part of redacted.slice('AUTHORIZATION: basic '.length).split(REDACTED)) expect(Buffer.from(part, encoding).toString('latin1')).not.toContain(secret.slice(0, 3));
        }
      }
      expect(redactor.redact(`?q=${encodeURIComponent(secret)}`)).toBe(`?q=${REDACTED}`);
    }
  });
});
