import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sanitizeStagedFilename, uniqueStagedFilename } from './staged-filename.ts';
import { truncateOutput } from './truncate-output.ts';

describe('staged file names', () => {
  it('replaces unsafe characters, trims dots and keeps the extension when shortening', () => {
    assert.equal(sanitizeStagedFilename('a/b\\c:d*e?f"g<h>i|j\u0001.csv'), 'a_b_c_d_e_f_g_h_i_j_.csv');
    assert.equal(sanitizeStagedFilename('...hidden.'), 'hidden');
    assert.equal(sanitizeStagedFilename('..'), 'file');
    const long = sanitizeStagedFilename(`${'x'.repeat(300)}.parquet`);
    assert.equal(long.length, 200);
    assert.ok(long.endsWith('.parquet'));
  });

  it('numbers colliding names before the extension', () => {
    const taken = new Set<string>();
    assert.deepEqual(
      ['a.csv', 'a.csv', 'a.csv', 'b'].map((name) => uniqueStagedFilename(name, taken)),
      ['a.csv', 'a_1.csv', 'a_2.csv', 'b'],
    );
  });

  it('truncates output with a footer only when over the cap', () => {
    assert.equal(truncateOutput('abc', 3), 'abc');
    assert.equal(truncateOutput('abcdef', 3), 'abc\n... [output truncated, 3 characters omitted]');
  });
});
