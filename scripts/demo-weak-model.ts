// `npm run demo`: one chat turn end to end, as a weak model would play it. A scripted model server on loopback
// (speaking OpenAI's Chat Completions wire format, as Ollama or vLLM do) first makes two native tool calls in
// parallel, then writes a third call as plain text in Hermes style, then answers with citations. toolbus runs the
// real OpenAI-compatible provider package against it, recovers the text-written call, runs the tools, and streams
// every packet. Nothing leaves this machine.
import type { Packet, SearchDocument } from '@toolbus/spec';
import * as z from 'zod';
import { resolveLanguageModel } from '../packages/core/src/llm/resolve-language-model.ts';
import { startScriptedModelServer, textSteps } from '../packages/core/src/testing/index.ts';
import { defineTool } from '../packages/core/src/tool/define-tool.ts';
import { runChatTurn } from '../packages/core/src/turn/run-chat-turn.ts';

const handbook: SearchDocument[] = [
  {
    id: 'handbook#refunds',
    title: 'Handbook: Refunds',
    blurb: 'Refunds within 14 days',
    content: 'Customers get a full refund within 14 days of purchase.',
    sourceType: 'file',
  },
  {
    id: 'handbook#shipping',
    title: 'Handbook: Shipping',
    blurb: 'Ships in 2 days',
    content: 'Orders ship within 2 business days.',
    sourceType: 'file',
  },
];

const search = defineTool({
  name: 'internal_search',
  description: 'Search the company handbook',
  parameters: z.object({ queries: z.array(z.string()) }),
  async run({ queries }, context) {
    const hits = handbook.filter((document) =>
      queries.some((query) => document.content.toLowerCase().includes(query.toLowerCase())),
    );
    const cited = context.citations.assign(hits);
    context.emitter.emit({ type: 'search-documents', toolCallId: context.call.id, documents: cited });
    return {
      llmFacing:
        cited
          .map((document) => `[${document.citationNumber}] ${document.title}: ${document.content}`)
          .join('\n') || 'No results.',
      rich: { type: 'documents', documents: cited },
    };
  },
});

const calculator = defineTool({
  name: 'calculator',
  description: 'Evaluate a + b',
  parameters: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => String(a + b),
});

const server = await startScriptedModelServer({
  turns: [
    [
      {
        type: 'tool-call',
        id: 'call_1',
        name: 'internal_search',
        arguments: { queries: ['refund'] },
        chunkSize: 4,
      },
      {
        type: 'tool-call',
        id: 'call_2',
        name: 'internal_search',
        arguments: { queries: ['ship'] },
        chunkSize: 4,
      },
    ],
    textSteps([
      'Let me add that up.\n<tool_call>{"name": "calculator", "arguments": {"a": 14, "b": 2}}</tool_call>',
    ]),
    textSteps([
      'Refunds take up to 14 days [1] and orders ship within 2 days [2]: ',
      '16 days at most from purchase to refund.',
    ]),
  ],
});

const model = resolveLanguageModel(`openai-compatible:${server.url}/v1#demo-weak-model`, { env: {} });
const turn = runChatTurn({
  model,
  messages: [{ role: 'user', content: 'How long can a refund take, counting shipping?' }],
  tools: [search, calculator],
});

const describe = (packet: Packet): string | undefined => {
  const where = `[turn ${packet.placement.turn} tab ${packet.placement.tab}]`;
  const obj = packet.obj;
  switch (obj.type) {
    case 'tool-start':
      return `${where} ▶ ${obj.toolName} ${JSON.stringify(obj.arguments)}`;
    case 'search-documents':
      return `${where}   found ${obj.documents.map((document) => `[${document.citationNumber}] ${document.title}`).join(', ')}`;
    case 'section-end':
      return `${where} ■ done`;
    case 'message-delta':
      return `${where} ${obj.content}`;
    case 'citation-info':
      return `${where} (cites [${obj.citationNumber}] = ${obj.documentId})`;
    case 'stop':
      return `${where} stop: ${obj.reason}`;
    default:
      return undefined;
  }
};

for await (const packet of turn) {
  const line = describe(packet);
  if (line) console.log(line);
}
const result = await turn.result;
console.log(`\nAnswer: ${result.answer}`);
console.log(`Cycles: ${result.cycles}; tool calls recovered from text: ${result.recoveredToolCalls}`);
console.log(
  `Sources: ${result.citedDocuments.map((document) => `[${document.citationNumber}] ${document.title}`).join('; ')}`,
);
await server.close();
