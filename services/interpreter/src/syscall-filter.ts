import { execFile } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Whether runs get the seccomp filter: in place (with the compiled program's path), or why not. */
export type SyscallFilterState =
  | { readonly state: 'active'; readonly path: string }
  | { readonly state: 'off'; readonly reason: string };

/**
 * Syscalls refused with EPERM. A network namespace does not confine these (or they widen the kernel surface far
 * beyond what Python code needs): io_uring bypasses the per-syscall checks, bpf/perf/userfaultfd are the usual
 * kernel exploit primitives, keys are not namespaced, and the mount/namespace family would let code rebuild the
 * sandbox around itself. `socket` and `clone` are filtered by argument below; `clone3` answers ENOSYS, because its
 * flags live in memory a filter cannot read, and glibc then falls back to `clone`.
 */
export const deniedSyscalls: readonly string[] = [
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'keyctl',
  'add_key',
  'request_key',
  'unshare',
  'setns',
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'move_mount',
  'open_tree',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'name_to_handle_at',
  'open_by_handle_at',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'reboot',
  'swapon',
  'swapoff',
  'acct',
  'quotactl',
  'quotactl_fd',
  'uselib',
  'syslog',
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'kcmp',
  'pidfd_getfd',
  'fanotify_init',
  'lookup_dcookie',
  'iopl',
  'ioperm',
  'vhangup',
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'adjtimex',
];

/** The only socket families a run may create: local sockets and IP (which the network namespace confines). */
export const allowedSocketFamilies = { AF_UNIX: 1, AF_INET: 2, AF_INET6: 10 } as const;

// Compiled with libseccomp's Python binding (Debian's python3-seccomp), which knows this machine's syscall numbers
// and adds the architecture check (a 32-bit or x32 syscall is killed instead of slipping past the numbers).
const generatorSource = `import errno, sys, seccomp
denied, families, target = sys.argv[1].split(','), sorted(int(n) for n in sys.argv[2].split(',')), sys.argv[3]
f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
f.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)  # a binary tree over syscall numbers: few checks per allowed syscall
for name in denied:
    try:
        f.add_rule(seccomp.ERRNO(errno.EPERM), name)
    except Exception:
        pass  # not a syscall on this architecture
f.add_rule(seccomp.ERRNO(errno.ENOSYS), 'clone3')
for flag in (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x00000080):
    f.add_rule(seccomp.ERRNO(errno.EPERM), 'clone', seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
for call in ('socket', 'socketpair'):
    previous = -1
    for family in families:
        for refused in range(previous + 1, family):
            f.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), call, seccomp.Arg(0, seccomp.EQ, refused))
        previous = family
    f.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), call, seccomp.Arg(0, seccomp.GT, previous))
with open(target, 'wb') as handle:
    f.export_bpf(handle)
`;

/**
 * Compiles the sandbox's seccomp program (a classic BPF program, as `bwrap --seccomp FD` reads it) to `target`.
 * Never throws: without Debian's python3-seccomp the state says so, and `/health` reports it.
 */
export async function compileSyscallFilter(options: {
  pythonPath: string;
  target: string;
}): Promise<SyscallFilterState> {
  try {
    await execFileAsync(
      options.pythonPath,
      [
        '-c',
        generatorSource,
        deniedSyscalls.join(','),
        Object.values(allowedSocketFamilies).join(','),
        options.target,
      ],
      { env: { PATH: '/usr/bin:/bin' }, timeout: 20_000 },
    );
    await chmod(options.target, 0o644);
    const program = await readFile(options.target);
    // A BPF instruction is 8 bytes; an empty or ragged file would make bwrap refuse every run.
    if (program.length === 0 || program.length % 8 !== 0)
      throw new Error('the compiled program is malformed');
    return { state: 'active', path: options.target };
  } catch (error) {
    await writeFile(options.target, '').catch(() => {});
    const detail =
      error instanceof Error ? (error as Error & { stderr?: string }).stderr || error.message : String(error);
    const missing = /No module named 'seccomp'/.test(detail);
    return {
      state: 'off',
      reason: missing
        ? 'no seccomp filter: Debian package python3-seccomp is not installed'
        : `no seccomp filter: compiling it failed: ${detail.trim().slice(0, 500)}`,
    };
  }
}
