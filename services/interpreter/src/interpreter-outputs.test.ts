import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ErrorResponse } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { execute } from './__fixtures__/interpreter-http.ts';
import { useInterpreterServer } from './__fixtures__/use-interpreter-server.ts';

const mib = 1024 * 1024;

async function uploadAs(
  baseUrl: string,
  bytes: number,
  user?: string,
): Promise<{ status: number; json: ErrorResponse }> {
  const response = await fetch(`${baseUrl}/v1/files?filename=data.bin`, {
    method: 'POST',
    headers: {
      'content-type': 'application/octet-stream',
      ...omitUndefined({ 'x-toolbus-user': user }),
    },
    body: new Uint8Array(bytes),
  });
  // Only refusals are read; a 201 body is an upload answer instead.
  return { status: response.status, json: (await response.json()) as ErrorResponse };
}

describe('interpreter: output files, measured by what is copied', () => {
  const server = useInterpreterServer({
    limits: { maxCollectedBytes: 16 * mib, maxListedEntries: 2_000 },
  });

  it('counts sparse files at the size they are copied, and says which were left out', async () => {
    const result = await execute(server.url, {
      code: [
        'for name in ("a.bin", "b.bin", "c.bin"):',
        '    with open(name, "wb") as handle:',
        '        handle.truncate(10 * 1024 * 1024)',
        'print("made")',
      ].join('\n'),
    });
    assert.equal(result.stdout, 'made\n');
    assert.deepEqual(
      result.files.map((file) => [file.path, file.size]),
      [['a.bin', 10 * mib]],
    );
    assert.match(
      result.stderr,
      /"b\.bin" \(10485760 bytes\) was not returned: a run returns at most 16777216 bytes/,
    );
    assert.match(result.stderr, /"c\.bin"/);
  });

  it('returns stdout and the other files when a file name is not valid UTF-8', async () => {
    const result = await execute(server.url, {
      code: [
        'import os',
        "os.close(os.open(b'bad\\xff.txt', os.O_CREAT | os.O_WRONLY))",
        "open('good.txt', 'w').write('ok')",
        "print('still here')",
      ].join('\n'),
    });
    assert.equal(result.stdout, 'still here\n');
    assert.deepEqual(
      result.files.map((file) => file.path),
      ['good.txt'],
    );
    assert.match(result.stderr, /1 entries whose names are not valid UTF-8 were skipped/);
  });

  it('stops listing a tree of many folders at its entry bound, and says so', async () => {
    const result = await execute(server.url, {
      code: [
        'import os',
        'for index in range(5000):',
        "    os.mkdir(f'd{index:05}')",
        "open('zz.txt', 'w').write('late')",
        "print('done')",
      ].join('\n'),
    });
    assert.equal(result.stdout, 'done\n');
    assert.deepEqual(result.files, []);
    assert.match(result.stderr, /more than 2000 entries/);
  });
});

describe('interpreter: the listing is bounded in time', () => {
  const server = useInterpreterServer({ limits: { maxListingMs: 1 } });

  it('gives up on a deep, wide tree once its time is spent', async () => {
    const result = await execute(server.url, {
      code: [
        'import os',
        'for index in range(200):',
        "    os.makedirs(f'top{index:03}/' + '/'.join(['deep'] * 30))",
        "print('done')",
      ].join('\n'),
    });
    assert.equal(result.stdout, 'done\n');
    assert.match(result.stderr, /listing the workspace took too long/);
  });
});

describe('interpreter: the file store is bounded in total and per user', () => {
  const server = useInterpreterServer({
    limits: { fileStoreBytes: 2.5 * mib, fileStoreBytesPerUser: 1 * mib },
  });

  it('refuses an upload past a user share with 507, and other users still store', async () => {
    assert.equal((await uploadAs(server.url, 600 * 1024, 'alice')).status, 201);
    const refused = await uploadAs(server.url, 600 * 1024, 'alice');
    assert.equal(refused.status, 507);
    assert.equal(refused.json.error.code, 'file_store_full');
    assert.match(refused.json.error.message, /per user/);
    assert.equal((await uploadAs(server.url, 600 * 1024, 'bob')).status, 201);
  });

  it('refuses past the total, and a run still answers with a note for the output it could not store', async () => {
    assert.equal((await uploadAs(server.url, 900 * 1024)).status, 201);
    const refused = await uploadAs(server.url, 900 * 1024);
    assert.equal(refused.status, 507);
    assert.match(refused.json.error.message, /is full/);
    const result = await execute(server.url, {
      code: "open('out.bin', 'wb').write(b'x' * 900 * 1024)\nprint('wrote')",
    });
    assert.equal(result.stdout, 'wrote\n');
    assert.deepEqual(result.files, []);
    assert.match(result.stderr, /"out\.bin" was not returned: the file store holds at most 2621440 bytes/);
  });
});
