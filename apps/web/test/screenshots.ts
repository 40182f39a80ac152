import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where a browser test's screenshots go: docs/screenshots/ (the README's) with TOOLBUS_SCREENSHOTS=1, so they are
 * refreshed on request only; otherwise a temporary folder of this name, so a test run still takes every
 * screenshot yet leaves the checkout clean.
 */
export function screenshotFolder(temporaryName: string): string {
  return process.env.TOOLBUS_SCREENSHOTS === '1'
    ? new URL('../../../docs/screenshots/', import.meta.url).pathname
    : join(tmpdir(), temporaryName);
}
