// The server a TypeScript user would otherwise build, for `npm run bench -- server-vs-ai-sdk`: a plain node:http
// server whose chat route calls the AI SDK's `streamText({ model, messages, tools, stopWhen })` and answers with
// `toUIMessageStreamResponse()`, with the provider package and AI SDK versions this repository pins. Its one tool
// answers at once, as toolbus's internal_search does on an empty index. Prints "listening <url>".
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { convertToModelMessages, stepCountIs, streamText, tool, type UIMessage } from 'ai';
import { z } from 'zod';

const model = createOpenAICompatible({
  baseURL: `${process.env.BENCH_MODEL_URL}/v1`,
  name: 'bench',
  includeUsage: true,
}).chatModel('bench');

const tools = {
  internal_search: tool({
    description: 'Searches the internal documents.',
    inputSchema: z.object({ queries: z.array(z.string()) }),
    execute: async ({ queries }) => ({ documents: [], queries }),
  }),
};

const server = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (part: string) => {
    body += part;
  });
  request.on('end', () => {
    void (async () => {
      const { messages } = JSON.parse(body) as { messages: UIMessage[] };
      const result = streamText({
        model,
        messages: await convertToModelMessages(messages),
        tools,
        stopWhen: stepCountIs(5),
      });
      const answer = result.toUIMessageStreamResponse();
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      // What any adapter from a web Response to node:http does: copy the body's chunks as they come.
      const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        response.write(value);
      }
      response.end();
    })().catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
