/**
 * Which registry package a client configuration's command runs, and the exact version it
 * resolves to. The registry clients are stand-ins here (what `npm view` and `uv pip compile`
 * print); test/cli/pin.test.ts asks the real npm registry. uv is not installed on this machine:
 * its resolver is exercised through this stand-in only.
 */
import { describe, expect, it } from 'vitest';
import { compareVersions, isExact, packageOf, resolveVersion, withVersion, type Runner } from '../../src/pin/packages.js';

describe('the package a command runs', () => {
  const cases: Array<[string, string[], { registry: string; name: string; requested: string } | undefined, string[] | undefined]> = [
    ['npx', ['-y', '@modelcontextprotocol/server-everything'], { registry: 'npm', name: '@modelcontextprotocol/server-everything', requested: '' }, ['-y', '@modelcontextprotocol/server-everything@1.2.3']],
    ['npx', ['--yes', 'mcp-server@latest', '--port', '1'], { registry: 'npm', name: 'mcp-server', requested: 'latest' }, ['--yes', 'mcp-server@1.2.3', '--port', '1']],
    ['/usr/local/bin/npx', ['-y', '--registry', 'https://r.example', 'pkg@^2'], { registry: 'npm', name: 'pkg', requested: '^2' }, ['-y', '--registry', 'https://r.example', 'pkg@1.2.3']],
    ['npx', ['--package=@scope/tool@1.0.0', 'tool-bin'], { registry: 'npm', name: '@scope/tool', requested: '1.0.0' }, ['--package=@scope/tool@1.2.3', 'tool-bin']],
    ['npx', ['-p', 'pkg', 'bin'], { registry: 'npm', name: 'pkg', requested: '' }, ['-p', 'pkg@1.2.3', 'bin']],
    ['npx', ['github:owner/repo'], undefined, undefined],
    ['npx', ['./local-server'], undefined, undefined],
    ['uvx', ['mcp-server-fetch'], { registry: 'pypi', name: 'mcp-server-fetch', requested: '' }, ['mcp-server-fetch@1.2.3']],
    ['uvx', ['mcp-server-time', '--local-timezone=Europe/Paris'], { registry: 'pypi', name: 'mcp-server-time', requested: '' }, ['mcp-server-time@1.2.3', '--local-timezone=Europe/Paris']],
    ['uvx', ['--python', '3.12', 'pkg[cli]==0.4.0'], { registry: 'pypi', name: 'pkg', requested: '0.4.0' }, ['--python', '3.12', 'pkg[cli]@1.2.3']],
    ['uvx', ['--from', 'awslabs.core-mcp-server@latest', 'core-server'], { registry: 'pypi', name: 'awslabs.core-mcp-server', requested: 'latest' }, ['--from', 'awslabs.core-mcp-server==1.2.3', 'core-server']],
    ['uv', ['tool', 'run', 'mcp-server-git'], { registry: 'pypi', name: 'mcp-server-git', requested: '' }, ['tool', 'run', 'mcp-server-git@1.2.3']],
    ['uvx', ['--from', 'git+https://github.com/o/r', 'srv'], undefined, undefined],
    ['node', ['server.js'], undefined, undefined],
    ['docker', ['run', '-i', 'mcp/github'], undefined, undefined],
  ];
  for (const [command, args, expected, rewritten] of cases) {
    it(`${command} ${args.join(' ')}`, () => {
      const pkg = packageOf(command, args);
      if (expected === undefined) {
        expect(pkg).toBeUndefined();
        return;
      }
      expect(pkg).toMatchObject(expected);
      expect(withVersion(args, pkg!, '1.2.3')).toEqual(rewritten);
    });
  }

  it('tells an exact version from a tag or a range', () => {
    expect(isExact(packageOf('npx', ['pkg@1.2.3'])!)).toBe(true);
    expect(isExact(packageOf('npx', ['pkg@1.2.3-beta.1'])!)).toBe(true);
    expect(isExact(packageOf('npx', ['pkg@1.2'])!)).toBe(false);
    expect(isExact(packageOf('uvx', ['pkg==2024.1.5'])!)).toBe(true);
    expect(isExact(packageOf('uvx', ['pkg@latest'])!)).toBe(false);
  });
});

describe('resolving a version', () => {
  const calls: Array<{ program: string; args: string[]; input?: string }> = [];
  const client =
    (out: string): Runner =>
    async (program, args, input) => {
      calls.push({ program, args, ...(input !== undefined ? { input } : {}) });
      return out;
    };

  it('npm: the highest version the registry lists for the range', async () => {
    const version = await resolveVersion(packageOf('npx', ['-y', 'pkg@2025.9'])!, client('["2025.9.12", "2025.9.25", "2025.9.3"]\n'));
    expect(version).toBe('2025.9.25');
    expect(calls.at(-1)).toEqual({ program: 'npm', args: ['view', 'pkg@2025.9', 'version', '--json'] });
    expect(await resolveVersion(packageOf('npx', ['pkg'])!, client('"3.1.0"\n'))).toBe('3.1.0');
    expect(calls.at(-1)?.args[1]).toBe('pkg@latest');
  });

  it('an exact version asks no registry', async () => {
    const before = calls.length;
    expect(await resolveVersion(packageOf('npx', ['pkg@1.0.0'])!, client('never read'))).toBe('1.0.0');
    expect(calls.length).toBe(before);
  });

  it("PyPI: the version uv's resolver pins the package to (names compared as PEP 503 says)", async () => {
    const out = 'anyio==4.9.0\nawslabs-core-mcp-server==1.0.12\nhttpx==0.28.1\n';
    expect(await resolveVersion(packageOf('uvx', ['--from', 'awslabs.core-mcp-server', 'srv'])!, client(out))).toBe('1.0.12');
    expect(calls.at(-1)).toEqual({ program: 'uv', args: ['pip', 'compile', '-', '--quiet', '--no-header', '--no-annotate'], input: 'awslabs.core-mcp-server\n' });
  });

  it('a failing client is an error that says which command failed and why', async () => {
    const failing: Runner = async () => {
      throw Object.assign(new Error('spawn uv ENOENT'), { code: 'ENOENT' });
    };
    await expect(resolveVersion(packageOf('uvx', ['mcp-server-fetch'])!, failing)).rejects.toThrow(`uv's resolver ("uv pip compile") failed for mcp-server-fetch (the program is not installed)`);
    await expect(resolveVersion(packageOf('npx', ['pkg@^9'])!, client('[]'))).rejects.toThrow('the npm registry has no version of pkg matching "^9"');
  });

  it('orders versions by their numbers, a pre-release before its release', () => {
    expect(['1.10.0', '1.2.0', '1.2.0-rc.1', '2025.9.3', '2025.9.25'].sort(compareVersions)).toEqual(['1.2.0-rc.1', '1.2.0', '1.10.0', '2025.9.3', '2025.9.25']);
  });
});
