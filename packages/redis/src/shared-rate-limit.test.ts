// The per-minute request limit with several replicas: one allowance per user for the deployment, counted in Redis,
// not one per replica. Two API replicas in one process on one Redis and one storage file.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer, type ListeningServer, listen, type ScaleOutBackend } from '@toolbus/server';
import { openStorage, type Storage } from '@toolbus/storage';
import { Redis } from 'ioredis';
import { openTestStorage } from '../../server/src/__fixtures__/test-server.ts';
import { createRedisScaleOut } from './create-redis-scale-out.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

const perMinute = 6;
let redis: TestRedisServer;
let databasePath: string;
const opened: { storage: Storage; backend: ScaleOutBackend; http: ListeningServer }[] = [];

before(async () => {
  redis = await startRedisServer();
  const seeded = await openTestStorage();
  databasePath = seeded.path;
  await seeded.storage.close();
  for (let index = 0; index < 2; index += 1) {
    const storage = await openStorage({
      path: databasePath,
      secretKey: Buffer.alloc(32, 3),
      environment: {},
    });
    const backend = await createRedisScaleOut({ url: redis.url, worker: false });
    const server = await createServer({
      storage,
      auth: 'local',
      defaultModel: 'openai-compatible:http://127.0.0.1:9/v1#unused',
      limits: { requestsPerMinute: perMinute },
      scaleOut: backend,
    });
    opened.push({ storage, backend, http: await listen(server, { port: 0 }) });
  }
});
after(async () => {
  for (const replica of opened.reverse()) {
    await replica.http.close();
    await replica.backend.close();
    await replica.storage.close();
  }
  await redis.stop();
});

test('requests spread over two replicas share one per-minute allowance; past it both answer 429', async () => {
  const [first, second] = opened.map((replica) => replica.http.url);
  assert.ok(first && second);
  const started = Date.now();
  let allowed = 0;
  let refused: Response | undefined;
  // Alternating replicas: each alone would allow `perMinute`, twice as many in all.
  for (let index = 0; index < 4 * perMinute && !refused; index += 1) {
    const response: Response = await fetch(`${index % 2 ? second : first}/v1/chats`);
    if (response.status === 429) refused = response;
    else {
      assert.equal(response.status, 200);
      allowed += 1;
      await response.arrayBuffer();
    }
  }
  const elapsedMs = Date.now() - started;
  assert.ok(refused, 'the allowance ran out');
  // The bucket refills one request every 60 / perMinute seconds: a slow machine may earn one more meanwhile.
  assert.ok(
    allowed >= perMinute && allowed <= perMinute + Math.floor(elapsedMs / (60_000 / perMinute)),
    `${allowed} allowed in ${elapsedMs} ms`,
  );
  const body = (await refused.json()) as { error: { code: string } };
  assert.equal(body.error.code, 'rate_limited');
  const wait = Number(refused.headers.get('retry-after'));
  assert.ok(wait >= 1 && wait <= 60 / perMinute, `retry-after ${wait}`);
  // The other replica refuses too: it counts the same bucket.
  for (const url of [first, second]) {
    const response = await fetch(`${url}/v1/chats`);
    assert.equal(response.status, 429, url);
    await response.arrayBuffer();
  }
});

test('a replica that cannot read the shared allowance refuses the request (503), it does not serve it uncounted', async () => {
  const admin = new Redis(redis.url);
  // A Redis user that may touch every key but the rate buckets: Redis answers NOPERM to the count.
  await admin.call('ACL', 'SETUSER', 'no-rate', 'on', '>no-rate-password', 'resetkeys', '~toolbus:slots:*');
  await admin.call('ACL', 'SETUSER', 'no-rate', '~toolbus:turn:*', '~toolbus:lock:*', '~toolbus:bull:*');
  await admin.call('ACL', 'SETUSER', 'no-rate', 'resetchannels', '&*', '+@all');
  const storage = await openStorage({ path: databasePath, secretKey: Buffer.alloc(32, 3), environment: {} });
  const backend = await createRedisScaleOut({
    url: redis.url.replace('redis://', 'redis://no-rate:no-rate-password@'),
    worker: false,
  });
  try {
    const server = await createServer({
      storage,
      auth: 'local',
      defaultModel: 'openai-compatible:http://127.0.0.1:9/v1#unused',
      scaleOut: backend,
    });
    const http = await listen(server, { port: 0 });
    try {
      const response = await fetch(`${http.url}/v1/chats`);
      assert.equal(response.status, 503);
      assert.equal(response.headers.get('retry-after'), '5');
      const body = (await response.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'unavailable');
      assert.ok(!body.error.message.includes('no-rate-password'));
    } finally {
      await http.close();
    }
  } finally {
    await backend.close();
    await storage.close();
    await admin.call('ACL', 'DELUSER', 'no-rate');
    admin.disconnect();
  }
});
