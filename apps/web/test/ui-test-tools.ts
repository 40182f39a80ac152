// The test tools of the browser tests' world: they stream real packets through the runner (parallel searches,
// sub-agents that place their own tools one level deeper, a flood of packets for the benchmark).
import type { BuiltInToolFactory } from '@toolbus/assembly';
import { defineTool } from '@toolbus/core';
import { chunkText } from '@toolbus/core/testing';
import { type PacketObject, type SearchDocument, type ToolEmitter, ToolExecutionError } from '@toolbus/spec';
import { z } from 'zod';
import { longRunTool } from './long-run-tool.ts';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason ?? new Error('aborted'));
      },
      { once: true },
    );
  });

/**
 * Lets a test keep the tools' first step running until it has seen them live: on a loaded machine the page can
 * connect after a fixed sleep has already passed, so "both live at once" must not depend on timing.
 */
export class ToolHold {
  #released: Promise<void> = Promise.resolve();
  #release: () => void = () => {};

  /** Holds every tool step that starts from now on until the returned function is called. */
  hold(): () => void {
    this.#released = new Promise<void>((resolve) => {
      this.#release = resolve;
    });
    return () => this.#release();
  }

  /** Sleeps `ms`, then waits for a release if a hold is on. */
  async step(ms: number, signal?: AbortSignal): Promise<void> {
    const released = this.#released;
    await sleep(ms, signal);
    await released;
  }
}

function documentsFor(topic: string, count: number): SearchDocument[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `${topic}-${index + 1}`,
    title: `${topic} handbook, part ${index + 1}`,
    link: `https://docs.example.com/${topic}/${index + 1}`,
    blurb: `What the ${topic} handbook says in part ${index + 1}.`,
    content: `${topic} facts, part ${index + 1}: refunds take 14 days.`,
    sourceType: 'web',
  }));
}

/** Emits `objects` one level below `emitter` at (turn, tab) of the nested loop. */
function emitNested(emitter: ToolEmitter, turn: number, tab: number, objects: readonly PacketObject[]) {
  const nested = emitter.nested({ turn, tab });
  for (const obj of objects) nested.emit(obj);
}

/** The built-in tool factories the world's personas name (search, open page, research agent, …). */
export function testTools(options: {
  readonly stepMs: number;
  readonly hold: ToolHold;
}): Map<string, BuiltInToolFactory> {
  const search = defineTool({
    name: 'search_docs',
    displayName: 'Search the handbook',
    description: 'Searches the handbook.',
    parameters: z.object({ query: z.string() }),
    run: async ({ query }, context) => {
      context.emitter.emit({
        type: 'search-queries',
        toolCallId: context.call.id,
        queries: [query, `${query} policy`],
      });
      await options.hold.step(options.stepMs, context.signal);
      const documents = context.citations.assign(documentsFor('refunds', 2));
      context.emitter.emit({ type: 'search-documents', toolCallId: context.call.id, documents });
      return {
        llmFacing: documents.map((d) => `[${d.citationNumber}] ${d.content}`).join('\n'),
        rich: { type: 'documents', documents },
      };
    },
  });
  const openPage = defineTool({
    name: 'open_page',
    displayName: 'Open a page',
    description: 'Opens a web page.',
    parameters: z.object({ url: z.string() }),
    run: async ({ url }, context) => {
      context.emitter.emit({ type: 'open-url-urls', toolCallId: context.call.id, urls: [url] });
      await options.hold.step(options.stepMs, context.signal);
      const documents = context.citations.assign([
        {
          id: url,
          title: 'Returns page',
          link: url,
          blurb: 'The store returns page.',
          content: 'Returns within 30 days.',
          sourceType: 'url',
        },
      ]);
      context.emitter.emit({ type: 'search-documents', toolCallId: context.call.id, documents });
      return {
        llmFacing: `[${documents[0]?.citationNumber}] Returns within 30 days.`,
        rich: { type: 'documents', documents },
      };
    },
  });
  const researchAgent = defineTool({
    name: 'research_agent',
    displayName: 'Research agent',
    description: 'Researches one task with its own tools.',
    parameters: z.object({ task: z.string(), fail: z.boolean().optional() }),
    emitStart: (_placement, emitter, call) => {
      emitter.emit({
        type: 'tool-start',
        toolCallId: call.id,
        toolName: 'research_agent',
        displayName: 'Research agent',
      });
      emitter.emit({ type: 'research-agent-start', task: String(call.arguments.task) });
    },
    run: async ({ task, fail }, context) => {
      const id = context.call.id;
      // Step 0: two parallel searches of the agent's own (tabs 0 and 1 one level down).
      emitNested(context.emitter, 0, 0, [
        { type: 'tool-start', toolCallId: `${id}-s0`, toolName: 'web_search', displayName: 'Web search' },
        { type: 'search-queries', toolCallId: `${id}-s0`, queries: [`${task} overview`] },
      ]);
      emitNested(context.emitter, 0, 1, [
        { type: 'tool-start', toolCallId: `${id}-s1`, toolName: 'open_url', displayName: 'Open URL' },
        {
          type: 'open-url-urls',
          toolCallId: `${id}-s1`,
          urls: [`https://example.org/${encodeURIComponent(task)}`],
        },
      ]);
      await options.hold.step(options.stepMs, context.signal);
      if (fail) {
        throw new ToolExecutionError({
          code: 'research_agent_failed',
          message: `The search backend refused the task "${task}".`,
          emitErrorPacket: true,
        });
      }
      const documents = context.citations.assign(documentsFor(task.split(' ')[0] ?? 'topic', 1));
      emitNested(context.emitter, 0, 0, [
        { type: 'search-documents', toolCallId: `${id}-s0`, documents },
        { type: 'section-end' },
      ]);
      emitNested(context.emitter, 0, 1, [{ type: 'section-end' }]);
      context.emitter.emit({ type: 'intermediate-report-start' });
      for (const piece of chunkText(`Findings on ${task}: it holds [${documents[0]?.citationNumber}].`, 3)) {
        context.emitter.emit({ type: 'intermediate-report-delta', content: piece });
      }
      context.emitter.emit({ type: 'intermediate-report-cited-documents', documents });
      return {
        llmFacing: `Report on ${task} citing [${documents[0]?.citationNumber}]`,
        rich: { type: 'documents', documents },
      };
    },
  });
  const checkCitations = defineTool({
    name: 'check_citations',
    displayName: 'Check citations',
    description: 'Checks which report sentences their sources support.',
    parameters: z.object({ report: z.string() }),
    run: async (_args, context) => {
      context.emitter.emit({
        type: 'citation-check',
        checks: [
          { citationNumber: 1, sentence: 'History holds.', verdict: 'supported', method: 'lexical' },
          {
            citationNumber: 2,
            sentence: 'Markets doubled last year.',
            verdict: 'unsupported',
            method: 'model',
          },
        ],
      } as unknown as PacketObject);
      return 'checked';
    },
  });
  const flood = defineTool({
    name: 'flood',
    displayName: 'Flood',
    description: 'Streams many packets: its own sub-agent steps, each with two parallel tools, and a report.',
    parameters: z.object({ packets: z.number().int() }),
    emitStart: (_placement, emitter, call) => {
      emitter.emit({ type: 'tool-start', toolCallId: call.id, toolName: 'flood', displayName: 'Flood' });
      emitter.emit({ type: 'research-agent-start', task: `flood ${call.id}` });
    },
    run: async ({ packets }, context) => {
      const id = context.call.id;
      let sent = 2;
      let step = 0;
      while (sent < packets - 4) {
        for (const tab of [0, 1]) {
          const at = context.emitter.nested({ turn: step, tab });
          const toolCallId = `${id}-${step}-${tab}`;
          at.emit({ type: 'tool-start', toolCallId, toolName: 'run_python', displayName: 'Code' });
          sent += 1;
          for (let line = 0; line < 24 && sent < packets - 5; line += 1) {
            at.emit({
              type: 'python-delta',
              toolCallId,
              stdout: `step ${step} tab ${tab} line ${line}: ${'x'.repeat(40)}\n`,
            });
            sent += 1;
          }
          at.emit({ type: 'section-end' });
          sent += 1;
        }
        step += 1;
        // Let the stream breathe, as a real agent's steps would.
        await sleep(1, context.signal);
      }
      context.emitter.emit({ type: 'intermediate-report-start' });
      context.emitter.emit({
        type: 'intermediate-report-delta',
        content: `Flood ${id} done after ${step} steps.`,
      });
      return `flooded ${sent + 2} packets`;
    },
  });
  const factories = new Map<string, BuiltInToolFactory>();
  factories.set('FloodTool', () => flood);
  factories.set('LongRunTool', () => longRunTool);
  factories.set('SearchTool', () => search);
  factories.set('OpenURLTool', () => openPage);
  factories.set('ResearchAgentTool', () => researchAgent);
  factories.set('CitationCheckTool', () => checkCitations);
  return factories;
}
