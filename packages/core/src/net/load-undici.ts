import { createRequire } from 'node:module';

/**
 * undici, loaded on first use rather than at import. The package root of @toolbus/core (and `toolbus`) then
 * imports on any Node.js; undici 8 itself needs Node.js 22, which is what toolbus requires at run time.
 */
export function loadUndici(): typeof import('undici') {
  return createRequire(import.meta.url)('undici') as typeof import('undici');
}
