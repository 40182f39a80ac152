import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Packet, Placement } from '@toolbus/spec';
import type { StoredPacket } from '@toolbus/storage';
import { parseJsonEventStream, readUIMessageStream, type UIMessage, uiMessageChunkSchema } from 'ai';
import { toUiMessageChunks, type UiMessageChunk } from './ui-message-chunks.ts';

async function* stored(packets: readonly [Placement, Packet['obj']][]): AsyncGenerator<StoredPacket> {
  let sequence = 0;
  for (const [placement, obj] of packets) {
    sequence += 1;
    yield { sequence, packet: { placement, modelIndex: 0, obj } };
  }
}

/** Every chunk the stored packets become. */
async function chunksOf(
  packets: readonly [Placement, Packet['obj']][],
  messageId: string,
): Promise<UiMessageChunk[]> {
  const chunks: UiMessageChunk[] = [];
  for await (const chunk of toUiMessageChunks(stored(packets), messageId)) chunks.push(chunk);
  return chunks;
}

/** The turn's answer at step `turn`, then the turn's end (finished) after it. */
function answeredAndFinished(turn: number, content: string): [Placement, Packet['obj']][] {
  return [
    [{ turn, tab: 0 }, { type: 'message-start' }],
    [
      { turn, tab: 0 },
      { type: 'message-delta', content },
    ],
    [
      { turn: turn + 1, tab: 0 },
      { type: 'stop', reason: 'finished' },
    ],
  ];
}

/**
 * A tool that asks the reader something while it runs (an approval, a question), the answers that come later in
 * the turn, then the tool's end and the turn's: the packets of a turn that waited on the reader.
 */
function askedWhileRunning(
  toolStart: Packet['obj'],
  request: Packet['obj'],
  answers: readonly Packet['obj'][],
): [Placement, Packet['obj']][] {
  const at = { turn: 0, tab: 0 };
  return [
    [at, toolStart],
    [at, request],
    ...answers.map((answer): [Placement, Packet['obj']] => [{ turn: 5, tab: 0 }, answer]),
    [at, { type: 'section-end' }],
    [
      { turn: 6, tab: 0 },
      { type: 'stop', reason: 'finished' },
    ],
  ];
}

/**
 * The data parts of `partType` in the message the ai package reads from `chunks`, after asserting the part reached
 * the reader while the tool still ran (before its output), not only in its output at the end; with the message.
 */
async function partsAsAsked<Data>(
  chunks: readonly UiMessageChunk[],
  partType: UiMessageChunk['type'],
): Promise<{ parts: { id: string; data: Data }[]; message: UIMessage }> {
  const seen = chunks.map((chunk) => chunk.type);
  assert.ok(seen.indexOf(partType) < seen.indexOf('tool-output-available'), seen.join(' '));
  const { message, errors } = await readByAi(chunks);
  assert.deepEqual(errors, []);
  const parts = message.parts.filter((part) => part.type === partType) as { id: string; data: Data }[];
  return { parts, message };
}

/** The chunks as the ai package's transport reads them (its own chunk schema), then its message reader. */
async function readByAi(
  chunks: readonly UiMessageChunk[],
): Promise<{ message: UIMessage; errors: unknown[] }> {
  const sse = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('');
  const parsed = parseJsonEventStream({
    stream: new Response(sse).body as ReadableStream<Uint8Array>,
    schema: uiMessageChunkSchema,
  });
  const valid = parsed.pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) throw result.error;
        controller.enqueue(result.value);
      },
    }),
  );
  const errors: unknown[] = [];
  let message: UIMessage | undefined;
  for await (const state of readUIMessageStream<UIMessage>({
    stream: valid,
    onError: (e) => errors.push(e),
  })) {
    message = state;
  }
  assert.ok(message);
  return { message, errors };
}

test("a sub-agent's own thinking, text and failure stay in the tool call that runs it", async () => {
  const agent: Placement = { turn: 1, tab: 0 };
  const inner = (turn: number, tab = 0): Placement => ({ ...agent, path: [{ turn, tab }] });
  const chunks = await chunksOf(
    [
      [
        { turn: 0, tab: 0 },
        { type: 'reasoning-delta', reasoning: 'Plan: ask an agent.' },
      ],
      [
        agent,
        {
          type: 'tool-start',
          toolCallId: 'agent_1',
          toolName: 'research_agent',
          displayName: 'Research agent',
          arguments: { task: 't' },
        },
      ],
      [inner(0), { type: 'reasoning-delta', reasoning: 'The agent thinks.' }],
      [
        inner(1),
        {
          type: 'tool-start',
          toolCallId: 'search_1',
          toolName: 'web_search',
          displayName: 'Web search',
          arguments: {},
        },
      ],
      [inner(1), { type: 'section-end' }],
      [inner(2), { type: 'error', code: 'step_failed', message: 'One agent step failed.' }],
      [inner(3), { type: 'message-start' }],
      [inner(3), { type: 'message-delta', content: 'The agent report.' }],
      [agent, { type: 'section-end' }],
      ...answeredAndFinished(2, 'The answer.'),
    ],
    'm1',
  );
  assert.ok(
    !chunks.some((chunk) => chunk.type === 'error'),
    'no stream error for a failure the turn survived',
  );
  const { message, errors } = await readByAi(chunks);
  assert.deepEqual(errors, []);
  const texts = message.parts
    .filter((part) => part.type === 'text')
    .map((part) => (part as { text: string }).text);
  assert.deepEqual(texts, ['The answer.']);
  const reasoning = message.parts.filter((part) => part.type === 'reasoning');
  assert.deepEqual(
    reasoning.map((part) => (part as { text: string }).text),
    ['Plan: ask an agent.'],
  );
  const agentPart = message.parts.find((part) => part.type === 'tool-research_agent') as
    | { state: string; output: { events: { type: string }[] } }
    | undefined;
  assert.equal(agentPart?.state, 'output-available');
  assert.deepEqual(
    agentPart?.output.events.map((event) => event.type),
    ['reasoning-delta', 'error', 'message-start', 'message-delta'],
  );
  const search = message.parts.find((part) => part.type === 'tool-web_search') as
    | { state: string }
    | undefined;
  assert.equal(search?.state, 'output-available');
});

test('every chunk of a stopped, an interrupted and a failed turn passes the ai package schema', async () => {
  const top = { turn: 0, tab: 0 };
  for (const [reason, last] of [
    ['user-cancelled', 'abort'],
    ['interrupted', 'abort'],
    ['error', 'finish'],
    ['cycle-limit', 'finish'],
  ] as const) {
    const chunks = await chunksOf(
      [
        [top, { type: 'message-start' }],
        [top, { type: 'message-delta', content: 'Partial' }],
        [
          { turn: 1, tab: 0 },
          {
            type: 'tool-start',
            toolCallId: 'c1',
            toolName: 'lookup',
            displayName: 'Lookup',
            arguments: { q: 1 },
          },
        ],
        [
          { turn: 2, tab: 0 },
          { type: 'stop', reason },
        ],
      ],
      'm2',
    );
    assert.equal(chunks.at(-1)?.type, last, reason);
    const { message, errors } = await readByAi(chunks);
    // A failed turn is useChat's error state; the others end without one.
    assert.deepEqual(
      errors.map((error) => (error as Error).message),
      reason === 'error' ? ['The turn failed without saying why.'] : [],
      reason,
    );
    const tool = message.parts.find((part) => part.type === 'tool-lookup') as { state: string } | undefined;
    assert.equal(tool?.state, 'output-error', `${reason}: a call the turn never finished failed`);
  }
});

test('text that turned out to hold a tool call is replaced in the message (reset-step), its reasoning kept', async () => {
  const chunks = await chunksOf(
    [
      [
        { turn: 0, tab: 0 },
        { type: 'reasoning-delta', reasoning: 'I should look.' },
      ],
      [{ turn: 0, tab: 0 }, { type: 'message-start' }],
      [
        { turn: 0, tab: 0 },
        { type: 'message-delta', content: 'Checking. <tool_call>{"name":"lookup"' },
      ],
      [
        { turn: 0, tab: 0 },
        { type: 'message-delta', content: ',"arguments":{}}</tool_call>' },
      ],
      [
        { turn: 0, tab: 0 },
        { type: 'message-replace', content: 'Checking.' },
      ],
      [
        { turn: 1, tab: 0 },
        { type: 'tool-start', toolCallId: 'r1', toolName: 'lookup', displayName: 'Lookup', arguments: {} },
      ],
      [{ turn: 1, tab: 0 }, { type: 'section-end' }],
      ...answeredAndFinished(2, 'Found it.'),
    ],
    'm3',
  );
  const { message, errors } = await readByAi(chunks);
  assert.deepEqual(errors, []);
  const shown = message.parts.map((part) =>
    part.type === 'text' || part.type === 'reasoning' ? `${part.type}:${part.text}` : part.type,
  );
  assert.deepEqual(shown, [
    'step-start',
    'reasoning:I should look.',
    'text:Checking.',
    'tool-lookup',
    'step-start',
    'text:Found it.',
  ]);
  assert.ok(!JSON.stringify(message).includes('tool_call'), 'the retracted text is gone');
});

test('an egress approval is a data part as it comes, updated in place when it is decided', async () => {
  const request = {
    type: 'approval-request',
    approvalId: 'ap1',
    toolCallId: 'py1',
    subject: { kind: 'app', name: 'github' },
    actions: ['create_issue'],
    method: 'POST',
    url: 'https://api.github.com/repos/o/r/issues',
    expiresAt: '2026-12-02T07:00:00.000Z',
  } as const;
  const chunks = await chunksOf(
    askedWhileRunning(
      { type: 'tool-start', toolCallId: 'py1', toolName: 'run_python', displayName: 'Code', arguments: {} },
      request,
      [{ type: 'approval-resolved', approvalId: 'ap1', resolution: 'approved' }],
    ),
    'm4',
  );
  const { parts: approvals } = await partsAsAsked<{ approvalId: string; resolution?: string; url: string }>(
    chunks,
    'data-toolbus-approval',
  );
  assert.equal(approvals.length, 1, 'one part per approval');
  assert.equal(approvals[0]?.id, 'ap1');
  assert.equal(approvals[0]?.data.resolution, 'approved');
  assert.equal(approvals[0]?.data.url, request.url);
});

test("an MCP server's question is a data part as it comes, updated in place when it is answered", async () => {
  const request = {
    type: 'elicitation-request',
    elicitationId: 'el1',
    toolCallId: 'mcp1',
    serverName: 'tickets',
    mode: 'form',
    message: 'Which project?',
    requestedSchema: {
      type: 'object',
      properties: { project: { type: 'string', title: 'Project', default: 'core' } },
      required: ['project'],
    },
    expiresAt: '2026-12-05T20:00:00.000Z',
  } as const;
  const chunks = await chunksOf(
    askedWhileRunning(
      {
        type: 'tool-start',
        toolCallId: 'mcp1',
        toolName: 'file_ticket',
        displayName: 'Ticket',
        arguments: {},
      },
      request,
      [
        { type: 'elicitation-resolved', elicitationId: 'el1', resolution: 'accept' },
        // An answer to a question this stream never carried is not made up into a part.
        { type: 'elicitation-resolved', elicitationId: 'el-unknown', resolution: 'cancel' },
      ],
    ),
    'm5',
  );
  const { parts: questions, message } = await partsAsAsked<typeof request & { resolution?: string }>(
    chunks,
    'data-toolbus-elicitation',
  );
  assert.equal(questions.length, 1, 'one part per question');
  assert.equal(questions[0]?.id, 'el1');
  assert.equal(questions[0]?.data.resolution, 'accept');
  assert.equal(questions[0]?.data.message, 'Which project?');
  assert.deepEqual(questions[0]?.data.requestedSchema, request.requestedSchema);
  // The tool's output still lists the question among its own packets.
  const tool = message.parts.find((part) => part.type === 'tool-file_ticket') as
    | { output?: unknown }
    | undefined;
  assert.match(JSON.stringify(tool?.output), /"elicitationId":"el1"/);
});
