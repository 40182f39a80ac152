import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RepositoryError } from './coding-agent-error.ts';
import { pipeTo } from './pack-local-repository.ts';

describe('pipeTo (the packer behind packLocalRepository)', () => {
  let directory: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'toolbus-pack-'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it('a program that exits without reading its input fails with its status, never an EPIPE crash', async () => {
    // 8 MiB cannot fit in a pipe: the write is still going when the program is gone, so it fails with EPIPE.
    const input = Buffer.alloc(8 * 1024 * 1024, 0x61);
    await assert.rejects(
      pipeTo({
        command: 'sh',
        args: ['-c', 'echo "no input wanted" >&2; exit 3'],
        cwd: directory,
        stdin: input,
        destination: join(directory, 'out'),
        maxBytes: 1024,
        label: directory,
      }),
      (error: unknown) =>
        error instanceof RepositoryError &&
        error.code === 'repository_unpack_failed' &&
        /no input wanted/.test(error.message),
    );
  });

  it('a program that reads no input at all (git bundle) gets an empty one and succeeds', async () => {
    const bytes = await pipeTo({
      command: 'sh',
      args: ['-c', 'printf packed'],
      cwd: directory,
      destination: join(directory, 'out'),
      maxBytes: 1024,
      label: directory,
    });
    assert.equal(bytes, 'packed'.length);
  });
});
