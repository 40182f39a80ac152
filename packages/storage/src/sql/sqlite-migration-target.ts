import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { MigrationTarget } from './migrate.ts';
import type { StorageSchema } from './storage-schema.ts';
import { isBusy, whenNotBusy } from './when-not-busy.ts';

/** Statements kept prepared per connection: the stores' queries a few hundred texts, the packet streams' up to 200. */
const cachedStatements = 1000;

/**
 * The builder over a `node:sqlite` connection, on a dialect of our own (why not Kysely's or kysely-generic-sqlite:
 * docs/postgres-storage.md): one connection that each query or transaction holds in turn, so a transaction's awaits
 * let no other caller's statement in. Transactions begin IMMEDIATE, so two connections on one file wait
 * (whenNotBusy) rather than deadlock.
 */
export function sqliteMigrationTarget(
  database: DatabaseSync,
): MigrationTarget & Pick<NodeSqliteConnection, 'exclusive' | 'prepare'> {
  const connection = new NodeSqliteConnection(database);
  const dialect: Dialect = {
    createDriver: () => connection,
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createAdapter: () => new SqliteAdapter(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  };
  return {
    db: new Kysely<StorageSchema>({ dialect }),
    dialect: 'sqlite',
    exclusive: (action) => connection.exclusive(action),
    prepare: (sql) => connection.prepare(sql),
    // node:sqlite prepares one statement at a time; a script runs through exec, in the transaction holding it.
    runScript: async (_transaction, script) => {
      database.exec(script);
    },
  };
}

/** The dialect's one connection, and its driver: who holds it, its prepared statements. */
class NodeSqliteConnection implements Driver, DatabaseConnection {
  readonly #database: DatabaseSync;
  /** Whether a query, a transaction or exclusive work holds the connection; who waits for it next. */
  #held = false;
  readonly #waiting: (() => void)[] = [];
  readonly #statements = new Map<string, { statement: StatementSync; reader: boolean }>();

  constructor(database: DatabaseSync) {
    this.#database = database;
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#held) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#held = true;
    return this;
  }
  async releaseConnection(): Promise<void> {
    this.#handOver();
  }
  // The next waiter takes the connection as it is released (no one else slips in between).
  #handOver(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#held = false;
    else next();
  }
  /** Runs work on the raw connection, held until it settles; its synchronous start waits out another's write lock. */
  exclusive<Result>(action: () => Result | Promise<Result>): Promise<Result> {
    // A free connection starts the work at once, without a wait: appending packets is the hottest write.
    if (this.#held) return this.#exclusiveWhenFree(action);
    this.#held = true;
    let result: Result | Promise<Result>;
    try {
      result = action();
    } catch (error) {
      this.#handOver();
      return isBusy(error) ? this.#exclusiveWhenFree(action) : Promise.reject(error);
    }
    // Synchronous work (appending packets) hands the connection over at once, without a promise in between.
    if (result instanceof Promise) return result.finally(() => this.#handOver());
    this.#handOver();
    return Promise.resolve(result);
  }
  async #exclusiveWhenFree<Result>(action: () => Result | Promise<Result>): Promise<Result> {
    await this.acquireConnection();
    try {
      return await whenNotBusy(action);
    } finally {
      this.#handOver();
    }
  }
  async beginTransaction(): Promise<void> {
    await this.executeQuery(CompiledQuery.raw('BEGIN IMMEDIATE'));
  }
  async commitTransaction(): Promise<void> {
    await this.executeQuery(CompiledQuery.raw('COMMIT'));
  }
  async rollbackTransaction(): Promise<void> {
    await this.executeQuery(CompiledQuery.raw('ROLLBACK'));
  }
  async destroy(): Promise<void> {
    if (this.#database.isOpen) this.#database.close();
  }
  async executeQuery<Row>(query: CompiledQuery): Promise<QueryResult<Row>> {
    // Outside a transaction a write may find another connection's lock (then it waits); inside, the lock is held.
    // Run at once first: a promise and a closure per query are the cost this dialect adds to the statement.
    try {
      return this.#run(query);
    } catch (error) {
      if (this.#database.isTransaction || !isBusy(error)) throw error;
      return whenNotBusy(() => this.#run<Row>(query));
    }
  }
  #run<Row>(query: CompiledQuery): QueryResult<Row> {
    const { statement, reader } = this.#prepared(query.sql);
    // node:sqlite binds no booleans: SQLite keeps them as 0 and 1.
    const parameters = query.parameters.some((value) => typeof value === 'boolean')
      ? query.parameters.map((value) => (typeof value === 'boolean' ? Number(value) : value))
      : query.parameters;
    // node:sqlite's rows have no prototype: made plain objects, as PostgreSQL's are, before callers get them.
    if (reader) {
      return { rows: statement.all(...(parameters as SQLInputValue[])).map((row) => ({ ...row }) as Row) };
    }
    const { changes, lastInsertRowid } = statement.run(...(parameters as SQLInputValue[]));
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }
  // biome-ignore lint/correctness/useYield: the stores never stream.
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('Streaming is not supported by the node:sqlite dialect.');
  }
  /** The statement of `sql`, prepared once for the builder and the packet streams alike (`$1` read as `?1`). */
  prepare(sql: string): StatementSync {
    return this.#prepared(sql).statement;
  }
  #prepared(sql: string): { statement: StatementSync; reader: boolean } {
    let entry = this.#statements.get(sql);
    if (entry === undefined) {
      const statement = this.#database.prepare(sql.replaceAll(/\$(\d+)/g, '?$1'));
      entry = { statement, reader: statement.columns().length > 0 };
      if (this.#statements.size >= cachedStatements) this.#statements.clear();
      this.#statements.set(sql, entry);
    }
    return entry;
  }
}
