import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { collectTurn, packetsOfType } from '@toolbus/core/testing';
import type { ChatMessage } from '@toolbus/spec';
import { checkPacketStream } from './check-packet-stream.ts';
import { DeepResearchError } from './deep-research-error.ts';
import { type RunDeepResearchOptions, runDeepResearch } from './run-deep-research.ts';
import { type ResearchWorld, startResearchWorld } from './testing/index.ts';

const run = (options: RunDeepResearchOptions) => collectTurn(runDeepResearch(options));

const ask = (content: string): ChatMessage[] => [{ role: 'user', content }];

for (const provider of ['openai', 'anthropic'] as const) {
  describe(`runDeepResearch over ${provider}`, () => {
    let world: ResearchWorld;
    before(async () => {
      world = await startResearchWorld({ delayMs: 200 });
    });
    after(() => world.close());
    const base = () => ({
      model: world.model(provider),
      tools: world.tools,
      contextWindowTokens: 128_000,
      limits: { agentTimeoutMs: 20_000 },
    });
    const failuresBefore = () => world.server.failures.length;
    /** A run that goes straight to the plan (no clarification step), on `base()` with `options` over it. */
    const research = (question: string, options: Partial<RunDeepResearchOptions> = {}) =>
      run({ ...base(), messages: ask(question), skipClarification: true, ...options });

    it('asks clarifying questions and ends the turn; the reply continues into a full research run', async () => {
      world.script = { tasks: ['Research solar panels'] };
      world.unsupportedClaim = undefined;
      const first = await run({ ...base(), messages: ask('Tell me about energy, vague') });
      assert.equal(first.result.stopReason, 'clarification');
      assert.equal(first.result.clarification, true);
      assert.match(first.result.answer, /Which region/);
      assert.deepEqual(first.packets.at(-1)?.obj, { type: 'stop', reason: 'clarification' });
      assert.equal(packetsOfType(first.packets, 'research-plan-start').length, 0);

      const messages: ChatMessage[] = [
        ...ask('Tell me about energy, vague'),
        ...first.result.messages,
        ...ask('Europe, the last five years, vague no more'),
      ];
      const second = await run({ ...base(), messages, skipClarification: true });
      assert.equal(second.result.error, undefined, second.result.error?.message);
      assert.equal(second.result.stopReason, 'finished');
      assert.match(second.result.plan, /1\. Gather sources/);
      const plan = packetsOfType(second.packets, 'research-plan-delta')
        .map((packet) => packet.obj.content)
        .join('');
      assert.equal(plan, second.result.plan);
      assert.match(second.result.answer, /solar panels history was measured carefully/);
      assert.deepEqual(checkPacketStream(second.packets), []);
    });

    it('runs three agents in parallel, each with parallel searches inside, and cites one dense numbering', async () => {
      world.script = {
        tasks: ['Research solar panels', 'Research wind turbines', 'Research heat pumps'],
        thinkFirst: true,
      };
      world.unsupportedClaim = undefined;
      world.hits.length = 0;
      world.maxInFlight = 0;
      world.holdUntilInFlight = 9;
      const failures = failuresBefore();
      const { packets, result } = await research('How do renewables compare?');
      world.holdUntilInFlight = undefined;
      assert.equal(result.error, undefined, result.error?.message);
      assert.deepEqual(world.server.failures.slice(failures), [], 'the strict server accepted every request');
      assert.deepEqual(checkPacketStream(packets), []);
      assert.deepEqual(
        result.agents.map((agent) => agent.status),
        ['completed', 'completed', 'completed'],
      );
      // 3 agents × (2 searches + 1 page): the backend holds every answer until all nine are in flight, so nine at
      // once proves parallel agents with parallel tools inside (run one after another, there would be one).
      assert.equal(world.hits.length, 9);
      assert.equal(world.maxInFlight, 9);
      const lastStart = Math.max(...world.hits.map((hit) => hit.start));
      const firstEnd = Math.min(...world.hits.map((hit) => hit.end));
      assert.ok(lastStart < firstEnd, 'timestamps: every request started before the first one ended');

      // Placement: the orchestrator's think call streamed as reasoning, agents at (turn, k), their tools nested.
      const reasoning = packetsOfType(packets, 'reasoning-delta').filter((packet) => !packet.placement.path);
      assert.equal(
        reasoning.map((packet) => packet.obj.reasoning).join(''),
        'First I plan:\n"split" the work.',
      );
      const starts = packetsOfType(packets, 'research-agent-start');
      assert.deepEqual(
        starts.map((packet) => [packet.placement.tab, packet.obj.task]),
        [
          [0, 'Research solar panels'],
          [1, 'Research wind turbines'],
          [2, 'Research heat pumps'],
        ],
      );
      const branching = packetsOfType(packets, 'top-level-branching')[0];
      assert.equal(branching?.obj.branches, 3);
      const agentTurn = starts[0]?.placement.turn;
      // Agents start as soon as their call is written (the turn loop's batch), so the branching count, known
      // when the step ends, may come after the first start: what matters is that it is the agents' turn.
      assert.equal(branching?.placement.turn, agentTurn);
      const innerTools = packetsOfType(packets, 'tool-start').filter(
        (packet) => packet.placement.path?.length === 1,
      );
      assert.equal(innerTools.length, 6, 'one merged web_search and one open_url per agent');
      assert.ok(innerTools.every((packet) => packet.placement.turn === agentTurn));
      const firstAgentTools = innerTools.filter((packet) => packet.placement.tab === 0);
      assert.deepEqual(
        firstAgentTools.map((packet) => packet.placement.path?.[0]?.tab).sort(),
        [0, 2],
        'tools of one step sit at their own tabs inside the agent',
      );
      assert.ok(
        packetsOfType(packets, 'intermediate-report-cited-documents').every(
          (packet) => !packet.placement.path,
        ),
      );

      // Citations: the report cites the combined mapping; finalDocuments are the reports' cited documents.
      const numbers = [...result.documents.keys()];
      assert.deepEqual(
        numbers,
        numbers.map((_, index) => index + 1),
        'dense from 1',
      );
      const messageStart = packetsOfType(packets, 'message-start').at(-1);
      assert.deepEqual(
        messageStart?.obj.finalDocuments?.map((document) => document.citationNumber),
        numbers,
      );
      const infos = packetsOfType(packets, 'citation-info');
      assert.ok(infos.length >= 3);
      assert.ok(
        infos.every(
          (packet) => result.documents.get(packet.obj.citationNumber)?.id === packet.obj.documentId,
        ),
      );
      assert.equal(result.citedDocuments.length, result.documents.size);
      // The citation check found every sentence supported, lexically.
      assert.ok(result.citationChecks.length >= 3);
      assert.ok(
        result.citationChecks.every((check) => check.verdict === 'supported' && check.method === 'lexical'),
      );
      assert.equal(packetsOfType(packets, 'citation-check').length, 1);
      // Per-step token caps reach the provider.
      const maxTokens = (body: unknown) => {
        const fields = body as { max_tokens?: number; max_completion_tokens?: number };
        return fields.max_tokens ?? fields.max_completion_tokens;
      };
      const recent = world.server.requests.slice(-40);
      const orchestrator = recent.find((request) => request.toolNames.includes('research_agent'));
      const agent = recent.find((request) => request.toolNames.includes('web_search'));
      assert.equal(maxTokens(orchestrator?.body), 1024);
      assert.equal(maxTokens(agent?.body), 1000);
    });

    it('force-report timers: an orchestrator past its time writes the report at once; so does an agent', async () => {
      world.script = { tasks: ['Research solar panels'] };
      const late = await research('Out of time', { limits: { forceReportMs: 0 } });
      assert.equal(late.result.error, undefined, late.result.error?.message);
      assert.equal(late.result.cycles, 0);
      assert.deepEqual(late.result.agents, []);
      assert.match(late.result.answer, /The research found nothing/);

      const hurried = await research('Agents out of time', {
        limits: { agentTimeoutMs: 20_000, agentForceReportMs: 0 },
      });
      assert.equal(hurried.result.error, undefined, hurried.result.error?.message);
      assert.deepEqual(
        hurried.result.agents.map((entry) => entry.status),
        ['completed'],
      );
      assert.match(hurried.result.agents[0]?.report ?? '', /No sources were found/);
      assert.equal(packetsOfType(hurried.packets, 'tool-start').length, 0, 'the agent ran no tool');
      assert.deepEqual(checkPacketStream(hurried.packets), []);
    });

    it('caps parallel agents in code: calls over the cap are answered without running', async () => {
      world.script = { tasks: ['Research a', 'Research b', 'Research c', 'Research d'] };
      const { packets, result } = await research('Compare four things', {
        limits: { agentTimeoutMs: 20_000, maxParallelAgents: 2 },
        checkCitations: false,
      });
      assert.equal(result.error, undefined, result.error?.message);
      assert.deepEqual(
        result.agents.map((agent) => agent.status),
        ['completed', 'completed', 'not-run', 'not-run'],
      );
      assert.match(result.agents[2]?.report ?? '', /at most 2 tool call/);
      assert.equal(packetsOfType(packets, 'research-agent-start').length, 2);
      assert.equal(packetsOfType(packets, 'citation-check').length, 0, 'the check can be turned off');
      assert.deepEqual(checkPacketStream(packets), []);
    });

    it('a dispatch cut off by the output token limit is not run; the orchestrator dispatches it again', async () => {
      world.script = {
        tasks: ['Research solar panels', 'Research wind turbines'],
        cutOffFirstDispatch: true,
      };
      world.unsupportedClaim = undefined;
      const requestsBefore = world.server.requests.length;
      const { packets, result } = await research('Compare solar and wind', { checkCitations: false });
      assert.equal(result.error, undefined, result.error?.message);
      // Two agents ran: solar from the first dispatch, wind only once it was dispatched whole.
      assert.deepEqual(
        result.agents.map((agent) => [agent.task, agent.status]),
        [
          ['Research solar panels', 'completed'],
          ['Research wind turbines', 'completed'],
        ],
      );
      assert.equal(packetsOfType(packets, 'research-agent-start').length, 2);
      const cutOff = packetsOfType(packets, 'error').filter(
        (packet) => packet.obj.code === 'tool_call_cut_off',
      );
      assert.equal(cutOff.length, 1, 'the user sees the cut-off call as a failed tool');
      const orchestratorResults = world.server.requests
        .slice(requestsBefore)
        .flatMap((request) => request.messages.flatMap((message) => message.toolResults));
      assert.ok(
        orchestratorResults.some((entry) => /cut off by the output token limit/.test(entry.content)),
        'the orchestrator was told why the call did not run',
      );
      assert.deepEqual(checkPacketStream(packets), []);
    });

    it('recovers a dispatch a weak model wrote as text: the agents run and the report cites them', async () => {
      world.script = { tasks: ['Research solar panels', 'Research wind turbines'], textDispatch: true };
      world.unsupportedClaim = undefined;
      const { packets, result } = await research('Compare solar and wind, weakly', { checkCitations: false });
      assert.equal(result.error, undefined, result.error?.message);
      assert.equal(result.stopReason, 'finished');
      // Before the orchestrator ran on the turn loop, "no native call" ended the research here with no agent.
      assert.deepEqual(
        result.agents.map((agent) => [agent.task, agent.status]),
        [
          ['Research solar panels', 'completed'],
          ['Research wind turbines', 'completed'],
        ],
      );
      assert.equal(packetsOfType(packets, 'research-agent-start').length, 2);
      assert.match(result.answer, /solar panels/);
      assert.match(result.answer, /\[\d+\]/, 'the report cites what the recovered agents found');
      const shown = packetsOfType(packets, 'reasoning-delta')
        .filter((packet) => !packet.placement.path)
        .map((packet) => packet.obj.reasoning)
        .join('');
      assert.doesNotMatch(shown, /<tool_call>/, 'the call markup is not shown to the user');
      assert.deepEqual(checkPacketStream(packets), []);
    });

    it('survives a failing agent and a hanging one: error packet, synthetic timed-out report, a report at the end', async () => {
      world.script = { tasks: ['Research solar panels', 'Research fails here', 'Research hangs here'] };
      const failures = failuresBefore();
      const started = Date.now();
      const { packets, result } = await research('Renewables, with trouble', {
        limits: { agentTimeoutMs: 1_500 },
      });
      assert.ok(Date.now() - started < 20_000, 'the hanging agent did not hold the run');
      assert.equal(result.error, undefined, result.error?.message);
      assert.equal(result.stopReason, 'finished');
      assert.deepEqual(
        result.agents.map((agent) => agent.status),
        ['completed', 'failed', 'timed-out'],
      );
      assert.match(result.agents[1]?.report ?? '', /Research agent call failed/);
      assert.match(
        result.agents[2]?.report ?? '',
        /timed out after 2 seconds|timed out after 1\.5 seconds|timed out after/,
      );
      const errors = packetsOfType(packets, 'error');
      assert.ok(
        errors.some((packet) => packet.placement.tab === 1 && !packet.placement.path),
        "an error packet at the failed agent's placement",
      );
      const hangingReport = packetsOfType(packets, 'intermediate-report-delta').filter(
        (packet) => packet.placement.tab === 2,
      );
      assert.match(hangingReport.map((packet) => packet.obj.content).join(''), /timed out/);
      // Every tool_use of the orchestrator got exactly one tool_result: the strict server refused nothing.
      assert.deepEqual(world.server.failures.slice(failures), []);
      assert.deepEqual(
        checkPacketStream(packets),
        [],
        'the hung agent wrote nothing after its section ended',
      );
      // Its model call was aborted, not left running.
      const hung = world.server.requests.find((request) =>
        request.messages.some((message) => message.text.includes('hangs here')),
      );
      assert.ok(hung);
      assert.equal(await world.server.settled(hung), 'client-closed');
      assert.match(result.answer, /solar panels/);
    });

    it('bounds endless think calls (orchestrator cycles, and the agent think cap) and handles a model that calls no tools', async () => {
      world.script = { tasks: [], endlessThink: true };
      const endless = await research('Think forever');
      assert.equal(endless.result.error, undefined, endless.result.error?.message);
      assert.equal(endless.result.cycles, 7, 'eight orchestrator cycles: seven think steps, then the report');
      assert.deepEqual(checkPacketStream(endless.packets), []);

      // A reasoning model gets four cycles (three model steps, then the report) and no think_tool.
      const beforeReasoning = world.server.requests.length;
      const reasoning = await run({
        ...base(),
        reasoningModel: true,
        messages: ask('Reason forever'),
        skipClarification: true,
      });
      assert.equal(reasoning.result.error, undefined, reasoning.result.error?.message);
      assert.equal(reasoning.result.cycles, 3);
      assert.equal(reasoning.result.agents.length, 3);
      const orchestratorRequests = world.server.requests
        .slice(beforeReasoning)
        .filter((request) => request.toolNames.includes('research_agent'));
      assert.equal(orchestratorRequests.length, 3);
      assert.ok(orchestratorRequests.every((request) => !request.toolNames.includes('think_tool')));
      const agentRequests = world.server.requests
        .slice(beforeReasoning)
        .filter(
          (request) =>
            request.toolNames.includes('generate_report') && !request.toolNames.includes('research_agent'),
        );
      assert.ok(
        agentRequests.length >= 3 &&
          agentRequests.every((request) => !request.toolNames.includes('think_tool')),
      );

      world.script = { tasks: ['Research thinker topic', 'Research silent topic'] };
      const before = world.server.requests.length;
      const agents = await research('Agents that think and stay silent', {
        limits: { agentTimeoutMs: 20_000, agentThinkCycles: 3 },
      });
      assert.equal(agents.result.error, undefined, agents.result.error?.message);
      const thinkerSteps = world.server.requests
        .slice(before)
        .filter((request) =>
          request.messages.some((message) => message.role === 'user' && message.text.includes('thinker')),
        )
        .filter((request) => request.toolNames.includes('think_tool'));
      assert.equal(thinkerSteps.length, 3, 'think_tool is offered three times, then no more');
      const nestedReasoning = packetsOfType(agents.packets, 'reasoning-delta').filter(
        (packet) => packet.placement.path,
      );
      assert.match(
        nestedReasoning.map((packet) => packet.obj.reasoning).join(''),
        /Still thinking about Research thinker topic/,
      );
      assert.deepEqual(
        agents.result.agents.map((agent) => agent.status),
        ['completed', 'completed'],
      );
      assert.deepEqual(checkPacketStream(agents.packets), []);

      world.script = { tasks: [], noTools: true };
      const silent = await research('No tools at all');
      assert.equal(silent.result.error, undefined, silent.result.error?.message);
      assert.equal(silent.result.stopReason, 'finished');
      assert.match(silent.result.answer, /The research found nothing/);
      assert.deepEqual(checkPacketStream(silent.packets), []);
    });

    it('flags a citation whose source does not say what the sentence claims', async () => {
      world.script = { tasks: ['Research solar panels'] };
      world.unsupportedClaim = 'The moon is made of green cheese';
      const { packets, result } = await research('Solar and the moon');
      world.unsupportedClaim = undefined;
      assert.equal(result.error, undefined, result.error?.message);
      const flagged = result.citationChecks.filter((check) => check.verdict === 'unsupported');
      assert.deepEqual(
        flagged.map((check) => [check.citationNumber, check.sentence, check.method]),
        [[1, 'The moon is made of green cheese.', 'model']],
      );
      assert.match(result.answer, /green cheese \[1\]/, 'never silently removed');
      const packet = packetsOfType(packets, 'citation-check')[0];
      assert.deepEqual(packet?.obj.checks, result.citationChecks);
      // One judging call for one doubtful citation (the rest passed the lexical pre-filter).
      const judged = world.server.requests.filter((request) =>
        request.messages.some(
          (message) => message.role === 'system' && message.text.includes('citation checker'),
        ),
      );
      assert.ok(judged.length >= 1);
    });

    it('refuses a model below the context gate before any model call', async () => {
      const before = world.server.requests.length;
      const { packets, result } = await run({
        ...base(),
        contextWindowTokens: 32_000,
        messages: ask('Anything'),
      });
      assert.equal(result.stopReason, 'error');
      assert.ok(DeepResearchError.isInstance(result.error));
      assert.equal(result.error?.code, 'context_too_small');
      assert.match(result.error?.message ?? '', /at least 50000 input tokens; this one has 32000/);
      assert.equal(world.server.requests.length, before, 'no model call was made');
      assert.deepEqual(
        packets.map((packet) => packet.obj.type),
        ['error', 'stop'],
      );
    });
  });
}
