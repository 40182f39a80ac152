// A chat turn's own overhead with a zero-latency scripted model over loopback HTTP: time to first packet, and
// packets per second for a long streamed answer, next to reading the same model stream with streamModelStep
// alone (the provider package and HTTP included in both). `npm run bench -- turn`
import type { ChatMessage } from '@toolbus/spec';
import * as z from 'zod';
import { resolveLanguageModel } from '../src/llm/resolve-language-model.ts';
import { streamModelStep } from '../src/llm/stream-model-step.ts';
import { type ScriptedStep, startScriptedModelServer } from '../src/testing/index.ts';
import { defineTool } from '../src/tool/define-tool.ts';
import { runChatTurn } from '../src/turn/run-chat-turn.ts';

const chunks = 2000;
const answerSteps: ScriptedStep[] = Array.from({ length: chunks }, (_, index) => ({
  type: 'text',
  text: `word${index} `,
}));
const toolSteps: ScriptedStep[] = [
  { type: 'tool-call', id: 'call_1', name: 'echo', arguments: { text: 'hi' } },
];
const server = await startScriptedModelServer({
  handler: (request) =>
    request.lastMessage?.role === 'user' &&
    request.toolNames.length > 0 &&
    request.lastMessage.text === 'tool'
      ? toolSteps
      : answerSteps,
});
const model = resolveLanguageModel(`openai-compatible:${server.url}/v1#bench`, { env: {} });
const echo = defineTool({
  name: 'echo',
  description: 'echo',
  parameters: z.object({ text: z.string() }),
  run: ({ text }) => text,
});
const messages = (text: string): ChatMessage[] => [{ role: 'user', content: text }];

async function timeTurn(question: string) {
  const started = performance.now();
  let first = 0;
  let packets = 0;
  const turn = runChatTurn({ model, messages: messages(question), tools: [echo] });
  for await (const _packet of turn) {
    if (packets === 0) first = performance.now() - started;
    packets += 1;
  }
  await turn.result;
  return { first, total: performance.now() - started, packets };
}

async function timeBareStream() {
  const started = performance.now();
  let first = 0;
  let events = 0;
  for await (const _event of streamModelStep({
    model,
    messages: messages('answer'),
    tools: [echo.definition()],
  })) {
    if (events === 0) first = performance.now() - started;
    events += 1;
  }
  return { first, total: performance.now() - started, events };
}

const median = (values: number[]) =>
  [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)] as number;
for (let index = 0; index < 5; index += 1) {
  await timeTurn('answer');
  await timeBareStream();
}
const turnRuns: Awaited<ReturnType<typeof timeTurn>>[] = [];
const bareRuns: Awaited<ReturnType<typeof timeBareStream>>[] = [];
const toolRuns: Awaited<ReturnType<typeof timeTurn>>[] = [];
for (let index = 0; index < 15; index += 1) {
  bareRuns.push(await timeBareStream());
  turnRuns.push(await timeTurn('answer'));
  toolRuns.push(await timeTurn('tool'));
}
await server.close();

const turnTotal = median(turnRuns.map((run) => run.total));
const bareTotal = median(bareRuns.map((run) => run.total));
const packetsPerTurn = turnRuns[0]?.packets ?? 0;
console.log('## Turn overhead (zero-latency scripted model, OpenAI-compatible wire, loopback)\n');
console.log(`A ${chunks}-chunk streamed answer; medians of 15 interleaved runs.\n`);
console.log('| path | time to first packet/event (ms) | total (ms) | packets or events | per second |');
console.log('|---|---:|---:|---:|---:|');
console.log(
  `| streamModelStep alone (baseline) | ${median(bareRuns.map((run) => run.first)).toFixed(2)} | ${bareTotal.toFixed(1)} | ${bareRuns[0]?.events} | ${Math.round(((bareRuns[0]?.events ?? 0) / bareTotal) * 1000)} |`,
);
console.log(
  `| runChatTurn, answer only | ${median(turnRuns.map((run) => run.first)).toFixed(2)} | ${turnTotal.toFixed(1)} | ${packetsPerTurn} | ${Math.round((packetsPerTurn / turnTotal) * 1000)} |`,
);
const toolTotal = median(toolRuns.map((run) => run.total));
console.log(
  `| runChatTurn, one tool cycle + answer | ${median(toolRuns.map((run) => run.first)).toFixed(2)} | ${toolTotal.toFixed(1)} | ${toolRuns[0]?.packets} | ${Math.round(((toolRuns[0]?.packets ?? 0) / toolTotal) * 1000)} |`,
);
console.log(
  `\nThe turn loop's cost over the bare model stream: ${(turnTotal / bareTotal).toFixed(2)}x for the same answer.\n`,
);
