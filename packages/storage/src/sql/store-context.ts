import { randomUUID } from 'node:crypto';
import {
  type Compilable,
  type CompiledQuery,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  sql,
} from 'kysely';
import type { SqlStorageOptions } from '../open-sql-storage.ts';
import { StorageError } from '../storage-error.ts';
import type { StorageSchema } from './storage-schema.ts';

/** The databases storage runs on. */
export type StorageDialect = 'sqlite' | 'postgres';

/** The builder over storage's tables, or one transaction of it. */
export type StorageDb = Kysely<StorageSchema>;

/** What every store shares: the builder, the secret box, the clock, and where the databases' SQL differs. */
export type StoreContext = ReturnType<typeof createStoreContext>;

export function createStoreContext({ db, dialect, secrets }: SqlStorageOptions) {
  const insertionOrder = sql.ref(dialect === 'sqlite' ? 'rowid' : 'ordinal');
  return {
    db,
    dialect,
    secrets,
    now: () => new Date().toISOString(),
    newId: () => randomUUID(),
    /** Oldest rows first: `created_at`, then insertion order within a millisecond (rowid; PostgreSQL's `ordinal`). */
    oldestFirst: sql`created_at, ${insertionOrder}`,
    /** Newest rows first: the reverse of `oldestFirst`. */
    newestFirst: sql`created_at DESC, ${insertionOrder} DESC`,
    byteOrder: (column: string) => byteOrder(dialect, column),
    /** The query locking its rows until the transaction ends on PostgreSQL (SQLite's transactions hold it all). */
    // biome-ignore lint/suspicious/noExplicitAny: any query over the schema.
    locked: <Query extends SelectQueryBuilder<StorageSchema, any, any>>(query: Query): Query =>
      dialect === 'postgres' ? (query.forUpdate() as Query) : query,
    /** Runs `action` in one transaction; rolls back when it throws. */
    transaction: <Result>(action: (trx: StorageDb) => Promise<Result>) => db.transaction().execute(action),
  } as const;
}

/** A text column in byte order (SQLite's default collation; PostgreSQL's "C"), the same on both databases. */
export function byteOrder(dialect: StorageDialect, column: string) {
  return dialect === 'sqlite' ? sql<string>`${sql.ref(column)}` : sql<string>`${sql.ref(column)} COLLATE "C"`;
}

/**
 * A query of the builder compiled once per database, then run with each call's values (on `db` or a transaction):
 * more than half of the builder's cost on `node:sqlite` (docs/postgres-storage.md). `build` must pass its values to
 * the query unchanged: it is called once per database, with placeholders in their place.
 */
export function compiledOnce<Values extends readonly unknown[], Row>(
  build: (db: StorageDb, ...values: Values) => Compilable<Row>,
): (db: StorageDb, ...values: Values) => Promise<Row[]> {
  type Compiled = { readonly query: CompiledQuery<Row>; readonly slots: ((values: Values) => unknown)[] };
  // By the builder's adapter: one per opened database (shared by its transactions).
  const compiled = new WeakMap<object, Compiled>();
  const placeholder = (index: number) => `\u0000value ${index}\u0000`;
  return async (db, ...values) => {
    const adapter = db.getExecutor().adapter;
    let found = compiled.get(adapter);
    if (found === undefined) {
      const query = build(
        db,
        ...(values.map((_, index) => placeholder(index)) as unknown as Values),
      ).compile();
      // Each parameter is one of the call's values, or a constant of the query itself.
      const slots = query.parameters.map((parameter) => {
        const index = values.findIndex((_, at) => placeholder(at) === parameter);
        return index >= 0 ? (given: Values) => given[index] : () => parameter;
      });
      found = { query, slots };
      compiled.set(adapter, found);
    }
    const parameters = found.slots.map((slot) => slot(values));
    return (await db.executeQuery<Row>({ ...found.query, parameters })).rows;
  };
}

// SQLite extended result codes (https://www.sqlite.org/rescode.html) and PostgreSQL SQLSTATEs
// (https://www.postgresql.org/docs/current/errcodes-appendix.html): a unique key taken, or a schema rule broken.
const [keyTaken, ruleBroken] = [
  {
    reasons: new Set<unknown>([2067, 1555, '23505']),
    code: 'conflict',
    says: 'a row with the same key exists',
  },
  {
    reasons: new Set<unknown>([275, 787, 1299, '23502', '23503', '23514', '22P02', '22001', '22003']),
    code: 'invalid_input',
    says: 'the values break a schema rule',
  },
] as const;
const reason = (error: unknown) =>
  (error as { errcode?: number }).errcode ?? (error as { code?: unknown }).code;

/** Whether the database refused a write because a row with the same unique key exists. */
export const isKeyTaken = (error: unknown) => keyTaken.reasons.has(reason(error));

/** The store with every method's constraint violations typed `conflict` / `invalid_input`, naming the method. */
export function withStoreConstraintErrors<Store extends object>(name: string, store: Store): Store {
  const methods = Object.entries(store as Record<string, (...args: unknown[]) => Promise<unknown>>);
  return Object.fromEntries(
    methods.map(([method, run]) => [
      method,
      async (...args: unknown[]) => {
        try {
          return await run(...args);
        } catch (error) {
          const refusal = [keyTaken, ruleBroken].find(({ reasons }) => reasons.has(reason(error)));
          if (refusal === undefined) throw error;
          const { code, says } = refusal;
          throw new StorageError({ code, message: `${name}.${method}: ${says}.`, cause: error });
        }
      },
    ]),
  ) as Store;
}

/** The `not_found` error for a missing row. */
export function notFound(what: string, id: string): StorageError {
  return new StorageError({ code: 'not_found', message: `${what} ${JSON.stringify(id)} does not exist.` });
}

/** Deletes the rows of `table` whose columns hold `key`'s values; whether any went. */
export async function deleteRows<Table extends keyof StorageSchema>(
  db: StorageDb,
  table: Table,
  key: Partial<Selectable<StorageSchema[Table]>>,
): Promise<boolean> {
  // An empty key would match every row (`where 1 = 1`): refused, never a whole table deleted.
  if (Object.keys(key).length === 0) {
    throw new StorageError({
      code: 'invalid_input',
      message: `Deleting from ${table}: the key names no column.`,
    });
  }
  const result = await anyTable(db)
    .deleteFrom(table as string)
    .where((eb) => eb.and(key))
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Inserts the row of `key` and `changes`, or sets `changes` on the row of that key when it exists. */
export async function upsert<Table extends keyof StorageSchema>(
  db: StorageDb,
  table: Table,
  key: Partial<Selectable<StorageSchema[Table]>>,
  changes: Partial<Selectable<StorageSchema[Table]>>,
): Promise<void> {
  await anyTable(db)
    .insertInto(table as string)
    .values({ ...key, ...changes })
    .onConflict((conflict) => conflict.columns(Object.keys(key)).doUpdateSet(changes))
    .execute();
}

// The builder cannot follow a generic table: the helpers' signatures check the columns instead.
const anyTable = (db: StorageDb) => db as unknown as Kysely<Record<string, Record<string, unknown>>>;
