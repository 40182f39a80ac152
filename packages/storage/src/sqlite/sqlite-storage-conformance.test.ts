// The storage conformance suite (the same one the PostgreSQL backend runs) against the embedded SQLite store.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { openStorage } from '../open-storage.ts';
import { describeStorageConformance } from '../testing/describe-storage-conformance.ts';

const root = mkdtempSync(join(tmpdir(), 'toolbus-sqlite-conformance-'));
after(() => rmSync(root, { recursive: true, force: true }));
let databases = 0;

describeStorageConformance({
  name: 'SQLite',
  openStorage: () => openStorage({ path: ':memory:', environment: {} }),
  async createDatabase() {
    databases += 1;
    const path = join(root, `database-${databases}.db`);
    const key = randomBytes(32).toString('base64');
    return {
      open: (options = {}) => openStorage({ path, secretKey: options.secretKey ?? key, environment: {} }),
      async rawText() {
        // The database file and its write-ahead log: what a copy of the data directory holds.
        return (
          readFileSync(path).toString('latin1') +
          readFileSync(`${path}-wal`, { flag: 'a+' }).toString('latin1')
        );
      },
    };
  },
});
