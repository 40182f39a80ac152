// `npm run bench -- web-ui`: the cost of drawing one big turn in Chromium, before (the web app as BENCH_BASE, default
// `main`, built it) and after (this checkout), side by side in one run against one real server. A turn of about
// 10,000 packets (four parallel tools, each a sub-agent with steps of two parallel tools of its own, then the
// answer) is drawn live as it streams, then replayed twice by opening the finished chat again. Measured in the page:
// long tasks (PerformanceObserver, type longtask: any task over 50 ms), and through the DevTools protocol the
// script, layout and style time of each load.
import type { Page } from 'playwright-core';
import { openProfile } from '../test/chromium.ts';
import { startUiWorld } from '../test/ui-world.ts';
import { startBaseWebApp } from './base-web-app.ts';
import { traceMainThread } from './main-thread-trace.ts';

const perTool = 2_400;
const world = await startUiWorld({ chunkMs: 1 });
const base = await startBaseWebApp({ revision: process.env.BENCH_BASE ?? 'main', apiUrl: world.url });
const profile = await openProfile();
const headers = { authorization: `Bearer ${world.adminKey}`, 'content-type': 'application/json' };

type Global = { __longTasks: number[] };

async function storedPackets(chatId: string): Promise<number> {
  for (;;) {
    const detail = (await (await fetch(`${world.url}/v1/chats/${chatId}`, { headers })).json()) as {
      turns: { status: string }[];
    };
    if (detail.turns[0] && detail.turns[0].status !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const stream = await fetch(`${world.url}/v1/chats/${chatId}/turns/0/stream?format=ndjson`, { headers });
  return (await stream.text()).split('\n').filter((line) => line.trim()).length;
}

try {
  const page: Page = profile.page;
  await page.addInitScript(() => {
    const tasks: number[] = [];
    (globalThis as unknown as Global).__longTasks = tasks;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push(entry.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  const cdp = await profile.context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () =>
    Object.fromEntries(
      (
        (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] }
      ).metrics.map((metric) => [metric.name, metric.value]),
    );
  const rows: string[] = [];
  /** Runs `draw` with the counters reset, and adds its row. */
  const measure = async (label: string, draw: () => Promise<number>) => {
    const before = await metrics();
    await page.evaluate(() => {
      (globalThis as unknown as Global).__longTasks.length = 0;
    });
    const trace = await traceMainThread(cdp);
    const started = Date.now();
    const packets = await draw();
    const elapsed = Date.now() - started;
    const cpu = await trace.stop();
    const after = await metrics();
    const tasks = await page.evaluate(() => (globalThis as unknown as Global).__longTasks);
    const delta = (name: string) => ((after[name] ?? 0) - (before[name] ?? 0)) * 1000;
    const longest = tasks.length ? Math.max(...tasks) : 0;
    const total = tasks.reduce((sum, task) => sum + task, 0);
    rows.push(
      `| ${label} | ${packets} | ${elapsed} ms | ${tasks.length} | ${longest.toFixed(0)} ms | ${total.toFixed(0)} ms | ${cpu.longestMs.toFixed(0)} ms (${cpu.longestCause}) | ${cpu.over50} | ${delta('ScriptDuration').toFixed(0)} ms | ${delta('LayoutDuration').toFixed(0)} ms | ${delta('RecalcStyleDuration').toFixed(0)} ms |`,
    );
  };
  const drawn = (expected: number) =>
    page.waitForFunction(
      (count) => document.querySelector('.turn')?.getAttribute('data-packets') === String(count),
      expected,
      { timeout: 180_000, polling: 50 },
    );
  for (const app of [
    { name: `before (${base.revision})`, url: base.url },
    { name: 'after (this checkout)', url: world.url },
  ]) {
    // Cookies are per host, not per port: each app signs in afresh (its CSRF token is kept per origin).
    await profile.context.clearCookies();
    await page.goto(`${app.url}/`);
    await page.getByLabel('API key').fill(world.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'New chat', exact: true }).first().waitFor();
    await page
      .getByRole('navigation', { name: 'Chats' })
      .getByRole('button', { name: 'New chat', exact: true })
      .click();
    await page.getByText('Ask something to start.').waitFor();
    const chatId = decodeURIComponent(/#\/chats\/([^/]+)/.exec(page.url())?.[1] ?? '');
    // Live: sent from the page, drawn as it streams.
    await measure(`${app.name}: live`, async () => {
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill(`flood ${perTool}`);
      await box.press('Enter');
      const total = await storedPackets(chatId);
      await drawn(total);
      await page.getByText('every lane reported').first().waitFor();
      return total;
    });
    const total = await storedPackets(chatId);
    // Replays: the page leaves the chat and opens it again (a fresh fold of every packet each time).
    for (let run = 1; run <= 2; run += 1) {
      await page.goto(`${app.url}/#/`);
      await page.getByRole('heading', { name: 'Chats' }).waitFor();
      await measure(`${app.name}: replay ${run}`, async () => {
        await page.goto(`${app.url}/#/chats/${chatId}`);
        await drawn(total);
        await page.getByText('every lane reported').first().waitFor();
        return total;
      });
    }
    // A replayed turn's work starts closed: opening it draws the four lanes (each step a closed strip of its own).
    const closed = page.locator('.turn .activity-strip[aria-expanded=false]').first();
    if ((await closed.count()) > 0) {
      await measure(`${app.name}: replayed, work opened`, async () => {
        await closed.click();
        await page.waitForFunction(() => document.querySelectorAll('ul.lanes > li.lane').length === 4);
        return total;
      });
    }
  }
  console.log(
    '## web-ui: one turn of ~10,000 packets drawn in Chromium (4 parallel sub-agents, nested parallel tools)\n',
  );
  console.log(
    '| app: how | packets | until the last packet is drawn | long tasks > 50 ms | longest task | total long-task time | longest task, CPU time (its biggest step) | tasks over 50 ms CPU | script | layout | style |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
  console.log(
    '\nThe page folds packets in 4 ms slices, one slice a frame (after: in a task of its own after the frame), and redraws as a React transition; after: a streamed answer is redrawn block by block. "after": work of a turn read back starts as one closed strip per cycle (nothing below it drawn until opened); a turn watched live is open. ' +
      "Long tasks are counted by the page itself (PerformanceObserver, wall time: stretched by the machine's load), their CPU time from Chromium's trace of the renderer's main thread, script/layout/style time by the DevTools protocol over each load.\n",
  );
} finally {
  await profile.close();
  await base.close();
  await world.close();
}
