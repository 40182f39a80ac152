// What a user does on the web UI, step by step, as the Chromium tests do it: sign in with an API key, and ask a
// question in a new chat. One owner, so a change to the sign-in form or the composer is one change in the tests.
import type { Page } from 'playwright-core';
import { type BrowserProfile, openProfile } from './chromium.ts';

/** Signs `page` in at `url` with `key` through the sign-in form; resolves once the signed-in app is drawn. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'New chat', exact: true }).first().waitFor();
}

/** A fresh Chromium profile whose page is signed in at `url` with `key`. */
export async function openSignedInProfile(url: string, key: string): Promise<BrowserProfile> {
  const profile = await openProfile();
  try {
    await signIn(profile.page, url, key);
  } catch (failure) {
    await profile.close();
    throw failure;
  }
  return profile;
}

/** Starts a new chat from the chat list; resolves once its empty composer is drawn. */
export async function openNewChat(page: Page): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Chats' })
    .getByRole('button', { name: 'New chat', exact: true })
    .click();
  await page.waitForURL(/#\/chats\//);
  await page.getByText('Ask something to start.').waitFor();
}

/** Sends `text` from the composer; resolves once its turn is drawn. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  await page.locator('.turn').last().waitFor();
}

/** Starts a new chat from the chat list, sends `question`, and resolves once its turn is drawn. */
export async function askInNewChat(page: Page, question: string): Promise<void> {
  await openNewChat(page);
  await sendMessage(page, question);
}

/** Waits until `selector` matches exactly `count` elements: live state (badges, lanes) seen while it lasts. */
export async function waitForCount(
  page: Page,
  selector: string,
  count: number,
  timeout = 30_000,
): Promise<void> {
  await page.waitForFunction(
    (expected) => document.querySelectorAll(expected.selector).length === expected.count,
    { selector, count },
    { timeout },
  );
}

/** Waits until the last turn's answer shows `text` (an answer that comes after long tool work). */
export async function waitForAnswer(page: Page, text: string | RegExp, timeout = 30_000): Promise<void> {
  await page.locator('.turn').last().locator('.answer .markdown').getByText(text).waitFor({ timeout });
}
