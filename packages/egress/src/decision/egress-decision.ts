import type { EgressBlockBody, EgressBlockCode } from './egress-block.ts';
import type { ConnectedApp, EgressMcpServer } from './egress-catalogue.ts';
import type { EgressHeader, EgressIdentity } from './egress-request.ts';

/** What is known about the request's attribution, whatever the outcome. */
export interface EgressDecisionMatch {
  readonly identity?: EgressIdentity;
  readonly app?: ConnectedApp;
  readonly mcpServer?: EgressMcpServer;
}

/** A request the proxy forwards. */
export interface EgressForward extends EgressDecisionMatch {
  /**
   * `pass_through`: no resolver claimed it; `claimed_no_inject`: a resolver owns it but had nothing to add;
   * `injected`: credentials were added.
   */
  readonly outcome: 'pass_through' | 'claimed_no_inject' | 'injected';
  /** The headers to send upstream (proxy-only headers removed, credentials in place). */
  readonly headers: readonly EgressHeader[];
  /** Names of the injected headers, for logs. */
  readonly injectedHeaderNames: readonly string[];
  /** The checked address to connect to, and its port; TLS still verifies the URL's host name. */
  readonly address: string;
  readonly port: number;
}

/** A request the proxy refuses with a 403. */
export interface EgressBlock extends EgressDecisionMatch {
  readonly outcome: 'blocked';
  readonly code: EgressBlockCode;
  readonly body: EgressBlockBody;
}

/** The result of `decideEgress`. */
export type EgressDecision = EgressForward | EgressBlock;
