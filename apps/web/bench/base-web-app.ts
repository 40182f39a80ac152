// The web app as another git revision built it (the "before" of a benchmark), served on its own loopback port in
// front of the same API: its files from the build, every /v1/ request passed on to the real server unchanged.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

const repository = new URL('../../../', import.meta.url).pathname;
const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** A served build of another revision's web app. */
export interface BaseWebApp {
  readonly url: string;
  /** The revision, as `git rev-parse --short` names it. */
  readonly revision: string;
  close(): Promise<void>;
}

/**
 * Builds `apps/web` as `revision` has it (extracted under the checkout's ignored `tmp/`, so its imports resolve
 * through this checkout's node_modules) and serves it in front of `apiUrl`.
 */
export async function startBaseWebApp(options: { readonly revision: string; readonly apiUrl: string }) {
  const revision = execFileSync('git', ['rev-parse', '--short', options.revision], { cwd: repository })
    .toString()
    .trim();
  const folder = join(repository, 'tmp', `web-base-${revision}`);
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${revision} apps/web tsconfig.base.json | tar -x -C '${folder}'`], {
    cwd: repository,
  });
  const { build } = await import('vite');
  const root = join(folder, 'apps', 'web');
  await build({
    root,
    configFile: false,
    logLevel: 'warn',
    base: '/',
    oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
    resolve: { conditions: ['development'] },
    build: { outDir: join(root, 'dist'), emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 2000 },
  } as Parameters<typeof build>[0]);
  const dist = join(root, 'dist');
  const api = new URL(options.apiUrl);
  const server = createServer((incoming, response) => {
    const path = (incoming.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith('/v1/')) {
      const upstream = request(
        {
          host: api.hostname,
          port: api.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: api.host },
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.destroy());
      incoming.pipe(upstream);
      return;
    }
    const file = normalize(join(dist, path === '/' ? 'index.html' : path));
    if (!file.startsWith(dist)) {
      response.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (bytes) => {
        response.writeHead(200, {
          'content-type': contentTypes[extname(file)] ?? 'application/octet-stream',
        });
        response.end(bytes);
      },
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    revision,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(folder, { recursive: true, force: true });
    },
  } satisfies BaseWebApp;
}
