import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PacketObject, Placement } from '@toolbus/spec';
import { omitUndefined, ToolExecutionError } from '@toolbus/spec';
import * as z from 'zod';
import { scriptedModel, useQueuedModelServer } from '../llm/__fixtures__/scripted-providers.ts';
import { textSteps } from '../testing/index.ts';
import { defineTool } from '../tool/define-tool.ts';
import { runStandaloneStep, runWriteUpStep } from './standalone-step.ts';

// A step outside any turn (a sub-agent's write-up, a judge's verdict): it reads exactly its system prompt and
// one user message, places its packets from turn 0, and a write-up that fails or is blank fails its tool.

function recordingSink(): { sink: { emitAt(at: Placement, obj: PacketObject): void }; seen: string[] } {
  const seen: string[] = [];
  return { seen, sink: { emitAt: (at, obj) => seen.push(`${at.turn}/${at.tab} ${obj.type}`) } };
}

const failure = { code: 'agent_no_answer', message: 'The agent wrote no answer.' };

describe('runStandaloneStep', () => {
  const queue = useQueuedModelServer();

  it('sends the system prompt and the one user message, offers no tool, and places packets from turn 0', async () => {
    queue.turns.push(textSteps(['The answer', ' is 4.']));
    const { sink, seen } = recordingSink();
    const step = await runStandaloneStep({
      model: scriptedModel({ provider: 'openai', serverUrl: queue.server().url }),
      system: 'Answer briefly.',
      user: 'What is 2 + 2?',
      sink,
    });
    assert.equal(step.answer, 'The answer is 4.');
    assert.deepEqual(step.toolCalls, []);
    const request = queue.server().requests.at(-1);
    assert.deepEqual(
      request?.messages.map((message) => [message.role, message.text]),
      [
        ['system', 'Answer briefly.'],
        ['user', 'What is 2 + 2?'],
      ],
    );
    assert.deepEqual(request?.toolNames, []);
    assert.equal(seen[0], '0/0 message-start');
  });

  it('offers its tools with the given choice and returns the calls unrun', async () => {
    const ran: string[] = [];
    const verdict = defineTool({
      name: 'record_verdict',
      description: 'Record a verdict',
      parameters: z.object({ verdict: z.enum(['yes', 'no']) }),
      run: ({ verdict }) => {
        ran.push(verdict);
        return 'recorded';
      },
    });
    queue.turns.push([
      { type: 'tool-call', id: 'c1', name: 'record_verdict', arguments: { verdict: 'yes' } },
    ]);
    const step = await runStandaloneStep({
      model: scriptedModel({ provider: 'anthropic', serverUrl: queue.server().url }),
      system: 'Judge.',
      user: 'Claim 1: the sky is blue.',
      tools: [verdict],
      toolChoice: 'required',
      sink: recordingSink().sink,
    });
    assert.deepEqual(queue.server().requests.at(-1)?.toolNames, ['record_verdict']);
    assert.deepEqual(
      step.toolCalls.map((call) => [call.name, call.arguments]),
      [['record_verdict', { verdict: 'yes' }]],
    );
    assert.deepEqual(ran, []);
  });
});

describe('runWriteUpStep', () => {
  const queue = useQueuedModelServer();
  // One write-up over the queued answer; a test names only what it changes.
  const writeUp = (signal?: AbortSignal) =>
    runWriteUpStep({
      model: scriptedModel({ provider: 'openai', serverUrl: queue.server().url }),
      system: 'Write up.',
      user: 'What the commands showed: ...',
      sink: recordingSink().sink,
      ...omitUndefined({ signal }),
      failure,
    });

  it('returns a written answer', async () => {
    queue.turns.push(textSteps(['Found three files.']));
    assert.equal((await writeUp()).answer, 'Found three files.');
  });

  it('fails the tool with the given code when the step writes only white space', async () => {
    queue.turns.push(textSteps(['  ', '\n']));
    await assert.rejects(
      writeUp(),
      (error) =>
        ToolExecutionError.isInstance(error) &&
        error.code === failure.code &&
        error.message === failure.message &&
        error.emitErrorPacket &&
        error.cause === undefined,
    );
  });

  it('fails the tool with the step error as its cause when the model call fails', async () => {
    queue.turns.push([{ type: 'http-error', status: 400, message: 'bad request' }]);
    await assert.rejects(
      writeUp(),
      (error) =>
        ToolExecutionError.isInstance(error) && error.code === failure.code && error.cause !== undefined,
    );
  });

  it('throws the abort reason, not the failure, when the run was aborted', async () => {
    queue.turns.push([{ type: 'delay', ms: 5_000 }, ...textSteps(['late'])]);
    const controller = new AbortController();
    const reason = new Error('user stopped');
    const pending = writeUp(controller.signal);
    setImmediate(() => controller.abort(reason));
    await assert.rejects(pending, (error) => error === reason);
  });
});
