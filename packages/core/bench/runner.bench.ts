// The runner's overhead per call, measured against calling the same no-op tool functions directly with
// Promise.all in the same run. `npm run bench -- runner`
import type { Tool, ToolCall, ToolRunContext } from '@toolbus/spec';
import { Emitter } from '../src/emitter/emitter.ts';
import { runToolCalls } from '../src/runner/run-tool-calls.ts';

const noop: Tool = {
  name: 'noop',
  description: 'does nothing',
  displayName: 'No-op',
  streamsArgumentDeltas: false,
  concurrency: 'parallel',
  definition: () => ({
    name: 'noop',
    description: 'does nothing',
    parameters: { type: 'object', properties: {} },
  }),
  isAvailable: () => true,
  emitStart: (_placement, emitter, call) =>
    emitter.emit({ type: 'tool-start', toolCallId: call.id, toolName: call.name, displayName: 'No-op' }),
  run: async () => ({ llmFacing: 'ok' }),
};

function makeCalls(count: number): ToolCall[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `call_${index}`,
    name: 'noop',
    arguments: {},
    placement: { turn: 0, tab: index },
  }));
}

const bareContext = {} as ToolRunContext;

async function timeIt(iterations: number, body: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const started = process.hrtime.bigint();
    await body();
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return samples.sort((left, right) => left - right);
}

const median = (samples: number[]) => samples[Math.floor(samples.length / 2)] as number;

console.log('## Tool runner overhead (`runToolCalls` vs bare `Promise.all`)\n');
console.log(
  '| calls | bare Promise.all (µs) | runToolCalls (µs) | ratio | runner µs per call | overhead µs per call |',
);
console.log('|---:|---:|---:|---:|---:|---:|');
for (const count of [1, 10, 100, 1000]) {
  const calls = makeCalls(count);
  const tools = [noop];
  const iterations = count >= 1000 ? 300 : 2000;
  // Warm both paths, then interleave the measurements so both see the same machine state.
  for (let index = 0; index < 50; index += 1) {
    await Promise.all(calls.map((call) => noop.run(call, bareContext)));
    await runToolCalls({ calls: calls, tools: tools, emitter: new Emitter() });
  }
  const bare: number[] = [];
  const runner: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    bare.push(
      ...(await timeIt(iterations / 5, () => Promise.all(calls.map((call) => noop.run(call, bareContext))))),
    );
    runner.push(
      ...(await timeIt(iterations / 5, () =>
        runToolCalls({ calls: calls, tools: tools, emitter: new Emitter() }),
      )),
    );
  }
  bare.sort((left, right) => left - right);
  runner.sort((left, right) => left - right);
  const bareMedian = median(bare);
  const runnerMedian = median(runner);
  console.log(
    `| ${count} | ${bareMedian.toFixed(1)} | ${runnerMedian.toFixed(1)} | ${(runnerMedian / bareMedian).toFixed(1)}x | ${(runnerMedian / count).toFixed(2)} | ${((runnerMedian - bareMedian) / count).toFixed(2)} |`,
  );
}
console.log(
  '\nEach runner call includes a fenced emitter with its `tool-start` and `section-end` packets, a citation view, a timeout deadline and result collection; the bare baseline only calls `run`.\n',
);
