import { egressForwarderSource, sandboxEgressPaths } from './egress-forwarder-source.ts';
import type { SandboxBind } from './sandbox-command.ts';

/** A run's way out: the host path of a Unix socket served by the egress proxy for this run only. */
export interface SandboxEgressLease {
  /** The proxy's socket for this run; the socket the connection arrives on is the run's identity. */
  readonly socketPath: string;
  /** The proxy CA certificate (PEM file), trusted inside the sandbox and nowhere else. */
  readonly caCertificatePath: string;
  /** Stops serving the socket; called when the run ends. */
  close(): Promise<void>;
}

/**
 * Opens an egress lease per run. The deployment implements it (the egress proxy's `listen({ path, connection })`
 * in one process, or `createRemoteEgressRelay` towards a standalone proxy), so the interpreter depends on
 * nothing of the proxy's.
 */
export interface SandboxEgressProvider {
  /**
   * `tag`: what the run is for, as its client named it (opaque, never an identity). `token`: the run's signed egress
   * token when its client sent one (for a relay to a standalone proxy; never passed into the sandbox). Resolves
   * undefined when this run gets no network (a relay given no token).
   */
  open(run: {
    readonly runId: string;
    readonly tag?: string;
    readonly token?: string;
  }): Promise<SandboxEgressLease | undefined>;
}

/** The forwarder's source, written once next to the runner. */
export { egressForwarderSource };

/** The command and binds that put a run behind its egress lease (the network namespace stays unshared). */
export function egressRunParts(options: {
  readonly lease: SandboxEgressLease;
  readonly forwarderPath: string;
  readonly pythonPath: string;
  readonly command: readonly string[];
}): { command: string[]; readOnlyFiles: SandboxBind[]; readOnlyBinds: SandboxBind[] } {
  return {
    command: [options.pythonPath, sandboxEgressPaths.forwarder, ...options.command],
    // Copied in as data, so their host paths stay out of the sandbox's /proc/self/mountinfo.
    readOnlyFiles: [
      { source: options.forwarderPath, target: sandboxEgressPaths.forwarder },
      { source: options.lease.caCertificatePath, target: sandboxEgressPaths.caCertificate },
    ],
    // A socket cannot be copied: it is bound. On a read-only bind it still accepts connections.
    readOnlyBinds: [{ source: options.lease.socketPath, target: sandboxEgressPaths.socket }],
  };
}
