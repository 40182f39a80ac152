import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PacketObject, Placement } from '@toolbus/spec';
import { applyPacket } from './apply-packet.ts';
import { createTurnTree, isWorkNode, type TreeNode, type UiPacket } from './turn-tree.ts';

function feed(objects: [Placement, PacketObject][]) {
  const tree = createTurnTree();
  for (const [index, [placement, obj]] of objects.entries()) {
    applyPacket(tree, { sequence: index + 1, placement, obj } as UiPacket);
  }
  return tree;
}

test('parallel tools of a cycle become sibling tabs; narration keeps its own node', () => {
  const tree = feed([
    [
      { turn: 0, tab: 0 },
      { type: 'message-delta', content: 'Looking. ' },
    ],
    [
      { turn: 0, tab: 2 },
      { type: 'tool-start', toolCallId: 'b', toolName: 'open_url', displayName: 'Open URL' },
    ],
    [
      { turn: 0, tab: 1 },
      { type: 'tool-start', toolCallId: 'a', toolName: 'search', displayName: 'Search' },
    ],
    [
      { turn: 0, tab: 1 },
      { type: 'search-queries', toolCallId: 'a', queries: ['refunds'] },
    ],
    [
      { turn: 0, tab: 2 },
      { type: 'open-url-urls', toolCallId: 'b', urls: ['https://example.com/'] },
    ],
    [
      { turn: 1, tab: 0 },
      { type: 'message-delta', content: 'Done.' },
    ],
  ]);
  const [first, second] = tree.root.cycles;
  assert.deepEqual(
    first?.tabs.map((node) => node.tab),
    [0, 1, 2],
  );
  assert.deepEqual(first?.tabs.map(isWorkNode), [false, true, true]);
  assert.deepEqual(first?.tabs[1]?.tool?.queries, ['refunds']);
  assert.equal(second?.tabs[0]?.message, 'Done.');
});

test('nesting comes from the placement path alone, to any depth', () => {
  const deep: Placement = {
    turn: 2,
    tab: 1,
    path: [
      { turn: 0, tab: 0 },
      { turn: 3, tab: 1 },
      { turn: 0, tab: 2 },
    ],
  };
  const tree = feed([
    [
      { turn: 2, tab: 1 },
      { type: 'research-agent-start', task: 'History' },
    ],
    [deep, { type: 'tool-start', toolCallId: 'x', toolName: 'anything', displayName: 'Anything' }],
    [
      deep,
      {
        type: 'custom-tool-delta',
        toolCallId: 'x',
        toolName: 'anything',
        responseType: 'json',
        data: { ok: 1 },
      },
    ],
  ]);
  let node = tree.root.cycles[0]?.tabs[0] as TreeNode;
  assert.equal(node.agentTask, 'History');
  for (const level of deep.path ?? []) {
    const cycle = node.children.cycles.find((candidate) => candidate.turn === level.turn);
    node = cycle?.tabs.find((candidate) => candidate.tab === level.tab) as TreeNode;
    assert.ok(node, `level ${level.turn}.${level.tab}`);
  }
  assert.equal(node.key, '2.1/0.0/3.1/0.2');
  assert.equal(node.depth, 3);
  assert.deepEqual(node.tool?.results[0]?.data, { ok: 1 });
  // A change deep down bumps every ancestor's version, so the views above redraw.
  assert.equal(tree.root.cycles[0]?.tabs[0]?.version, tree.version);
});

test('a replayed packet is ignored, message-replace replaces, stop and citations land on the turn', () => {
  const tree = createTurnTree();
  const at = { turn: 0, tab: 0 };
  const document = {
    id: 'd1',
    title: 'Policy',
    blurb: 'b',
    content: 'c',
    sourceType: 'file',
    citationNumber: 1,
  };
  applyPacket(tree, {
    sequence: 1,
    placement: at,
    obj: { type: 'message-start', finalDocuments: [document] },
  });
  applyPacket(tree, {
    sequence: 2,
    placement: at,
    obj: { type: 'message-delta', content: '<tool_call>{"name":"x"}' },
  });
  applyPacket(tree, { sequence: 2, placement: at, obj: { type: 'message-delta', content: 'again' } });
  applyPacket(tree, {
    sequence: 3,
    placement: at,
    obj: { type: 'message-replace', content: 'Refunds take 14 days [1].' },
  });
  applyPacket(tree, {
    sequence: 4,
    placement: at,
    obj: { type: 'citation-info', citationNumber: 1, documentId: 'd1' },
  });
  applyPacket(tree, { sequence: 5, placement: at, obj: { type: 'stop', reason: 'finished' } });
  assert.equal(tree.root.cycles[0]?.tabs[0]?.message, 'Refunds take 14 days [1].');
  assert.deepEqual(tree.cited, [1]);
  assert.equal(tree.documents.get(1)?.title, 'Policy');
  assert.equal(tree.stopReason, 'finished');
  assert.equal(tree.packetCount, 5);
});

test('a coding agent: each bash command with its output, in order', () => {
  const at = { turn: 0, tab: 0, path: [{ turn: 1, tab: 0 }] };
  const tree = feed([
    [at, { type: 'bash-start', command: 'ls' }],
    [at, { type: 'bash-delta', stdout: 'a.txt\n', stderr: '', exitCode: 0, timedOut: false }],
    [at, { type: 'bash-start', command: 'false' }],
    [at, { type: 'bash-delta', stdout: '', stderr: 'no', exitCode: 1, timedOut: false }],
  ]);
  const node = tree.root.cycles[0]?.tabs[0]?.children.cycles[0]?.tabs[0];
  assert.deepEqual(
    node?.bash.map((step) => [step.command, step.exitCode]),
    [
      ['ls', 0],
      ['false', 1],
    ],
  );
});

test("a call's tool-end says how it ended: done with what the model read, failed once, or never started", () => {
  const at = (tab: number): Placement => ({ turn: 0, tab });
  const tree = feed([
    [at(0), { type: 'tool-start', toolCallId: 'ok', toolName: 'lookup', displayName: 'Lookup' }],
    [at(1), { type: 'tool-start', toolCallId: 'refused', toolName: 'lookup', displayName: 'Lookup' }],
    [at(2), { type: 'tool-start', toolCallId: 'guarded', toolName: 'fetch', displayName: 'Fetch' }],
    [
      at(0),
      {
        type: 'tool-end',
        toolCallId: 'ok',
        toolName: 'lookup',
        status: 'success',
        result: 'Fact.',
        durationMs: 4,
      },
    ],
    // The model's own mistake streams no error packet: the tool-end alone makes the call failed.
    [
      at(1),
      {
        type: 'tool-end',
        toolCallId: 'refused',
        toolName: 'lookup',
        status: 'call-error',
        error: { code: 'not_found', message: 'No such fact.' },
        durationMs: 1,
      },
    ],
    // A failure that streamed its error packet too is shown once.
    [at(2), { type: 'error', code: 'ssrf_blocked', message: 'Refused: a private address.' }],
    [
      at(2),
      {
        type: 'tool-end',
        toolCallId: 'guarded',
        toolName: 'fetch',
        status: 'execution-error',
        error: { code: 'ssrf_blocked', message: 'Refused: a private address.' },
        durationMs: 2,
      },
    ],
    [
      at(3),
      {
        type: 'tool-end',
        toolCallId: 'ghost',
        toolName: 'no_such_tool',
        status: 'unknown-tool',
        error: { code: 'unknown_tool', message: 'There is no tool named "no_such_tool".' },
        durationMs: 0,
      },
    ],
  ]);
  const tabs = tree.root.cycles[0]?.tabs ?? [];
  assert.deepEqual(
    tabs.map((node) => [node.tool?.toolCallId, node.tool?.end?.status, node.ended, node.errors.length]),
    [
      ['ok', 'success', true, 0],
      ['refused', 'call-error', true, 1],
      ['guarded', 'execution-error', true, 1],
      ['ghost', 'unknown-tool', true, 1],
    ],
  );
  assert.equal(tabs[0]?.tool?.end?.result, 'Fact.');
  assert.equal(tabs[0]?.tool?.end?.durationMs, 4);
  assert.deepEqual(tabs[1]?.errors, [{ code: 'not_found', message: 'No such fact.' }]);
  assert.equal(tabs[3]?.tool?.toolName, 'no_such_tool');
  assert.ok(isWorkNode(tabs[3] as TreeNode));
});
