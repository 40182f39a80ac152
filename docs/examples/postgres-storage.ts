import { openPostgresDocumentIndex, openPostgresStorage } from '@toolbus/storage-postgres';

// DATABASE_URL is postgres://user:password@host:5432/toolbus. Secrets are sealed with TOOLBUS_SECRET_KEY (base64
// of 32 bytes, the same on every replica; or pass secretKey). Opening migrates the schema, once for all replicas.
const url = process.env.DATABASE_URL;
if (!url) throw new Error('Set DATABASE_URL to a PostgreSQL database.');
const storage = await openPostgresStorage({ url });
const index = await openPostgresDocumentIndex({ url }); // the same database; its tables are its own
try {
  const user = await storage.users.create({ email: 'ana@example.com', name: 'Ana' });
  console.log(`schema ${await storage.schemaVersion()}; user ${(await storage.users.get(user.id))?.name}`);
  await index.upsert({
    sourceId: 'reports/2026-w49.md',
    title: 'Weekly sales, week 49',
    text: 'Chairs sold best this week; tables were flat.',
  });
  for (const hit of await index.search('chair sales')) console.log(`${hit.title}: ${hit.content}`);
} finally {
  await index.close();
  await storage.close();
}
