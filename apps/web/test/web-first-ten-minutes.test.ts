// A new user's first ten minutes, in chromium against the real `toolbus serve` process on a fresh TOOLBUS_HOME in
// its default (local) mode, with a scripted model over real HTTP: the app opens signed in, a chat answers, a chart
// comes from run_python in the real sandbox, a source from an uploaded document is opened, an OpenAPI service and
// an MCP server are added (and a refused one says why), a persona is made with them and used. Each step asserts
// what the user sees. With TOOLBUS_SCREENSHOTS=1 its screenshots refresh docs/screenshots/ (the README's).
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import type { Page } from 'playwright-core';
import {
  killStartedClis,
  type RunningCli,
  spawnCli,
  startCli,
} from '../../../packages/cli/src/__fixtures__/spawn-cli.ts';
import { startEverythingHttpServer } from '../../../packages/mcp/src/__fixtures__/everything-server.ts';
import { type BrowserProfile, openProfile } from './chromium.ts';
import { firstTenMinutesModel, startWeatherService, type WeatherService } from './first-ten-minutes-world.ts';
import { openNewChat, sendMessage } from './page-steps.ts';
import { screenshotFolder } from './screenshots.ts';

const screenshots = screenshotFolder('toolbus-first-ten-minutes-screenshots');

let home = '';
let model: ScriptedModelServer;
let weather: WeatherService;
let everything: { readonly baseUrl: string; close(): Promise<void> };
let serve: RunningCli;
let url = '';
let profile: BrowserProfile;
let page: Page;
/** How often the page listed the chats: a re-render loop once reloaded the list without end (and hit the limit). */
let chatListings = 0;

async function shoot(name: string) {
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: false });
}

const lastTurn = () => page.locator('.turn').last();

/** Starts a new chat from the chat list and sends `question` (with `persona` picked, when given). */
async function ask(question: string, persona?: string) {
  await page.goto(`${url}/#/`);
  await openNewChat(page);
  if (persona) await page.getByLabel('Persona').selectOption({ label: persona });
  await sendMessage(page, question);
}

before(async () => {
  await mkdir(screenshots, { recursive: true });
  home = await mkdtemp(join(tmpdir(), 'toolbus-first-ten-minutes-'));
  // Traversable, as a home is: the sandbox's users reach their workspaces through it.
  await chmod(home, 0o711);
  model = await startScriptedModelServer({ handler: firstTenMinutesModel() });
  weather = await startWeatherService();
  everything = await startEverythingHttpServer();
  const env = {
    TOOLBUS_HOME: home,
    TOOLBUS_MODEL: `openai-compatible:${model.url}/v1#scripted`,
  };
  // The one setting a team's own services need: 127.0.0.1 is a private host, refused unless allowed.
  const configured = await spawnCli(['config', 'set', 'allowHosts', '127.0.0.1'], env);
  assert.equal(configured.code, 0, configured.stderr);
  serve = startCli(['serve', '--port', '0'], env);
  url = await serve.waitForMatch(/serving on (\S+)/);
  profile = await openProfile({ viewport: { width: 1280, height: 860 } });
  page = profile.page;
  page.on('request', (request) => {
    if (request.method() === 'GET' && new URL(request.url()).pathname === '/v1/chats') chatListings += 1;
  });
});
after(async () => {
  await profile?.close();
  killStartedClis();
  await serve?.exited;
  await everything?.close();
  await weather?.close();
  await model?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('the first ten minutes of a new user, against toolbus serve', { timeout: 300_000 }, () => {
  test('the app opens signed in as the local user, who is an admin; a first chat answers', async () => {
    await page.goto(`${url}/`);
    // Local mode: the CLI's own user, no key to type; the admin pages are there, as the server treats it.
    await page.getByRole('heading', { level: 1, name: 'Chats' }).waitFor();
    assert.notEqual(((await page.locator('.who').textContent()) ?? '').trim(), '');
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Admin' }).waitFor();
    await ask('Hi there, what can you do?');
    await lastTurn().getByText('I can chart data, read your documents').waitFor();
  });

  test('a chart: run_python draws it in the sandbox and it is shown with the answer', async () => {
    await ask('Make a chart of this week’s support tickets');
    await lastTurn().getByText('Friday was the busiest day').waitFor({ timeout: 120_000 });
    const files = lastTurn().getByRole('region', { name: 'Files from this answer' });
    await files.getByText('tickets.png').waitFor();
    const image = files.locator('img').first();
    await image.scrollIntoViewIfNeeded();
    // Really an image the browser decoded (not a broken link): a PNG of the plot's size.
    await page.waitForFunction(
      (element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth > 100,
      await image.elementHandle(),
    );
    assert.equal(await lastTurn().locator('[role=tab] .badge-failed, .badge-error').count(), 0);
    await shoot('first-chart');
  });

  test('a source: an uploaded document answers a question, and its citation opens to what it says', async () => {
    await page.goto(`${url}/#/admin/documents`);
    await page.getByRole('heading', { level: 1, name: 'Documents' }).waitFor();
    await page.getByLabel('Upload a document').setInputFiles({
      name: 'refunds.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Refunds policy\n\nRefunds take 14 days from the day the parcel comes back.\n'),
    });
    await page.getByRole('status').getByText('Indexed refunds.md.').waitFor();
    await ask('What does the handbook say about refunds?');
    await lastTurn().getByText('The handbook says refunds take').waitFor();
    const sources = lastTurn().getByRole('region', { name: 'Sources' });
    await sources
      .getByText(/refunds/i)
      .first()
      .waitFor();
    const chip = lastTurn().locator('.answer [data-cite]').first();
    await chip.hover();
    const card = page.getByRole('tooltip');
    await card.waitFor();
    assert.match((await card.textContent()) ?? '', /14 days from the day the parcel comes back/);
    await shoot('first-source');
  });

  test('tools: an MCP server is checked when added; a refused one says why; an OpenAPI service and a persona', async () => {
    await page.goto(`${url}/#/admin/mcp`);
    await page.getByLabel('Name').fill('everything');
    await page.getByLabel('URL').fill(`${everything.baseUrl}/mcp`);
    await page.getByLabel('Auth').selectOption('none');
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByText(/^Connected everything: \d+ tool\(s\) \(.*echo/).waitFor();
    // Its tools reach a model only once an admin has approved their definitions.
    const card = page.locator('.card', { has: page.getByRole('heading', { name: 'everything' }) });
    await card.getByRole('button', { name: 'Review tools' }).click();
    await card.getByRole('button', { name: 'Approve echo' }).click();
    await card.getByText('Approved echo.').waitFor();
    // IPv6 loopback is not on the allow list: the outbound guard refuses it, and the page says so in words.
    await page.getByLabel('Name').fill('sneaky');
    await page.getByLabel('URL').fill('http://[::1]:9/mcp');
    await page.getByRole('button', { name: 'Add server' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const refusal = (await alert.textContent()) ?? '';
    assert.match(refusal, /outbound guard refused MCP server "sneaky"/);
    assert.doesNotMatch(refusal, /500|see (its|the) log/);
    assert.equal(await page.getByRole('heading', { name: 'sneaky' }).count(), 0);
    await shoot('first-mcp-refused');

    await page.goto(`${url}/#/admin/personas`);
    await page.getByRole('heading', { level: 1, name: 'Personas and tools' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Travel desk');
    await page.getByRole('button', { name: 'Create persona' }).click();
    await page.getByText('Created Travel desk.').waitFor();
    const desk = page.getByRole('region', { name: 'Travel desk' });
    await desk.getByLabel('Upload an OpenAPI document (JSON)').setInputFiles({
      name: 'weather.json',
      mimeType: 'application/json',
      buffer: Buffer.from(weather.document()),
    });
    await desk.getByText('Added 1 tool(s) from weather.json.').waitFor();
    await desk.getByLabel('MCP server').selectOption({ label: 'everything' });
    await desk.getByLabel('MCP tool', { exact: true }).fill('echo');
    await desk.getByRole('button', { name: 'Add MCP tool' }).click();
    await desk.getByRole('button', { name: 'Remove echo' }).waitFor();
    await desk.scrollIntoViewIfNeeded();
  });

  test('the persona in use: its OpenAPI operation and MCP tool answer a question', async () => {
    await ask('What is the weather in Paris? Also say bonjour through the echo tool.', 'Travel desk');
    await lastTurn()
      .getByText('It is 21 °C in Paris, says the weather service; the echo server said "bonjour".')
      .waitFor();
    assert.deepEqual(weather.asked, ['Paris'], 'the service itself was called, once');
    const tabs = lastTurn().getByRole('tab');
    assert.equal(await tabs.count(), 2);
    assert.equal(await lastTurn().locator('[role=tab] .badge-done').count(), 2);
    await shoot('first-persona-answer');
    // Five chats, each listed on open, on send and a few times for its title: tens, not thousands.
    assert.ok(chatListings < 80, `the chat list was loaded ${chatListings} times`);
  });
});
