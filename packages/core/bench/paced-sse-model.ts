// The model server of model-fetch.bench.ts, in its own process so its CPU is not the reader's: an OpenAI-compatible
// chat-completions stream of TOKENS text chunks at TOKENS_PER_SECOND (see paced-chat-stream.ts). Prints
// "listening <url>".
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writePacedTokens } from './paced-chat-stream.ts';

const tokens = Number(process.env.TOKENS ?? 100);
const intervalMs = 1000 / Number(process.env.TOKENS_PER_SECOND ?? 50);

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    writePacedTokens(response, { tokens, intervalMs, text: (index) => `token${index} ` });
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
