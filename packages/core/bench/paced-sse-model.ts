// The model server of model-fetch.bench.ts, in its own process so its CPU is not the reader's: an OpenAI-compatible
// chat-completions stream of TOKENS text chunks at TOKENS_PER_SECOND, one write per chunk (as a real model streams
// tokens), so each chunk reaches the reader in a read of its own. Prints "listening <url>".
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const tokens = Number(process.env.TOKENS ?? 100);
const intervalMs = 1000 / Number(process.env.TOKENS_PER_SECOND ?? 50);
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'bench',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'bench',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    const timer = setInterval(() => {
      response.write(chunk({ content: `token${sent} ` }));
      sent += 1;
      if (sent >= tokens) {
        clearInterval(timer);
        response.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
      }
    }, intervalMs);
    response.on('close', () => clearInterval(timer));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
