/**
 * The exit codes of `toolbus`, documented in `toolbus --help` and the README. Scripts branch on them, so each
 * number keeps its meaning.
 */
export const EXIT_CODES = {
  /** Done. */
  ok: 0,
  /** Something failed: the model, a tool source, a file; the message on stderr says what and what to try. */
  failure: 1,
  /** The command line was wrong (unknown command or flag, missing argument); nothing was done. */
  usage: 2,
  /** The turn ended without an answer (the cycle limit was hit and the last cycle did not answer). */
  noAnswer: 3,
  /** Stopped by Ctrl-C (128 + SIGINT). */
  interrupted: 130,
  /**
   * Stopped by SIGTERM (128 + SIGTERM), as `toolbus chat` and `toolbus index` are. A server (serve, gateway,
   * sandbox serve) stops with 0 on one SIGINT or SIGTERM, and only a second one, while it shuts down, ends it at
   * once with 130 or 143.
   */
  terminated: 143,
} as const;

/** The help text's paragraph on exit codes (one owner: this table). */
export const EXIT_CODES_HELP = `Exit codes:
  ${EXIT_CODES.ok}    done
  ${EXIT_CODES.failure}    failed (model, tool source, file, storage); the message on stderr says what to try
  ${EXIT_CODES.usage}    wrong command line (unknown command or flag, missing argument); nothing was done
  ${EXIT_CODES.noAnswer}    the turn ended without an answer (cycle limit)
  ${EXIT_CODES.interrupted}  stopped by Ctrl-C
  ${EXIT_CODES.terminated}  stopped by SIGTERM (toolbus serve, gateway and sandbox serve: one SIGINT or SIGTERM stops
       them with 0, a second one at once with 130 or 143)`;
