// A bench-only model server over the OpenAI Chat Completions streaming wire format whose every text token carries
// the time it was written (⟨ms⟩, from performance.timeOrigin + performance.now(), comparable across processes on
// one machine), so a client can measure each token's latency end to end. The scripted model server plays fixed
// scripts; here the stamp must be taken at write time. Asked with tools it calls `lookup` once; shown the result,
// it streams TOKENS tokens at TOKENS_PER_SECOND (paced-chat-stream.ts). TOOL_NAME and TOOL_ARGUMENTS (JSON) name
// another tool to call. A request that does not ask for a stream (toolbus's chat title) gets a short JSON answer,
// as a real model gives it: streamed back as 200 paced tokens, it cost toolbus a second HTTP body per chat (one
// read and parse per token, for 4 s after the turn) that the AI SDK server never asks for.
// Prints "listening <url>", then its CPU time every 100 ms as JSON lines.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatCompletionChunk as chunk, writePacedTokens } from '../../core/bench/paced-chat-stream.ts';
import { reportUsage } from './report-usage.ts';

const tokens = Number(process.env.TOKENS ?? 60);
const intervalMs = 1000 / Number(process.env.TOKENS_PER_SECOND ?? 50);
const now = () => performance.timeOrigin + performance.now();
const toolName = process.env.TOOL_NAME ?? 'lookup';
const toolArguments = process.env.TOOL_ARGUMENTS ?? '{"query":"bench"}';

const completion = JSON.stringify({
  id: 'bench',
  object: 'chat.completion',
  created: 0,
  model: 'bench',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Bench chat' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
});

const server = createServer((request, response) => {
  let body = '';
  request.on('data', (part) => {
    body += part;
  });
  request.on('end', () => {
    const parsed = JSON.parse(body || '{}') as {
      stream?: boolean;
      tools?: unknown[];
      messages?: { role: string }[];
    };
    if (parsed.stream !== true) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(completion);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (parsed.tools?.length && parsed.messages?.at(-1)?.role !== 'tool') {
      response.write(chunk({ role: 'assistant', content: null }));
      response.write(
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call_1',
              type: 'function',
              function: { name: toolName, arguments: toolArguments },
            },
          ],
        }),
      );
      response.end(`${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
      return;
    }
    writePacedTokens(response, { tokens, intervalMs, text: () => `⟨${now().toFixed(2)}⟩ ` });
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
reportUsage();
