// The answer filter on answers made of short lines, the case its line finder works hardest on: every line start
// after prose is looked at (indent, list marker, `[`, a tool name's first letters), and the lines that may still
// open a call are held and classified. Side by side in one run, in CPU time: the markup filter alone, the
// answer filter, and the answer filter of the baseline commit (RECOVERY_BASELINE, see recovery-snapshot.ts).
// Run: npm run bench -- answer-lines
import type { ToolDefinition } from '@toolbus/spec';
import { AnswerStreamFilter } from '../src/streaming/answer-stream-filter.ts';
import { ToolCallMarkupStreamFilter } from '../src/streaming/tool-call-markup-stream-filter.ts';
import { loadRecoverySnapshot } from './recovery-snapshot.ts';

const baseline = await loadRecoverySnapshot();
const before = await baseline.module<typeof import('../src/streaming/answer-stream-filter.ts')>(
  'streaming/answer-stream-filter.ts',
);

const tools: ToolDefinition[] = [
  {
    name: 'get_weather',
    description: 'Weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'internal_search',
    description: 'Search',
    parameters: { type: 'object', properties: { queries: { type: 'array' } }, required: ['queries'] },
  },
];

const answers: Record<string, readonly string[]> = {
  // Two thirds of the lines start with `[` or a tool name's first letter (`g`, `i`): the finder's worst case.
  'short lines opening with [, g, i': [
    '[1] Refunds take 14 days.',
    'get the report first.',
    'It is sunny.',
    'in the morning, rain.',
    '[the docs](https://example.org)',
    'The end of it.',
  ],
  'Markdown lists': [
    '- First, open the settings.',
    '1. Then read the report.',
    '  - a nested point',
    '* Another item with `code`.',
    '2) Done with it.',
    'Plain line of prose here.',
  ],
  'indented lines and quotes': [
    '  indented prose line one.',
    '    code line four spaces',
    '\tx = 1',
    '   three spaces then text',
    '> a quoted line',
    'Plain line of prose here.',
  ],
  // Fences of code and JSON data after prose: each fence, `{` and `[{` line is held until it cannot be a call.
  'code fences and JSON data': [
    'Here is the code:',
    '```ts',
    'const x = { a: [1] };',
    '```',
    'And the data:',
    '{"status": "ok", "items": [1, 2]}',
    '[{"id": 1}]',
    '```json',
    '{"debug": true}',
    '```',
  ],
};

console.log('## Answer filter on short lines (packages/core/bench/answer-lines.bench.ts)\n');
console.log(
  'About 300 KB of lines of each kind, no call; CPU time, the best of 16 interleaved runs of the three filters.\n',
);
console.log(
  `| answer | chunk | markup ms | answer ms | before (${baseline.commit}) ms | answer / markup | before / markup | answer now / before |`,
);
console.log('|---|---|---|---|---|---|---|---|');
for (const [label, lines] of Object.entries(answers)) {
  let text = '';
  for (let index = 0; text.length < 300_000; index++) text += `${lines[index % lines.length]}\n`;
  for (const size of [1, 4, 16, 64]) {
    const chunks: string[] = [];
    for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
    const runFilter = (filter: { process(chunk: string): string; flush(): string }) => {
      let output = '';
      for (const chunk of chunks) output += filter.process(chunk);
      output += filter.flush();
      if (output !== text) throw new Error(`${label}: the text changed`);
    };
    const runs = [
      () => runFilter(new ToolCallMarkupStreamFilter()),
      () => runFilter(new AnswerStreamFilter({ tools })),
      () => runFilter(new before.AnswerStreamFilter({ tools })),
    ];
    for (const run of runs) run();
    const best = runs.map(() => Number.POSITIVE_INFINITY);
    for (let round = 0; round < 16; round++) {
      for (let step = 0; step < runs.length; step++) {
        const index = (round + step) % runs.length;
        const start = process.cpuUsage();
        runs[index]!();
        const used = process.cpuUsage(start);
        best[index] = Math.min(best[index]!, (used.user + used.system) / 1000);
      }
    }
    const [markup, answer, old] = best as [number, number, number];
    console.log(
      `| ${label} | ${size} | ${markup.toFixed(1)} | ${answer.toFixed(1)} | ${old.toFixed(1)} | ${(answer / markup).toFixed(2)}× | ${(old / markup).toFixed(2)}× | ${(answer / old).toFixed(2)}× |`,
    );
  }
}
console.log('');
