// The tool activity strip and the research lanes' progress, in Chromium against a real server: work a reader
// watches live is open and its lanes say how far they are; a finished turn read back is one compact line per cycle
// until opened.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserProfile, seriousViolations } from './chromium.ts';
import { askInNewChat, openSignedInProfile, waitForAnswer, waitForCount } from './page-steps.ts';
import { startUiWorld, type UiWorld } from './ui-world.ts';

let world: UiWorld;
let profile: BrowserProfile;
let page: Page;
const lastTurn = () => page.locator('.turn').last();

before(async () => {
  world = await startUiWorld();
  profile = await openSignedInProfile(world.url, world.adminKey);
  page = profile.page;
});
after(async () => {
  await profile?.close();
  await world?.close();
});

const ask = (question: string) => askInNewChat(page, question);

/** Every text a lane's progress line showed while the page watched (sampled every frame). */
async function watchLaneProgress() {
  await page.evaluate(() => {
    const seen = new Set<string>();
    (globalThis as unknown as { laneProgress: Set<string> }).laneProgress = seen;
    const sample = () => {
      for (const line of document.querySelectorAll('.turn:last-of-type li.lane .lane-progress'))
        seen.add(`${line.closest('li.lane')?.getAttribute('aria-label')}: ${line.textContent}`);
      requestAnimationFrame(sample);
    };
    sample();
  });
}

describe('tool activity: compact strips and live lane progress', { timeout: 300_000 }, () => {
  test('research lanes show their progress as it happens: steps, tool calls done, the report', async () => {
    // The agents' tools are held until the page has shown them working: on a loaded machine a fixed tool sleep can
    // end before the page connects, and "live" must not depend on timing.
    const release = world.holdTools();
    const lanes = lastTurn().locator('ul.lanes > li.lane');
    try {
      await ask('Run the research on refunds');
      await watchLaneProgress();
      await waitForCount(page, '.turn:last-of-type ul.lanes > li.lane', 3);
      // Live: the strip is open while the turn runs.
      assert.equal(await lastTurn().locator('.activity-strip').first().getAttribute('aria-expanded'), 'true');
      await page.waitForFunction(
        () =>
          [...(globalThis as unknown as { laneProgress: Set<string> }).laneProgress].some((line) =>
            line.endsWith('history of refunds: 1 step · 0 of 2 tool calls done · working'),
          ),
        undefined,
        { timeout: 30_000 },
      );
    } finally {
      release();
    }
    await waitForAnswer(page, 'Markets doubled last year');
    const history = lanes.filter({ hasText: 'history of refunds' });
    assert.equal(
      await history.locator('.lane-progress').textContent(),
      '1 step · 2 of 2 tool calls done · report written',
    );
    const seen = [
      ...(await page.evaluate(() => [
        ...(globalThis as unknown as { laneProgress: Set<string> }).laneProgress,
      ])),
    ];
    assert.ok(
      seen.some(
        (line) => line === 'Research agent: history of refunds: 1 step · 0 of 2 tool calls done · working',
      ),
      `progress while the agent's tools ran: ${seen.join(' | ')}`,
    );
    assert.deepEqual(await seriousViolations(page), [], 'axe: open lanes');
  });

  test('a finished turn read back is one compact strip per cycle, opened on demand', async () => {
    await ask('Use two sources in parallel: how long do refunds take?');
    await lastTurn().locator('.answer').getByText('returns are accepted within 30 days').waitFor();
    assert.equal(await lastTurn().getByRole('tab').count(), 2, 'live: the tabs are shown');
    await page.reload();
    await lastTurn().locator('.answer').getByText('returns are accepted within 30 days').waitFor();
    const strip = lastTurn().locator('.activity-strip');
    assert.equal(await strip.getAttribute('aria-expanded'), 'false');
    assert.match(
      (await strip.textContent()) ?? '',
      /^2 tools.*Search the handbook.*done.*Open a page.*done.*Show$/,
    );
    assert.equal(await lastTurn().getByRole('tab').count(), 0, 'nothing of the work is drawn while closed');
    assert.deepEqual(await seriousViolations(page), [], 'axe: closed strip');
    await strip.click();
    assert.equal(await strip.getAttribute('aria-expanded'), 'true');
    assert.equal(await lastTurn().getByRole('tab').count(), 2);
    await lastTurn().getByRole('tabpanel').getByText('refund time policy').waitFor();
    await strip.click();
    assert.equal(await lastTurn().getByRole('tab').count(), 0);
  });
});
