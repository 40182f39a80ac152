// What a turn starts: the built-in tools of `toolbus serve` (the real factories, the real interpreter service and
// bubblewrap sandbox, the real server) start the process's sandbox service once, not per turn, and a turn that runs
// no code spawns no process at all. A sandbox whose probe failed is remembered with its reason. When the skills
// change between turns, a turn runs on a service of its own set, and a set's service goes with its last turn.
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createGuardedFetch } from '@toolbus/core/node';
import { type ScriptedModelServer, startScriptedModelServer, textSteps } from '@toolbus/core/testing';
import { type InterpreterServerOptions, startInterpreterServer } from '@toolbus/interpreter';
import { omitUndefined } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { type DocumentSearchIndex, openDocumentIndex } from '@toolbus/tools';
import { openTestStorage, readSse } from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';
import { builtInToolFactories } from './built-in-tool-factories.ts';
import { createInProcessSandbox, type InProcessSandbox, type SandboxSkills } from './in-process-sandbox.ts';

/** Counts the child processes this process spawns while `spawned.counting` (node's own spawn channel). */
const spawned = { counting: false, count: 0 };
const onSpawn = () => {
  if (spawned.counting) spawned.count += 1;
};

/** The real service start, counted. */
function countingStart(extra: Partial<InterpreterServerOptions> = {}) {
  const counter = {
    starts: 0,
    start: (options: InterpreterServerOptions) => {
      counter.starts += 1;
      return startInterpreterServer({ ...options, ...extra });
    },
  };
  return counter;
}

before(() => subscribe('child_process', onSpawn));
after(() => unsubscribe('child_process', onSpawn));

describe('toolbus serve turns and the in-process sandbox', () => {
  let root: string;
  let model: ScriptedModelServer;
  let storage: Storage;
  let index: DocumentSearchIndex;
  let server: ToolbusServer;
  let http: ListeningServer;
  let sandbox: InProcessSandbox;
  const fetch = createGuardedFetch({ level: 'strict' });
  const counter = countingStart();

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolbus-turn-start-'));
    model = await startScriptedModelServer({
      handler: (request) => {
        const last = request.messages.at(-1);
        if (last?.role === 'tool') return textSteps([`Result: ${last.toolResults[0]?.content ?? ''}`]);
        if (last?.text.includes('compute') && request.toolNames.includes('run_python')) {
          return [
            { type: 'tool-call', id: 'call_py', name: 'run_python', arguments: { code: 'print(6 * 7)' } },
          ];
        }
        return textSteps(['Hello.']);
      },
    });
    ({ storage } = await openTestStorage(join(root, 'toolbus.db')));
    const persona = await storage.personas.create({ name: 'coder', description: 'runs code' });
    await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'PythonTool' });
    await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'CodingAgentTool' });
    index = await openDocumentIndex({ path: ':memory:' });
    sandbox = createInProcessSandbox({ start: counter.start });
    server = await createServer({
      storage,
      auth: 'local',
      defaultModel: `openai-compatible:${model.url}/v1#scripted`,
      defaultPersonaId: persona.id,
      builtInToolFactories: (context) =>
        builtInToolFactories({
          settings: {},
          egressCaDirectory: join(root, 'egress-ca'),
          egressSecretKey: () => {
            throw new Error('no sandbox service is configured, so no egress token is signed');
          },
          index,
          storage,
          fetch,
          userId: context.user.id,
          organizationId: context.organizationId,
          env: {},
          model: context.model,
          onClose: context.onClose,
          inProcessSandbox: sandbox,
          ...omitUndefined({ egressApprovals: context.approvals }),
        }),
    });
    http = await listen(server, { port: 0 });
  });
  after(async () => {
    await http?.close();
    await server?.close();
    await sandbox?.close();
    await index?.close();
    await storage?.close();
    await model?.close();
    await fetch.close();
    await rm(root, { recursive: true, force: true });
  });

  async function ask(content: string): Promise<string> {
    const chat = (await (
      await globalThis.fetch(`${http.url}/v1/chats`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { id: string };
    const events = await readSse(
      await globalThis.fetch(`${http.url}/v1/chats/${chat.id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content }),
      }),
    );
    return events.map((event) => event.data).join('\n');
  }

  test('a turn that runs no code spawns nothing; the service starts once for the process', async () => {
    // The first turn's availability check starts the process's service (toolbus serve warms it at start).
    assert.match(await ask('Hi'), /Hello\./);
    assert.equal(counter.starts, 1);
    assert.deepEqual([...(model.requests.at(-1)?.toolNames ?? [])].sort(), ['coding_agent', 'run_python']);
    spawned.count = 0;
    spawned.counting = true;
    try {
      assert.match(await ask('Hi again'), /Hello\./);
      assert.match(await ask('And once more'), /Hello\./);
    } finally {
      spawned.counting = false;
    }
    assert.equal(spawned.count, 0, 'no process was spawned for turns that ran no code');
    assert.equal(counter.starts, 1);
    assert.deepEqual([...(model.requests.at(-1)?.toolNames ?? [])].sort(), ['coding_agent', 'run_python']);
  });

  test('turns that run code use the one service: no second start, no second probe', async () => {
    assert.match(await ask('Please compute it'), /Result: .*42/);
    assert.match(await ask('Please compute it again'), /Result: .*42/);
    assert.equal(counter.starts, 1);
  });
});

describe('a sandbox that cannot isolate', () => {
  test('is probed once: availability and every run answer at once with the remembered reason', async () => {
    const counter = countingStart({ bubblewrapPath: '/nonexistent/bwrap' });
    const sandbox = createInProcessSandbox({ start: counter.start });
    try {
      assert.equal(await sandbox.isAvailable(), false);
      spawned.count = 0;
      spawned.counting = true;
      try {
        assert.equal(await sandbox.isAvailable(), false);
        for (let turn = 0; turn < 2; turn += 1) {
          const interpreter = sandbox.forTurn({ onClose: () => undefined });
          await assert.rejects(interpreter.execute({ code: 'print(1)' }), (error: Error) => {
            assert.match(error.message, /bubblewrap not found at \/nonexistent\/bwrap/);
            return true;
          });
          assert.equal(await interpreter.isAvailable(), false);
        }
      } finally {
        spawned.counting = false;
      }
      assert.equal(counter.starts, 1);
      assert.equal(spawned.count, 0, 'nothing was probed again');
    } finally {
      await sandbox.close();
    }
  });
});

describe('skills that change between turns (toolbus serve)', () => {
  test('each turn runs on a service of its own skills; a service no turn uses is closed, the newest kept', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'toolbus-sandbox-skills-'));
    // Readable by the sandbox users (the service may run as root, its sandboxes as other users).
    await chmod(scratch, 0o755);
    const skillSet = async (text: string): Promise<SandboxSkills> => {
      const root = await mkdtemp(join(scratch, 'set-'));
      await chmod(root, 0o755);
      await mkdir(join(root, 'notes'), { mode: 0o755 });
      await writeFile(join(root, 'notes', 'SKILL.md'), text, { mode: 0o644 });
      return { names: ['notes'], root };
    };
    const first = await skillSet('first edition');
    const second = await skillSet('second edition');
    const third = await skillSet('third edition');
    const closedRoots: (string | undefined)[] = [];
    const counter = {
      starts: 0,
      start: async (options: InterpreterServerOptions) => {
        counter.starts += 1;
        const server = await startInterpreterServer(options);
        return {
          url: server.url,
          isolation: server.isolation,
          close: async () => {
            closedRoots.push(options.skillsRoot);
            await server.close();
          },
        };
      },
    };
    const sandbox = createInProcessSandbox({ skills: first, start: counter.start });
    /** A turn on `skills`: its interpreter, and its end (what the server's turn runs at cleanup). */
    const turn = (skills: SandboxSkills) => {
      const cleanups: (() => Promise<void>)[] = [];
      const interpreter = sandbox.forTurn({ skills, onClose: (cleanup) => cleanups.push(cleanup) });
      const read = async () =>
        (
          await interpreter.execute({
            code: "print(open('/workspace/managed/skills/notes/SKILL.md').read())",
            skills: ['notes'],
          })
        ).stdout.trim();
      const end = async () => {
        for (const cleanup of cleanups) await cleanup();
      };
      return { interpreter, read, end };
    };
    try {
      const older = turn(first);
      assert.equal(await older.read(), 'first edition');
      // The skills changed: a turn with the new set runs on a service of that set.
      const newer = turn(second);
      assert.equal(await newer.read(), 'second edition');
      assert.equal(counter.starts, 2);
      assert.equal(await older.read(), 'first edition', 'the older turn keeps its own skills');
      await older.end();
      assert.deepEqual(closedRoots, [first.root], "the older set's service closed with its last turn");
      // Changed again: a turn that runs no code starts nothing (a running service answers for the machine).
      const idle = turn(third);
      assert.equal(await idle.interpreter.isAvailable(), true);
      await idle.end();
      assert.equal(counter.starts, 2);
      await newer.end();
      assert.deepEqual(closedRoots, [first.root, second.root]);
      for (const expected of [3, 3]) {
        const later = turn(third);
        assert.equal(await later.read(), 'third edition');
        await later.end();
        assert.equal(counter.starts, expected, "the newest set's service is kept for the next turns");
      }
      assert.deepEqual(closedRoots, [first.root, second.root]);
    } finally {
      await sandbox.close();
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
