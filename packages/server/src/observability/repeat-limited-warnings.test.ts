import assert from 'node:assert/strict';
import { test } from 'node:test';
import { repeatLimitedWarnings } from './repeat-limited-warnings.ts';

test('a warning repeated within the window is logged once; after it, or with other fields, again', () => {
  const logged: string[] = [];
  let clock = 0;
  const warnings = repeatLimitedWarnings(
    { warn: (message, fields) => logged.push(`${message} ${JSON.stringify(fields)}`) },
    { windowMs: 1000, now: () => clock },
  );
  warnings.warn('server down', { rowId: 'a' });
  clock = 500;
  warnings.warn('server down', { rowId: 'a' });
  warnings.warn('server down', { rowId: 'b' });
  clock = 1600;
  warnings.warn('server down', { rowId: 'a' });
  assert.deepEqual(logged, [
    'server down {"rowId":"a"}',
    'server down {"rowId":"b"}',
    'server down {"rowId":"a"}',
  ]);
});

test('it remembers a bounded number of warnings, forgetting the stalest first', () => {
  const logged: string[] = [];
  const warnings = repeatLimitedWarnings({ warn: (message) => logged.push(message) }, { now: () => 0 });
  for (let index = 0; index <= 1000; index += 1) warnings.warn(`warning ${index}`);
  warnings.warn('warning 1000');
  warnings.warn('warning 0');
  assert.equal(
    logged.length,
    1002,
    'the newest is still remembered; the stalest was forgotten and logged again',
  );
  assert.equal(logged.at(-1), 'warning 0');
});
