// axe-core on every page of the web app, in light and dark, at desktop and phone width: one server and one browser,
// each page visited in each of the four looks. The list of pages is read from the router in app.tsx, so a page added
// there and not visited here fails the test instead of going unchecked.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserProfile, openProfile, seriousViolations } from './chromium.ts';
import { startUiWorld, type UiWorld } from './ui-world.ts';

const looks = [
  { colorScheme: 'light', viewport: { width: 1280, height: 800 } },
  { colorScheme: 'dark', viewport: { width: 1280, height: 800 } },
  { colorScheme: 'light', viewport: { width: 390, height: 844 } },
  { colorScheme: 'dark', viewport: { width: 390, height: 844 } },
] as const;

/** Every admin section the router knows: the entries of `adminSections` and every `route.section === '…'`. */
async function routedAdminSections(): Promise<Set<string>> {
  const source = await readFile(new URL('../src/app.tsx', import.meta.url), 'utf8');
  const listed = /const adminSections = \[([\s\S]*?)\] as const;/.exec(source)?.[1];
  assert.ok(listed, 'app.tsx still declares adminSections');
  const sections = new Set([...listed.matchAll(/\[\s*'([a-z-]+)'/g)].map((match) => match[1] ?? ''));
  for (const match of source.matchAll(/route\.section === '([a-z-]+)'/g)) sections.add(match[1] ?? '');
  return sections;
}

/** The top-level routes `routeOf` tells apart (`parts[0] === '…'`). */
async function routedTopLevels(): Promise<Set<string>> {
  const source = await readFile(new URL('../src/app.tsx', import.meta.url), 'utf8');
  return new Set([...source.matchAll(/parts\[0\] === '([a-z-]+)'/g)].map((match) => match[1] ?? ''));
}

const adminPages: Record<string, string> = {
  personas: 'Personas and tools',
  mcp: 'MCP servers',
  skills: 'Skills',
  documents: 'Documents',
  keys: 'API keys',
  apps: 'Connected apps',
  users: 'Users',
  settings: 'Settings',
  organizations: 'Organisations',
};

let world: UiWorld;
let profile: BrowserProfile;
let page: Page;
/** A chat whose turns show what a chat page can: tool tabs and sources, a table and code, a failed run_python. */
let chatId = '';

async function askOverApi(question: string): Promise<void> {
  const response = await fetch(`${world.url}/v1/chats/${chatId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${world.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: question }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  // The stream ends with the turn.
  const text = await response.text();
  assert.match(text, /"type":"stop"/);
}

before(async () => {
  world = await startUiWorld({ stepMs: 50, chunkMs: 1 });
  const created = await fetch(`${world.url}/v1/chats`, {
    method: 'POST',
    headers: { authorization: `Bearer ${world.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Everything on one page' }),
  });
  chatId = ((await created.json()) as { id: string }).id;
  await askOverApi('Use two sources in parallel: how long do refunds take?');
  await askOverApi('Show me a table and code');
  await askOverApi('Please divide by zero');
  profile = await openProfile();
  page = profile.page;
});
after(async () => {
  await profile?.close();
  await world?.close();
});

async function expectNoSeriousViolations(name: string) {
  assert.deepEqual(await seriousViolations(page), [], `${name}: serious or critical axe violations`);
  assert.equal(await page.locator('h1').count(), 1, `${name}: one h1`);
}

describe('axe on every page, light and dark, desktop and phone', { timeout: 300_000 }, () => {
  test('the router has no page this test does not visit', async () => {
    assert.deepEqual([...(await routedAdminSections())].sort(), Object.keys(adminPages).sort());
    // `#/admin/…`, `#/chats/<id>` and `#/` (the welcome page) are the three kinds visited below.
    assert.deepEqual([...(await routedTopLevels())].sort(), ['admin', 'chats']);
  });

  for (const look of looks) {
    const name = `${look.colorScheme} ${look.viewport.width}x${look.viewport.height}`;
    test(`every page: ${name}`, async () => {
      await profile.context.clearCookies();
      await page.setViewportSize(look.viewport);
      await page.emulateMedia({ colorScheme: look.colorScheme });
      await page.goto(`${world.url}/`);
      // The app keeps a chosen theme; with none chosen it follows the system's scheme, as a new visitor's would.
      await page.evaluate(() => localStorage.removeItem('toolbus.theme'));
      await page.reload();
      await page.getByRole('heading', { name: 'Sign in to toolbus' }).waitFor();
      await expectNoSeriousViolations(`${name} sign-in`);
      await page.getByLabel('API key').fill('tb_not_a_key');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
      await expectNoSeriousViolations(`${name} sign-in refused`);
      await page.getByLabel('API key').fill(world.adminKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Chats' }).waitFor();
      assert.equal(
        await page.evaluate(() => document.documentElement.dataset.theme),
        look.colorScheme,
        'the page follows the system colour scheme',
      );
      await expectNoSeriousViolations(`${name} welcome`);

      await page.goto(`${world.url}/#/chats/${chatId}`);
      await page.getByText('The division failed').waitFor();
      await page.getByRole('table').first().waitFor();
      await expectNoSeriousViolations(`${name} chat`);

      for (const [section, heading] of Object.entries(adminPages)) {
        await page.goto(`${world.url}/#/admin/${section}`);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        // Lists load after the heading: wait until nothing says it is loading.
        await page.waitForFunction(() => !document.body.textContent?.includes('Loading…'));
        await expectNoSeriousViolations(`${name} admin ${section}`);
      }
    });
  }
});
