// Recovery throughput: how fast tool calls written as text are recovered from long answers (also hostile ones),
// how fast the markup stream filter runs at small chunk sizes, and what the answer filter's hold-back costs.
// Each figure is set against a baseline measured in the same run on the same input. Run: npm run bench -- recovery
import type { ToolDefinition } from '@toolbus/spec';
import { extractToolCallsFromText } from '../src/recovery/extract-tool-calls-from-text.ts';
import { defaultToolCallMarkupMarkers } from '../src/recovery/tool-call-parser-registry.ts';
import { AnswerStreamFilter } from '../src/streaming/answer-stream-filter.ts';
import { ToolCallMarkupStreamFilter } from '../src/streaming/tool-call-markup-stream-filter.ts';
import { XmlToolCallStreamFilter } from '../src/streaming/xml-tool-call-stream-filter.ts';
import { loadRecoverySnapshot } from './recovery-snapshot.ts';

// The code the work started from, timed beside the current code in this run (see recovery-snapshot.ts).
const baseline = await loadRecoverySnapshot();
const baselineExtract = (
  await baseline.module<typeof import('../src/recovery/extract-tool-calls-from-text.ts')>(
    'recovery/extract-tool-calls-from-text.ts',
  )
).extractToolCallsFromText;
const baselineFilters = await baseline.module<typeof import('../src/streaming/answer-stream-filter.ts')>(
  'streaming/answer-stream-filter.ts',
);
// Older commits kept XmlToolCallStreamFilter in the markup filter's file.
const baselineMarkup = await baseline.module<
  typeof import('../src/streaming/tool-call-markup-stream-filter.ts') &
    typeof import('../src/streaming/xml-tool-call-stream-filter.ts')
>('streaming/tool-call-markup-stream-filter.ts');

const tools: ToolDefinition[] = [
  {
    name: 'get_weather',
    description: 'Weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city'],
    },
  },
  {
    name: 'internal_search',
    description: 'Search',
    parameters: { type: 'object', properties: { queries: { type: 'array' } }, required: ['queries'] },
  },
];

// Prose with the things that make a scanner work: braces in code, JSON data, markdown links, quotes, tags.
const prose = [
  'The report below summarises the findings. See [the docs](https://example.org/docs) for details. ',
  'In code: `function f(x) { return { a: x, b: [1, 2, 3] }; }` and a map {"status": "ok", "items": [1, 2]}. ',
  'Quoted "text with { braces } inside" and <b>html</b> markup, plus a list [1, 2, 3]. ',
  'Numbers 1.5e3, (parentheses), a stray { and a stray ] appear in real answers too. ',
];
const calls = [
  '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>',
  '<function_calls><invoke name="get_weather"><parameter name="city">Oslo</parameter></invoke></function_calls>',
  '```json\n{"name": "internal_search", "arguments": {"queries": ["a", "b"]}}\n```',
  '\n[get_weather(city="Oslo", days=2)]\n',
];

function buildAnswer(size: number): { text: string; callCount: number } {
  let text = '';
  let callCount = 0;
  let index = 0;
  while (text.length < size) {
    text += prose[index % prose.length];
    // One call per ~10 KB.
    if (text.length >= (callCount + 1) * 10_000) {
      text += calls[callCount % calls.length];
      callCount++;
    }
    index++;
  }
  return { text, callCount };
}

// The fastest of several timed runs: on a shared machine the minimum is the figure least disturbed by other
// processes, which matters for the 10 MB / 1 MB linearity ratio. `elapsed` measures one run in milliseconds.
function fastest(
  run: () => void,
  elapsed: (run: () => void) => number,
  minimumMs: number,
  minimumRuns: number,
): number {
  run();
  globalThis.gc?.();
  let best = Number.POSITIVE_INFINITY;
  let runs = 0;
  const start = performance.now();
  while (performance.now() - start < minimumMs || runs < minimumRuns) {
    best = Math.min(best, elapsed(run));
    runs++;
  }
  return best;
}

/** How long one run of `once` takes on `clock` (a reading in milliseconds). */
function timedOn(clock: () => number): (once: () => void) => number {
  return (once) => {
    const before = clock();
    once();
    return clock() - before;
  };
}

/** The fastest run of `run` in wall time (ms). */
function time(run: () => void, minimumMs = 300, minimumRuns = 5): number {
  return fastest(
    run,
    timedOn(() => performance.now()),
    minimumMs,
    minimumRuns,
  );
}

/** Like {@link time}, in CPU time of this process (`process.cpuUsage`, user + system) instead of wall time. */
function cpuTime(run: () => void, minimumMs = 300, minimumRuns = 5): number {
  const cpuMs = () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  return fastest(run, timedOn(cpuMs), minimumMs, minimumRuns);
}

function megabytesPerSecond(bytes: number, milliseconds: number): string {
  return (bytes / 1_000_000 / (milliseconds / 1000)).toFixed(1);
}

console.log('## Tool-call recovery (packages/core/bench/recovery.bench.ts)\n');
console.log(
  'Recovery: `extractToolCallsFromText` with all default dialect parsers on an answer with one call per ~10 KB',
);
console.log(
  '(four dialects in turn) amid prose full of braces, JSON data and tags. Baseline: a plain `indexOf` scan',
);
console.log('counting `{` in the same text.\n');
console.log(
  '| answer | calls found | recovery ms | recovery MB/s | baseline MB/s | recovery / baseline time |',
);
console.log('|---|---|---|---|---|---|');
const timings = new Map<number, number>();
for (const size of [100_000, 1_000_000, 10_000_000]) {
  const { text, callCount } = buildAnswer(size);
  let found = 0;
  const recoveryMs = time(
    () => {
      found = extractToolCallsFromText(text, tools, { maxCalls: Number.POSITIVE_INFINITY }).length;
    },
    size >= 10_000_000 ? 2000 : 500,
  );
  if (found !== callCount) throw new Error(`expected ${callCount} calls, found ${found}`);
  // The code the work started from reads the same text (untimed), so that the two share an equal history of
  // what the engine optimised for when they are compared side by side below (helpers such as the code-span
  // tracker serve both recovery and the stream filter).
  baselineExtract(text, tools, { maxCalls: Number.POSITIVE_INFINITY });
  const baselineMs = time(() => {
    let count = 0;
    for (let at = text.indexOf('{'); at >= 0; at = text.indexOf('{', at + 1)) count++;
    if (count < 0) throw new Error('unreachable');
  });
  timings.set(size, recoveryMs);
  const label = size >= 1_000_000 ? `${size / 1_000_000} MB` : `${size / 1000} KB`;
  console.log(
    `| ${label} | ${found} | ${recoveryMs.toFixed(1)} | ${megabytesPerSecond(text.length, recoveryMs)} | ${megabytesPerSecond(text.length, baselineMs)} | ${(recoveryMs / baselineMs).toFixed(1)}× |`,
  );
}
const ratio = timings.get(10_000_000)! / timings.get(1_000_000)!;
console.log(`\nLinearity: 10 MB time / 1 MB time = **${ratio.toFixed(2)}** (10 = perfectly linear).\n`);

// Pathological input: bracket soup with strings that never close, which makes naive scanners quadratic.
const soup = '{"a": "[{'.repeat(100_000);
const soupMs = time(() => extractToolCallsFromText(soup, tools), 300);
baselineExtract(soup, tools);
console.log(
  `Pathological bracket soup (${(soup.length / 1e6).toFixed(1)} MB of \`{"a": "[{\` repeated): ${soupMs.toFixed(1)} ms (${megabytesPerSecond(soup.length, soupMs)} MB/s).\n`,
);

console.log(
  'Stream filter: 1 MB of answer text with a block per ~10 KB, fed in chunks of 1 and 16 characters.',
);
console.log('Baseline: plain concatenation of the same chunks.\n');
console.log('| filter | chunk | filter MB/s | baseline MB/s | filter / baseline time |');
console.log('|---|---|---|---|---|');
const { text: streamText } = buildAnswer(1_000_000);
for (const chunkSize of [1, 16]) {
  const chunks: string[] = [];
  for (let at = 0; at < streamText.length; at += chunkSize) chunks.push(streamText.slice(at, at + chunkSize));
  const baselineMs = time(() => {
    let output = '';
    for (const chunk of chunks) output += chunk;
    if (output.length !== streamText.length) throw new Error('lost text');
  });
  for (const [label, make, makeBefore] of [
    [
      'XmlToolCallStreamFilter',
      () => new XmlToolCallStreamFilter(),
      () => new baselineMarkup.XmlToolCallStreamFilter(),
    ],
    [
      `ToolCallMarkupStreamFilter (${defaultToolCallMarkupMarkers.length} markers)`,
      () => new ToolCallMarkupStreamFilter(),
      () => new baselineMarkup.ToolCallMarkupStreamFilter(),
    ],
  ] as const) {
    const run = (filter: { process(chunk: string): string; flush(): string }) => {
      let output = '';
      for (const chunk of chunks) output += filter.process(chunk);
      output += filter.flush();
      if (output.length === 0) throw new Error('filtered everything');
    };
    const filterMs = time(() => run(make()));
    // The code the work started from reads the same chunks (untimed): both carry the same history of what the
    // engine optimised for into the side-by-side comparison below, or the comparison favours the one that ran less.
    run(makeBefore());
    console.log(
      `| ${label} | ${chunkSize} | ${megabytesPerSecond(streamText.length, filterMs)} | ${megabytesPerSecond(streamText.length, baselineMs)} | ${(filterMs / baselineMs).toFixed(1)}× |`,
    );
  }
}
console.log('');

// The answer filter's hold-back: what it costs on prose, how long it makes prose wait, and extraction speed on
// hostile text. Goals: hold-back ≤ 1.1× the markup filter on prose, no delay for prose, ≥ 100 MB/s extraction.
console.log(
  'Answer filter: `AnswerStreamFilter` (markup filter + hold-back of answers that start like a bare call)',
);
console.log(
  'against `ToolCallMarkupStreamFilter` on the same 1 MB of prose (no calls), side by side; CPU time, the best of 24 interleaved runs.\n',
);
console.log(
  `| chunk | markup filter MB/s | answer filter MB/s | answer / markup time | before (${baseline.commit}): answer / markup time | markup filter now / before | answer filter now / before |`,
);
console.log('|---|---|---|---|---|---|---|');
let prosePlain = '';
for (let index = 0; prosePlain.length < 1_000_000; index++) prosePlain += prose[index % prose.length];
for (const chunkSize of [1, 16, 64]) {
  const chunks: string[] = [];
  for (let at = 0; at < prosePlain.length; at += chunkSize) chunks.push(prosePlain.slice(at, at + chunkSize));
  const runFilter = (filter: { process(chunk: string): string; flush(): string }) => {
    let output = '';
    for (const chunk of chunks) output += filter.process(chunk);
    output += filter.flush();
    if (output.length !== prosePlain.length) throw new Error('prose changed');
  };
  // Single runs interleaved, the order swapped every round: on this shared VM the speed of memory changes from
  // one window of a few hundred milliseconds to the next, so runs taken in separate windows (the former five
  // rounds of 150 ms each) could differ by a third with no code changed; neighbouring runs share a window.
  const runMarkup = () => runFilter(new ToolCallMarkupStreamFilter());
  const runAnswer = () => runFilter(new AnswerStreamFilter({ tools }));
  const runBaselineMarkup = () => runFilter(new baselineMarkup.ToolCallMarkupStreamFilter());
  const runBaselineAnswer = () => runFilter(new baselineFilters.AnswerStreamFilter({ tools }));
  const runs = [runMarkup, runAnswer, runBaselineMarkup, runBaselineAnswer];
  for (const run of runs) run();
  const best = runs.map(() => Number.POSITIVE_INFINITY);
  // CPU time, not wall time: on a machine other work keeps busy, wall time measures the other work too.
  const timeOnce = (run: () => void) => {
    const before = process.cpuUsage();
    run();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };
  // Neighbouring runs share a window of the shared machine's speed: the four alternate, their order rotating.
  for (let round = 0; round < 24; round++) {
    for (let step = 0; step < runs.length; step++) {
      const index = (round + step) % runs.length;
      best[index] = Math.min(best[index]!, timeOnce(runs[index]!));
    }
  }
  const [markupMs, answerMs, baselineMarkupMs, baselineAnswerMs] = best as [number, number, number, number];
  console.log(
    `| ${chunkSize} | ${megabytesPerSecond(prosePlain.length, markupMs)} | ${megabytesPerSecond(prosePlain.length, answerMs)} | ${(answerMs / markupMs).toFixed(2)}× | ${(baselineAnswerMs / baselineMarkupMs).toFixed(2)}× | ${(markupMs / baselineMarkupMs).toFixed(2)}× | ${(answerMs / baselineAnswerMs).toFixed(2)}× |`,
  );
}

// Delay: characters the answer filter holds back beyond what the markup filter holds, before text shows.
const proseStarts = [
  'The weather in Oslo is mild. ',
  'I checked the documents for you. ',
  'Here is what I found: ',
  'Sure! The refund policy says 14 days. ',
  '1. First, open the settings. ',
  '- A list item with `code` in it. ',
  '**Note:** JSON such as {"a": 1} is data. ',
  'Use `<tool_call>` tags only in examples. ',
  'get the report first, then read it. ',
];
const callLikeStarts = [
  '{"status": "ok", "items": [1, 2, 3]} is the payload. ',
  '[1] Refunds take 14 days. ',
  '```python\nimport os\nprint(os.getcwd())\n```\n',
  '```json\n{"title": "report", "pages": 12}\n```\n',
];
function heldBeforeShowing(text: string, make: () => { process(chunk: string): string }): number {
  const filter = make();
  for (let at = 0; at < text.length; at += 4) {
    if (filter.process(text.slice(at, at + 4)) !== '') return at;
  }
  return text.length;
}
for (const [label, starts] of [
  ['prose (does not start like a call)', proseStarts],
  ['call-like starts that are no call', callLikeStarts],
] as const) {
  let maximum = 0;
  let total = 0;
  let answers = 0;
  for (const start of starts) {
    for (let variant = 0; variant < 50; variant++) {
      const text = start + prose[variant % prose.length]!.repeat(1 + (variant % 3));
      const extra =
        heldBeforeShowing(text, () => new AnswerStreamFilter({ tools })) -
        heldBeforeShowing(text, () => new ToolCallMarkupStreamFilter());
      maximum = Math.max(maximum, extra);
      total += extra;
      answers++;
    }
  }
  console.log(
    `\nDelay, ${label}: ${answers} answers in 4-character chunks; characters held beyond the markup filter before text shows: max **${maximum}**, mean ${(total / answers).toFixed(1)}.`,
  );
}

// Hostile text: unbalanced braces and brackets, strings that never close, unclosed tags of every dialect, then
// one real call at the end. Measured twice: with tags that name no declared tool (every block is ruled out by the
// tool names alone) and with the same tags naming a declared tool, as a model's broken output does (every block
// is read, and the unclosed ones that still form a call are recovered).
const hostilePieces = [
  '{',
  '{"a": "',
  '[{',
  '[',
  '<tool_call>',
  '<function=no_such_tool>',
  '<invoke name="',
  '<|python_tag|>',
  '[TOOL_CALLS]',
  '"',
  ' and some prose ',
  '\n',
  '(',
  '<parameter=x>',
  '<｜tool▁call▁begin｜>',
];
const hostileNamingPieces = [
  '{',
  '{"a": "',
  '[{',
  '[',
  '<tool_call>{"name": "get_weather", "arguments": {"city": "',
  '<function=get_weather>',
  '<invoke name="get_weather">',
  '<|python_tag|>{"name": "get_weather", "parameters": {"city": "',
  '[TOOL_CALLS]get_weather{"a": "',
  '"',
  ' and some prose ',
  '\n',
  '(',
  '<parameter=city>',
  '<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"a": "',
];
for (const [label, pieces] of [
  ['tags naming no declared tool', hostilePieces],
  ['tags naming a declared tool', hostileNamingPieces],
] as const) {
  let hostile = '';
  for (let index = 0; hostile.length < 1_000_000; index++) hostile += pieces[(index * 7919) % pieces.length];
  hostile += '\n{"name": "get_weather", "arguments": {"city": "Oslo"}}';
  let hostileFound = 0;
  const hostileMs = time(() => {
    hostileFound = extractToolCallsFromText(hostile, tools).length;
  }, 1000);
  // The same runs in CPU time of this process (user + system, garbage-collector threads included): steadier than
  // wall time on a shared machine, where the wall clock also counts the time other processes held the CPU.
  const hostileCpuMs = cpuTime(() => extractToolCallsFromText(hostile, tools), 1000);
  const baselineHostileMs = time(() => baselineExtract(hostile, tools), 1000);
  const hostileBaselineMs = time(() => {
    let count = 0;
    for (let at = hostile.indexOf('{'); at >= 0; at = hostile.indexOf('{', at + 1)) count++;
    if (count < 0) throw new Error('unreachable');
  });
  console.log(
    `\nHostile text, ${label} (${(hostile.length / 1e6).toFixed(1)} MB of unbalanced braces, unclosed strings and unclosed tags, one real call at the end): extraction ${hostileMs.toFixed(1)} ms, **${megabytesPerSecond(hostile.length, hostileMs)} MB/s** (goal ≥ 100; before (${baseline.commit}) ${megabytesPerSecond(hostile.length, baselineHostileMs)} MB/s in the same run); in CPU time ${hostileCpuMs.toFixed(1)} ms, ${megabytesPerSecond(hostile.length, hostileCpuMs)} MB/s; ${hostileFound} call(s) found (at most 256 are returned); baseline \`indexOf\` scan ${megabytesPerSecond(hostile.length, hostileBaselineMs)} MB/s.`,
  );
}
console.log('');
