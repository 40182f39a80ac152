// Per-query profile of one chat turn as the server runs it, on SQLite and PostgreSQL: each storage call of a turn
// (the chat and its history read, the turn started, its packets appended in batches, the turn read back and
// finished, the title written, the chat list read), with the statements it sends, its transactions, and where its
// time goes: waiting for statements (PostgreSQL: round trips), compiling builder queries, and the rest of the
// JavaScript (building, mapping rows). `npm run bench -- turn-queries`; with BENCH_STORAGE_TREE set, the stores of
// that checkout (`npm run bench:pairs -- --before <tree> turn-queries` compares them side by side).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StatementSync } from 'node:sqlite';
import type { Storage } from '@toolbus/storage';
import type pg from 'pg';
import { startTestPostgres } from '../src/testing/start-test-postgres.ts';
import { openPostgresStorage, openStorage, storageTree, turnHistory } from './storage-under-test.ts';

const turns = Number(process.env.BENCH_TURNS ?? 200);
const chatsPerUser = 10;
const appendsPerTurn = 20;

// What the calls of one step cost: counted by wrapping the drivers' own methods (the same in both checkouts).
const counters = { statements: 0, transactions: 0, statementMicros: 0, compileMicros: 0 };
function counted<Method extends (...args: never[]) => unknown>(
  method: Method,
  sqlOf: (self: never) => string,
) {
  return function (this: never, ...args: never[]) {
    const sqlText = sqlOf(this);
    counters.statements += 1;
    if (/^\s*BEGIN/i.test(sqlText)) counters.transactions += 1;
    const started = performance.now();
    const result = method.apply(this, args);
    const done = () => {
      counters.statementMicros += (performance.now() - started) * 1000;
    };
    if (result instanceof Promise) result.then(done, done);
    else done();
    return result;
  } as unknown as Method;
}
for (const name of ['run', 'get', 'all'] as const) {
  const prototype = StatementSync.prototype as unknown as Record<string, (...args: never[]) => unknown>;
  prototype[name] = counted(
    prototype[name] as (...args: never[]) => unknown,
    (self: StatementSync) => self.sourceSQL,
  );
}
const requireInTree = createRequire(join(storageTree, 'packages/storage-postgres/package.json'));
const clientPrototype = (requireInTree('pg') as typeof pg).Client.prototype as unknown as {
  query: (...args: never[]) => unknown;
};
{
  const query = clientPrototype.query;
  // pg's pool passes a callback; the query builder and the stores await the promise.
  clientPrototype.query = function (this: pg.Client, ...args: unknown[]) {
    const sqlText = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text);
    const callback = args.at(-1);
    if (typeof callback !== 'function')
      return counted(query, () => sqlText).apply(this as never, args as never[]);
    counters.statements += 1;
    if (/^\s*BEGIN/i.test(sqlText)) counters.transactions += 1;
    const started = performance.now();
    return query.apply(
      this as never,
      [
        ...args.slice(0, -1),
        (...results: unknown[]) => {
          counters.statementMicros += (performance.now() - started) * 1000;
          return (callback as (...results: unknown[]) => unknown)(...results);
        },
      ] as never[],
    );
  } as never;
}
try {
  // The query builder's compile step, where the stores use it (the checkout before it had none).
  const kysely = (await import(
    createRequire(join(storageTree, 'packages/storage/package.json')).resolve('kysely')
  )) as typeof import('kysely');
  const prototype = kysely.DefaultQueryCompiler.prototype as unknown as {
    compileQuery: (...args: never[]) => unknown;
  };
  const compile = prototype.compileQuery;
  prototype.compileQuery = function (this: never, ...args: never[]) {
    const started = performance.now();
    try {
      return compile.apply(this, args);
    } finally {
      counters.compileMicros += (performance.now() - started) * 1000;
    }
  };
} catch {
  // No query builder in that checkout.
}

const packets = Array.from({ length: 10 }, (_, index) => ({
  ind: 0,
  obj: { type: 'message-delta', content: `word${index} ` },
  placement: { turn: 0, tab: 0 },
}));

type Step = {
  micros: number[];
  cpuMicros: number;
  statements: number;
  transactions: number;
  statementMicros: number[];
  compileMicros: number[];
};
async function profile(storage: Storage): Promise<Map<string, Step>> {
  const steps = new Map<string, Step>();
  const step = async (name: string, action: () => Promise<unknown>, calls = 1) => {
    Object.assign(counters, { statements: 0, transactions: 0, statementMicros: 0, compileMicros: 0 });
    const started = performance.now();
    const cpu = process.cpuUsage();
    await action();
    const micros = ((performance.now() - started) * 1000) / calls;
    const used = process.cpuUsage(cpu);
    const entry = steps.get(name) ?? {
      micros: [],
      cpuMicros: 0,
      statements: 0,
      transactions: 0,
      statementMicros: [],
      compileMicros: [],
    };
    entry.micros.push(micros);
    entry.cpuMicros += (used.user + used.system) / calls;
    entry.statements = counters.statements / calls;
    entry.transactions = counters.transactions / calls;
    entry.statementMicros.push(counters.statementMicros / calls);
    entry.compileMicros.push(counters.compileMicros / calls);
    steps.set(name, entry);
  };
  const user = await storage.users.create({ email: `bench-${randomBytes(6).toString('hex')}@example.com` });
  const chats = await Promise.all(
    Array.from({ length: chatsPerUser }, () => storage.chats.create({ userId: user.id })),
  );
  for (let index = 0; index < turns; index += 1) {
    const chatId = chats[index % chatsPerUser]?.id as string;
    await step('read the chat (`get`)', () => storage.chats.get(chatId));
    await step('history (`listMessages`)', () => storage.chats.listMessages(chatId));
    await step('earlier turns (`listTurns`)', () => storage.chats.listTurns(chatId));
    let turn = 0;
    await step('start the turn (`startTurn`)', async () => {
      turn = (await storage.chats.startTurn({ chatId, input: turnHistory.slice(0, 1) })).index;
    });
    await step(
      'append 10 packets (`appendPacketBatches`), per call',
      async () => {
        for (let append = 0; append < appendsPerTurn; append += 1) {
          await storage.chats.appendPacketBatches([{ chatId, turn, packets }]);
        }
      },
      appendsPerTurn,
    );
    await step('read the turn (`getTurn`)', () => storage.chats.getTurn({ chatId, turn }));
    await step('finish with 4 messages (`finishTurn`)', () =>
      storage.chats.finishTurn({ chatId, turn, status: 'completed', messages: turnHistory }),
    );
    await step('title (`get` + `rename`)', async () => {
      await storage.chats.get(chatId);
      await storage.chats.rename(chatId, `Refunds ${index}`);
    });
    await step('chat list (`listForUser`, 10 chats)', () => storage.chats.listForUser(user.id));
  }
  return steps;
}

const median = (values: readonly number[]) =>
  [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)] as number;

const directory = mkdtempSync(join(tmpdir(), 'toolbus-bench-turn-queries-'));
const cluster = await startTestPostgres({ durable: true });
const secretKey = randomBytes(32).toString('base64');
try {
  const databases = {
    SQLite: await openStorage({ path: join(directory, 'bench.db'), secretKey, environment: {} }),
    PostgreSQL: await openPostgresStorage({
      url: await cluster.createDatabase(),
      secretKey,
      environment: {},
    }),
  };
  for (const [name, storage] of Object.entries(databases)) {
    await profile(storage); // warm-up
    const steps = await profile(storage);
    await storage.close();
    console.log(
      `## One turn's storage calls on ${name}, ${turns} turns (medians; CPU: this process, mean)\n`,
    );
    console.log(
      '| step | µs per call | CPU µs per call (mean) | statements | transactions | µs in statements | µs compiling | µs other JS |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    let total = 0;
    let totalCpu = 0;
    for (const [stepName, step] of steps) {
      const [micros, inStatements, compiling] = [step.micros, step.statementMicros, step.compileMicros].map(
        median,
      );
      const calls = stepName.includes('per call') ? appendsPerTurn : 1;
      total += (micros as number) * calls;
      totalCpu += (step.cpuMicros / turns) * calls;
      console.log(
        `| ${stepName} | ${micros?.toFixed(1)} | ${(step.cpuMicros / turns).toFixed(1)} | ${step.statements} | ${step.transactions} | ${inStatements?.toFixed(1)} | ${compiling?.toFixed(1)} | ${((micros as number) - (inStatements as number) - (compiling as number)).toFixed(1)} |`,
      );
    }
    console.log(
      `\nA whole turn (the steps above, appends × ${appendsPerTurn}): ${(total / 1000).toFixed(2)} ms, ${(totalCpu / 1000).toFixed(2)} ms of CPU.\n`,
    );
  }
} finally {
  await cluster.stop();
  rmSync(directory, { recursive: true, force: true });
}
