import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SearchDocument, Tool, ToolCall } from '@toolbus/spec';
import { ToolCallError, ToolExecutionError } from '@toolbus/spec';
import * as z from 'zod';
import { createCitationAllocator } from '../citations/citation-allocator.ts';
import { Emitter } from '../emitter/emitter.ts';
import { defineTool } from '../tool/define-tool.ts';
import { collectPackets } from './__fixtures__/collect-packets.ts';
import { abortAwaitingTool, throwingTool } from './__fixtures__/test-tools.ts';
import { runToolCalls } from './run-tool-calls.ts';

function call(id: string, name: string, args: Record<string, unknown> = {}, tab = 0): ToolCall {
  return { id, name, arguments: args, placement: { turn: 1, tab } };
}

const echo = defineTool({
  name: 'echo',
  description: 'Echoes text',
  parameters: z.object({ text: z.string() }),
  run: ({ text }) => `echo: ${text}`,
});

describe('runToolCalls', () => {
  test('runs 200 calls concurrently: each waits until all 200 have started', async () => {
    let started = 0;
    let releaseAll: () => void = () => {};
    const allStarted = new Promise<void>((resolve) => {
      releaseAll = resolve;
    });
    const barrier = defineTool({
      name: 'barrier',
      description: 'waits for the others',
      parameters: z.object({ index: z.number() }),
      async run({ index }) {
        started += 1;
        if (started === 200) releaseAll();
        await allStarted; // would never resolve if calls ran one after another
        return `done ${index}`;
      },
    });
    const calls = Array.from({ length: 200 }, (_, index) => call(`c${index}`, 'barrier', { index }, index));
    const result = await runToolCalls({ calls: calls, tools: [barrier] });
    assert.equal(result.outcomes.length, 200);
    assert.deepEqual(
      result.outcomes.map((outcome) => outcome.response.llmFacing),
      calls.map((_, index) => `done ${index}`),
    );
    assert.ok(result.outcomes.every((outcome) => outcome.status === 'success'));
  });

  test('a tool that hangs and ignores abort times out; nothing it does later reaches the stream or the result', async () => {
    let lateAttempt: () => void = () => {};
    let signalAborted = false;
    const lateDone = new Promise<void>((resolve) => {
      lateAttempt = resolve;
    });
    const stubborn: Tool = {
      ...echo,
      name: 'stubborn',
      timeoutMs: 30,
      async run(_call, context) {
        const signal = context.signal;
        await new Promise((resolve) => setTimeout(resolve, 80)); // ignores the abort on purpose
        signalAborted = signal.aborted;
        context.emitter.emit({ type: 'tool-progress', toolCallId: 'late', message: 'late packet' });
        assert.throws(() => context.citations.assign([doc('late')]), /cannot take citation numbers/);
        lateAttempt();
        return { llmFacing: 'late result' };
      },
    };
    const emitter = new Emitter();
    const packets = collectPackets(emitter);
    const result = await runToolCalls({
      calls: [call('a', 'stubborn'), call('b', 'echo', { text: 'hi' }, 1)],
      tools: [stubborn, echo],
      emitter,
    });
    assert.equal(result.outcomes[0]?.status, 'timeout');
    // One name for the fact: the status, the failure's kind and its code.
    const timedOut = result.outcomes[0]?.response.rich;
    assert.ok(timedOut?.type === 'failure');
    assert.deepEqual([timedOut.kind, timedOut.code], ['timeout', 'timeout']);
    assert.match(result.outcomes[0]?.response.llmFacing ?? '', /did not finish within/);
    assert.equal(result.outcomes[1]?.response.llmFacing, 'echo: hi');
    await lateDone;
    assert.equal(signalAborted, true, 'the tool signal was aborted at the timeout');
    assert.ok(!packets.some((packet) => packet.obj.type === 'tool-progress'), 'late packet was fenced off');
    assert.equal(result.outcomes[0]?.response.llmFacing.includes('late result'), false);
    assert.equal(result.citations.size, 0);
  });

  test('failures are isolated: ToolCallError, ToolExecutionError, Errors, strings, undefined', async () => {
    const tools = [
      throwingTool(
        'call_error',
        () => new ToolCallError({ message: 'detail 404', modelMessage: 'use an existing id' }),
      ),
      throwingTool(
        'exec_error',
        () => new ToolExecutionError({ message: 'renderer down', emitErrorPacket: true }),
      ),
      throwingTool('plain_error', () => new Error('secret path /etc/x')),
      throwingTool('string_throw', () => 'just a string'),
      throwingTool('undefined_throw', () => undefined),
      echo,
    ];
    const emitter = new Emitter();
    const packets = collectPackets(emitter);
    const calls = tools.map((tool, index) =>
      call(`id${index}`, tool.name, tool.name === 'echo' ? { text: 'ok' } : {}, index),
    );
    const result = await runToolCalls({ calls: calls, tools: tools, emitter });
    const byName = new Map(result.outcomes.map((outcome) => [outcome.call.name, outcome]));
    assert.equal(byName.get('call_error')?.response.llmFacing, 'Tool failed with error: use an existing id');
    assert.equal(byName.get('call_error')?.status, 'call-error');
    assert.equal(byName.get('exec_error')?.response.llmFacing, 'Tool failed with error: renderer down');
    for (const name of ['plain_error', 'string_throw', 'undefined_throw']) {
      assert.equal(byName.get(name)?.status, 'unexpected-error');
      assert.match(byName.get(name)?.response.llmFacing ?? '', /unexpected internal error/);
    }
    assert.doesNotMatch(byName.get('plain_error')?.response.llmFacing ?? '', /secret path/);
    assert.equal(byName.get('echo')?.response.llmFacing, 'echo: ok');
    // The UI sees every failure that is not the model's own mistake as an error: the ToolExecutionError that
    // asked for it, and the three unexpected ones (with the generic message only).
    const errorPackets = packets.filter((packet) => packet.obj.type === 'error');
    assert.deepEqual(
      errorPackets.map((packet) => packet.placement.tab),
      [1, 2, 3, 4],
    );
    assert.ok(errorPackets.every((packet) => !JSON.stringify(packet.obj).includes('secret path')));
    for (const [index] of tools.entries()) {
      const mine = packets.filter(
        (packet) => packet.placement.tab === index && packet.obj.type !== 'top-level-branching',
      );
      assert.equal(mine[0]?.obj.type, 'tool-start', `call ${index} starts its section`);
      assert.equal(mine.at(-1)?.obj.type, 'section-end', `call ${index} ends its section`);
    }
  });

  test('three parallel citeable tools with 150 documents each get dense, unique, contiguous numbers', async () => {
    const searcher = (name: string): Tool =>
      defineTool({
        name,
        description: name,
        parameters: z.object({}),
        async run(_args, context) {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
          const cited = context.citations.assign(
            Array.from({ length: 150 }, (_, index) => doc(`${name}-${index}`)),
          );
          return { llmFacing: `${cited.length} documents`, rich: { type: 'documents', documents: cited } };
        },
      });
    const tools = [searcher('s1'), searcher('s2'), searcher('s3')];
    const citations = createCitationAllocator({ known: [{ ...doc('earlier'), citationNumber: 4 }] });
    const result = await runToolCalls({
      calls: tools.map((tool, index) => call(`c${index}`, tool.name, {}, index)),
      tools: tools,
      citations,
    });
    const numbers = [...result.citations.keys()];
    assert.equal(numbers.length, 450);
    assert.deepEqual(
      numbers,
      Array.from({ length: 450 }, (_, index) => index + 5),
      'dense after the conversation',
    );
    for (const outcome of result.outcomes) {
      const rich = outcome.response.rich;
      assert.equal(rich?.type, 'documents');
      const own = rich?.type === 'documents' ? rich.documents.map((document) => document.citationNumber) : [];
      assert.equal(own.length, 150);
      assert.equal((own.at(-1) ?? 0) - (own[0] ?? 0), 149, 'each tool has one contiguous block');
    }
  });

  test('unknown tools and calls over maxConcurrentTools are answered, not dropped', async () => {
    const result = await runToolCalls({
      calls: [
        call('a', 'echo', { text: '1' }),
        call('b', 'nope', {}, 1),
        call('c', 'echo2', { text: '2' }, 2),
        call('d', 'echo3', { text: '3' }, 3),
      ],
      tools: [echo, { ...echo, name: 'echo2' }, { ...echo, name: 'echo3' }],
      maxConcurrentTools: 2,
    });
    assert.deepEqual(
      result.outcomes.map((outcome) => outcome.status),
      ['success', 'unknown-tool', 'success', 'over-cap'],
    );
    assert.match(result.outcomes[1]?.response.llmFacing ?? '', /no tool named "nope".*"echo"/);
    for (const index of [1, 3]) {
      const { status, response } = result.outcomes[index] ?? {};
      const rich = response?.rich?.type === 'failure' ? response.rich : undefined;
      assert.deepEqual([rich?.kind, rich?.code], [status, status], 'one name for the fact');
    }
    assert.match(result.outcomes[3]?.response.llmFacing ?? '', /at most 2 tool call/);
    assert.deepEqual(
      result.messages.map((message) => (message.role === 'tool' ? message.toolCallId : '')),
      ['a', 'b', 'c', 'd'],
    );
  });

  test('merged search calls run once and every call id still gets exactly one result', async () => {
    const seen: unknown[] = [];
    const search = defineTool({
      name: 'internal_search',
      description: 'search',
      mergeableField: 'queries',
      parameters: z.object({ queries: z.array(z.string()) }),
      run: ({ queries }) => {
        seen.push(queries);
        return `searched ${queries.join('|')}`;
      },
    });
    const result = await runToolCalls({
      calls: [
        call('s1', 'internal_search', { queries: ['a'] }),
        call('e1', 'echo', { text: 'x' }, 1),
        call('s2', 'internal_search', { queries: 'b' }, 2),
        call('s3', 'internal_search', { queries: ['a', 'c'] }, 3),
      ],
      tools: [search, echo],
    });
    assert.deepEqual(seen, [['a', 'b', 'c']]);
    assert.deepEqual(
      result.messages.map((message) => (message.role === 'tool' ? message.toolCallId : '')),
      ['s1', 'e1', 's2', 's3'],
    );
    assert.equal(result.outcomes[0]?.response.llmFacing, 'searched a|b|c');
    assert.equal(result.outcomes[2]?.status, 'merged');
    assert.match(result.outcomes[2]?.response.llmFacing ?? '', /merged into call s1/);
  });

  test('serial tools run one at a time in call order; an exclusive tool runs alone', async () => {
    const log: string[] = [];
    let active = 0;
    let maxActive = 0;
    const slow = (name: string, concurrency: Tool['concurrency']): Tool => ({
      ...defineTool({
        name,
        description: name,
        parameters: z.object({ n: z.number() }),
        async run({ n }) {
          active += 1;
          maxActive = Math.max(maxActive, active);
          log.push(`start ${name} ${n}`);
          await new Promise((resolve) => setTimeout(resolve, 5));
          log.push(`end ${name} ${n}`);
          active -= 1;
          return 'ok';
        },
      }),
      concurrency,
    });
    const writer = slow('writer', 'serial');
    const reader = slow('reader', 'parallel');
    const migrate = slow('migrate', 'exclusive');
    await runToolCalls({
      calls: [
        call('1', 'writer', { n: 1 }),
        call('2', 'writer', { n: 2 }, 1),
        call('3', 'reader', { n: 3 }, 2),
        call('4', 'migrate', { n: 4 }, 3),
        call('5', 'reader', { n: 5 }, 4),
      ],
      tools: [writer, reader, migrate],
    });
    assert.ok(log.indexOf('end writer 1') < log.indexOf('start writer 2'), 'serial in order');
    assert.ok(
      log.indexOf('start reader 3') < log.indexOf('end writer 1'),
      'parallel tools overlap serial ones',
    );
    const migrateStart = log.indexOf('start migrate 4');
    assert.equal(log[migrateStart + 1], 'end migrate 4', 'nothing runs during the exclusive tool');
    assert.ok(migrateStart > log.indexOf('end writer 2') && migrateStart > log.indexOf('end reader 3'));
    assert.ok(log.indexOf('start reader 5') > log.indexOf('end migrate 4'));
    assert.ok(maxActive >= 2);
  });

  test('the turn signal aborts running calls, which are answered as cancelled', async () => {
    const controller = new AbortController();
    let sawAbort = false;
    const waiter = abortAwaitingTool('waiter', (context) =>
      context.signal.addEventListener('abort', () => {
        sawAbort = true;
      }),
    );
    const pending = runToolCalls({
      calls: [call('w', 'waiter')],
      tools: [waiter],
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 5);
    const result = await pending;
    assert.equal(result.outcomes[0]?.status, 'aborted');
    assert.equal(sawAbort, true);
  });

  test('invalid arguments answer with every problem and a correct example call', async () => {
    const search = defineTool({
      name: 'lookup',
      description: 'look things up',
      parameters: z.object({ queries: z.array(z.string()).min(1), limit: z.number().int().optional() }),
      run: () => 'never',
    });
    const result = await runToolCalls({
      calls: [call('x', 'lookup', { queries: 5, limit: 'ten' })],
      tools: [search],
    });
    const text = result.outcomes[0]?.response.llmFacing ?? '';
    assert.equal(result.outcomes[0]?.status, 'call-error');
    assert.match(text, /- queries: /);
    assert.match(text, /- limit: /);
    assert.match(text, /Call it like this: \{"name":"lookup","arguments":\{"queries":\["\.\.\."\]\}\}/);
  });

  test('tracing hooks see every call with its status; a throwing hook changes nothing', async () => {
    const ended: string[] = [];
    const result = await runToolCalls({
      calls: [call('a', 'echo', { text: 'x' }), call('b', 'echo2', { text: 1 }, 1)],
      tools: [echo, { ...echo, name: 'echo2' }],
      hooks: {
        onToolCallStart: ({ call: started }) => {
          if (started.id === 'b') throw new Error('tracer broke');
          return { end: ({ status }) => ended.push(`${started.id}:${status}`) };
        },
      },
    });
    assert.deepEqual(ended, ['a:success']);
    assert.equal(result.outcomes[1]?.status, 'call-error');
  });

  test('a stopping tool ends the loop; duplicate call ids are refused', async () => {
    const image = defineTool({
      name: 'generate_image',
      description: 'img',
      stopsTurn: true,
      parameters: z.object({}),
      run: () => 'ok',
    });
    const result = await runToolCalls({ calls: [call('i', 'generate_image')], tools: [image] });
    assert.equal(result.stopped, true);
    await assert.rejects(
      runToolCalls({ calls: [call('x', 'echo'), call('x', 'echo')], tools: [echo] }),
      /share the id "x"/,
    );
  });
});

function doc(id: string): SearchDocument {
  return { id, title: id, blurb: id, content: id, sourceType: 'test' };
}
