import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { before, describe, test } from 'node:test';
import { chunkText, type ScriptedRequest, textSteps } from '@toolbus/core/testing';
import { indexCliDocs, REFUND_POLICY } from './__fixtures__/cli-home.ts';
import { useScriptedCliHome } from './__fixtures__/scripted-cli-home.ts';
import { cliEntry, outputOf, spawnCli } from './__fixtures__/spawn-cli.ts';
import { terminalScreen } from './__fixtures__/terminal-screen.ts';

const driver = new URL('./__fixtures__/pty-driver.py', import.meta.url).pathname;

/** A step of {@link inTerminal}: wait for a text, type one, or send the CLI a signal (`SIGTERM`). */
type TerminalStep = readonly ['expect' | 'send' | 'signal', string];

/** Runs the CLI in a pseudo-terminal through python3's pty module, following expect/send/signal steps. */
async function inTerminal(
  steps: readonly TerminalStep[],
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ output: string; code: number; failed: unknown }> {
  const child = spawn(
    'python3',
    [driver, JSON.stringify(steps), process.execPath, '--conditions=development', cliEntry, ...args],
    { env: { PATH: process.env.PATH ?? '', HOME: env.TOOLBUS_HOME ?? '', TERM: 'dumb', ...env } },
  );
  const { stdout, stderr } = await outputOf(child);
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(`pty driver failed: ${stderr}${stdout}`);
  }
}

describe('the interactive terminal', () => {
  const cliHome = useScriptedCliHome({
    prefix: 'toolbus-terminal-',
    handler: (request: ScriptedRequest) => {
      const question = request.lastMessage?.text ?? '';
      if (question.includes('long story')) {
        // The first part arrives; the rest would take a minute: Ctrl-C must not wait for it.
        return [
          { type: 'text', text: 'Once upon a time, part one.' },
          { type: 'delay', ms: 60_000 },
          { type: 'text', text: ' Part two never shown.' },
        ];
      }
      const history = request.messages.map((message) => `${message.role}:${message.text}`).join(' | ');
      return [
        {
          type: 'text',
          text: `I remember: ${/part one\.\s+\[stopped by the user\]/.test(history) ? 'the stopped story' : 'nothing'}.`,
        },
      ];
    },
  });

  /** A chat on a terminal that asks for the long story and presses Ctrl-C once it streams, then `then`. */
  async function stopTheStory(then: readonly TerminalStep[]) {
    const session = await inTerminal(
      [
        ['expect', '› '],
        ['send', 'Tell me a long story\r'],
        ['expect', 'part one.'],
        ['send', '\u0003'],
        ...then,
      ],
      ['chat', '--tools', 'internal_search'],
      cliHome.env,
    );
    assert.equal(session.failed, null, session.output);
    assert.equal(session.code, 0, session.output);
    return session;
  }

  test('Ctrl-C stops the answer and returns to the prompt; the stopped turn is kept; Ctrl-D exits', async () => {
    const session = await stopTheStory([
      ['expect', '[stopped by the user]'],
      ['expect', '› '],
      ['send', '\u0004'],
    ]);
    assert.doesNotMatch(session.output, /Part two never shown/);
    const storyRequest = cliHome.model.requests.find((request) =>
      request.lastMessage?.text.includes('long story'),
    );
    assert.equal(storyRequest?.outcome, 'client-closed', 'the model stream was aborted, not waited for');

    const history = await spawnCli(['history'], cliHome.env);
    const chatId = /^(\S+) .* 1 turn\(s\) {2}Tell me a long story$/m.exec(history.stdout)?.[1];
    assert.ok(chatId, history.stdout);
    const shown = await spawnCli(['history', chatId], cliHome.env);
    assert.match(shown.stdout, /— turn 1: stopped \(stopped by the user \(Ctrl-C\)\)/);
    assert.match(shown.stdout, /toolbus: Once upon a time, part one\.\n\n\[stopped by the user\]/);

    // --continue goes on with that chat: the model sees the stopped answer, marked.
    const next = await spawnCli(['chat', '--continue', 'What did you tell me?'], cliHome.env);
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stdout, /I remember: the stopped story\./);
    const again = await spawnCli(['history'], cliHome.env);
    assert.match(again.stdout, new RegExp(`^${chatId} .* 2 turn\\(s\\)`, 'm'));
  });

  test('SIGTERM during an answer stops it as Ctrl-C does and ends the chat (143); the stopped turn is kept', async () => {
    const session = await inTerminal(
      [
        ['expect', '› '],
        ['send', 'Tell me a long story, then terminate\r'],
        ['expect', 'part one.'],
        ['signal', 'SIGTERM'],
        ['expect', '[stopped by the user]'],
      ],
      ['chat', '--tools', 'internal_search'],
      cliHome.env,
    );
    assert.equal(session.failed, null, session.output);
    assert.equal(session.code, 143, session.output);
    assert.doesNotMatch(session.output, /Part two never shown/);
    const history = await spawnCli(['history'], cliHome.env);
    const chatId = /^(\S+) .* 1 turn\(s\) {2}Tell me a long story, then terminate$/m.exec(
      history.stdout,
    )?.[1];
    assert.ok(chatId, history.stdout);
    const shown = await spawnCli(['history', chatId], cliHome.env);
    assert.match(shown.stdout, /— turn 1: stopped \(stopped by SIGTERM\)/);
    assert.match(shown.stdout, /toolbus: Once upon a time, part one\.\n\n\[stopped by the user\]/);
  });

  test('a second Ctrl-C, or Ctrl-C at the prompt, ends the chat', async () => {
    // stopTheStory asserts that every step was seen and that the chat then exited with 0.
    await stopTheStory([
      ['expect', '› '],
      ['send', '\u0003'],
    ]);
  });
});

describe('a weak model on a terminal', () => {
  const cliHome = useScriptedCliHome({
    prefix: 'toolbus-terminal-weak-',
    // A Qwen model id: the model profile for Qwen is used, as for a real self-hosted Qwen.
    modelId: 'qwen2.5-7b-instruct',
    handler: (request) =>
      request.messages.some((message) => message.toolResults.length > 0)
        ? textSteps(['Refunds are paid within 14 days [1].'])
        : // Prose, then the call as bare JSON: shown as it streams, then retracted when recovered.
          textSteps(
            chunkText(
              'Let me check the policy.\n{"name": "internal_search", "arguments": {"queries": ["refund"]}}',
              5,
            ),
          ),
  });
  before(async () => {
    await indexCliDocs(cliHome, { 'refunds.md': REFUND_POLICY });
  });

  test('a call written as text after prose is erased from the screen, and nothing above it is', async () => {
    // The pseudo-terminal reports no size (0 columns), as a bare one does: the redraw must not take it as 1 wide.
    const session = await inTerminal(
      [['expect', 'Refunds are paid']],
      ['chat', '--tools', 'internal_search', 'How fast are refunds?'],
      cliHome.env,
    );
    assert.equal(session.failed, null, session.output);
    assert.equal(session.code, 0, session.output);
    const screen = terminalScreen(session.output);
    assert.match(
      screen,
      /^tools: 1, all offered to the model \(no tool search\)\nLet me check the policy\.\n✓ Internal Search — [^\n]*\nRefunds are paid within 14 days \[1\]\./,
    );
    const answerRows = screen.split('\n').filter((row) => !/^[…✓✗] /.test(row));
    assert.doesNotMatch(answerRows.join('\n'), /"name"|"arguments"|\{|\}/, 'no call markup on screen');
  });
});
