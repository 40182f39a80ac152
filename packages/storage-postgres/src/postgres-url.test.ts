import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inspect } from 'node:util';
import { describePostgresUrl } from './postgres-url.ts';

// The one reader of a PostgreSQL URL (the pool's errors, the CLI's config): where it points and whether it holds a
// password, never the password itself, and a refusal that never repeats the URL.
describe('describePostgresUrl', () => {
  test('reads host, port and database, with the defaults, and whether a password is there', () => {
    assert.deepEqual(describePostgresUrl('postgresql://ana:s3cret@db.internal:6543/toolbus'), {
      host: 'db.internal',
      port: 6543,
      database: 'toolbus',
      hasPassword: true,
    });
    assert.deepEqual(describePostgresUrl('postgres:///'), {
      host: 'localhost',
      port: 5432,
      database: '(default)',
      hasPassword: false,
    });
  });

  test('refuses what is not a PostgreSQL URL, or a broken escape in its database name, never repeating it', () => {
    for (const url of [
      'mysql://ana:s3cret@db/toolbus',
      'not a url s3cret',
      'postgres://ana:s3cret@db/tool%zzbus',
    ]) {
      assert.throws(
        () => describePostgresUrl(url),
        // Not in the message, nor anywhere in the error as a log prints it (its cause included).
        (error: Error) => !inspect(error).includes('s3cret') && /PostgreSQL URL/.test(error.message),
      );
    }
  });
});
