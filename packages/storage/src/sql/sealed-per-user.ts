import type { Kysely } from 'kysely';
import { changed, type StoreContext, withConstraintErrors } from './store-context.ts';

/** The tables holding one sealed JSON value per owner (an MCP server, a connected app) and user. */
type SealedTable = 'mcp_oauth_states' | 'mcp_user_credentials' | 'connected_app_user_values';
const columnsOf = {
  mcp_oauth_states: { owner: 'server_id', secret: 'state_secret' },
  mcp_user_credentials: { owner: 'server_id', secret: 'values_secret' },
  connected_app_user_values: { owner: 'app_id', secret: 'values_secret' },
} as const;

/** One user's sealed value of one owner: stored replacing, read back opened, forgotten. */
export interface SealedPerUser<Value> {
  get(owner: string | number, userId: string): Promise<Value | undefined>;
  set(owner: string | number, userId: string, value: Value): Promise<void>;
  delete(owner: string | number, userId: string): Promise<boolean>;
}

/**
 * The one way each of these tables is read and written. A value is sealed with its table, column, owner and user
 * as context, so a value copied into another row does not open.
 */
export function sealedPerUser<Value>(
  context: StoreContext,
  table: SealedTable,
  what: string,
): SealedPerUser<Value> {
  const { owner, secret } = columnsOf[table];
  // The three tables have one shape under different column names: typed here as rows of named columns.
  const db = context.db as unknown as Kysely<Record<SealedTable, Record<string, string | number>>>;
  const sealContext = (id: string | number, userId: string) => `${table}.${secret}:${id}:${userId}`;
  const row = (id: string | number, userId: string) => ({ [owner]: id, user_id: userId });
  return {
    async get(id, userId) {
      const found = await db
        .selectFrom(table)
        .select(secret)
        .where((eb) => eb.and(row(id, userId)))
        .executeTakeFirst();
      return (
        found && (JSON.parse(context.secrets.open(String(found[secret]), sealContext(id, userId))) as Value)
      );
    },
    async set(id, userId, value) {
      const values = {
        [secret]: context.secrets.seal(JSON.stringify(value), sealContext(id, userId)),
        updated_at: context.now(),
      };
      await withConstraintErrors(what, () =>
        db
          .insertInto(table)
          .values({ ...row(id, userId), ...values })
          .onConflict((conflict) => conflict.columns([owner, 'user_id']).doUpdateSet(values))
          .execute(),
      );
    },
    async delete(id, userId) {
      return (
        changed(
          await db
            .deleteFrom(table)
            .where((eb) => eb.and(row(id, userId)))
            .executeTakeFirst(),
        ) > 0
      );
    },
  };
}
