// The gateway of an earlier commit, for the gateway benchmark to run beside the current one in the same rounds
// (GATEWAY_BENCH_BASELINE=<commit>): on a shared machine, runs at different times are not comparable. The commit's
// packages/gateway and packages/core are unpacked, and the snapshot's gateway resolves `@toolbus/core` to the
// snapshot's core (a link in its own node_modules), so the answer repair it runs is that commit's too; other
// packages (`@toolbus/spec`, zod) resolve to the workspace's.
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { unpackCommitSnapshot } from '../../core/bench/commit-snapshot.ts';

export interface GatewaySnapshot {
  readonly commit: string;
  /** The path of the snapshot's `gateway-server.ts`. */
  readonly gatewayServer: string;
}

export function loadGatewaySnapshot(commit: string): GatewaySnapshot {
  const snapshot = unpackCommitSnapshot({ commit, path: 'packages/gateway', label: 'gateway' });
  unpackCommitSnapshot({ commit, path: 'packages/core', label: 'gateway' });
  const scope = join(snapshot.directory, 'packages', 'gateway', 'node_modules', '@toolbus');
  if (!existsSync(join(scope, 'core'))) {
    mkdirSync(scope, { recursive: true });
    symlinkSync(join(snapshot.directory, 'packages', 'core'), join(scope, 'core'));
  }
  return {
    commit: snapshot.commit,
    gatewayServer: join(snapshot.directory, 'packages', 'gateway', 'src', 'gateway-server.ts'),
  };
}
