// The gateway of an earlier commit, for the gateway benchmark to run beside the current one in the same rounds
// (GATEWAY_BENCH_BASELINE=<commit>): on a shared machine, runs at different times are not comparable. Only the
// commit's packages/gateway/src is unpacked; its imports of `@toolbus/core` resolve to the workspace package, so
// only the gateway's own code differs.
import { join } from 'node:path';
import { unpackCommitSnapshot } from '../../core/bench/commit-snapshot.ts';

export interface GatewaySnapshot {
  readonly commit: string;
  /** The path of the snapshot's `gateway-server.ts`. */
  readonly gatewayServer: string;
}

export function loadGatewaySnapshot(commit: string): GatewaySnapshot {
  const snapshot = unpackCommitSnapshot({ commit, path: 'packages/gateway/src', label: 'gateway' });
  return {
    commit: snapshot.commit,
    gatewayServer: join(snapshot.directory, 'packages', 'gateway', 'src', 'gateway-server.ts'),
  };
}
