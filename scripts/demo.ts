// `npm run demo`, the main job: index a folder and answer a question about it with citations, through the real
// `toolbus` CLI. No model is installed on a fresh machine (and none may be downloaded), so the model here is a
// scripted one served over real HTTP in OpenAI's wire format (as Ollama or vLLM would serve a real one). It plays
// a small model fairly: it searches once per half of the question (two calls in parallel), then answers each half
// from what the tools returned, citing it; asked for a chart, it writes its run_python call as text (as weak
// models do), which toolbus recovers and runs in the sandbox, and the chart lands on disk. Point TOOLBUS_MODEL at
// a real model to ask it yourself: `npx toolbus index docs && npx toolbus chat "..."`.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ScriptedRequest,
  type ScriptedStep,
  startScriptedModelServer,
  textSteps,
} from '../packages/core/src/testing/index.ts';

const root = new URL('..', import.meta.url).pathname;
const question =
  process.argv[2] ?? 'How does toolbus run tool calls in parallel, and what happens on a timeout?';
const chartQuestion = 'Chart how many tools each kind of source gave this persona.';
/** The chart the model draws: the tools it was offered (every one a built-in in the demo's persona). */
const chartCode = (toolCount: number) =>
  [
    'import matplotlib',
    "matplotlib.use('Agg')",
    'import matplotlib.pyplot as plt',
    `sources = {'built-in': ${toolCount}, 'OpenAPI': 0, 'MCP': 0}`,
    'plt.bar(list(sources), list(sources.values()), color="#4c72b0")',
    "plt.title('Tools by source')",
    "plt.savefig('tools-by-source.png', dpi=80)",
    "print('saved tools-by-source.png')",
  ].join('\n');

/** The halves of a question: "A, and B?" → ["A", "B"]. */
function halves(text: string): string[] {
  const parts = text
    .replace(/\?+\s*$/, '')
    .split(/,?\s+and\s+(?=what|how|why|when|where|which|who|does|is|are|can)/i)
    .map((part) => part.trim())
    .filter(Boolean);
  return parts.length > 0 ? parts : [text];
}

const stopWords = new Set([
  'does',
  'what',
  'when',
  'happens',
  'toolbus',
  'with',
  'that',
  'this',
  'there',
  'tool',
]);
// The words a model would add to its search for a topic (a small model still knows "timed out" means timeout).
const related: Record<string, readonly string[]> = {
  timeout: ['timed', 'deadline', 'aborted'],
  parallel: ['concurrency', 'concurrently'],
};
const keywords = (text: string) => {
  const words = (text.toLowerCase().match(/[a-z]{4,}/g) ?? []).filter((word) => !stopWords.has(word));
  return new Set(words.flatMap((word) => [word, ...(related[word] ?? [])]));
};
/** Two words match when equal, or when one of at least five letters starts the other ("timed" and "timed-out"). */
const matches = (a: string, b: string) => {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short === long || (short.length >= 5 && long.startsWith(short));
};

/** Markdown out of a sentence: emphasis, code spans, links, list and heading markers. */
function plain(sentence: string): string {
  return sentence
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]+/g, '')
    .replace(/^[#>\-\s|]+/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The numbered documents of the tool results, split into sentences. */
function sentencesOf(request: ScriptedRequest): { number: string; sentence: string }[] {
  const found: { number: string; sentence: string }[] = [];
  for (const result of request.messages.flatMap((message) => message.toolResults)) {
    for (const match of result.content.matchAll(/^\[(\d+)\][^\n]*\n([\s\S]*?)(?=\n\[\d+\]|$(?![\s\S]))/gm)) {
      // Documents are hard-wrapped: a sentence runs over lines; paragraphs and list items end one.
      const units = (match[2] ?? '')
        .split(/\n\s*\n|\n(?=\s*[-*|#>] )/)
        .map((unit) => plain(unit.replace(/\s*\n\s*/g, ' ')));
      for (const sentence of units.flatMap((unit) => unit.split(/(?<=[.!?])\s+/))) {
        if (
          sentence.length >= 30 &&
          sentence.length <= 420 &&
          /^[A-Z]/.test(sentence) &&
          /[.!]$/.test(sentence)
        ) {
          found.push({ number: match[1] ?? '', sentence });
        }
      }
    }
  }
  return found;
}

/**
 * Answers each half of the question with the sentence that best matches its words (rare words count more, as in
 * any search), cited with the document's number; a half without a match says so instead of guessing.
 */
function answer(request: ScriptedRequest, asked: string): string {
  const candidates = sentencesOf(request).map((candidate) => ({
    ...candidate,
    words: [...keywords(candidate.sentence)],
  }));
  const rarity = (word: string) => {
    const holding = candidates.filter((candidate) =>
      candidate.words.some((other) => matches(other, word)),
    ).length;
    return holding === 0 ? 0 : Math.log(1 + candidates.length / holding);
  };
  const used = new Set<string>();
  const lines: string[] = [];
  for (const half of halves(asked)) {
    const words = [...keywords(half)];
    let best: { number: string; sentence: string; score: number } | undefined;
    for (const candidate of candidates) {
      if (used.has(candidate.sentence)) continue;
      const score = words
        .filter((word) => candidate.words.some((other) => matches(other, word)))
        .reduce((sum, word) => sum + rarity(word), 0);
      if (score > 0 && (best === undefined || score > best.score)) best = { ...candidate, score };
    }
    if (best === undefined) {
      lines.push(`I found nothing in the documents about "${half}".`);
      continue;
    }
    used.add(best.sentence);
    lines.push(`${best.sentence.replace(/[.!]$/, '')} [${best.number}].`);
  }
  return lines.join(' ');
}

const server = await startScriptedModelServer({
  handler: (request): ScriptedStep[] => {
    const asked = [...request.messages].reverse().find((message) => message.role === 'user')?.text ?? '';
    const last = request.messages.at(-1);
    if (asked === chartQuestion) {
      if (last?.role === 'tool') {
        return textSteps([
          'The chart is drawn: every tool of this persona is built in; none comes from OpenAPI or MCP yet.',
        ]);
      }
      // Written as text, the way small models often call tools; toolbus recovers the call.
      const call = JSON.stringify({
        name: 'run_python',
        arguments: { code: chartCode(request.toolNames.length) },
      });
      return textSteps([`I will draw it.\n<tool_call>${call}</tool_call>`]);
    }
    if (last?.role === 'tool') return textSteps([answer(request, asked)]);
    return halves(asked).map((half, index) => ({
      type: 'tool-call',
      index,
      id: `call_${index + 1}`,
      name: 'internal_search',
      arguments: { queries: [[...keywords(half)].join(' ')] },
      chunkSize: 7,
    }));
  },
});
const home = mkdtempSync(join(tmpdir(), 'toolbus-demo-'));
// The chart stays where the README says it lands (./toolbus-output, as `toolbus chat` writes it), after the
// demo's throwaway home is removed.
const output = join(root, 'toolbus-output');
const env = {
  ...process.env,
  TOOLBUS_HOME: home,
  TOOLBUS_MODEL: `openai-compatible:${server.url}/v1#demo-model`,
};
// Asynchronous on purpose: the scripted model server runs in this process and must keep answering.
const cli = (args: string[]) =>
  new Promise<number>((resolve) => {
    console.log(
      `\n$ toolbus ${args.map((arg) => (arg.includes(' ') ? JSON.stringify(arg) : arg)).join(' ')}`,
    );
    const entry = join(root, 'packages/cli/src/cli-entry.ts');
    const child = spawn(process.execPath, ['--conditions=development', entry, ...args], {
      cwd: root,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
try {
  const indexed = await cli(['index', 'docs/guide']);
  const answered = await cli(['chat', question]);
  // An earlier run's chart is kept (chat never overwrites a file: it writes tools-by-source-2.png beside it), so
  // the chart of this run is the file that was not there before.
  const before = new Set(existsSync(output) ? readdirSync(output) : []);
  const charted = await cli(['chat', '--output', output, chartQuestion]);
  const made = (existsSync(output) ? readdirSync(output) : []).find(
    (name) => !before.has(name) && /^tools-by-source(-\d+)?\.png$/.test(name),
  );
  const chart = made === undefined ? undefined : join(output, made);
  console.log(chart ? `\nThe chart is on disk: ${chart}` : '\nThe chart was not written.');
  process.exitCode = indexed || answered || charted || (chart ? 0 : 1);
} finally {
  await server.close();
  rmSync(home, { recursive: true, force: true });
}
