// The admin pages added for organisations, MCP OAuth connections and persona editing, end to end: chromium against
// a real toolbus server (the built app at /) with a real OAuth-protected MCP server and its authorization server on
// loopback. Each page's main action, and axe-core on each page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGuardedFetch } from '@toolbus/core/node';
import type { ConsoleMessage, Page } from 'playwright-core';
import { startEverythingHttpServer } from '../../../packages/mcp/src/__fixtures__/everything-server.ts';
import {
  type LoopbackOAuthServers,
  startLoopbackOAuthServers,
} from '../../../packages/mcp/src/__fixtures__/loopback-oauth-servers.ts';
import { type BrowserProfile, openProfile, seriousViolations } from './chromium.ts';
import { signIn } from './page-steps.ts';
import { startUiWorld, type UiWorld } from './ui-world.ts';

let world: UiWorld;
let oauth: LoopbackOAuthServers;
let everything: { readonly baseUrl: string; close(): Promise<void> };
let admin: BrowserProfile;
let page: Page;
const signInConsoleErrors: string[] = [];

async function checkAccessibility(name: string) {
  assert.deepEqual(await seriousViolations(page), [], `${name}: serious accessibility violations`);
}

before(async () => {
  oauth = await startLoopbackOAuthServers([
    {
      tool: {
        name: 'whoami',
        description: 'Says who you are',
        inputSchema: { type: 'object', properties: {} },
      },
      call: () => ({ content: [{ type: 'text', text: 'you are signed in' }] }),
    },
  ]);
  everything = await startEverythingHttpServer();
  world = await startUiWorld({
    fetch: createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] }) as typeof fetch,
  });
  admin = await openProfile();
  page = admin.page;
  // A normal sign-in, watched for console errors (a 401 while the page finds out it is signed out is one).
  const onConsole = (message: ConsoleMessage) => {
    if (message.type() === 'error') signInConsoleErrors.push(message.text());
  };
  const onPageError = (error: Error) => signInConsoleErrors.push(error.message);
  page.on('console', onConsole);
  page.on('pageerror', onPageError);
  await signIn(page, world.url, world.adminKey);
  page.off('console', onConsole);
  page.off('pageerror', onPageError);
});
after(async () => {
  await admin?.close();
  await world?.close();
  await oauth?.close();
  await everything?.close();
});

describe('admin pages: organisations, MCP OAuth, persona editing', { timeout: 240_000 }, () => {
  test('signing in logs no console error: the page asks whether it is signed in, never gets a 401', () => {
    assert.deepEqual(signInConsoleErrors, []);
  });

  test('MCP servers: connect with OAuth (the browser goes to the authorization server and back), then review and approve drift', async () => {
    await page.goto(`${world.url}/#/admin/mcp`);
    await page.getByLabel('Name').fill('protected');
    await page.getByLabel('URL').fill(oauth.mcpUrl);
    await page.getByLabel('Auth').selectOption('oauth');
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByText('Added protected: connect to it with OAuth to list its tools.').waitFor();
    const card = page.locator('.card', { has: page.getByRole('heading', { name: 'protected' }) });
    await card.getByText('Your connection: not connected').waitFor();
    await checkAccessibility('admin-mcp');
    await card.getByRole('button', { name: 'Connect protected (OAuth)' }).click();
    // Authorization server → the server's callback → back to this page, signed in to the MCP server.
    await page.waitForURL(/\?mcpConnected=.*#\/admin\/mcp$/);
    const back = page.locator('.card', { has: page.getByRole('heading', { name: 'protected' }) });
    await back.getByText('Your connection: connected').waitFor();
    assert.ok(oauth.provider.events.includes('token:authorization_code'), 'the code was exchanged');

    await back.getByRole('button', { name: 'Review tools' }).click();
    await back.getByRole('button', { name: 'Approve whoami' }).click();
    await back.getByText('Approved whoami.').waitFor();
    await back.getByRole('cell', { name: 'approved', exact: true }).waitFor();
    // The server changes the definition under an old approval: the page shows the drift and re-approves it.
    const [server] = (await world.storage.mcpServers.list()).filter((entry) => entry.name === 'protected');
    assert.ok(server);
    await world.storage.mcpServers.approveTool({
      serverId: server.id,
      toolName: 'whoami',
      definitionHash: 'an older definition',
      approvedBy: 'test',
    });
    await page.reload();
    const again = page.locator('.card', { has: page.getByRole('heading', { name: 'protected' }) });
    await again.getByRole('button', { name: 'Review tools' }).click();
    await again.getByRole('cell', { name: 'drifted', exact: true }).waitFor();
    await again.getByRole('button', { name: 'Approve whoami' }).click();
    await again.getByRole('cell', { name: 'approved', exact: true }).waitFor();
    await checkAccessibility('admin-mcp-connected');

    await again.getByRole('button', { name: 'Disconnect protected' }).click();
    await again.getByText('Your connection: not connected').waitFor();
    assert.equal(
      await world.storage.userSecrets.get({ kind: 'mcpOAuth', ownerId: server.id, userId: await adminId() }),
      undefined,
    );
  });

  test('MCP servers: a good one is checked on add (its tools named); a refused one says why and is not added', async () => {
    await page.goto(`${world.url}/#/admin/mcp`);
    await page.getByLabel('Name').fill('everything');
    await page.getByLabel('URL').fill(`${everything.baseUrl}/mcp`);
    await page.getByLabel('Auth').selectOption('none');
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByText(/^Connected everything: \d+ tool\(s\) \(.*echo/).waitFor();
    await page.getByRole('heading', { name: 'everything' }).waitFor();
    // IPv6 loopback: not on this deployment's allow list, so the outbound guard refuses it before any connection.
    await page.getByLabel('Name').fill('sneaky');
    await page.getByLabel('URL').fill('http://[::1]:9/mcp');
    await page.getByRole('button', { name: 'Add server' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(
      (await alert.textContent()) ?? '',
      /outbound guard refused MCP server "sneaky" \(rule ssrf_blocked\)/,
    );
    assert.doesNotMatch((await alert.textContent()) ?? '', /log|500/);
    assert.equal(await page.getByRole('heading', { name: 'sneaky' }).count(), 0);
    assert.equal(
      (await world.storage.mcpServers.list()).filter((entry) => entry.name === 'sneaky').length,
      0,
    );
    // The form keeps what was typed, so it can be corrected.
    assert.equal(await page.getByLabel('URL').inputValue(), 'http://[::1]:9/mcp');
    await checkAccessibility('admin-mcp-refused');
  });

  test('personas: create, rename, built-in switches, an MCP tool row', async () => {
    await page.goto(`${world.url}/#/admin/personas`);
    await page.getByRole('heading', { name: 'Personas and tools' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Helpdesk');
    await page.getByRole('button', { name: 'Create persona' }).click();
    await page.getByText('Created Helpdesk.').waitFor();
    const helpdesk = page.getByRole('region', { name: 'Helpdesk' });
    // It starts with the built-ins this deployment runs switched on, named as the chat names them; one it cannot
    // run is off and says so.
    for (const name of ['Internal Search', 'Open URL', 'Code Interpreter'])
      assert.equal(await helpdesk.getByLabel(name, { exact: true }).isChecked(), true, name);
    const webSearch = helpdesk.getByLabel('Web Search', { exact: true });
    assert.equal(await webSearch.isChecked(), false);
    assert.equal((await webSearch.getAttribute('aria-describedby')) !== null, true);
    assert.equal(await helpdesk.getByText('SearchTool', { exact: true }).count(), 0, 'no class names shown');
    await helpdesk.getByLabel('Retitle as').fill('Helpdesk Pro');
    await helpdesk.getByLabel('Describe as').fill('Answers customers');
    await helpdesk.getByRole('button', { name: 'Save persona' }).click();
    const renamed = page.getByRole('region', { name: 'Helpdesk Pro' });
    await renamed.getByText('Answers customers', { exact: true }).waitFor();
    await renamed.getByLabel('Open URL', { exact: true }).uncheck();
    await renamed.getByRole('button', { name: 'Remove Open URL' }).waitFor({ state: 'detached' });
    await renamed.getByLabel('Open URL', { exact: true }).check();
    await renamed.getByRole('button', { name: 'Remove Open URL' }).waitFor();
    for (const name of ['Open URL', 'Internal Search', 'Code Interpreter']) {
      await renamed.getByLabel(name, { exact: true }).uncheck();
      await renamed.getByRole('button', { name: `Remove ${name}` }).waitFor({ state: 'detached' });
    }
    await renamed.getByLabel('MCP server').selectOption({ label: 'protected' });
    await renamed.getByLabel('MCP tool', { exact: true }).fill('whoami');
    await renamed.getByRole('button', { name: 'Add MCP tool' }).click();
    await renamed.getByRole('button', { name: 'Remove whoami' }).waitFor();
    const persona = (await world.storage.personas.list()).find((entry) => entry.name === 'Helpdesk Pro');
    assert.ok(persona);
    assert.equal(persona.description, 'Answers customers');
    const rows = await world.storage.personas.listToolRows(persona.id);
    assert.deepEqual(
      rows.map((row) => (row.source.kind === 'mcp' ? row.source.toolName : row.source.kind)),
      ['whoami'],
    );
    await checkAccessibility('admin-personas-edit');
  });

  test('organisations: create one, add a member, change their role, remove them', async () => {
    await page.goto(`${world.url}/#/admin/organizations`);
    await page.getByRole('heading', { name: 'Organisations' }).waitFor();
    await page.getByLabel('Organisation name').fill('Acme');
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page.getByText('Created Acme.').waitFor();
    const acme = page.getByRole('region', { name: 'Acme' });
    await acme.getByLabel('Member email').fill('ann@acme.example');
    await acme.getByLabel('Role').selectOption('admin');
    await acme.getByRole('button', { name: 'Add member' }).click();
    await acme.getByText('Added ann@acme.example to Acme.').waitFor();
    await acme.getByRole('cell', { name: 'admin', exact: true }).waitFor();
    await checkAccessibility('admin-organizations');
    await acme.getByRole('button', { name: 'Make ann@acme.example member' }).click();
    await acme.getByText('ann@acme.example is now member.').waitFor();
    const organization = (await world.storage.organizations.list()).find((entry) => entry.name === 'Acme');
    assert.ok(organization);
    const ann = await world.storage.users.get({ email: 'ann@acme.example' });
    assert.ok(ann);
    assert.equal(
      (await world.storage.organizations.members({ organizationId: organization.id, userId: ann.id }))[0]
        ?.role,
      'member',
    );
    await acme.getByRole('button', { name: 'Remove ann@acme.example' }).click();
    await acme.getByText('Removed ann@acme.example.').waitFor();
    assert.equal(
      (await world.storage.organizations.members({ organizationId: organization.id, userId: ann.id }))[0],
      undefined,
    );
  });
});

async function adminId(): Promise<string> {
  const user = await world.storage.users.get({ email: 'admin@example.com' });
  assert.ok(user);
  return user.id;
}
