/**
 * A stand-in for the npm registry, so that `npx mcp-contract-guard@<version>` runs the packed
 * tarball exactly as it will run the published package: npm asks this server for the package's
 * metadata, gets one version whose `dist.tarball` is the tarball served here (with its sha512
 * integrity, as the registry gives it), installs its dependencies, links its bin and runs it.
 * Every other request (the dependencies' metadata and tarballs) is relayed to the real registry
 * unchanged. Listens on loopback only.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';

export interface LocalRegistry {
  /** e.g. `http://127.0.0.1:43121/`, what `npm_config_registry` takes. */
  url: string;
  name: string;
  version: string;
  /** How many times the tarball itself was downloaded. */
  tarballDownloads(): number;
  close(): Promise<void>;
}

/** The manifest inside a packed tarball (`package/package.json`). */
export function packedManifest(tarball: string): Record<string, unknown> & { name: string; version: string } {
  return JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
}

export async function startLocalRegistry(tarball: string, upstream: string): Promise<LocalRegistry> {
  const bytes = readFileSync(tarball);
  const manifest = packedManifest(tarball);
  const { name, version } = manifest;
  const tarballPath = `/${name}/-/${basename(tarball)}`;
  let downloads = 0;
  let url = '';

  const packument = () => ({
    _id: name,
    name,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        ...manifest,
        _id: `${name}@${version}`,
        dist: {
          tarball: `${url}${tarballPath.slice(1)}`,
          integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
          shasum: createHash('sha1').update(bytes).digest('hex'),
        },
      },
    },
  });

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://registry').pathname;
    if (req.method === 'GET' && decodeURIComponent(path) === `/${name}`) {
      // Never cached: each run serves the tarball it just packed.
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(packument()));
      return;
    }
    if (req.method === 'GET' && path === tarballPath) {
      downloads++;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length }).end(bytes);
      return;
    }
    void relay(req, res, new URL(req.url ?? '/', upstream));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    name,
    version,
    tarballDownloads: () => downloads,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Forwards one request to the real registry and streams its answer back. */
async function relay(req: IncomingMessage, res: ServerResponse, target: URL): Promise<void> {
  try {
    const headers: Record<string, string> = {};
    for (const header of ['accept', 'content-type', 'npm-command']) {
      const value = req.headers[header];
      if (typeof value === 'string') headers[header] = value;
    }
    let body: Buffer | undefined;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      body = Buffer.concat(chunks);
    }
    const answer = await fetch(target, { method: req.method ?? 'GET', headers, body, signal: AbortSignal.timeout(120_000) });
    const out: Record<string, string> = {};
    for (const header of ['content-type', 'etag', 'last-modified', 'cache-control']) {
      const value = answer.headers.get(header);
      if (value !== null) out[header] = value;
    }
    res.writeHead(answer.status, out);
    res.end(Buffer.from(await answer.arrayBuffer()));
  } catch (error) {
    res.writeHead(502, { 'content-type': 'text/plain' }).end(`the registry stand-in could not reach ${target.origin}: ${(error as Error).message}`);
  }
}
