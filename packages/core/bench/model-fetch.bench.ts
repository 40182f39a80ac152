// `npm run bench -- model-fetch`: what reading a model's token stream costs the reader's CPU through a real provider
// package (@ai-sdk/openai-compatible's doStream), with undici's fetch (the global one) and with createNodeHttpFetch,
// in alternating rounds of the same run. STREAMS streams at 50 tokens/s each, one write per token, from a model in
// another process (paced-sse-model.ts), so every token is a read of its own, as in a server streaming many chats.
// A third side reads with createNodeHttpFetch through the provider's model as the package makes it, which
// validates each chunk with zod's safeParseAsync, against the resolved model's synchronous validation
// (synchronous-chunk-validation.ts).

import { spawn } from 'node:child_process';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { omitUndefined } from '@toolbus/spec';
import { resolveLanguageModel } from '../src/llm/index.ts';
import { createNodeHttpFetch } from '../src/net/node-http-fetch.ts';

const streams = Number(process.env.STREAMS ?? 300);
const tokens = 100;
const rounds = Number(process.env.ROUNDS ?? 3);
const here = new URL('.', import.meta.url).pathname;
const child = spawn(process.execPath, [`${here}paced-sse-model.ts`], {
  env: { PATH: process.env.PATH ?? '', TOKENS: String(tokens), TOKENS_PER_SECOND: '50' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise<string>((resolve, reject) => {
  child.stdout.on('data', (data: Buffer) => {
    const match = /listening (\S+)/.exec(String(data));
    if (match?.[1]) resolve(match[1]);
  });
  child.once('exit', (code) => reject(new Error(`the model exited (${code})`)));
});

/** CPU µs of this process per text part over one round of `streams` streams started over one second. */
async function round(
  fetch: typeof globalThis.fetch | undefined,
  options: { readonly asynchronousValidation?: boolean } = {},
): Promise<number> {
  const model: LanguageModelV4 = options.asynchronousValidation
    ? createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: `${url}/v1`,
        includeUsage: true,
        ...omitUndefined({ fetch }),
      }).chatModel('bench')
    : resolveLanguageModel(`openai-compatible:${url}/v1#bench`, { env: {}, ...omitUndefined({ fetch }) });
  const before = process.cpuUsage();
  let parts = 0;
  await Promise.all(
    Array.from({ length: streams }, async (_unused, index) => {
      await new Promise((resolve) => setTimeout(resolve, (index * 1000) / streams));
      const { stream } = await model.doStream({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      });
      const reader = stream.getReader();
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        if (next.value.type === 'text-delta') parts += 1;
      }
    }),
  );
  const used = process.cpuUsage(before);
  if (parts !== streams * tokens) throw new Error(`read ${parts} text parts, expected ${streams * tokens}`);
  return (used.user + used.system) / parts;
}

const nodeFetch = createNodeHttpFetch();
await round(undefined);
await round(nodeFetch);
await round(nodeFetch, { asynchronousValidation: true });
const undiciRounds: number[] = [];
const nodeRounds: number[] = [];
const asyncRounds: number[] = [];
for (let index = 0; index < rounds; index += 1) {
  undiciRounds.push(await round(undefined));
  // The two validations alternate which goes first, so neither always reads a warmer process.
  if (index % 2 === 0) {
    nodeRounds.push(await round(nodeFetch));
    asyncRounds.push(await round(nodeFetch, { asynchronousValidation: true }));
  } else {
    asyncRounds.push(await round(nodeFetch, { asynchronousValidation: true }));
    nodeRounds.push(await round(nodeFetch));
  }
}
child.kill();
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const undici = median(undiciRounds);
const node = median(nodeRounds);
const asynchronous = median(asyncRounds);
console.log(
  `## Model stream reading: undici's fetch vs createNodeHttpFetch (${streams} streams × 50 tokens/s)\n`,
);
console.log('| fetch | reader CPU per text part, median of rounds (µs) | rounds (µs) | ratio |');
console.log('| --- | --- | --- | --- |');
console.log(
  `| undici (global fetch) | ${undici.toFixed(1)} | ${undiciRounds.map((v) => v.toFixed(1)).join(', ')} | 1.00× |`,
);
console.log(
  `| createNodeHttpFetch | ${node.toFixed(1)} | ${nodeRounds.map((v) => v.toFixed(1)).join(', ')} | ${(node / undici).toFixed(2)}× |`,
);
console.log(
  `| createNodeHttpFetch, the provider's own asynchronous chunk validation | ${asynchronous.toFixed(1)} | ${asyncRounds.map((v) => v.toFixed(1)).join(', ')} | ${(asynchronous / undici).toFixed(2)}× |`,
);
console.log(
  `\nThe first two rows validate each chunk with the provider's zod schema synchronously (as resolveLanguageModel makes the model); only the fetch differs. Synchronous / asynchronous validation over createNodeHttpFetch: ${(node / asynchronous).toFixed(2)}×, ${nodeRounds.filter((value, index) => value < (asyncRounds[index] as number)).length} of ${rounds} paired rounds lower.\n`,
);
