import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Packet, Tool, ToolCall, ToolEndPacket } from '@toolbus/spec';
import { ToolCallError, ToolExecutionError } from '@toolbus/spec';
import * as z from 'zod';
import { Emitter } from '../emitter/emitter.ts';
import { defineTool } from '../tool/define-tool.ts';
import { collectPackets } from './__fixtures__/collect-packets.ts';
import { throwingTool } from './__fixtures__/test-tools.ts';
import { runToolCalls } from './run-tool-calls.ts';

function call(id: string, name: string, args: Record<string, unknown> = {}, tab = 0): ToolCall {
  return { id, name, arguments: args, placement: { turn: 1, tab } };
}

function toolEnds(packets: readonly Packet[]): ToolEndPacket[] {
  return packets.flatMap((packet) => (packet.obj.type === 'tool-end' ? [packet.obj] : []));
}

const echo = defineTool({
  name: 'echo',
  description: 'Echoes text',
  parameters: z.object({ text: z.string() }),
  run: ({ text }) => `echo: ${text}`,
});

const search = defineTool({
  name: 'internal_search',
  description: 'search',
  mergeableField: 'queries',
  parameters: z.object({ queries: z.array(z.string()) }),
  run: ({ queries }) => `searched ${queries.join('|')}`,
});

describe('tool-end packets', () => {
  test('every call id gets exactly one tool-end: success, failures, unknown, over the cap, merged, timed out', async () => {
    const emitter = new Emitter();
    const packets = collectPackets(emitter);
    const hangs: Tool = { ...echo, name: 'hangs', timeoutMs: 20, run: () => new Promise(() => {}) };
    const calls = [
      call('ok', 'echo', { text: 'hi' }, 0),
      call('s1', 'internal_search', { queries: ['a'] }, 1),
      call('bad-args', 'echo', { text: 42 }, 2),
      call('s2', 'internal_search', { queries: ['b'] }, 3),
      call('exec', 'exec_fails', {}, 4),
      call('plain', 'plain_fails', {}, 5),
      call('slow', 'hangs', { text: 'x' }, 6),
      call('ghost', 'no_such_tool', {}, 7),
      call('late', 'echo', { text: 'over the cap' }, 8),
    ];
    const result = await runToolCalls({
      calls,
      tools: [
        echo,
        search,
        hangs,
        throwingTool(
          'exec_fails',
          () => new ToolExecutionError({ code: 'backend_down', message: 'backend returned 503' }),
        ),
        throwingTool('plain_fails', () => new Error('secret path /srv/db')),
      ],
      emitter,
      maxConcurrentTools: 6,
    });
    const ends = toolEnds(packets);
    assert.deepEqual(ends.map((end) => end.toolCallId).sort(), calls.map((each) => each.id).sort());
    const byId = new Map(ends.map((end) => [end.toolCallId, end]));
    assert.deepEqual(
      calls.map((each) => byId.get(each.id)?.status),
      [
        'success',
        'success',
        'call-error',
        'merged',
        'execution-error',
        'unexpected-error',
        'timeout',
        'unknown-tool',
        'over-cap',
      ],
    );
    // Each tool-end agrees with the result the model got for that call.
    for (const outcome of result.outcomes) {
      const end = byId.get(outcome.call.id) as ToolEndPacket;
      assert.equal(end.status, outcome.status);
      assert.equal(end.toolName, outcome.call.name);
      if (end.result !== undefined) assert.equal(end.result, outcome.response.llmFacing);
      else assert.ok(outcome.response.llmFacing.endsWith(end.error?.message ?? 'missing'));
    }
    assert.equal(byId.get('ok')?.result, 'echo: hi');
    assert.equal(byId.get('s1')?.result, 'searched a|b');
    assert.equal(byId.get('s2')?.mergedInto, 's1');
    assert.equal(byId.get('bad-args')?.error?.code, 'invalid_arguments');
    assert.deepEqual(byId.get('exec')?.error, { code: 'backend_down', message: 'backend returned 503' });
    assert.equal(byId.get('plain')?.error?.code, 'unexpected_error');
    assert.doesNotMatch(byId.get('plain')?.error?.message ?? '', /secret/);
    assert.equal(byId.get('slow')?.error?.code, 'timeout');
    assert.ok((byId.get('slow')?.durationMs ?? 0) >= 15, 'a timed-out call took about its timeout');
    assert.equal(byId.get('ghost')?.error?.code, 'unknown-tool');
    assert.equal(byId.get('late')?.error?.code, 'over-cap');
    for (const end of ends) assert.ok(Number.isInteger(end.durationMs) && end.durationMs >= 0);
  });

  test('a run call ends at its own placement, after its packets and before its section end', async () => {
    const emitter = new Emitter();
    const packets = collectPackets(emitter);
    await runToolCalls({
      calls: [call('a', 'echo', { text: '1' }, 0), call('b', 'echo', { text: '2' }, 1)],
      tools: [echo],
      emitter,
    });
    for (const tab of [0, 1]) {
      const own = packets
        .filter((packet) => packet.placement.tab === tab && packet.obj.type !== 'top-level-branching')
        .map((packet) => packet.obj.type);
      assert.deepEqual(own, ['tool-start', 'tool-end', 'section-end']);
    }
  });

  test('calls cancelled with the turn end as aborted, the model mistake as call-error with its message', async () => {
    const emitter = new Emitter();
    const packets = collectPackets(emitter);
    const controller = new AbortController();
    const waits: Tool = {
      ...echo,
      name: 'waits',
      run: (_call, context) =>
        new Promise((_resolve, reject) =>
          context.signal.addEventListener('abort', () => reject(new Error('x'))),
        ),
    };
    const refuses = throwingTool(
      'refuses',
      () => new ToolCallError({ code: 'not_found', message: 'order 7 missing', modelMessage: 'No order 7.' }),
    );
    const running = runToolCalls({
      calls: [call('w', 'waits', { text: '' }, 0), call('r', 'refuses', {}, 1)],
      tools: [waits, refuses],
      emitter,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 10);
    await running;
    const byId = new Map(toolEnds(packets).map((end) => [end.toolCallId, end]));
    assert.equal(byId.size, 2);
    assert.equal(byId.get('w')?.status, 'aborted');
    assert.deepEqual(byId.get('r')?.error, { code: 'not_found', message: 'No order 7.' });
  });
});
