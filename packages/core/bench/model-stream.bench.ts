// Model stream throughput: events per second through streamModelStep (real provider package → normalised events)
// from the scripted model server with zero latency, against reading the same SSE bytes with plain fetch in the
// same run. Run: npx node --conditions=development --expose-gc packages/core/bench/model-stream.bench.ts
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { resolveLanguageModel, streamModelStep } from '../src/llm/index.ts';
import type { ScriptedStep } from '../src/testing/index.ts';
import { startScriptedModelServer } from '../src/testing/index.ts';

const textChunks = 8_000;
const toolCalls = 40;
const runs = 5;

const steps: ScriptedStep[] = [];
for (let index = 0; index < textChunks; index += 1) steps.push({ type: 'text', text: `word${index % 10} ` });
for (let index = 0; index < toolCalls; index += 1) {
  steps.push({
    type: 'tool-call',
    id: `call_${index}`,
    name: 'search',
    arguments: { queries: [`query number ${index}`, 'second query'] },
    chunkSize: 8,
  });
}

const server = await startScriptedModelServer({ turns: [{ repeat: true, steps }] });
const baseUrl = `${server.url}/v1`;
const models: Record<'openai' | 'anthropic', LanguageModelV4> = {
  openai: resolveLanguageModel(
    { provider: 'openai', model: 'bench', baseUrl },
    { env: { OPENAI_API_KEY: 'k' } },
  ),
  anthropic: resolveLanguageModel(
    { provider: 'anthropic', model: 'bench', baseUrl },
    { env: { ANTHROPIC_API_KEY: 'k' } },
  ),
};
const rawRequests: Record<'openai' | 'anthropic', { path: string; body: unknown }> = {
  openai: {
    path: '/v1/chat/completions',
    body: {
      model: 'bench',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'go' }],
    },
  },
  anthropic: {
    path: '/v1/messages',
    body: { model: 'bench', stream: true, max_tokens: 4096, messages: [{ role: 'user', content: 'go' }] },
  },
};

async function readWithFetch(wire: 'openai' | 'anthropic'): Promise<{ events: number; bytes: number }> {
  const request = rawRequests[wire];
  const response = await fetch(`${server.url}${request.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request.body),
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let events = 0;
  let tail = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    const text = tail + decoder.decode(value, { stream: true });
    const parts = text.split('\n\n');
    tail = parts.pop() ?? '';
    events += parts.length;
  }
  return { events, bytes };
}

async function readWithStep(wire: 'openai' | 'anthropic'): Promise<{ events: number }> {
  let events = 0;
  for await (const event of streamModelStep({
    model: models[wire],
    messages: [{ role: 'user', content: 'go' }],
  })) {
    if (event.type === 'error') throw event.error;
    events += 1;
  }
  return { events };
}

async function readWithDoStream(wire: 'openai' | 'anthropic'): Promise<{ events: number }> {
  const result = await models[wire].doStream({
    prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
  });
  const reader = result.stream.getReader();
  let events = 0;
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
    events += 1;
  }
  return { events };
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function measure<T>(run: () => Promise<T>): Promise<{ ms: number; result: T }> {
  (globalThis as { gc?: () => void }).gc?.();
  const start = performance.now();
  const result = await run();
  return { ms: performance.now() - start, result };
}

const rows: string[] = [];
for (const wire of ['openai', 'anthropic'] as const) {
  await readWithFetch(wire);
  await readWithDoStream(wire);
  await readWithStep(wire);
  const fetchTimes: number[] = [];
  const doStreamTimes: number[] = [];
  const stepTimes: number[] = [];
  let fetchEvents = 0;
  let doStreamEvents = 0;
  let stepEvents = 0;
  let bytes = 0;
  for (let run = 0; run < runs; run += 1) {
    const raw = await measure(() => readWithFetch(wire));
    fetchTimes.push(raw.ms);
    fetchEvents = raw.result.events;
    bytes = raw.result.bytes;
    const parts = await measure(() => readWithDoStream(wire));
    doStreamTimes.push(parts.ms);
    doStreamEvents = parts.result.events;
    const step = await measure(() => readWithStep(wire));
    stepTimes.push(step.ms);
    stepEvents = step.result.events;
  }
  const fetchMs = median(fetchTimes);
  const stepMs = median(stepTimes);
  const doStreamMs = median(doStreamTimes);
  const megabytes = bytes / 2 ** 20;
  rows.push(
    `| ${wire} | plain fetch, SSE events counted (baseline) | ${fetchEvents} | ${fetchMs.toFixed(1)} | ${Math.round((fetchEvents / fetchMs) * 1000)} | ${(megabytes / (fetchMs / 1000)).toFixed(1)} | 1.00 |`,
    `| ${wire} | provider doStream parts, read directly | ${doStreamEvents} | ${doStreamMs.toFixed(1)} | ${Math.round((doStreamEvents / doStreamMs) * 1000)} | ${(megabytes / (doStreamMs / 1000)).toFixed(1)} | ${(doStreamMs / fetchMs).toFixed(2)} |`,
    `| ${wire} | streamModelStep (provider package + normaliser) | ${stepEvents} | ${stepMs.toFixed(1)} | ${Math.round((stepEvents / stepMs) * 1000)} | ${(megabytes / (stepMs / 1000)).toFixed(1)} | ${(stepMs / fetchMs).toFixed(2)} |`,
  );
}
await server.close();

console.log('## Model stream: streamModelStep vs plain fetch (scripted server, zero latency)\n');
console.log(
  `One turn of ${textChunks} text chunks and ${toolCalls} native tool calls (arguments in 8-character deltas), served on loopback; median of ${runs} runs after a warm-up. Time ratio: streamModelStep time / plain-fetch time for the same bytes (server cost included in both).\n`,
);
console.log('| wire | reader | events | median ms | events/s | MB/s of SSE | time ratio |');
console.log('|---|---|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
console.log();
