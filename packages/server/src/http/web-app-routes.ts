import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { Hono } from 'hono';

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The page's policy: scripts and connections only from this origin, no framing, no plugins. Model output is
 * rendered as sanitised HTML, and this is the second line behind the sanitiser.
 */
export const WEB_APP_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/**
 * Serves a built single-page app from `root` at `/`: its files as they are (hashed `/assets/` files cached for a
 * year), and `index.html` for any other GET outside the API, so the app's own routes survive a reload. API paths
 * (`/v1/…`, `/openapi.json`, `/health`) are never answered here.
 */
export function mountWebApp(app: Hono, root: string): void {
  const base = normalize(root.endsWith(sep) ? root : `${root}${sep}`);
  const send = async (path: string, cache: string): Promise<Response | undefined> => {
    const file = normalize(join(base, path));
    if (!file.startsWith(base)) return undefined;
    try {
      if (!(await stat(file)).isFile()) return undefined;
      const bytes = await readFile(file);
      return new Response(bytes, {
        headers: {
          'content-type': contentTypes[extname(file)] ?? 'application/octet-stream',
          'cache-control': cache,
          'x-content-type-options': 'nosniff',
          'content-security-policy': WEB_APP_CONTENT_SECURITY_POLICY,
          'referrer-policy': 'no-referrer',
        },
      });
    } catch {
      return undefined;
    }
  };
  app.get('*', async (context, next) => {
    let path: string;
    try {
      path = decodeURIComponent(context.req.path);
    } catch {
      return next();
    }
    if (path.startsWith('/v1/') || path === '/v1' || path === '/openapi.json' || path === '/health') {
      return next();
    }
    if (path.startsWith('/assets/')) {
      return (await send(path, 'public, max-age=31536000, immutable')) ?? next();
    }
    if (path !== '/' && extname(path) !== '') {
      return (await send(path, 'no-cache')) ?? next();
    }
    return (await send('index.html', 'no-cache')) ?? next();
  });
}
