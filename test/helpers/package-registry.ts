/**
 * A stand-in npm registry serving packages this test builds, at several versions, whose
 * `latest` tag the test moves: what `npm view`, `npx` and so the Action's watch mode see of a
 * server's releases. Every other request is answered 404 (nothing here reaches the real
 * registry). Listens on loopback only.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface PackageRegistry {
  /** e.g. `http://127.0.0.1:43121/`, what `npm_config_registry` takes. */
  url: string;
  /** Publishes `version` (a package folder's files); `latest` moves to it unless told otherwise. */
  publish(version: string, files: Record<string, string>, options?: { latest?: boolean }): void;
  setLatest(version: string): void;
  close(): Promise<void>;
}

export async function startPackageRegistry(name: string, scratch: string): Promise<PackageRegistry> {
  const versions = new Map<string, { manifest: Record<string, unknown>; tarball: Buffer; file: string }>();
  let latest: string | undefined;
  let url = '';

  const packument = () => ({
    _id: name,
    name,
    'dist-tags': latest === undefined ? {} : { latest },
    versions: Object.fromEntries(
      [...versions].map(([version, { manifest, tarball, file }]) => [
        version,
        { ...manifest, _id: `${name}@${version}`, dist: { tarball: `${url}${name}/-/${file}`, integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`, shasum: createHash('sha1').update(tarball).digest('hex') } },
      ]),
    ),
  });

  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://registry').pathname);
    if (req.method === 'GET' && path === `/${name}`) {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(packument()));
      return;
    }
    const file = path.startsWith(`/${name}/-/`) ? path.slice(`/${name}/-/`.length) : undefined;
    const found = [...versions.values()].find((v) => v.file === file);
    if (req.method === 'GET' && found !== undefined) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': found.tarball.length }).end(found.tarball);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  return {
    url,
    publish(version, files, options = {}) {
      const dir = join(scratch, `${name}-${version}`);
      mkdirSync(dir, { recursive: true });
      const manifest = { name, version, ...(JSON.parse(files['package.json'] ?? '{}') as Record<string, unknown>) };
      for (const [file, text] of Object.entries({ ...files, 'package.json': JSON.stringify(manifest, null, 2) })) writeFileSync(join(dir, file), text);
      const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', scratch], { cwd: dir, encoding: 'utf8' }).trim().split('\n').at(-1) as string;
      versions.set(version, { manifest, tarball: readFileSync(join(scratch, packed)), file: packed });
      if (options.latest !== false) latest = version;
    },
    setLatest(version) {
      latest = version;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
