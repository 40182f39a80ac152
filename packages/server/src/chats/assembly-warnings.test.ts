import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  lookupThenAnswer,
  lookupToolFactories,
  type ScriptedTestServer,
  startScriptedTestServer,
} from '../__fixtures__/test-server.ts';
import { createJsonLogger } from '../server-logger.ts';

// What assembly leaves out of a turn (a row whose server is down, a stored credential HTTP cannot carry) goes to
// the server's own JSON log, by name, never to the console and never with the secret.
let world: ScriptedTestServer;
const lines: string[] = [];
const consoleWarnings: unknown[][] = [];
const consoleWarn = console.warn;

const secretToken = 'tok-SECRET-1234\nsecond line';
const petsDocument = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  servers: [{ url: 'http://127.0.0.1:9/api' }],
  paths: {
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'A pet' } },
      },
    },
  },
};

before(async () => {
  console.warn = (...parts: unknown[]) => {
    consoleWarnings.push(parts);
  };
  world = await startScriptedTestServer({
    handler: lookupThenAnswer(),
    toolFactories: () => lookupToolFactories(),
    server: { logger: createJsonLogger((line) => lines.push(line)) },
    async seed(storage) {
      const persona = (await storage.personas.list()).find((item) => item.name === 'default');
      assert.ok(persona);
      const down = await storage.mcpServers.create({
        name: 'down',
        // Port 9 (discard) on loopback: nothing listens there, the connection is refused.
        endpoint: { transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp' },
        authType: 'none',
      });
      await storage.personas.addToolRow(persona.id, { kind: 'mcp', serverId: down.id, toolName: 'echo' });
      // Routine: this server has no factory for it (a provider not configured), which is no news in the log.
      await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'ImageGenerationTool' });
      await storage.personas.addToolRow(persona.id, {
        kind: 'openapi',
        name: 'Pets',
        document: petsDocument,
        auth: { type: 'bearer', token: secretToken },
      });
    },
  });
});
after(async () => {
  console.warn = consoleWarn;
  await world.close();
});

async function runTurn(): Promise<void> {
  const { packets } = await world.runTurn('refunds?');
  assert.equal(packets.at(-1)?.obj.type, 'stop');
}

test('assembly warnings of a turn go to the server log as JSON, by name, once, never to the console or with a secret', async () => {
  await runTurn();
  await runTurn();
  const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const warnings = logged.filter((entry) => entry.level === 'warn');
  assert.equal(
    warnings.filter((entry) => JSON.stringify(entry).includes('mcp-server-failed')).length,
    1,
    `the skipped MCP row is logged, once for both turns: ${JSON.stringify(warnings)}`,
  );
  assert.equal(
    warnings.filter((entry) => /authorization/i.test(JSON.stringify(entry))).length,
    1,
    `the dropped credential header is logged by name, once: ${JSON.stringify(warnings)}`,
  );
  assert.ok(
    !warnings.some((entry) => JSON.stringify(entry).includes('unknown-built-in')),
    'a routine skip is not logged',
  );
  assert.ok(!lines.join('\n').includes('tok-SECRET'), 'the credential never reaches the log');
  assert.deepEqual(consoleWarnings, [], 'nothing went to console.warn');
});
