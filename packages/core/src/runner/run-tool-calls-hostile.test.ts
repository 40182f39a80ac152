import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, test } from 'node:test';
import type { Tool, ToolCall } from '@toolbus/spec';
import { ToolbusError } from '@toolbus/spec';
import * as z from 'zod';
import { Emitter } from '../emitter/emitter.ts';
import { createGuardedFetch } from '../net/guarded-fetch.ts';
import { defineTool } from '../tool/define-tool.ts';
import { collectPackets } from './__fixtures__/collect-packets.ts';
import { abortAwaitingTool } from './__fixtures__/test-tools.ts';
import { runToolCalls, ToolCallBatch } from './run-tool-calls.ts';

function call(id: string, name: string, args: unknown = {}, tab = 0): ToolCall {
  return { id, name, arguments: args as ToolCall['arguments'], placement: { turn: 1, tab } };
}

/** A tool written by hand (not through defineTool), so `run` may throw or return anything at all. */
function rawTool(name: string, run: () => unknown, timeoutMs = 200): Tool {
  return {
    name,
    description: name,
    displayName: name,
    streamsArgumentDeltas: false,
    concurrency: 'parallel',
    timeoutMs,
    definition: () => ({ name, description: name, parameters: { type: 'object', properties: {} } }),
    isAvailable: () => true,
    emitStart: () => {},
    run: run as Tool['run'],
  };
}

/** Records unhandled rejections and process warnings while `body` runs (and one macrotask after). */
async function watchProcess(
  body: () => Promise<void>,
): Promise<{ rejections: unknown[]; warnings: Error[] }> {
  const rejections: unknown[] = [];
  const warnings: Error[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('unhandledRejection', onRejection);
  process.on('warning', onWarning);
  try {
    await body();
    await new Promise((resolve) => setTimeout(resolve, 10));
  } finally {
    process.off('unhandledRejection', onRejection);
    process.off('warning', onWarning);
  }
  return { rejections, warnings };
}

const hostileProxy = new Proxy(
  {},
  {
    get() {
      throw new Error('get trap');
    },
    has() {
      throw new Error('has trap');
    },
    getPrototypeOf() {
      throw new Error('getPrototypeOf trap');
    },
    getOwnPropertyDescriptor() {
      throw new Error('descriptor trap');
    },
  },
);

function throwingGetters(marker?: string): object {
  const value: Record<PropertyKey, unknown> = {};
  if (marker !== undefined) {
    value[Symbol.for('toolbus.error')] = true;
    value[Symbol.for(marker)] = true;
  }
  for (const key of ['message', 'modelMessage', 'code', 'name', 'cause', 'llmFacing', 'rich', 'then'])
    Object.defineProperty(value, key, {
      get() {
        throw new Error(`getter ${key}`);
      },
    });
  return value;
}

describe('runToolCalls under hostile tools', () => {
  test('hostile thrown and returned values are answered at once, with no unhandled rejection', async () => {
    const tools = [
      rawTool('throws_proxy', () => Promise.reject(hostileProxy)),
      rawTool('throws_getters', () => Promise.reject(throwingGetters())),
      rawTool('throws_call_error_like', () => Promise.reject(throwingGetters('toolbus.error.ToolCallError'))),
      rawTool('throws_execution_error_like', () =>
        Promise.reject(throwingGetters('toolbus.error.ToolExecutionError')),
      ),
      rawTool('throws_guard_like', () => Promise.reject(throwingGetters('toolbus.error.GuardedFetchError'))),
      rawTool('returns_proxy', () => Promise.resolve(hostileProxy)),
      rawTool('returns_getters', () => Promise.resolve(throwingGetters())),
      rawTool('returns_bad_thenable', () => ({
        // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the point of this test
        then() {
          throw new Error('then throws');
        },
      })),
      rawTool('returns_plain_value', () => 42),
      rawTool('throws_synchronously', () => {
        throw hostileProxy;
      }),
    ];
    const emitter = new Emitter();
    const packets = collectPackets(emitter);
    let result: Awaited<ReturnType<typeof runToolCalls>> | undefined;
    const watched = await watchProcess(async () => {
      result = await runToolCalls({
        calls: tools.map((tool, index) => call(`c${index}`, tool.name, {}, index)),
        tools: tools,
        emitter,
      });
    });
    assert.deepEqual(watched.rejections, []);
    // 'timeout' here would mean the call waited for its deadline instead of being answered.
    assert.deepEqual(
      result?.outcomes.map((outcome) => [outcome.call.name, outcome.status]),
      tools.map((tool) => [tool.name, 'unexpected-error']),
    );
    for (const outcome of result?.outcomes ?? []) {
      assert.match(outcome.response.llmFacing, /unexpected internal error/);
    }
    assert.equal(packets.filter((packet) => packet.obj.type === 'error').length, tools.length);
  });

  test('a returned response is read once: a getter that changes its answer cannot change the result', async () => {
    let reads = 0;
    const tool = rawTool('shifty', async () => ({
      get llmFacing() {
        reads += 1;
        if (reads > 1) throw new Error('second read');
        return 'first answer';
      },
    }));
    const result = await runToolCalls({ calls: [call('a', 'shifty')], tools: [tool] });
    assert.equal(result.outcomes[0]?.status, 'success');
    assert.equal(result.outcomes[0]?.response.llmFacing, 'first answer');
    assert.equal(result.messages[0]?.role === 'tool' && result.messages[0].content, 'first answer');
  });

  test('timeouts beyond the timer maximum, or Infinity, arm no overflowing timer', async () => {
    const slow = (name: string, timeoutMs: number) =>
      rawTool(
        name,
        () => new Promise((resolve) => setTimeout(() => resolve({ llmFacing: 'done' }), 30)),
        timeoutMs,
      );
    const tools = [
      slow('huge', 2 ** 32),
      slow('infinite', Number.POSITIVE_INFINITY),
      slow('nan', Number.NaN),
    ];
    let result: Awaited<ReturnType<typeof runToolCalls>> | undefined;
    const watched = await watchProcess(async () => {
      result = await runToolCalls({
        calls: tools.map((tool, index) => call(`t${index}`, tool.name, {}, index)),
        tools: tools,
      });
    });
    // Node warns (TimeoutOverflowWarning) each time a longer delay is handed to setTimeout, and then fires it
    // after 1 ms: the deadline timer would re-arm and spin.
    assert.deepEqual(
      watched.warnings.filter((warning) => warning.name === 'TimeoutOverflowWarning').map((w) => w.message),
      [],
    );
    assert.deepEqual(
      result?.outcomes.map((outcome) => outcome.status),
      ['success', 'success', 'success'],
    );
  });

  test('a batch refused up front leaves no listener on the caller signal and stops what it started', async () => {
    const controller = new AbortController();
    const echo = defineTool({
      name: 'echo',
      description: 'echo',
      parameters: z.object({}),
      run: () => 'ok',
    });
    await assert.rejects(
      runToolCalls({
        calls: [call('x', 'echo'), call('x', 'echo', {}, 1)],
        tools: [echo],
        signal: controller.signal,
      }),
      /share the id "x"/,
    );
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);

    let toolSignal: AbortSignal | undefined;
    const hang = abortAwaitingTool('hang', (context) => {
      toolSignal = context.signal;
    });
    const batch = new ToolCallBatch([hang], { signal: controller.signal });
    batch.add(call('h', 'hang'));
    await assert.rejects(
      batch.settle([call('h', 'hang'), call('y', 'hang', {}, 1), call('y', 'hang', {}, 2)]),
    );
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    assert.equal(toolSignal?.aborted, true);
  });

  test('failures whose cause is ours reach the model in plain words and the UI as an error', async () => {
    const guarded = createGuardedFetch();
    try {
      const tools = [
        defineTool({
          name: 'fetcher',
          description: 'fetches an internal address (refused before any connection)',
          parameters: z.object({}),
          run: async () => {
            try {
              await guarded('http://127.0.0.1:8080/secret?token=abc');
            } catch (error) {
              throw new Error('wrapped by the tool', { cause: error });
            }
            return 'unreachable';
          },
        }),
        rawTool('big', () =>
          Promise.reject(
            new ToolbusError({ code: 'image_answer_too_large', message: 'The image was larger than 20 MB.' }),
          ),
        ),
        rawTool('slow_request', () =>
          Promise.reject(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
        ),
      ];
      const emitter = new Emitter();
      const packets = collectPackets(emitter);
      const result = await runToolCalls({
        calls: tools.map((tool, index) => call(`r${index}`, tool.name, {}, index)),
        tools: tools,
        emitter,
      });
      assert.deepEqual(
        result.outcomes.map((outcome) => outcome.status),
        ['execution-error', 'execution-error', 'execution-error'],
      );
      const [guard, big, slow] = result.outcomes.map((outcome) => outcome.response.llmFacing);
      assert.match(guard ?? '', /Blocked connection to host "127\.0\.0\.1"/);
      assert.doesNotMatch(guard ?? '', /token=abc|secret/);
      assert.match(big ?? '', /larger than 20 MB/);
      assert.match(slow ?? '', /timed out/);
      assert.deepEqual(
        packets
          .filter((packet) => packet.obj.type === 'error')
          .map((packet) => [packet.placement.tab, packet.obj])
          .sort((left, right) => Number(left[0]) - Number(right[0])),
        [
          [0, { type: 'error', code: 'ssrf_blocked', message: guardMessage(guard) }],
          [1, { type: 'error', code: 'image_answer_too_large', message: 'The image was larger than 20 MB.' }],
          [2, { type: 'error', code: 'request_timeout', message: slowMessage(slow) }],
        ],
      );
    } finally {
      await guarded.close();
    }
  });
});

const guardMessage = (text: string | undefined) => (text ?? '').replace(/^Tool failed with error: /, '');
const slowMessage = guardMessage;

describe('merging under hostile input', () => {
  const search = (name: string, declares: boolean, seen: unknown[]) =>
    defineTool({
      name,
      description: 'search',
      ...(declares ? { mergeableField: 'queries' as const } : {}),
      parameters: z.object({ queries: z.array(z.string()) }),
      run: ({ queries }) => {
        seen.push(queries);
        return `searched ${queries.join('|')}`;
      },
    });

  test("a user's tool that only shares a built-in's name is not merged", async () => {
    const seen: unknown[] = [];
    const result = await runToolCalls({
      calls: [call('a', 'web_search', { queries: ['x'] }), call('b', 'web_search', { queries: ['y'] }, 1)],
      tools: [search('web_search', false, seen)],
    });
    assert.deepEqual(seen, [['x'], ['y']]);
    assert.deepEqual(
      result.outcomes.map((outcome) => outcome.status),
      ['success', 'success'],
    );
  });

  test('null or string arguments are not merged: each call runs and the model reads its own mistake', async () => {
    const seen: unknown[] = [];
    const result = await runToolCalls({
      calls: [
        call('a', 'web_search', { queries: ['x'] }),
        call('b', 'web_search', null, 1),
        call('c', 'web_search', 'queries', 2),
      ],
      tools: [search('web_search', true, seen)],
    });
    assert.deepEqual(seen, [['x']]);
    assert.deepEqual(
      result.outcomes.map((outcome) => outcome.status),
      ['success', 'call-error', 'call-error'],
    );
  });

  test('no call is answered "merged" when the call carrying it never ran', async () => {
    const seen: unknown[] = [];
    const echo = defineTool({ name: 'echo', description: 'echo', parameters: z.object({}), run: () => 'ok' });
    const result = await runToolCalls({
      calls: [
        call('e', 'echo'),
        call('s1', 'web_search', { queries: ['x'] }, 1),
        call('s2', 'web_search', { queries: ['y'] }, 2),
      ],
      tools: [echo, search('web_search', true, seen)],
      maxConcurrentTools: 1,
    });
    assert.deepEqual(seen, []);
    assert.deepEqual(
      result.outcomes.map((outcome) => outcome.status),
      ['success', 'over-cap', 'over-cap'],
    );
    assert.equal(result.outcomes[2]?.ranAs, undefined);
  });
});
