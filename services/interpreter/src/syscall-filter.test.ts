import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compileSyscallFilter } from './syscall-filter.ts';

describe('compileSyscallFilter', () => {
  it("compiles a BPF program with Debian's python3-seccomp", async () => {
    const directory = await mkdtemp(join(tmpdir(), 'syscall-filter-'));
    try {
      const target = join(directory, 'filter.bpf');
      const state = await compileSyscallFilter({ pythonPath: '/usr/bin/python3', target });
      assert.deepEqual(state, { state: 'active', path: target });
      const program = await readFile(target);
      assert.ok(program.length > 0 && program.length % 8 === 0);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('reports why when it cannot compile, instead of throwing', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'syscall-filter-'));
    try {
      const state = await compileSyscallFilter({
        pythonPath: '/usr/bin/false',
        target: join(directory, 'filter.bpf'),
      });
      assert.equal(state.state, 'off');
      assert.match(state.state === 'off' ? state.reason : '', /^no seccomp filter: compiling it failed/);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
