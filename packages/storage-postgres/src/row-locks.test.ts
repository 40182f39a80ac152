// Writes that read before they write lock the rows they read on PostgreSQL (StoreContext.locked): replicas writing
// at once must each see what the previous one wrote. Without the lock, two appends read one last position, and two
// capped adds each keep room for one more memory.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { openPostgresStorage } from './open-postgres-storage.ts';
import { startTestPostgres, type TestPostgres } from './testing/start-test-postgres.ts';

const secretKey = randomBytes(32).toString('base64');
let cluster: TestPostgres;
let replicas: Storage[];
before(async () => {
  cluster = await startTestPostgres();
  const url = await cluster.createDatabase();
  const open = () => openPostgresStorage({ url, secretKey, environment: {} });
  replicas = [await open(), await open(), await open()];
});
after(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
  await cluster.stop();
});

// Each replica starts several writes, so every pool has more than one transaction in flight.
const atOnce = <Result>(count: number, write: (replica: Storage, index: number) => Promise<Result>) =>
  Promise.all(Array.from({ length: count }, (_, index) => write(replicas[index % replicas.length]!, index)));

describe('several replicas writing at once', () => {
  test("tool rows appended to one persona take the persona's next positions, each once", async () => {
    const persona = await replicas[0]!.personas.create({ name: 'Crowded' });
    await atOnce(12, (replica, index) =>
      replica.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: `tool-${index}` }),
    );
    const rows = await replicas[0]!.personas.listToolRows(persona.id);
    assert.deepEqual(
      rows.map((row) => row.position),
      Array.from({ length: 12 }, (_, position) => position),
    );
  });

  test("memories added with a cap keep the user's count at the cap", async () => {
    const user = await replicas[0]!.users.create({ email: 'capped@example.com' });
    await atOnce(12, (replica, index) =>
      replica.memories.add({ userId: user.id, text: `memory ${index}`, maxPerUser: 3 }),
    );
    assert.equal((await replicas[0]!.memories.list(user.id)).length, 3);
  });
});
