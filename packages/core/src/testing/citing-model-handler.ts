import type { ScriptedRequest, ScriptedStep } from './scripted-turn.ts';

/** Options for {@link createCitingModelHandler}. */
export interface CitingModelHandlerOptions {
  /** The tool calls the model makes on the first step, from the user's question (several = parallel calls). */
  readonly toolCalls: (
    question: string,
    toolNames: readonly string[],
  ) => readonly { name: string; arguments: Record<string, unknown> }[];
  /** Characters per streamed chunk. Default 12. */
  readonly chunkSize?: number;
}

/**
 * A scripted "model" for demos and end-to-end tests that behaves like a small research model: asked a question
 * with tools, it calls them (in parallel); shown the results, it answers by quoting the first sentence of each
 * numbered document with its citation, e.g. `… [1]`. It reads only what the client sent, so the citation
 * numbers in its answer are the ones toolbus really assigned.
 */
export function createCitingModelHandler(options: CitingModelHandlerOptions) {
  let callCounter = 0;
  return (request: ScriptedRequest): ScriptedStep[] => {
    const chunk = options.chunkSize ?? 12;
    const results = request.messages.flatMap((message) => message.toolResults);
    const last = request.messages.at(-1);
    if (last?.role !== 'tool') {
      const question = [...request.messages].reverse().find((message) => message.role === 'user')?.text ?? '';
      const calls = request.toolNames.length > 0 ? options.toolCalls(question, request.toolNames) : [];
      if (calls.length === 0) return textSteps('I have no tools to look this up with.', chunk);
      return calls.map((call, index) => {
        callCounter += 1;
        return {
          type: 'tool-call',
          index,
          id: `call_${callCounter}`,
          name: call.name,
          arguments: call.arguments,
          chunkSize: 7,
        };
      });
    }
    const question = [...request.messages].reverse().find((message) => message.role === 'user')?.text ?? '';
    const facts: string[] = [];
    for (const result of results) {
      for (const match of result.content.matchAll(
        /^\[(\d+)\][^\n]*\n([\s\S]*?)(?=\n\[\d+\]|$(?![\s\S]))/gm,
      )) {
        const sentence = bestSentence(match[2] ?? '', question);
        if (sentence && facts.length < 4) facts.push(`${sentence} [${match[1]}]`);
      }
    }
    const answer = facts.length
      ? `Here is what I found. ${facts.join(' ')}`
      : 'The tools found nothing relevant.';
    return textSteps(answer, chunk);
  };
}

/** The sentence of a document that shares the most words with the question (ties: the earliest). */
function bestSentence(text: string, question: string): string {
  const words = new Set(question.toLowerCase().match(/[a-z0-9]{4,}/g) ?? []);
  let best = '';
  let bestScore = -1;
  for (const raw of text.split(/(?<=[.!?])\s+|\n+/)) {
    const sentence = raw.replace(/^[#>*\-\s|]+/, '').trim();
    if (sentence.length < 20 || !/^[A-Z]/.test(sentence) || !/[.!?]$/.test(sentence)) continue;
    const score = (sentence.toLowerCase().match(/[a-z0-9]{4,}/g) ?? []).filter((word) =>
      words.has(word),
    ).length;
    if (score > bestScore) {
      best = sentence;
      bestScore = score;
    }
  }
  return best.length > 220 ? `${best.slice(0, 217)}...` : best;
}

function textSteps(text: string, size: number): ScriptedStep[] {
  const steps: ScriptedStep[] = [];
  for (let start = 0; start < text.length; start += size)
    steps.push({ type: 'text', text: text.slice(start, start + size) });
  return steps;
}
