// MCP elicitation in the web UI, end to end: chromium against a real toolbus server (the built app at /) whose
// turn calls a tool of a real MCP SDK server on loopback; the server asks the user mid-call, the card shows its form
// at the tool call, and the answer typed into it (or a decline, or a URL consent) reaches the MCP server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGuardedFetch } from '@toolbus/core/node';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { connectMcpServer, toolDefinitionHash } from '@toolbus/mcp';
import { type LoopbackMcpServer, startLoopbackMcpServer } from '@toolbus/mcp/testing';
import { createServer, type ListeningServer, listen } from '@toolbus/server';
import type { Storage } from '@toolbus/storage';
import { webRoot } from '@toolbus/web';
import type { Page } from 'playwright-core';
import { openTestStorage } from '../../../packages/server/src/__fixtures__/test-server.ts';
import { type BrowserProfile, openProfile, seriousViolations } from './chromium.ts';

let storage: Storage;
let http: ListeningServer;
let model: ScriptedModelServer;
let mcp: LoopbackMcpServer;
let profile: BrowserProfile;
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
  model = await startScriptedModelServer({
    handler: (request) => {
      if (request.lastMessage?.role === 'tool') {
        return [
          { type: 'text', text: `The tool said ${request.lastMessage.toolResults[0]?.content ?? ''}.` },
        ];
      }
      const name = request.lastMessage?.text.includes('connect') ? 'connect_account' : 'book_table';
      return [{ type: 'tool-call', id: `call_${name}`, name, arguments: {} }];
    },
  });
  ({ storage } = await openTestStorage());
  const persona = (await storage.personas.list()).find((item) => item.name === 'default');
  assert.ok(persona);
  const fetch = createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] }) as typeof globalThis.fetch;
  const row = await storage.mcpServers.create({
    name: 'bistro',
    endpoint: { transport: 'streamable-http', url: mcp.url },
    authType: 'none',
  });
  const connection = await connectMcpServer(
    { id: row.id, name: 'bistro', transport: { type: 'streamable-http', url: mcp.url } },
    { fetch },
  );
  for (const descriptor of await connection.listTools()) {
    await storage.mcpServers.approveTool({
      serverId: row.id,
      toolName: descriptor.name,
      definitionHash: await toolDefinitionHash(descriptor),
      approvedBy: 'admin',
    });
    await storage.personas.addToolRow(persona.id, {
      kind: 'mcp',
      serverId: row.id,
      toolName: descriptor.name,
    });
  }
  await connection.close();
  const server = await createServer({
    storage,
    auth: 'api-keys',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    defaultPersonaId: persona.id,
    fetch,
    webRoot,
    limits: { requestsPerMinute: 100_000 },
  });
  http = await listen(server, { port: 0 });
  const key = (await server.access.bootstrapAdmin('admin@example.com'))?.key ?? '';
  profile = await openProfile();
  page = profile.page;
  await page.goto(`${http.url}/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'New chat', exact: true }).first().waitFor();
});
after(async () => {
  await profile?.close();
  await http?.close();
  await storage?.close();
  await model?.close();
  await mcp?.close();
});

async function ask(question: string) {
  await page
    .getByRole('navigation', { name: 'Chats' })
    .getByRole('button', { name: 'New chat', exact: true })
    .click();
  await page.waitForURL(/#\/chats\//);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(question);
  await box.press('Enter');
  await page.locator('.turn').last().waitFor();
}

describe('MCP elicitation in the web UI', { timeout: 300_000 }, () => {
  test('the card shows the form at the tool call; what is typed reaches the server, defaults included', async () => {
    await ask('Book a table');
    const card = page.locator('.turn').last().getByRole('region', { name: 'bistro asks' });
    await card.waitFor({ timeout: 60_000 });
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
    await page
      .locator('.turn')
      .last()
      .getByText('The tool said booking: accept.')
      .waitFor({ timeout: 60_000 });
    assert.deepEqual(serverSaw.at(-1), {
      action: 'accept',
      content: { name: 'Ada', guests: 2, terrace: true, time: '20:00' },
    });
  });

  test('declining from the card reaches the server as decline', async () => {
    await ask('Book another table');
    const card = page.locator('.turn').last().getByRole('region', { name: 'bistro asks' });
    await card.waitFor({ timeout: 60_000 });
    await card.getByRole('button', { name: 'Decline' }).click();
    await card.getByRole('status').filter({ hasText: 'Declined' }).waitFor();
    await page
      .locator('.turn')
      .last()
      .getByText('The tool said booking: decline.')
      .waitFor({ timeout: 60_000 });
    assert.deepEqual(serverSaw.at(-1), { action: 'decline' });
  });

  test('a URL request is a link the user follows; continuing consents', async () => {
    await ask('connect my account');
    const card = page.locator('.turn').last().getByRole('region', { name: 'bistro asks' });
    await card.waitFor({ timeout: 60_000 });
    const link = card.getByRole('link', { name: 'https://bistro.example/connect' });
    assert.equal(await link.getAttribute('href'), 'https://bistro.example/connect');
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
    await card.getByRole('button', { name: 'Continue' }).click();
    await card.getByRole('status').filter({ hasText: 'Answered' }).waitFor();
    await page
      .locator('.turn')
      .last()
      .getByText('The tool said connect: accept.')
      .waitFor({ timeout: 60_000 });
    assert.deepEqual(serverSaw.at(-1), { action: 'accept' });
  });
});
