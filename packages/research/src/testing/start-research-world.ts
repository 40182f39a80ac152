// A whole Deep Research world (`@toolbus/research/testing`) on loopback for tests and the benchmark: a slow SearXNG-compatible search backend
// with pages to open (every request timed), the real web_search and open_url tools on the guarded fetch, and a
// scripted "research model" on the scripted model server that plays each step by its system prompt. The model
// reads only what the client sent (tool results, reports), so citation numbers are the ones toolbus assigned.
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { resolveLanguageModel } from '@toolbus/core';
import { createGuardedFetch, type GuardedFetch } from '@toolbus/core/node';
import {
  type LoopbackHttpServer,
  type ScriptedModelServer,
  type ScriptedRequest,
  type ScriptedStep,
  startLoopbackHttpServer,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import type { Tool } from '@toolbus/spec';
import { createOpenUrlTool, createWebSearchProvider, createWebSearchTool } from '@toolbus/tools';
import type { RunDeepResearchOptions } from '../run-deep-research.ts';

/**
 * How the scripted research agent for a task behaves; chosen by a keyword in the task. A searcher whose task
 * says `slowly` waits {@link ResearchWorld.slowStepMs} before each of its steps.
 */
export type AgentBehaviour = 'searcher' | 'fails' | 'hangs' | 'thinker' | 'silent' | 'offline';

/** How the scripted orchestrator behaves. */
export interface OrchestratorScript {
  /** Tasks dispatched in the first cycle, in one step (a keyword in each picks its agent's behaviour). */
  readonly tasks: readonly string[];
  /** Think before dispatching (non-reasoning models). */
  readonly thinkFirst?: boolean;
  /** Call think_tool every cycle, forever. */
  readonly endlessThink?: boolean;
  /** Write text instead of calling any tool. */
  readonly noTools?: boolean;
  /** Dispatch one task per cycle, and let each agent make one tool call per step (the sequential baseline). */
  readonly sequential?: boolean;
  /**
   * The first dispatch's last call is cut off by the output token limit (its argument JSON still open, finish
   * reason `length`); the next cycle dispatches that task again, whole.
   */
  readonly cutOffFirstDispatch?: boolean;
  /** As `cutOffFirstDispatch`, but the step ends normally: the call's arguments are simply not valid JSON. */
  readonly malformedFirstDispatch?: boolean;
  /** A weak model: the first dispatch is written as text (`<tool_call>` blocks), not as native calls. */
  readonly textDispatch?: boolean;
}

/** One timed backend request. */
export interface BackendHit {
  readonly kind: 'search' | 'page';
  readonly what: string;
  readonly start: number;
  readonly end: number;
}

/** A running research world. */
export interface ResearchWorld {
  /** The scripted model server playing every step. */
  readonly server: ScriptedModelServer;
  /** The slow search backend (`POST /search` in SearXNG's format, pages under `/page/`). */
  readonly backend: LoopbackHttpServer;
  /** Every backend request, timed. */
  readonly hits: BackendHit[];
  /**
   * When set, the backend holds each answer until this many requests are in flight at once (or 10 s passed):
   * `maxInFlight` then proves requests ran concurrently without depending on how fast the machine is.
   */
  holdUntilInFlight: number | undefined;
  /** The most backend requests in flight at one time since the last reset (set it to 0 to reset). */
  maxInFlight: number;
  /** The real web_search (SearXNG provider) and open_url tools, pointed at the backend. */
  readonly tools: readonly Tool[];
  /** What the scripted model is told to do; tests set it before each run. */
  script: OrchestratorScript;
  /** Append this sentence, citing [1], to the final report (a claim no source makes). */
  unsupportedClaim: string | undefined;
  /** How many of the next final-report steps drop their connection after writing part of the report. */
  dropReports: number;
  /** How long each step of an agent whose task says `slowly` waits before it answers (default 1000 ms). */
  slowStepMs: number;
  /** A real provider package talking to the server in its wire format. */
  model(provider: 'openai' | 'anthropic'): LanguageModelV4;
  /**
   * A run on this world that goes straight to the plan: the OpenAI wire, the world's tools, a 128k window and
   * `question` as the only message. Tests put their own options over it.
   */
  planFirstRun(question: string): RunDeepResearchOptions;
  close(): Promise<void>;
}

const sentenceOf = (query: string) => `${query} was measured carefully by the survey in 2026`;

/** Starts the world; `delayMs` is how long each search and page takes on the backend. */
export async function startResearchWorld(options: { delayMs: number }): Promise<ResearchWorld> {
  const hits: BackendHit[] = [];
  let inFlight = 0;
  let held: (() => void)[] = [];
  const backend = await startLoopbackHttpServer((request, response) => {
    const start = performance.now();
    const url = new URL(request.url, 'http://127.0.0.1');
    inFlight += 1;
    world.maxInFlight = Math.max(world.maxInFlight, inFlight);
    const hold = new Promise<void>((release) => {
      const wanted = world.holdUntilInFlight;
      if (wanted === undefined) return release();
      held.push(release);
      if (inFlight >= wanted) {
        for (const waiting of held) waiting();
        held = [];
      } else setTimeout(release, 10_000);
    });
    const finish = (kind: BackendHit['kind'], what: string, type: string, body: string) =>
      void hold.then(() =>
        setTimeout(() => {
          hits.push({ kind, what, start, end: performance.now() });
          inFlight -= 1;
          response.writeHead(200, { 'content-type': type });
          response.end(body);
        }, options.delayMs),
      );
    if (url.pathname === '/search') {
      const query = new URLSearchParams(request.body).get('q') ?? '';
      const slug = encodeURIComponent(query.replace(/\s+/g, '-'));
      finish(
        'search',
        query,
        'application/json',
        JSON.stringify({
          results: [
            {
              url: `${backend.origin}/page/${slug}`,
              title: `About ${query}`,
              content: `${sentenceOf(query)}.`,
            },
          ],
        }),
      );
      return;
    }
    const topic = decodeURIComponent(url.pathname.replace('/page/', '')).replace(/-/g, ' ');
    finish(
      'page',
      topic,
      'text/html',
      `<html><head><title>Page on ${topic}</title></head><body><article><h1>${topic}</h1><p>${sentenceOf(topic)}. ` +
        `The page explains ${topic} at length, with tables and sources for every figure it gives.</p></article></body></html>`,
    );
  });
  const fetch: GuardedFetch = createGuardedFetch({ allow: ['127.0.0.1/32'] });
  const tools = [
    createWebSearchTool({
      provider: createWebSearchProvider({ provider: 'searxng', baseUrl: backend.origin }),
      fetch,
    }),
    createOpenUrlTool({ fetch }),
  ];
  const world: ResearchWorld = {
    server: undefined as unknown as ScriptedModelServer,
    backend,
    hits,
    holdUntilInFlight: undefined,
    maxInFlight: 0,
    tools,
    script: { tasks: [] },
    unsupportedClaim: undefined,
    dropReports: 0,
    slowStepMs: 1_000,
    planFirstRun: (question) => ({
      model: world.model('openai'),
      tools: world.tools,
      contextWindowTokens: 128_000,
      messages: [{ role: 'user', content: question }],
      skipClarification: true,
    }),
    model(provider) {
      const baseUrl = `${world.server.url}/v1`;
      return provider === 'openai'
        ? resolveLanguageModel(
            { provider: 'openai', model: 'gpt-test', baseUrl },
            { env: { OPENAI_API_KEY: 'k' } },
          )
        : resolveLanguageModel(
            { provider: 'anthropic', model: 'claude-test', baseUrl },
            { env: { ANTHROPIC_API_KEY: 'k' } },
          );
    },
    async close() {
      await world.server.close();
      await fetch.close();
      await backend.close();
    },
  };
  (world as { server: ScriptedModelServer }).server = await startScriptedModelServer({
    handler: (request) => playResearchModel(request, world),
  });
  return world;
}

let callCounter = 0;
const call = (name: string, args: Record<string, unknown>, index = 0): ScriptedStep => {
  callCounter += 1;
  return { type: 'tool-call', index, id: `call_${name}_${callCounter}`, name, arguments: args, chunkSize: 9 };
};
const text = (value: string): ScriptedStep[] =>
  value.match(/[\s\S]{1,16}/g)?.map((piece) => ({ type: 'text' as const, text: piece })) ?? [];

function playResearchModel(request: ScriptedRequest, world: ResearchWorld): ScriptedStep[] {
  const system = request.messages.find((message) => message.role === 'system')?.text ?? '';
  const users = request.messages.filter((message) => message.role === 'user');
  const lastUser = users.at(-1)?.text ?? '';
  const steps = request.messages.filter(
    (message) => message.role === 'assistant' && message.toolCalls.length > 0,
  );
  if (system.includes('clarification step')) {
    return /vague/i.test(users.map((message) => message.text).join(' ')) && users.length === 1
      ? text('1. Which region do you mean?\n2. Which years?\nThese help me focus the research.')
      : [call('generate_plan', {})];
  }
  if (system.includes('research planner')) return text('1. Gather sources\n2. Compare them\n3. Summarise');
  if (system.includes('research orchestrator')) {
    const script = world.script;
    if (script.noTools) return text('I would rather just answer.');
    if (script.endlessThink) {
      // A reasoning model is offered no think_tool: it keeps dispatching instead.
      return request.toolNames.includes('think_tool')
        ? [call('think_tool', { reasoning: `Thinking again (${steps.length}).` })]
        : [call('research_agent', { task: `Research silent round ${steps.length}` })];
    }
    if (script.thinkFirst && steps.length === 0) {
      return [call('think_tool', { reasoning: 'First I plan:\n"split" the work.' })];
    }
    const dispatched = steps.filter((step) =>
      step.toolCalls.some((entry) => entry.name === 'research_agent'),
    );
    if (script.sequential) {
      const next = script.tasks[dispatched.length];
      return next ? [call('research_agent', { task: next })] : [call('generate_report', {})];
    }
    if (dispatched.length === 0 && (script.cutOffFirstDispatch || script.malformedFirstDispatch)) {
      const whole = script.tasks.slice(0, -1).map((task, index) => call('research_agent', { task }, index));
      const last = script.tasks.at(-1) ?? '';
      const index = whole.length;
      return [
        ...whole,
        { type: 'tool-call-start', index, id: `call_${index}_cut`, name: 'research_agent' },
        { type: 'tool-call-delta', index, argumentsDelta: JSON.stringify({ task: last }).slice(0, 12) },
        { type: 'finish', reason: script.malformedFirstDispatch ? 'tool-calls' : 'length' },
      ];
    }
    if (dispatched.length === 0 && script.textDispatch) {
      const blocks = script.tasks.map(
        (task) => `<tool_call>${JSON.stringify({ name: 'research_agent', arguments: { task } })}</tool_call>`,
      );
      return text(`I will dispatch the agents now.\n${blocks.join('\n')}`);
    }
    if (dispatched.length === 0)
      return script.tasks.map((task, index) => call('research_agent', { task }, index));
    if ((script.cutOffFirstDispatch || script.malformedFirstDispatch) && dispatched.length === 1) {
      const last = script.tasks.at(-1) ?? '';
      return [call('research_agent', { task: last })];
    }
    return [call('generate_report', {})];
  }
  if (system.includes('research agent:')) {
    const task = users[0]?.text ?? '';
    const behaviour =
      (['fails', 'hangs', 'thinker', 'silent', 'offline'] as const).find((word) => task.includes(word)) ??
      'searcher';
    if (behaviour === 'fails')
      return [{ type: 'http-error', status: 400, message: 'scripted agent failure' }];
    if (behaviour === 'hangs') return [{ type: 'delay', ms: 60_000 }, ...text('too late')];
    if (behaviour === 'silent') return text('I found nothing to search for.');
    // Every page it opens is refused (an address the guard blocks), then it asks for its report all the same.
    if (behaviour === 'offline') {
      return steps.length === 0
        ? [call('open_url', { urls: ['http://10.255.255.1/one', 'http://10.255.255.1/two'] })]
        : [call('generate_report', {})];
    }
    if (behaviour === 'thinker') {
      return request.toolNames.includes('think_tool')
        ? [call('think_tool', { reasoning: `Still thinking about ${task}.` })]
        : [call('generate_report', {})];
    }
    const topic = task.replace(/^Research /, '');
    // Two searches and a page in one step: web_search calls merge into one call whose queries run at once,
    // and open_url runs beside it. Sequentially: one of them per step.
    const calls = [
      call('web_search', { queries: [`${topic} history`] }, 0),
      call('web_search', { queries: [`${topic} today`] }, 1),
      call(
        'open_url',
        {
          urls: [
            `${world.backend.origin}/page/${encodeURIComponent(`${topic}-overview`.replace(/\s+/g, '-'))}`,
          ],
        },
        2,
      ),
    ];
    const wait: ScriptedStep[] =
      task.includes('slowly') && world.slowStepMs > 0 ? [{ type: 'delay', ms: world.slowStepMs }] : [];
    if (world.script.sequential) {
      const next = calls[steps.length];
      return [...wait, next ? ({ ...next, index: 0 } as ScriptedStep) : call('generate_report', {})];
    }
    if (steps.length > 0) return [...wait, call('generate_report', {})];
    return [...wait, ...calls];
  }
  if (system.includes('report writer for another agent')) {
    // One sentence per numbered source, citing it: "[n] Title" lines start each source in the findings.
    const facts: string[] = [];
    for (const match of lastUser.matchAll(/^\[(\d+)\] (?:About |Page on )?(.+)$/gm)) {
      facts.push(`${sentenceOf(match[2] ?? '')} [${match[1]}].`);
    }
    return text(facts.length ? facts.join(' ') : 'No sources were found for this task.');
  }
  if (system.includes('final report of a deep research run')) {
    const reports = lastUser.split('The research reports:')[1] ?? '';
    const sentences = reports.match(/[^.\n]*\[\d+(?:, \d+)*\]\./g) ?? [];
    const body = sentences.map((sentence) => sentence.trim()).join(' ');
    const claim = world.unsupportedClaim ? ` ${world.unsupportedClaim} [1].` : '';
    const report = text(`${body || 'The research found nothing.'}${claim}`);
    if (world.dropReports > 0) {
      world.dropReports -= 1;
      // A pause first, so the half is on the wire before the connection goes.
      return [...report.slice(0, Math.ceil(report.length / 2)), { type: 'delay', ms: 200 }, { type: 'drop' }];
    }
    return report;
  }
  if (system.includes('citation checker')) {
    // A careful reader: a claim is supported when most of its words are in the source text it was shown.
    const words = (value: string) => value.toLowerCase().match(/[a-z0-9]{4,}/g) ?? [];
    const verdicts = [...lastUser.matchAll(/^Claim (\d+): (.*)\nSource \d+: (.*)$/gm)].map((match) => {
      const source = new Set(words(match[3] ?? ''));
      const claimWords = words(match[2] ?? '');
      const found = claimWords.filter((word) => source.has(word)).length;
      return {
        claim: Number(match[1]),
        verdict: claimWords.length > 0 && found / claimWords.length >= 0.6 ? 'supported' : 'unsupported',
      };
    });
    return [call('record_citation_verdicts', { verdicts })];
  }
  return [{ type: 'http-error', status: 400, message: `no scripted role for: ${system.slice(0, 60)}` }];
}
