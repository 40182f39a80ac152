// MCP elicitation in `toolbus chat`, driven through the real CLI process and its stdin: the MCP project's own
// "everything" server from npm (2025-11-25, over stdio) asks mid-call; the terminal prompt fills its form field by
// field from the requested schema (defaults for empty lines, numbered choices), declines, consents to a URL, or,
// when stdin carried the question itself, cancels with a note. What the server received comes back in its result.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { ScriptedRequest, ScriptedStep } from '@toolbus/core/testing';
import { everythingServerEntry } from '../../assembly/src/__fixtures__/everything-server.ts';
import { useScriptedCliHome } from './__fixtures__/scripted-cli-home.ts';
import { spawnCli } from './__fixtures__/spawn-cli.ts';

describe('toolbus chat answers an MCP server’s questions at the prompt', () => {
  let planned: { name: string; arguments: Record<string, unknown> } = { name: '', arguments: {} };
  const cliHome = useScriptedCliHome({
    prefix: 'toolbus-elicitation-',
    handler: (request: ScriptedRequest): ScriptedStep[] => {
      if (request.lastMessage?.role === 'tool') {
        return [{ type: 'text', text: `Tool said: ${request.lastMessage.toolResults[0]?.content ?? ''}` }];
      }
      return [{ type: 'tool-call', id: 'call_ask', name: planned.name, arguments: planned.arguments }];
    },
  });
  before(async () => {
    const added = await spawnCli(
      ['mcp', 'add', 'everything', '--yes', '--', process.execPath, everythingServerEntry, 'stdio'],
      cliHome.env,
    );
    assert.equal(added.code, 0, added.stderr);
    // The server lists its elicitation tools only to a client that declares the capability.
    assert.match(added.stdout, / {2}trigger-elicitation-request /);
    assert.match(added.stdout, / {2}trigger-url-elicitation /);
  });

  test('a form: one line per field, defaults for empty lines, numbered choices; the server gets the content', async () => {
    planned = { name: 'trigger-elicitation-request', arguments: {} };
    const answers = [
      'y', // answer the form
      'Ada Lovelace', // name (required)
      'y', // check
      '', // firstLine: its default
      'ada@example.com', // email
      '', // homepage
      '', // birthdate
      '', // integer: default 42
      '7.5', // number
      '3', // untitledSingleSelectEnum: the third choice
      '1,3', // untitledMultipleSelectEnum
      '', // titledSingleSelectEnum: default
      '', // titledMultipleSelectEnum: default
      '2', // legacyTitledEnum: Dogs
    ];
    const run = await spawnCli(['chat', 'Ask me for my details'], cliHome.env, {
      input: `${answers.join('\n')}\n`,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /MCP server "everything" asks: Please provide inputs for the following fields:/);
    assert.match(run.stderr, /^ {2}Integer \(Your favorite integer .*; default 42\): $/m);
    assert.match(run.stderr, /1=Monica 2=Rachel 3=Joey/);
    assert.match(run.stderr, /1=Tuna 2=Salmon 3=Trout/);
    const raw = JSON.parse(/Raw result: (\{[\s\S]*\})/.exec(run.stdout)?.[1] ?? '{}') as {
      action?: string;
      content?: Record<string, unknown>;
    };
    assert.equal(raw.action, 'accept', run.stdout);
    assert.deepEqual(raw.content, {
      name: 'Ada Lovelace',
      check: true,
      firstLine: 'It was a dark and stormy night.',
      email: 'ada@example.com',
      integer: 42,
      number: 7.5,
      untitledSingleSelectEnum: 'Joey',
      untitledMultipleSelectEnum: ['Guitar', 'Violin'],
      titledSingleSelectEnum: 'hero-1',
      titledMultipleSelectEnum: ['fish-1'],
      legacyTitledEnum: 'pet-2',
    });
  });

  test('an answer that does not fit is asked again with the problem named', async () => {
    planned = { name: 'trigger-elicitation-request', arguments: {} };
    const field = (name: string, integer: string) => [
      name,
      '',
      '',
      '',
      '',
      '',
      integer,
      '',
      '',
      '',
      '',
      '',
      '',
    ];
    const answers = ['y', ...field('', '500'), ...field('Grace', '')];
    const run = await spawnCli(['chat', 'Ask me again'], cliHome.env, { input: `${answers.join('\n')}\n` });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /That does not fit the form: name: required; integer: must be at most 100\./);
    assert.match(run.stdout, /"name": "Grace"/);
  });

  test('declining reaches the server as decline', async () => {
    planned = { name: 'trigger-elicitation-request', arguments: {} };
    const run = await spawnCli(['chat', 'Ask me for my details'], cliHome.env, { input: 'n\n' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /User declined to provide the requested information/);
    assert.match(run.stdout, /"action": "decline"/);
  });

  test('a URL is shown, never opened, and the user consents', async () => {
    planned = {
      name: 'trigger-url-elicitation',
      arguments: { url: 'https://example.com/connect?step=1', message: 'Connect your account' },
    };
    const run = await spawnCli(['chat', 'Connect me'], cliHome.env, { input: 'y\n' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /MCP server "everything" asks you to open a web page: Connect your account\n {2}https:\/\/example\.com\/connect\?step=1\n/,
    );
    assert.match(run.stdout, /"action": "accept"/);
  });

  test('stdin that carried the question cannot answer: the question is cancelled, with a note', async () => {
    planned = { name: 'trigger-elicitation-request', arguments: {} };
    const run = await spawnCli(['chat'], cliHome.env, { input: 'Ask me for my details\n' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /There is no terminal to answer it, so it was cancelled\./);
    assert.match(run.stdout, /"action": "cancel"/);
  });
});
