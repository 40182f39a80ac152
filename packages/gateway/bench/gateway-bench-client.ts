// A child process of the gateway benchmark: the client, in a process of its own so that its reading and parsing
// share no event loop (and no garbage collector) with the upstream or the proxy it measures. On each `load`
// message it opens the streams, and answers with every chunk's delay (its read time less the write time the
// upstream put in the chunk) and the number of chunks read.
import { request } from 'node:http';

interface Load {
  base: string;
  streams: number;
  body: string;
}

// The monotonic clock, in ms: one clock for every process on the machine (each process's \`performance.timeOrigin\`
// is read from the wall clock at its start, and differed between processes by milliseconds).
const now = (): number => Number(process.hrtime.bigint()) / 1e6;

/** The delays of each stream's first and last chunk: where per-answer work (set-up, end of answer) shows. */
interface Edges {
  first: number[];
  last: number[];
}

function oneStream(load: Load, delays: number[], positions: number[], edges: Edges): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${load.base}/v1/chat/completions`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (answer) => {
        let buffer = '';
        let chunks = 0;
        let lastDelay = Number.NaN;
        answer.setEncoding('utf8');
        answer.on('data', (text: string) => {
          const read = now();
          buffer += text;
          let end = buffer.indexOf('\n\n');
          while (end >= 0) {
            const line = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const match = /"content":"t([0-9.]+) /.exec(line);
            if (match?.[1]) {
              const delay = read - Number(match[1]);
              delays.push(delay);
              positions.push(chunks);
              if (chunks === 0) edges.first.push(delay);
              lastDelay = delay;
              chunks += 1;
            }
            end = buffer.indexOf('\n\n');
          }
        });
        answer.on('end', () => {
          edges.last.push(lastDelay);
          resolve(chunks);
        });
        answer.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(load.body);
  });
}

process.on('message', async (message: { load?: Load; stop?: true }) => {
  if (message.stop) process.exit(0);
  if (message.load === undefined) return;
  const delays: number[] = [];
  // Each delay's chunk position in its stream (0 for the first), for GATEWAY_BENCH_EDGES (gateway-bench-edges.ts).
  const positions: number[] = [];
  const edges: Edges = { first: [], last: [] };
  const counts = await Promise.all(
    Array.from({ length: message.load.streams }, () =>
      oneStream(message.load as Load, delays, positions, edges),
    ),
  );
  process.send?.({ delays, positions, edges, chunks: counts.reduce((sum, count) => sum + count, 0) });
});
process.send?.({ ready: true });
