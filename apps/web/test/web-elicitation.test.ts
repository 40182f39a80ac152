// MCP elicitation in the web UI, end to end: chromium against a real toolbus server (the built app at /) whose
// turn calls a tool of a real MCP SDK server on loopback; the server asks the user mid-call, the card shows its form
// at the tool call, and the answer typed into it (or a decline, or a URL consent) reaches the MCP server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import type { Page } from 'playwright-core';
import { seriousViolations } from './chromium.ts';
import { type McpChatPage, openMcpChatPage } from './mcp-chat-page.ts';

let mcp: LoopbackMcpServer;
let world: McpChatPage;
let page: Page;
const serverSaw: unknown[] = [];

before(async () => {
  mcp = await startLoopbackMcpServer([
    {
      tool: { name: 'book_table', description: 'Books a table', inputSchema: { type: 'object' } },
      call: async (_args, context) => {
        const answer = await context.elicit({
          mode: 'form',
          message: 'Who is the booking for?',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', title: 'Name' },
              guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 12, default: 2 },
              terrace: { type: 'boolean', title: 'Terrace' },
              time: { type: 'string', title: 'Time', enum: ['18:00', '20:00'], enumNames: ['Early', 'Late'] },
            },
            required: ['name'],
          },
        });
        serverSaw.push(answer);
        return { content: [{ type: 'text', text: `booking: ${answer.action}` }] };
      },
    },
    {
      tool: { name: 'connect_account', description: 'Connects an account', inputSchema: { type: 'object' } },
      call: async (_args, context) => {
        const answer = await context.elicit({
          mode: 'url',
          message: 'Sign in to the bistro',
          url: 'https://bistro.example/connect',
          elicitationId: 'connect-1',
        });
        serverSaw.push(answer);
        return { content: [{ type: 'text', text: `connect: ${answer.action}` }] };
      },
    },
  ]);
  world = await openMcpChatPage({
    mcp: { name: 'bistro', url: mcp.url },
    toolFor: (message) => (message.includes('connect') ? 'connect_account' : 'book_table'),
  });
  page = world.page;
});
after(async () => {
  await world?.close();
  await mcp?.close();
});

/** Asks `question`; answers the card the MCP server's request shows at the tool call, once it shows. */
async function askUntilCard(question: string) {
  await world.ask(question);
  const card = page.locator('.turn').last().getByRole('region', { name: 'bistro asks' });
  await card.waitFor({ timeout: 60_000 });
  return card;
}

/** Waits for the model's answer saying what the tool answered (`said`). */
const toolSaid = (said: string) =>
  page.locator('.turn').last().getByText(`The tool said: ${said}`).waitFor({ timeout: 60_000 });

describe('MCP elicitation in the web UI', { timeout: 300_000 }, () => {
  test('the card shows the form at the tool call; what is typed reaches the server, defaults included', async () => {
    const card = await askUntilCard('Book a table');
    assert.match((await card.textContent()) ?? '', /Who is the booking for\?/);
    assert.equal(await card.getByLabel('Guests').inputValue(), '2', 'the default is filled in');
    assert.deepEqual(
      await card.getByLabel('Time').locator('option').allTextContents(),
      ['—', 'Early', 'Late'],
      'choices by their names',
    );
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], 'the card has no serious accessibility violations');
    // Sent without the required name: the server's refusal shows in place, and the form stays.
    await card.getByRole('button', { name: 'Send' }).click();
    await card
      .getByRole('alert')
      .filter({ hasText: /name: required/ })
      .waitFor();
    await card.getByLabel('Name').fill('Ada');
    await card.getByLabel('Terrace').check();
    await card.getByLabel('Time').selectOption('20:00');
    await card.getByRole('button', { name: 'Send' }).click();
    await card.getByRole('status').filter({ hasText: 'Answered' }).waitFor();
    await toolSaid('booking: accept');
    assert.deepEqual(serverSaw.at(-1), {
      action: 'accept',
      content: { name: 'Ada', guests: 2, terrace: true, time: '20:00' },
    });
  });

  test('declining from the card reaches the server as decline', async () => {
    const card = await askUntilCard('Book another table');
    await card.getByRole('button', { name: 'Decline' }).click();
    await card.getByRole('status').filter({ hasText: 'Declined' }).waitFor();
    await toolSaid('booking: decline');
    assert.deepEqual(serverSaw.at(-1), { action: 'decline' });
  });

  test('a URL request is a link the user follows; continuing consents', async () => {
    const card = await askUntilCard('connect my account');
    const link = card.getByRole('link', { name: 'https://bistro.example/connect' });
    assert.equal(await link.getAttribute('href'), 'https://bistro.example/connect');
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
    await card.getByRole('button', { name: 'Continue' }).click();
    await card.getByRole('status').filter({ hasText: 'Answered' }).waitFor();
    await toolSaid('connect: accept');
    assert.deepEqual(serverSaw.at(-1), { action: 'accept' });
  });
});
