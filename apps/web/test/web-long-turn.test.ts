// A turn of 5,000 steps in Chromium against a real server: the agent's level is virtualised, so the page mounts a
// screenful of steps (not 5,000), scrolling reaches the last step and back, and axe stays clean.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserProfile, seriousViolations } from './chromium.ts';
import { askInNewChat, openSignedInProfile } from './page-steps.ts';
import { startUiWorld, type UiWorld } from './ui-world.ts';

const steps = 5000;
/** At most this many elements in the whole turn: 5,000 drawn steps would be well over 50,000. */
const mountedAtMost = 2500;
let world: UiWorld;
let profile: BrowserProfile;
let page: Page;

before(async () => {
  world = await startUiWorld({ chunkMs: 1 });
  profile = await openSignedInProfile(world.url, world.adminKey);
  page = profile.page;
});
after(async () => {
  await profile?.close();
  await world?.close();
});

const turn = () => page.locator('.turn').last();
const elementsInTurn = () =>
  page.evaluate(() => document.querySelector('.turn')?.querySelectorAll('*').length ?? 0);
const stepShown = (step: number) => turn().getByText(`long step ${step} done`, { exact: true });

describe('a very long turn is virtualised', { timeout: 300_000 }, () => {
  test('5,000 steps watched live: a screenful mounted, every step reachable by scrolling', async () => {
    await askInNewChat(page, `Do a long run of ${steps} steps`);
    await turn().getByText('The long run is over: every step reported.').waitFor({ timeout: 180_000 });
    const level = turn().locator('.level-virtual');
    assert.equal(await level.getAttribute('data-virtual-count'), String(steps));
    const mounted = Number(await level.getAttribute('data-mounted'));
    assert.ok(mounted > 0 && mounted < 60, `${mounted} steps mounted`);
    const elements = await elementsInTurn();
    assert.ok(elements < mountedAtMost, `${elements} elements in the turn`);
    await stepShown(0).waitFor();
    assert.equal(await stepShown(steps - 1).count(), 0, 'the last step is not drawn while far out of view');
    // The whole height is there (spacers): scrolling to the end draws the last steps, and the report.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await stepShown(steps - 1).waitFor();
    await turn().getByText(`Long run long_0: ${steps} steps.`).waitFor();
    assert.equal(await stepShown(0).count(), 0, 'the first step is unmounted once far out of view');
    assert.ok((await elementsInTurn()) < mountedAtMost);
    // A step in the middle, reached by scrolling there, stays where the reader put it once it has been measured.
    const middle = await level.evaluate((element) => {
      const top = element.getBoundingClientRect().top + window.scrollY;
      return top + (element.getBoundingClientRect().height * 2500) / 5000;
    });
    await page.evaluate((y) => window.scrollTo(0, y), middle);
    // Wait for what is asserted, not for some item: until the list re-renders for the new position the items of
    // the end of the turn are still mounted (the first of them below the fold is no middle step), and a step drawn
    // at its estimated height moves once measured. So: a middle step in view, in the same place on two frames.
    const visible = await page
      .waitForFunction(
        (range) => {
          const item = [...document.querySelectorAll<HTMLElement>('.level-virtual .virtual-item')].find(
            (element) => {
              const top = element.getBoundingClientRect().top;
              return top >= 0 && top < window.innerHeight;
            },
          );
          const place = item && `${item.dataset.index} at ${item.getBoundingClientRect().top}`;
          const seen = window as { lastPlace?: string | undefined };
          const settled = place !== undefined && place === seen.lastPlace;
          seen.lastPlace = place;
          const index = Number(item?.dataset.index);
          return settled && index > range.from && index < range.to ? String(index) : undefined;
        },
        { from: 1000, to: 4000 },
        { polling: 'raf', timeout: 30_000 },
      )
      .then((handle) => handle.jsonValue())
      .catch(async () => {
        const place = await page.evaluate(() => (window as { lastPlace?: string }).lastPlace);
        assert.fail(
          `step ${place} in view after scrolling to the middle: a step from 1001 to 3999 was expected`,
        );
      });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const still = await page.evaluate(
      (index) =>
        document.querySelector(`.level-virtual .virtual-item[data-index="${index}"]`)?.getBoundingClientRect()
          .top ?? -1,
      visible,
    );
    assert.ok(still >= 0 && still < 900, `step ${visible} is still in view (top ${still})`);
    assert.deepEqual(await seriousViolations(page), []);
  });

  test('the same turn read back: closed until opened, then a screenful mounted', async () => {
    await page.reload();
    await turn().getByText('The long run is over: every step reported.').waitFor({ timeout: 60_000 });
    await turn().locator('.activity-strip').first().click();
    const level = turn().locator('.level-virtual');
    await level.waitFor();
    assert.ok(Number(await level.getAttribute('data-mounted')) < 60);
    assert.ok((await elementsInTurn()) < mountedAtMost);
    // Each step read back is a closed strip of its own; scrolling to the end mounts the last ones.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await level.locator(`.virtual-item[data-index="${steps - 1}"] .activity-strip`).waitFor();
    assert.equal(await level.locator('.virtual-item[data-index="0"]').count(), 0);
    assert.ok((await elementsInTurn()) < mountedAtMost);
  });
});
