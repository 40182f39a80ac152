// The floor of the server bench: the least any Node server does for a streamed chat. It asks the model for the
// same token stream, reads it with node:http, parses each event's JSON and writes its text on as an SSE packet with
// an id, the events of one read in one write (no storage, no turn loop, no web streams, no validation). Prints
// "listening <url>", then its memory and CPU every 100 ms as JSON lines, like server-process.ts.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { reportUsage } from './report-usage.ts';

const model = new URL(process.env.BENCH_MODEL_URL ?? '');
const server = createServer((incoming, outgoing) => {
  incoming.resume();
  incoming.on('end', () => {
    const body = '{"model":"bench","stream":true,"messages":[{"role":"user","content":"go"}]}';
    const upstream = request(
      {
        host: model.hostname,
        port: model.port,
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
        response.setEncoding('utf8');
        let buffer = '';
        let sequence = 0;
        response.on('data', (chunk: string) => {
          buffer += chunk;
          let boundary = buffer.indexOf('\n\n');
          let out = '';
          while (boundary >= 0) {
            const event = buffer.slice(6, boundary);
            buffer = buffer.slice(boundary + 2);
            boundary = buffer.indexOf('\n\n');
            if (event === '[DONE]') continue;
            const parsed = JSON.parse(event) as { choices: { delta: { content?: string } }[] };
            const content = parsed.choices[0]?.delta.content;
            sequence += 1;
            if (content !== undefined)
              out += `id: ${sequence}\ndata: ${JSON.stringify({ type: 'message-delta', content })}\n\n`;
          }
          if (out) outgoing.write(out);
        });
        response.on('end', () => outgoing.end(`data: {"type":"stop"}\n\n`));
      },
    );
    upstream.end(body);
  });
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`),
);
reportUsage();
