import { chatCompletionChunk } from './bench/paced-chat-stream.ts';
import { resolveLanguageModel } from './src/llm/resolve-language-model.ts';
import { streamModelStep } from './src/llm/stream-model-step.ts';
import type { LazyLanguageModel } from './src/llm/lazy-language-model.ts';
import { patch } from './src/llm/m32-patch.ts';

const streams = 200, tokens = 200;
const enc = new TextEncoder();
function source(onChunk: (c: Uint8Array | null) => void) {
  let i = 0;
  const step = () => setImmediate(() => {
    if (i < tokens) { onChunk(enc.encode(chatCompletionChunk({ content: `tok${i} ` }))); i++; step(); }
    else { onChunk(enc.encode(`${chatCompletionChunk({}, 'stop')}data: [DONE]\n\n`)); onChunk(null); }
  });
  step();
}
const webFetch = async () => {
  let ctl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start(c) { ctl = c; } }, new CountQueuingStrategy({ highWaterMark: 16 }));
  source((c) => (c === null ? ctl.close() : ctl.enqueue(c)));
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
};
const models: Record<string, LazyLanguageModel> = {};
for (const v of ['base', 'sync']) {
  models[v] = resolveLanguageModel('openai-compatible:http://127.0.0.1:9/v1#m', { fetch: webFetch as typeof fetch }) as LazyLanguageModel;
  const real = await models[v].model();
  if (v === 'sync') patch(real);
}
async function one(model: LazyLanguageModel) { let n = 0; for await (const e of streamModelStep({ model, messages: [{ role: 'user', content: 'x' }] as never })) if (e.type === 'text-delta') n++; return n; }
const res: Record<string, number[]> = { base: [], sync: [] };
for (let r = 0; r < 8; r++) for (const v of r % 2 ? ['base', 'sync'] : ['sync', 'base']) {
  const c0 = process.cpuUsage();
  const counts = await Promise.all(Array.from({ length: streams }, () => one(models[v]!)));
  const c = process.cpuUsage(c0); const total = counts.reduce((a, b) => a + b, 0);
  if (r > 0) res[v]!.push((c.user + c.system) / total);
}
for (const [v, xs] of Object.entries(res)) { xs.sort((a, b) => a - b); console.log(v, xs.map((x) => x.toFixed(1)).join(' '), 'median', xs[xs.length >> 1]!.toFixed(1)); }
