import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { execute, getJson, postJson } from './__fixtures__/interpreter-http.ts';
import { useInterpreterServer } from './__fixtures__/use-interpreter-server.ts';

const mib = 1024 * 1024;

describe('interpreter: the syscall filter, against the real sandbox', () => {
  const server = useInterpreterServer();

  it('reports the filter on /health', async () => {
    const health = await getJson(`${server.url}/health`);
    assert.equal(health.status, 'ok', health.reason);
    assert.equal(health.isolation.syscallFilter, true);
  });

  it('refuses socket families other than AF_UNIX, AF_INET and AF_INET6', async () => {
    const result = await execute(server.url, {
      code: [
        'import socket',
        "for name, family, kind in (('vsock', 40, socket.SOCK_STREAM), ('netlink', 16, socket.SOCK_RAW),",
        "                           ('packet', 17, socket.SOCK_RAW), ('unix', 1, socket.SOCK_STREAM),",
        "                           ('inet', 2, socket.SOCK_STREAM), ('inet6', 10, socket.SOCK_STREAM)):",
        '    try:',
        '        socket.socket(family, kind).close()',
        "        print(name, 'ok')",
        '    except OSError as error:',
        '        print(name, error.errno)',
        'try:',
        '    socket.socketpair(16, socket.SOCK_RAW)',
        'except OSError as error:',
        "    print('socketpair netlink', error.errno)",
      ].join('\n'),
    });
    assert.equal(
      result.stdout,
      'vsock 97\nnetlink 97\npacket 97\nunix ok\ninet ok\ninet6 ok\nsocketpair netlink 97\n',
      result.stderr,
    );
  });

  it('refuses io_uring, bpf, perf_event_open, userfaultfd, keyctl and new user namespaces with EPERM', async () => {
    const result = await execute(server.url, {
      code: [
        'import ctypes, os',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'def errno_of(result):',
        '    return ctypes.get_errno() if result == -1 else "succeeded"',
        'buffer = ctypes.create_string_buffer(256)',
        // x86_64 numbers: io_uring_setup 425, bpf 321, perf_event_open 298, userfaultfd 323, keyctl 250.
        "print('io_uring_setup', errno_of(libc.syscall(425, 8, buffer)))",
        "print('bpf', errno_of(libc.syscall(321, 0, buffer, 64)))",
        "print('perf_event_open', errno_of(libc.syscall(298, buffer, 0, -1, -1, 0)))",
        "print('userfaultfd', errno_of(libc.syscall(323, 0)))",
        "print('keyctl', errno_of(libc.syscall(250, 0, -3, 0)))",
        "print('unshare user', errno_of(libc.unshare(0x10000000)))",
        "print('unshare mount', errno_of(libc.unshare(0x00020000)))",
        "print('ptrace', errno_of(libc.ptrace(0, 0, None, None)))",
      ].join('\n'),
    });
    assert.equal(
      result.stdout,
      [
        'io_uring_setup 1',
        'bpf 1',
        'perf_event_open 1',
        'userfaultfd 1',
        'keyctl 1',
        'unshare user 1',
        'unshare mount 1',
        'ptrace 1',
        '',
      ].join('\n'),
      result.stderr,
    );
  });

  it('still runs ordinary Python: threads, subprocesses, multiprocessing, numpy and pandas', async () => {
    const result = await execute(server.url, {
      code: [
        'import multiprocessing, subprocess, threading',
        'import numpy, pandas',
        'threads = [threading.Thread(target=lambda: None) for _ in range(4)]',
        'for thread in threads: thread.start()',
        'for thread in threads: thread.join()',
        "print(subprocess.run(['/usr/bin/echo', 'child'], capture_output=True, text=True).stdout.strip())",
        "with multiprocessing.get_context('fork').Pool(2) as pool: print(sum(pool.map(abs, [-1, -2, 3])))",
        "frame = pandas.DataFrame({'a': numpy.arange(4)})",
        "print(int(frame['a'].sum()))",
      ].join('\n'),
    });
    assert.equal(result.stdout, 'child\n6\n6\n', result.stderr);
    assert.equal(result.exit_code, 0);
  });

  it('hides host paths of the service from /proc/self/mountinfo', async () => {
    const result = await execute(server.url, {
      code: "print(open('/proc/self/mountinfo').read())\nprint(open('/proc/self/cgroup').read())",
    });
    const workRoot = /toolbus-interpreter-[A-Za-z0-9]+/;
    assert.doesNotMatch(result.stdout, workRoot);
    // The run sees its own cgroup as the root of its cgroup namespace, not the service's group path.
    assert.doesNotMatch(result.stdout, /toolbus-interpreter-|run-[0-9a-f]{8}-/);
  });
});

describe('interpreter: memory per run, with cgroups', () => {
  const server = useInterpreterServer({
    limits: { runMemoryBytes: 200 * mib, workspaceBytes: 512 * mib },
  });

  it('reports which limits are in force on /health', async () => {
    const health = await getJson(`${server.url}/health`);
    assert.equal(health.status, 'ok', health.reason);
    assert.match(health.isolation.cgroups, /^v[12]$/);
    assert.equal(health.isolation.limits.run_memory_bytes, 200 * mib);
    // Exactly what enforces each limit on this machine, read from the hierarchy the service set up.
    const version = health.isolation.cgroups;
    const enforcement = health.isolation.enforcement;
    const memoryFile = version === 'v2' ? 'memory.max' : 'memory.limit_in_bytes';
    assert.equal(enforcement.run_memory_bytes, `cgroup ${version} ${memoryFile} per run`);
    assert.equal(enforcement.run_tmpfs_memory, `cgroup ${version} ${memoryFile} per run`);
    assert.match(
      enforcement.run_swap ?? 'null',
      /^(cgroup v2 memory\.swap\.max = 0|cgroup v1 memory\.memsw\.limit_in_bytes = memory limit) per run$|^null$/,
    );
    // As root, each run has a host uid: v1 leaves pids to RLIMIT_NPROC, v2 has pids.max in the same group.
    assert.equal(
      enforcement.max_processes,
      version === 'v2' ? 'cgroup v2 pids.max per run' : 'RLIMIT_NPROC of a host uid per run',
    );
    assert.equal(enforcement.memory_bytes, 'RLIMIT_AS per process');
    assert.equal(enforcement.workspace_bytes, 'tmpfs size per workspace');
  });

  it('limits the processes of one run together, not each one', async () => {
    const result = await execute(server.url, {
      code: [
        'import os',
        'children = []',
        'for _ in range(3):',
        '    pid = os.fork()',
        '    if pid == 0:',
        '        block = bytearray(120 * 1024 * 1024)',
        '        for offset in range(0, len(block), 4096): block[offset] = 1',
        '        os._exit(0)',
        '    children.append(pid)',
        'completed = 0',
        'for pid in children:',
        '    _, status = os.waitpid(pid, 0)',
        '    completed += os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0',
        "print('completed', completed)",
      ].join('\n'),
    });
    // Each child alone is far below the per-process address-space limit; the three together exceed the run's.
    assert.match(result.stdout, /^completed [012]\n$/, result.stderr);
  });

  it('counts the tmpfs pages a run writes against its memory', async () => {
    const result = await execute(server.url, {
      code: [
        'written = 0',
        'try:',
        '    for index in range(3):',
        "        with open(f'part{index}.bin', 'wb') as handle:",
        '            for _ in range(9):',
        "                handle.write(b'x' * 10 * 1024 * 1024)",
        '                handle.flush()',
        '                written += 10',
        "                print('written', written, flush=True)",
        'except OSError as error:',
        "    print('refused', error.errno)",
      ].join('\n'),
    });
    // 270 MiB fit the 512 MiB workspace, not the 200 MiB run: the writer is refused or killed on the way.
    const last = Number(/written (\d+)\n(?:refused \d+\n)?$/.exec(result.stdout)?.[1] ?? '0');
    assert.ok(last < 270, `wrote ${last} MiB: ${result.stdout.slice(-200)}`);
  });
  it('runs the next code normally in a reused group after runs hit the limit', async () => {
    for (let index = 0; index < 3; index += 1) {
      const result = await execute(server.url, {
        code: 'block = bytearray(100 * 1024 * 1024)\nprint(len(block) // (1024 * 1024))',
      });
      assert.equal(result.stdout, '100\n', result.stderr);
    }
  });
});

describe('interpreter: workspace storage across sessions', () => {
  const server = useInterpreterServer({
    limits: { workspaceBytes: 8 * mib, totalWorkspaceBytes: 16 * mib },
  });

  it('refuses a workspace past the total with a clear error, and frees it when a session ends', async () => {
    const first = await postJson(server.url, '/v1/sessions', {});
    const second = await postJson(server.url, '/v1/sessions', {});
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    const third = await postJson(server.url, '/v1/sessions', {});
    assert.equal(third.status, 503);
    assert.equal(third.json.error.code, 'workspace_capacity');
    assert.match(third.json.error.message, /end a session or retry later/);
    const run = await postJson(server.url, '/v1/execute', { code: 'print(1)' });
    assert.equal(run.status, 503);
    const deleted = await fetch(`${server.url}/v1/sessions/${first.json.session_id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 204);
    assert.equal((await execute(server.url, { code: 'print(1)' })).stdout, '1\n');
  });
});

describe('interpreter: /health when the filter and cgroups are not in force', () => {
  const server = useInterpreterServer({ syscallFilter: false, cgroups: false });

  it('says so, and which memory limit remains', async () => {
    const health = await getJson(`${server.url}/health`);
    assert.equal(health.status, 'degraded');
    assert.equal(health.isolation.syscallFilter, false);
    assert.equal(health.isolation.cgroups, null);
    assert.equal(health.isolation.limits.run_memory_bytes, null);
    assert.equal(health.isolation.enforcement.run_memory_bytes, null);
    assert.equal(health.isolation.enforcement.run_tmpfs_memory, null);
    assert.equal(health.isolation.enforcement.run_swap, null);
    assert.equal(health.isolation.enforcement.memory_bytes, 'RLIMIT_AS per process');
    assert.match(health.reason, /no seccomp filter: disabled by configuration/);
    assert.match(health.reason, /memory is limited per process \(address space\), not per run/);
    // Without the filter, the families it refuses are open again: the filter, not something else, refused them.
    const result = await execute(server.url, {
      code: 'import socket\nsocket.socket(16, socket.SOCK_RAW).close()\nprint("netlink ok")',
    });
    assert.equal(result.stdout, 'netlink ok\n');
  });
});
