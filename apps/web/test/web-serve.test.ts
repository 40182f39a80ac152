// The web UI on the default `toolbus serve`, as a new user meets it: a fresh TOOLBUS_HOME, local mode, Chromium.
// axe on every page is web-axe-every-page.test.ts's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chunkText, type ScriptedRequest, type ScriptedStep } from '@toolbus/core/testing';
import { TITLE_INSTRUCTION } from '@toolbus/server';
import type { Page } from 'playwright-core';
import { type BrowserProfile, openProfile } from './chromium.ts';
import { askInNewChat } from './page-steps.ts';
import { type ServeWorld, startServeWorld } from './serve-world.ts';

const isTitleRequest = (request: ScriptedRequest) =>
  request.messages.some((message) => message.role === 'system' && message.text.startsWith(TITLE_INSTRUCTION));

function handler(request: ScriptedRequest): ScriptedStep[] {
  if (isTitleRequest(request)) return [{ type: 'text', text: 'Title: "Refund timing".' }];
  if (request.lastMessage?.role === 'user' && request.toolNames.includes('internal_search')) {
    return [
      { type: 'tool-call', id: 'call_docs', name: 'internal_search', arguments: { queries: ['refunds'] } },
    ];
  }
  return chunkText('Refunds take 14 days [1].', 4).map((text) => ({ type: 'text', text }));
}

let world: ServeWorld;
let profile: BrowserProfile;
let page: Page;

before(async () => {
  world = await startServeWorld({
    handler,
    documents: { 'refunds.md': '# Refund policy\n\nRefunds take 14 days, paid back to the card.\n' },
  });
  profile = await openProfile();
  page = profile.page;
});
after(async () => {
  await profile?.close();
  await world?.close();
});

describe('web UI on the default toolbus serve', { timeout: 300_000 }, () => {
  test('a new chat is titled by the model after its first answer: in the list, the heading and toolbus history', async () => {
    await page.goto(`${world.url}/`);
    await askInNewChat(page, 'How long do refunds take?');
    await page.locator('.turn').last().locator('.answer').getByText('Refunds take 14 days').waitFor();
    const chats = page.getByRole('navigation', { name: 'Chats' });
    await chats.getByRole('link', { name: 'Refund timing', exact: true }).waitFor({ timeout: 15_000 });
    await page.getByRole('heading', { level: 1, name: 'Refund timing' }).waitFor();
    assert.ok(world.model.requests.some(isTitleRequest), 'the title came from the model');
    const history = await world.cli(['history']);
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, /Refund timing/);
    assert.doesNotMatch(history.stdout, /New chat/);
  });

  test('a source that is an indexed file opens through the server, never as a dead file:// link', async () => {
    const source = page.getByRole('region', { name: 'Sources' }).getByRole('link', { name: 'Refund policy' });
    const href = (await source.getAttribute('href')) ?? '';
    assert.ok(href.startsWith('/v1/documents/text?link=file%3A%2F%2F'), href);
    const [opened] = await Promise.all([page.context().waitForEvent('page'), source.click()]);
    await opened.waitForLoadState();
    const text = (await opened.locator('body').textContent()) ?? '';
    assert.match(text, /Refund policy/);
    assert.match(text, /Refunds take 14 days, paid back to the card\./);
    await opened.close();
    // The citation chip's card links the same way.
    await page.locator('.turn').last().locator('.answer [data-cite="1"]').hover();
    assert.equal(await page.getByRole('tooltip').getByRole('link').getAttribute('href'), href);
  });
});
