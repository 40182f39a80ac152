import type { Client } from '@modelcontextprotocol/client';
import {
  isMcpLogLevel,
  isPlainObject,
  type McpLogLevel,
  type McpLogMessage,
  mcpLogLevelPasses,
} from '@toolbus/spec';
import { CallScope } from './call-scope.ts';

/** Who wants the log messages a server sends during one call, and from which level on. */
export interface McpCallLogListener {
  readonly level: McpLogLevel;
  readonly onLog: (message: McpLogMessage) => void;
}

/** Longest log payload passed on, as JSON: a server's log is a line, not a document. */
const maxDataChars = 4000;
const maxLoggerChars = 100;
/** Shorter header values are too likely to occur in ordinary text to be worth masking. */
const minSecretChars = 8;

/**
 * Routes a server's `notifications/message` to the call that is waiting on the server, as the elicitation router
 * routes questions: the call's async context carries its listener (a Streamable HTTP request and its SSE answer
 * stream run in it); a message outside any call's context goes to the only call in flight, and otherwise nowhere.
 * Only messages at or above the listener's level pass. What the connection itself sends the server (its header
 * values: API keys, per-user credentials) is masked wherever a server echoes it, and long payloads are cut.
 */
export class McpCallLogRouter {
  readonly #calls: CallScope<McpCallLogListener>;
  readonly #secrets = new Set<string>();

  private constructor(calls: CallScope<McpCallLogListener>, secrets: readonly string[]) {
    this.#calls = calls;
    this.addSecrets(secrets);
  }

  /** A router for one connection; `secrets` are the values the connection sends that a log must never carry. */
  static async create(secrets: readonly string[] = []): Promise<McpCallLogRouter> {
    return new McpCallLogRouter(await CallScope.create<McpCallLogListener>(), secrets);
  }

  /**
   * Adds values a log must never carry, learnt after the connection opened: a user's OAuth tokens, which the
   * connection obtains and refreshes while it lives.
   */
  addSecrets(secrets: readonly string[]): void {
    for (const secret of secrets) {
      // A value like "Bearer abc…" is also masked where the server echoes only its credential part.
      for (const part of [secret, secret.slice(secret.lastIndexOf(' ') + 1)]) {
        if (part.length >= minSecretChars) this.#secrets.add(part);
      }
    }
  }

  /** Runs one call with `listener` receiving its log messages (none: they are dropped). */
  during<T>(listener: McpCallLogListener | undefined, operation: () => Promise<T>): Promise<T> {
    return this.#calls.during(listener, operation);
  }

  /** Installs the `notifications/message` handler. */
  register(client: Client): void {
    client.setNotificationHandler('notifications/message', (notification) => {
      const listener = this.#calls.current();
      const message = this.#message(notification.params as unknown);
      if (listener === undefined || message === undefined) return;
      if (!mcpLogLevelPasses(message.level, listener.level)) return;
      try {
        listener.onLog(message);
      } catch {
        // A listener's failure must not fail the call.
      }
    });
  }

  /** The message as it is passed on: a known level, the data masked and bounded; undefined when malformed. */
  #message(params: unknown): McpLogMessage | undefined {
    if (!isPlainObject(params) || !isMcpLogLevel(params.level)) return undefined;
    const logger =
      typeof params.logger === 'string' ? this.#mask(params.logger).slice(0, maxLoggerChars) : undefined;
    let json: string;
    try {
      json = JSON.stringify(params.data) ?? 'null';
    } catch {
      return undefined;
    }
    const masked = this.#mask(json);
    let data: unknown = params.data;
    if (masked.length > maxDataChars) data = `${masked.slice(0, maxDataChars)}… [cut]`;
    else if (masked !== json) data = parsedOr(masked);
    return logger === undefined ? { level: params.level, data } : { level: params.level, data, logger };
  }

  #mask(text: string): string {
    let masked = text;
    for (const secret of this.#secrets) {
      // Masked in the JSON text too: JSON escapes a value's quotes and backslashes.
      for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1)])) {
        masked = masked.split(form).join('[redacted]');
      }
    }
    return masked;
  }
}

/** The masked JSON read back, or the masked text itself when masking broke its structure. */
function parsedOr(masked: string): unknown {
  try {
    return JSON.parse(masked) as unknown;
  } catch {
    return masked;
  }
}
