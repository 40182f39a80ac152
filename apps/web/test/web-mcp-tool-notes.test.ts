// What the web UI says about a turn's MCP tools, end to end: chromium against a real toolbus server (the built app
// at /) whose persona holds the tools of a real 2026-07-28 MCP SDK server on loopback. A tool whose input schema no
// provider accepts (a recursive `$ref`) is set aside, and the turn names it and why (`tool-mode`); a long tool's
// progress shows in its tool tab, and the progress keeps it alive past the server's MCP call timeout, while a tool
// that says nothing dies at that timeout.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type ModernMcpServer,
  type ModernTool,
  sendProgress,
  startModernMcpServer,
} from '@toolbus/mcp/testing';
import type { Page } from 'playwright-core';
import { recursiveWireTool } from '../../../packages/assembly/src/__fixtures__/mcp-wire-tools.ts';
import { seriousViolations } from './chromium.ts';
import { type McpChatPage, openMcpChatPage } from './mcp-chat-page.ts';

/**
 * The server's MCP call timeout. The long tool works for three of them and reports twenty times per timeout, so a
 * loaded machine does not stretch a gap between two reports past it.
 */
const timeoutMs = 4000;
const steps = 60;
const stepMs = timeoutMs / 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let mcp: ModernMcpServer;
let world: McpChatPage;
let page: Page;
/** Set by the test once the page showed the long tool's last progress line: the tool may finish then. */
let released = false;

const tools: ModernTool[] = [
  {
    // The fixture's description is optional by type; its name and input schema are what this test is about.
    name: recursiveWireTool.name,
    inputSchema: recursiveWireTool.inputSchema,
    call: () => ({ content: [{ type: 'text', text: 'never offered' }] }),
  },
  {
    name: 'crunch',
    description: 'Works for a long time, reporting progress.',
    call: async (_args, context) => {
      for (let step = 1; step <= steps; step += 1) {
        await sleep(stepMs);
        await sendProgress(context, { progress: step, total: steps, message: 'crunching' });
      }
      // Still reporting (the same line) until the page has shown it, so the test never races the tool's end.
      while (!released) {
        await sleep(stepMs);
        await sendProgress(context, { progress: steps, total: steps, message: 'crunching' });
      }
      return { content: [{ type: 'text', text: 'finished' }] };
    },
  },
  {
    name: 'silent',
    description: 'Works as long, saying nothing.',
    call: async () => {
      await sleep(steps * stepMs);
      return { content: [{ type: 'text', text: 'too late' }] };
    },
  },
];

before(async () => {
  mcp = await startModernMcpServer(tools);
  world = await openMcpChatPage({
    mcp: { name: 'works', url: mcp.url },
    toolFor: (message) => (message.includes('quietly') ? 'silent' : 'crunch'),
    server: { mcpToolCallTimeoutMs: timeoutMs },
  });
  page = world.page;
});
after(async () => {
  await world?.close();
  await mcp?.close();
});

const ask = (question: string) => world.ask(question);

describe("the web UI's notes on a turn's MCP tools", { timeout: 300_000 }, () => {
  test('the set-aside tool is named with why; the long tool shows its progress and outlives the timeout', async () => {
    released = false;
    await ask('Crunch the numbers');
    const turn = page.locator('.turn').last();
    const setAside = turn.getByRole('region', { name: 'Tools set aside' });
    await setAside.waitFor({ timeout: 60_000 });
    await setAside.getByText('1 tool set aside').click();
    const item = setAside.getByRole('listitem');
    assert.equal(await item.count(), 1);
    assert.match((await item.textContent()) ?? '', /^tree: .*\$ref/);
    // The line the server's last report became, in the tool's tab, after three call timeouts of work.
    await turn
      .locator('.progress')
      .filter({ hasText: `${steps}/${steps} (100%) · crunching` })
      .waitFor({
        timeout: 60_000,
      });
    assert.deepEqual(await seriousViolations(page), [], 'no serious accessibility violations');
    released = true;
    await turn.getByText('The tool said: finished').waitFor({ timeout: 60_000 });
  });

  test('a tool that reports nothing still ends at the timeout', async () => {
    await ask('Work quietly');
    const turn = page.locator('.turn').last();
    await turn.getByText(/The tool said: /).waitFor({ timeout: 60_000 });
    const answer = (await turn.locator('.answer').last().textContent()) ?? '';
    assert.doesNotMatch(answer, /too late/);
    assert.match(answer, /timed out/i);
  });
});
