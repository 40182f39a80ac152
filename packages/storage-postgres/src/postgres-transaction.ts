import type pg from 'pg';

/**
 * Runs `action` in one transaction on one client of `pool`; rolls back when it throws. For the statements sent on
 * the `pg` pool itself rather than through the builder (a chat's writes and packets).
 */
export async function inPostgresTransaction<Result>(
  pool: pg.Pool,
  action: (client: pg.PoolClient) => Promise<Result>,
): Promise<Result> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await action(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
