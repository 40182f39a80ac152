/**
 * The settings a turn's tools are built from: the part of the config file (`~/.toolbus/config.json`) that
 * `toolbus chat` and `toolbus serve` both read, so the two cannot drift. The CLI's config file extends it.
 * Keys never live here: only the NAMES of the variables that hold them.
 */
export interface BuiltInToolSettings {
  /** The code sandbox service (`toolbus sandbox serve`); python is offered when it answers. */
  sandboxUrl?: string;
  /** Several sandbox services behind one load-balancing pool (health-checked, sessions kept on their server). */
  sandboxUrls?: string[];
  /**
   * `proxy`: the configured sandbox services relay run_python's network to the standalone egress proxy
   * (`toolbus-interpreter --egress-proxy`, `toolbus egress serve`), so each run is sent a signed egress token of
   * its user (signed with a key derived from the secret key the proxy shares). Default `off`: no token is sent.
   */
  sandboxEgress?: 'proxy' | 'off';
  webSearch?: { provider: string; apiKeyEnv?: string; baseUrl?: string; searchEngineId?: string };
  imageGeneration?: { baseUrl?: string; model?: string; apiKeyEnv?: string };
  /**
   * When a persona's tools exceed these, the model gets a tool-search tool instead of every definition. Keyed by
   * model string, `*` for every model.
   */
  toolLimits?: Record<string, { maxTools?: number; maxTokens?: number }>;
  /**
   * The text tool-call dialects (parser names) recovery tries first, overriding the model profile chosen by the
   * model id; empty: every dialect at once.
   */
  toolCallDialects?: string[];
  /**
   * The coding agent's repository host (default github.com; templates with `{owner}` and `{repo}`), the NAME of the
   * variable holding a token for private repositories, and the local folders it may open (none by default).
   */
  codingAgent?: {
    archiveUrl?: string;
    tokenArchiveUrl?: string;
    webHosts?: string[];
    tokenEnv?: string;
    localRoots?: string[];
  };
}
