/** One HTTP header as sent: name as written, value as sent. Duplicates are kept as separate entries. */
export type EgressHeader = readonly [name: string, value: string];

/** Who a sandbox connection belongs to, as the identity source reports it. */
export interface EgressIdentity {
  readonly sandboxId: string;
  /** The user the sandbox runs for; credentials are only ever resolved for this user. */
  readonly userId?: string;
  readonly organizationId?: string;
  /** The chat session the sandbox serves, when the identity source knows it (one run, one session). */
  readonly sessionId?: string;
  /**
   * What the run is for, as the code-execution client named it (a tool call id): lets an approval card appear at
   * that tool call. Informational only; credentials and grants never depend on it.
   */
  readonly tag?: string;
}

/** A request the sandbox wants to send, as the proxy shell has read it. */
export interface EgressRequest {
  readonly method: string;
  /** Absolute URL (`https://api.example.com/v1/items?x=1`). */
  readonly url: string;
  readonly headers: readonly EgressHeader[];
  /** The whole body when it was buffered; a body the shell could not buffer is given only by its length. */
  readonly body?: Uint8Array;
  /** The body's length in bytes when known (Content-Length); undefined with no `body` means streamed. */
  readonly bodyLength?: number;
  /**
   * The connection's identity key: the socket the connection arrived on (one per sandbox run) or its source
   * address. Undefined when the shell could not tell.
   */
  readonly connection: string | undefined;
  /** A session tag captured from the CONNECT's `Proxy-Authorization` user name, if any. */
  readonly connectSessionTag?: string;
}
