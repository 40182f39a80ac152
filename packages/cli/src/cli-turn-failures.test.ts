import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import type { ScriptedRequest, ScriptedStep } from '@toolbus/core/testing';
import { addNodeMcpServer } from './__fixtures__/cli-home.ts';
import { useScriptedCliHome } from './__fixtures__/scripted-cli-home.ts';
import { killStartedClis, sendSignal, spawnCli, startCli } from './__fixtures__/spawn-cli.ts';

// A chat turn from the real command line when things go wrong: tools of a real MCP server that throw, answer
// garbage, die or hang; the model server answering 500, 429 or a stream that cannot be read; Ctrl-C while the
// model streams and while a tool runs, and SIGTERM as Ctrl-C. Each ends with one clear line and the documented exit code, and the chat's
// history stays one the model accepts on the next turn.

const failingServer = new URL('./__fixtures__/failing-mcp-server.mjs', import.meta.url).pathname;

describe('a turn that fails or is stopped', () => {
  let respond: (request: ScriptedRequest) => ScriptedStep[] = () => [];
  const cliHome = useScriptedCliHome({
    prefix: 'toolbus-turn-failures-',
    handler: (request) => respond(request),
  });
  before(async () => {
    await addNodeMcpServer(cliHome.env, 'failing', failingServer);
  });
  after(killStartedClis);

  /** The model calls each named tool once, then answers with what the tools said. */
  const callThenAnswer =
    (...names: string[]) =>
    (request: ScriptedRequest): ScriptedStep[] =>
      request.lastMessage?.role === 'tool'
        ? [{ type: 'text', text: 'The tools failed.' }]
        : names.map((name, index) => ({ type: 'tool-call', id: `call_${name}`, index, name, arguments: {} }));

  test('a tool that throws, answers garbage or loses its server gets ✗ and its cause; the model reads it', async () => {
    respond = callThenAnswer('explode', 'garbage');
    const result = await spawnCli(['chat', 'Try the failing tools'], cliHome.env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /✗ explode — .*the database is on fire/);
    assert.match(result.stdout, /✗ garbage — .*Invalid tools\/call result/);
    assert.doesNotMatch(result.stdout, /✓ (explode|garbage)/);
    assert.match(result.stdout, /The tools failed\./);
    const results = cliHome.model.requests.at(-1)?.messages.flatMap((message) => message.toolResults) ?? [];
    assert.match(results.find((r) => r.toolCallId === 'call_explode')?.content ?? '', /database is on fire/);
    assert.equal(results.length, 2, 'every call has a result');

    respond = callThenAnswer('crash');
    const crashed = await spawnCli(['chat', 'Crash the server'], cliHome.env);
    assert.equal(crashed.code, 0, crashed.stderr);
    assert.match(crashed.stdout, /✗ crash — .*Connection closed/);
  });

  test('Ctrl-C during a hung tool stops the turn (exit 130), keeps it, and the next turn is a valid exchange', async () => {
    respond = (request) => [
      { type: 'text', text: 'Checking the hung tool.' },
      ...callThenAnswer('hang')(request),
    ];
    const cli = startCli(['chat', 'Wait for the hung tool'], cliHome.env);
    await cli.waitForOutput('… hang');
    cli.child.kill('SIGINT');
    assert.equal(await cli.exited, 130, cli.output().stderr);
    assert.match(cli.output().stdout, /✗ hang — The run was cancelled/);
    assert.match(cli.output().stdout, /\[stopped by the user\]\n$/);
    assert.doesNotMatch(cli.output().stderr, /\n\s+at /);

    respond = () => [{ type: 'text', text: 'Going on.' }];
    const next = await spawnCli(['chat', '--continue', 'And now?'], cliHome.env);
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stdout, /Going on\./);
    // The scripted server refuses a tool call without its result (as OpenAI does): the stopped call has one.
    const messages = cliHome.model.requests.at(-1)?.messages ?? [];
    const call = messages.flatMap((message) => message.toolCalls).find((c) => c.name === 'hang');
    assert.ok(call, 'the stopped turn is in the history');
    assert.ok(messages.some((message) => message.toolResults.some((r) => r.toolCallId === call.id)));
    // The text written before the call is in the history once (with the call), not again in the stop's mark.
    const said = messages.filter((message) => message.text?.includes('Checking the hung tool.'));
    assert.equal(said.length, 1, JSON.stringify(messages));
  });

  test('Ctrl-C while the model streams keeps the partial answer; a second Ctrl-C exits at once', async () => {
    respond = () => [
      { type: 'text', text: 'The first half.' },
      { type: 'delay', ms: 60_000 },
      { type: 'text', text: ' Never sent.' },
    ];
    const cli = startCli(['chat', '--tools', 'internal_search', 'Stream slowly'], cliHome.env);
    await cli.waitForOutput('tools: ');
    // Piped output is written once settled: wait until the model has started to answer.
    while (cliHome.model.requests.at(-1)?.lastMessage?.text !== 'Stream slowly') await wait(50);
    await wait(500);
    cli.child.kill('SIGINT');
    assert.equal(await cli.exited, 130);
    assert.match(cli.output().stdout, /The first half\.\n+\[stopped by the user\]/);
    assert.doesNotMatch(cli.output().stdout, /Never sent/);
    const history = await spawnCli(['history'], cliHome.env);
    const chatId = /^(\S+) .* 1 turn\(s\) {2}Stream slowly$/m.exec(history.stdout)?.[1];
    assert.ok(chatId, history.stdout);
    const shown = await spawnCli(['history', chatId], cliHome.env);
    assert.match(shown.stdout, /— turn 1: stopped \(stopped by the user \(Ctrl-C\)\)/);
    // The saved chat holds the partial answer once, marked as stopped.
    assert.match(shown.stdout, /toolbus: The first half\.\n\n\[stopped by the user\]\n/);
    assert.equal(shown.stdout.match(/The first half/g)?.length, 1, shown.stdout);

    const twice = startCli(['chat', '--tools', 'internal_search', 'Stream slowly again'], cliHome.env);
    await twice.waitForOutput('tools: ');
    while (cliHome.model.requests.at(-1)?.lastMessage?.text !== 'Stream slowly again') await wait(50);
    twice.child.kill('SIGINT');
    twice.child.kill('SIGINT');
    assert.equal(await twice.exited, 130);
  });

  /** A model that writes half an answer and then waits a minute before the rest. */
  const halfThenWait = (): ScriptedStep[] => [
    { type: 'text', text: 'The first half.' },
    { type: 'delay', ms: 60_000 },
    { type: 'text', text: ' Never sent.' },
  ];
  /** `toolbus chat --packets "question"`: each packet is printed as it comes, so the answer's text is seen. */
  const chatWithPackets = (question: string) =>
    startCli(['chat', '--tools', 'internal_search', '--packets', question], cliHome.env);
  const firstHalfPacket = /"type":"message-delta","content":"The first half\."/;

  test('SIGTERM mid-answer stops it as Ctrl-C does: the partial answer is kept, marked; exit 143', async () => {
    respond = halfThenWait;
    const cli = chatWithPackets('Terminate mid-answer');
    await cli.waitForMatch(firstHalfPacket);
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited, 143, cli.output().stderr);
    assert.doesNotMatch(cli.output().stdout, /Never sent/);
    assert.equal(cli.output().stderr, '', 'a stop, not a failure');
    const history = await spawnCli(['history'], cliHome.env);
    const chatId = /^(\S+) .* 1 turn\(s\) {2}Terminate mid-answer$/m.exec(history.stdout)?.[1];
    assert.ok(chatId, history.stdout);
    const shown = await spawnCli(['history', chatId], cliHome.env);
    assert.match(shown.stdout, /— turn 1: stopped \(stopped by SIGTERM\)/);
    assert.match(shown.stdout, /toolbus: The first half\.\n\n\[stopped by the user\]\n/);
    assert.equal(shown.stdout.match(/The first half/g)?.length, 1, shown.stdout);
  });

  test('a second SIGTERM while the stopped turn is being kept exits at once (143), and says so', async () => {
    respond = halfThenWait;
    const cli = chatWithPackets('Terminate twice');
    await cli.waitForMatch(firstHalfPacket);
    // The chat's database locked, as another process writing would hold it: keeping the stopped turn waits, so
    // only not waiting for it ends the chat. Held until the process is gone.
    const database = new DatabaseSync(join(cliHome.home, 'toolbus.db'), { timeout: 60_000 });
    database.exec('BEGIN IMMEDIATE');
    try {
      await sendSignal(cli, 'SIGTERM');
      await sendSignal(cli, 'SIGTERM');
      assert.equal(await cli.exited, 143, cli.output().stderr);
    } finally {
      database.exec('ROLLBACK');
      database.close();
    }
    assert.match(
      cli.output().stderr,
      /^toolbus chat: SIGTERM again, exiting without waiting for running work$/m,
    );
  });

  test('a stream dropped mid-answer keeps the partial answer and the finished call in the history, marked', async () => {
    respond = (request) =>
      request.lastMessage?.role === 'user' && request.lastMessage.text === 'Drop mid-answer'
        ? [
            { type: 'text', text: 'Half of the answer ' },
            { type: 'tool-call', id: 'call_explode', name: 'explode', arguments: {} },
            { type: 'delay', ms: 100 },
            { type: 'drop' },
          ]
        : [{ type: 'text', text: 'Going on after the drop.' }];
    const dropped = await spawnCli(['chat', 'Drop mid-answer'], cliHome.env);
    assert.equal(dropped.code, 1, dropped.stderr);
    assert.match(
      dropped.stderr,
      /^toolbus: the connection to the model at .* dropped in the middle of the answer \(terminated: the server closed the connection before the body ended\)\./,
    );
    assert.match(dropped.stdout, /Half of the answer/);

    const next = await spawnCli(['chat', '--continue', 'And now?'], cliHome.env);
    assert.equal(next.code, 0, next.stderr);
    const messages = cliHome.model.requests.at(-1)?.messages ?? [];
    const partial = messages.find((message) => message.text.startsWith('Half of the answer'));
    assert.ok(partial, JSON.stringify(messages));
    assert.equal(partial.role, 'assistant');
    assert.equal(partial.text, 'Half of the answer', 'kept trimmed');
    assert.deepEqual(
      partial.toolCalls.map((call) => call.name),
      ['explode'],
    );
    // The finished call ran and has its result; the mark after it tells the model where the answer broke off.
    const result = messages
      .flatMap((message) => message.toolResults)
      .find((r) => r.toolCallId === 'call_explode');
    assert.match(result?.content ?? '', /database is on fire/);
    assert.ok(
      messages.some(
        (message) =>
          message.role === 'assistant' &&
          /^\[this answer broke off: the model stream broke: the connection closed before the answer ended/.test(
            message.text,
          ),
      ),
      JSON.stringify(messages),
    );
  });

  test('a model answering 500, 429, an unreadable stream or nothing says so on one line', async () => {
    respond = (request) => {
      const question = request.lastMessage?.text ?? '';
      if (question === 'five hundred') return [{ type: 'http-error', status: 500, message: 'boom' }];
      if (question === 'too many')
        return [{ type: 'http-error', status: 429, message: 'Rate limit reached' }];
      if (question === 'unreadable') return [{ type: 'raw', data: 'data: {not json\n\n' }];
      return [{ type: 'raw', data: 'nothing a stream holds\n' }];
    };
    const ask = (question: string) => spawnCli(['chat', '--tools', 'internal_search', question], cliHome.env);
    const [failed, limited, unreadable, empty] = await Promise.all([
      ask('five hundred'),
      ask('too many'),
      ask('unreadable'),
      ask('empty'),
    ]);
    for (const run of [failed, limited, unreadable, empty]) {
      assert.equal(run.stderr.trimEnd().split('\n').length, 1, `one line: ${run.stderr}`);
      assert.doesNotMatch(run.stderr, /\n\s+at /);
    }
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^toolbus: .*answered HTTP 500: boom$/m);
    assert.equal(limited.code, 1);
    assert.match(limited.stderr, /^toolbus: .*answered HTTP 429: Rate limit reached$/m);
    assert.equal(unreadable.code, 1);
    assert.match(unreadable.stderr, /sent a stream event that is not what an OpenAI-compatible stream holds/);
    assert.doesNotMatch(
      unreadable.stderr,
      /dropped in the middle/,
      'nothing was dropped: the data was wrong',
    );
    assert.equal(empty.code, 3);
    assert.match(empty.stderr, /^toolbus: no answer — the model ended without an answer\./);
    assert.doesNotMatch(empty.stderr, /--max-cycles/, 'the cycle limit did not end this turn');
  });
});

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
