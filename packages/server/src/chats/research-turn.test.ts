// Deep Research through the server: POST /v1/chats/{id}/messages with research on runs runDeepResearch over the
// persona's tools (the real web_search and open_url against a loopback search backend), streamed and stored like
// any turn, with the turn recorded as a research turn.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ResearchWorld, startResearchWorld } from '@toolbus/research/testing';
import type { Storage } from '@toolbus/storage';
import { apiCaller } from '../__fixtures__/api-calls.ts';
import { openTestStorage, readSse } from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

interface WirePacket {
  placement: { turn: number; tab: number; path?: { turn: number; tab: number }[] };
  obj: { type: string; [key: string]: unknown };
}

let world: ResearchWorld;
let storage: Storage;
let server: ToolbusServer;
let http: ListeningServer;

before(async () => {
  world = await startResearchWorld({ delayMs: 5 });
  ({ storage } = await openTestStorage());
  const persona = await storage.personas.create({ name: 'researcher', description: 'searches the web' });
  await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'WebSearchTool' });
  await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'OpenURLTool' });
  const [webSearch, openUrl] = world.tools;
  server = await createServer({
    storage,
    auth: 'local',
    defaultModel: 'openai:research-model',
    defaultPersonaId: persona.id,
    resolveModel: () => world.model('openai'),
    contextWindowTokens: 128_000,
    builtInToolFactories: () =>
      new Map([
        ['WebSearchTool', () => webSearch as NonNullable<typeof webSearch>],
        ['OpenURLTool', () => openUrl as NonNullable<typeof openUrl>],
      ]),
  });
  http = await listen(server, { port: 0 });
});
after(async () => {
  await http?.close();
  await server?.close();
  await storage?.close();
  await world?.close();
});

describe('Deep Research in the server', () => {
  test('research on: plan, three agents in parallel (one failing), and the cited report', async () => {
    world.script = { tasks: ['Research solar panels', 'Research wind turbines', 'Research tides fails'] };
    // Local auth: no key.
    const call = apiCaller(() => http.url);
    const chat = (await (await call('POST', '/v1/chats', undefined, { title: 'Energy' })).json()) as {
      id: string;
    };
    const events = await readSse(
      await call('POST', `/v1/chats/${chat.id}/messages`, undefined, {
        content: 'Compare renewables',
        research: true,
      }),
    );
    const packets = events.map((event) => JSON.parse(event.data) as WirePacket);
    const ofType = (type: string) => packets.filter((packet) => packet.obj.type === type);
    assert.match(
      ofType('research-plan-delta')
        .map((packet) => packet.obj.content)
        .join(''),
      /Gather sources/,
    );
    const starts = ofType('research-agent-start');
    assert.deepEqual(
      starts.map((packet) => [packet.placement.tab, packet.obj.task]),
      [
        [0, 'Research solar panels'],
        [1, 'Research wind turbines'],
        [2, 'Research tides fails'],
      ],
    );
    // The failing agent's error sits in its own lane; the others ran their tools one level down.
    const errors = ofType('error').filter((packet) => packet.placement.tab === 2);
    assert.ok(errors.length > 0, 'the failing agent reports an error in its lane');
    const nestedTools = ofType('tool-start').filter((packet) => packet.placement.path?.length === 1);
    assert.ok(nestedTools.some((packet) => packet.placement.tab === 0));
    assert.ok(nestedTools.some((packet) => packet.placement.tab === 1));
    const report = ofType('message-delta')
      .filter((packet) => !packet.placement.path?.length)
      .map((packet) => packet.obj.content)
      .join('');
    assert.match(report, /solar panels .*\[\d+\]/s);
    assert.equal(ofType('stop').at(-1)?.obj.reason, 'finished');
    const detail = (await (await call('GET', `/v1/chats/${chat.id}`, undefined)).json()) as {
      turns: { kind: string; status: string }[];
    };
    assert.deepEqual(
      detail.turns.map((turn) => [turn.kind, turn.status]),
      [['research', 'completed']],
    );
  });
});

describe('Deep Research in the server: its settings', () => {
  test("the steps that answer the user get the server's system prompt; maxCycles bounds the orchestrator", async () => {
    const captain = 'Always answer in the voice of a ship captain.';
    const configured = await createServer({
      storage,
      auth: 'local',
      defaultModel: 'openai:research-model',
      resolveModel: () => world.model('openai'),
      contextWindowTokens: 128_000,
      systemPrompt: captain,
      maxCycles: 3,
      builtInToolFactories: () =>
        new Map([['WebSearchTool', () => world.tools[0] as NonNullable<(typeof world.tools)[0]>]]),
    });
    const configuredHttp = await listen(configured, { port: 0 });
    try {
      world.script = { tasks: ['Research solar panels'] };
      // Local auth: no key.
      const call = apiCaller(() => configuredHttp.url);
      const chat = (await (await call('POST', '/v1/chats', undefined, { title: 'Sun' })).json()) as {
        id: string;
      };
      const seen = world.server.requests.length;
      const events = await readSse(
        await call('POST', `/v1/chats/${chat.id}/messages`, undefined, {
          content: 'How good is solar power?',
          research: true,
        }),
      );
      const packets = events.map((event) => JSON.parse(event.data) as WirePacket);
      assert.equal(packets.filter((packet) => packet.obj.type === 'stop').at(-1)?.obj.reason, 'finished');
      const systems = world.server.requests
        .slice(seen)
        .map((request) => request.messages.find((message) => message.role === 'system')?.text ?? '');
      const report = systems.filter((text) => text.startsWith('You write the final report'));
      assert.equal(report.length, 1);
      assert.ok(report[0]?.includes(captain), 'the final report step has the system prompt');
      const orchestrator = systems.filter((text) => text.startsWith('You are the research orchestrator'));
      assert.ok(orchestrator.length > 0);
      assert.ok(
        orchestrator.every((text) => text.includes('of 3.')),
        'the orchestrator runs at most maxCycles cycles',
      );
      assert.ok(
        !orchestrator.some((text) => text.includes(captain)),
        'steps that only call tools keep their own prompt',
      );
    } finally {
      await configuredHttp.close();
      await configured.close();
    }
  });
});
