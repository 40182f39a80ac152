// Transient failures in Chromium against the real server's rate limit and a real network cut: a send refused
// with 429 (or lost on the way) says so in words, keeps the typed message and offers Retry once the server's
// Retry-After has passed; reads (the page's own loads and the turn's stream) try again by themselves, saying so.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserProfile, seriousViolations } from './chromium.ts';
import { type CuttableProxy, startCuttableProxy } from './cuttable-proxy.ts';
import { openNewChat, openSignedInProfile } from './page-steps.ts';
import { startUiWorld, type UiWorld } from './ui-world.ts';

// 20 a minute: one request's allowance comes back every 3 s, so the server's Retry-After is 1–3 s.
const perMinute = 20;
let world: UiWorld;
let proxy: CuttableProxy;
let profile: BrowserProfile;
let page: Page;

before(async () => {
  world = await startUiWorld({ requestsPerMinute: perMinute });
  proxy = await startCuttableProxy(world.url);
  // Through the proxy, so the network can be cut under the page.
  profile = await openSignedInProfile(proxy.url, world.adminKey);
  page = profile.page;
});
after(async () => {
  await profile?.close();
  await proxy?.close();
  await world?.close();
});

/** Spends the admin's allowance (the page's user) on the real limiter until it answers 429; answers its wait. */
async function spendAllowance(): Promise<number> {
  for (let sent = 0; sent < perMinute * 3; sent += 1) {
    const answer = await fetch(`${world.url}/v1/me`, {
      headers: { authorization: `Bearer ${world.adminKey}` },
    });
    await answer.arrayBuffer();
    if (answer.status === 429) return Number(answer.headers.get('retry-after'));
  }
  throw new Error('the server never limited the rate');
}

const box = () => page.getByRole('textbox', { name: 'Message' });
const lastTurn = () => page.locator('.turn').last();

describe('transient failures: words, a retry, nothing lost', { timeout: 240_000 }, () => {
  test('a send refused with 429 keeps the message and offers Retry after Retry-After', async () => {
    await openNewChat(page);
    await box().fill('hello after a pause');
    const wait = await spendAllowance();
    assert.ok(wait >= 1, `Retry-After: ${wait}`);
    await box().press('Enter');
    const failure = page.locator('.send-failure');
    await failure.waitFor();
    const words = (await failure.textContent()) ?? '';
    assert.match(
      words,
      /Your message was not sent\. Too many requests: the server asks you to wait \d+ seconds?\./,
    );
    assert.doesNotMatch(words, /429|rate_limited/, 'no codes shown to people');
    assert.equal(await failure.getAttribute('role'), 'alert');
    // Not pressable until the server's wait has passed; the message is still in the box.
    const retry = failure.getByRole('button');
    assert.match((await retry.textContent()) ?? '', /^Retry in \d+ s$/);
    assert.equal(await retry.isDisabled(), true);
    assert.equal(await box().inputValue(), 'hello after a pause');
    assert.equal(await page.locator('.turn').count(), 0, 'nothing was sent');
    assert.deepEqual(await seriousViolations(page), []);
    await failure.getByRole('button', { name: 'Retry', exact: true }).click({ timeout: 10_000 });
    await lastTurn().getByText('Hello! Ask me something.').waitFor({ timeout: 30_000 });
    assert.equal(await lastTurn().locator('.user-message').textContent(), 'hello after a pause');
    assert.equal(await box().inputValue(), '');
    assert.equal(await failure.count(), 0);
    assert.equal(await page.locator('.turn').count(), 1, 'sent once');
  });

  test('reads refused with 429 try again by themselves, saying so, and the page loads', async () => {
    const chatUrl = page.url();
    await spendAllowance();
    await page.reload();
    const banner = page.locator('.retry-banner');
    await banner.waitFor();
    assert.match(
      (await banner.textContent()) ?? '',
      /^Too many requests: the server asks you to wait \d+ seconds?\. Trying again (in \d+ s)?…$/,
    );
    assert.equal(await banner.getAttribute('role'), 'status');
    // No reload pressed: the page, the chat and its turn's stream all arrive once the allowance is back.
    await lastTurn().getByText('Hello! Ask me something.').waitFor({ timeout: 60_000 });
    await banner.waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(page.url(), chatUrl);
    assert.equal(await page.getByRole('alert').count(), 0, 'no failure left on the page');
  });

  test('a send lost to a network cut keeps the message; Retry sends it once the network is back', async () => {
    await box().fill('second question, sent through a cut');
    proxy.cut(4000);
    const cutUntil = Date.now() + 4000;
    await box().press('Enter');
    const failure = page.locator('.send-failure');
    await failure.waitFor();
    assert.match((await failure.textContent()) ?? '', /The connection to the server was lost\./);
    assert.equal(await box().inputValue(), 'second question, sent through a cut');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, cutUntil - Date.now() + 200)));
    await failure.getByRole('button', { name: 'Retry', exact: true }).click({ timeout: 10_000 });
    await page.locator('.turn').nth(1).getByText('Hello! Ask me something.').waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('.turn').count(), 2);
    assert.equal(await box().inputValue(), '');
  });
});
