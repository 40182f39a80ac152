import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { whoamiTool } from '../../mcp/src/__fixtures__/authorize-loopback-user.ts';
import {
  type LoopbackOAuthServers,
  startLoopbackOAuthServers,
} from '../../mcp/src/__fixtures__/loopback-oauth-servers.ts';
import { setCliConfig } from './__fixtures__/cli-home.ts';
import { type ScriptedCliHome, startScriptedCliHome } from './__fixtures__/scripted-cli-home.ts';
import { spawnCli } from './__fixtures__/spawn-cli.ts';

const browser = new URL('./__fixtures__/fake-browser.mjs', import.meta.url).pathname;

describe('an OAuth MCP server from the command line', () => {
  let servers: LoopbackOAuthServers;
  let cli: ScriptedCliHome;
  let env: Record<string, string>;
  before(async () => {
    servers = await startLoopbackOAuthServers([whoamiTool]);
    cli = await startScriptedCliHome({
      prefix: 'toolbus-oauth-',
      handler: (request) =>
        request.lastMessage?.role === 'tool'
          ? [{ type: 'text', text: `Server says: ${request.lastMessage.toolResults[0]?.content ?? ''}` }]
          : [{ type: 'tool-call', id: 'call_who', name: 'whoami', arguments: {} }],
    });
    env = { ...cli.env, BROWSER: `${process.execPath} ${browser}` };
    await setCliConfig(env, [['allowHosts', '127.0.0.1']]);
    assert.equal((await spawnCli(['persona', 'create', 'signed', '--no-built-ins'], env)).code, 0);
    assert.equal((await spawnCli(['persona', 'use', 'signed'], env)).code, 0);
  });
  after(async () => {
    await servers.close();
    await cli.close();
  });

  test('mcp add --oauth signs in through the browser with a loopback redirect; the tools work in a chat', async () => {
    const added = await spawnCli(['mcp', 'add', 'protected', servers.mcpUrl, '--oauth', '--yes'], env);
    assert.equal(added.code, 0, added.stderr + added.stdout);
    assert.match(
      added.stdout,
      /Opening the browser to sign in to "protected":\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/,
    );
    assert.match(added.stdout, /redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Foauth%2Fcallback/);
    assert.match(added.stdout, /Signed in to "protected"\./);
    assert.match(added.stdout, /Approved 1 tool\(s\) of "protected"/);
    assert.ok(servers.provider.events.includes('register'), 'the client registered itself');
    const chat = await spawnCli(['chat', 'Who am I?'], env);
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stdout, /Server says: you are authorized/);
    const again = await spawnCli(['mcp', 'login', 'protected'], env);
    assert.match(again.stdout, /"protected" is already signed in\./);
  });
});
