// The per-minute request limit with several replicas: one allowance per user for the deployment, counted in Redis,
// not one per replica. Two API replicas in one process on one Redis and one storage file.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { type ServerReplicas, serverReplicas, startApiReplicas } from './__fixtures__/server-replicas.ts';
import { startRedisServer, type TestRedisServer } from './testing/index.ts';

const perMinute = 6;
let redis: TestRedisServer;
let replicas: ServerReplicas;

before(async () => {
  redis = await startRedisServer();
  replicas = await serverReplicas({ redisUrl: redis.url });
  await startApiReplicas(replicas, 2, () => ({
    auth: 'local',
    defaultModel: 'openai-compatible:http://127.0.0.1:9/v1#unused',
    limits: { requestsPerMinute: perMinute },
  }));
});
after(async () => {
  await replicas.close();
  await redis.stop();
});

test('requests spread over two replicas share one per-minute allowance; past it both answer 429', async () => {
  const [first, second] = replicas.running.map((replica) => replica.http.url);
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
  const replica = await replicas.start({
    scaleOut: { url: redis.url.replace('redis://', 'redis://no-rate:no-rate-password@'), worker: false },
    server: () => ({ auth: 'local', defaultModel: 'openai-compatible:http://127.0.0.1:9/v1#unused' }),
  });
  try {
    const response = await fetch(`${replica.http.url}/v1/chats`);
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('retry-after'), '5');
    const body = (await response.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'unavailable');
    assert.ok(!body.error.message.includes('no-rate-password'));
  } finally {
    await replicas.stop(replica);
    await admin.call('ACL', 'DELUSER', 'no-rate');
    admin.disconnect();
  }
});
