// Debian's chromium driven by playwright-core (which downloads no browser): one fresh profile per context, and
// every process it starts is closed by `close`.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Where the setup script's chromium lives. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A browser profile of its own (cookies, storage), closed with its folder. */
export interface BrowserProfile {
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

/** Opens a fresh chromium profile with one page at `viewport`. */
export async function openProfile(
  options: {
    readonly viewport?: { width: number; height: number };
    readonly colorScheme?: 'light' | 'dark';
  } = {},
): Promise<BrowserProfile> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'toolbus-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: chromiumArgs,
    viewport: options.viewport ?? { width: 1280, height: 900 },
    colorScheme: options.colorScheme ?? 'light',
    timeout: 60_000,
  });
  context.setDefaultTimeout(20_000);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

const require = createRequire(import.meta.url);

/** Runs axe-core in the page; answers the violations of impact serious or critical. */
export async function seriousViolations(
  page: Page,
): Promise<{ id: string; impact: string; nodes: string[] }[]> {
  const source = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol: the page's CSP (scripts from its origin only) stays in force.
  await page.evaluate(source);
  return page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: (
            context: Document,
            options: object,
          ) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({
        id: violation.id,
        impact: violation.impact,
        nodes: violation.nodes.map((node) => node.target.join(' ')),
      }));
  });
}
