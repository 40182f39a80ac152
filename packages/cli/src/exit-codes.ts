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
  /** `toolbus serve` given a second SIGTERM while it shut down: it stopped without waiting (128 + SIGTERM). */
  terminated: 143,
} as const;

/** The help text's paragraph on exit codes (one owner: this table). */
export const EXIT_CODES_HELP = `Exit codes:
  ${EXIT_CODES.ok}    done
  ${EXIT_CODES.failure}    failed (model, tool source, file, storage); the message on stderr says what to try
  ${EXIT_CODES.usage}    wrong command line (unknown command or flag, missing argument); nothing was done
  ${EXIT_CODES.noAnswer}    the turn ended without an answer (cycle limit)
  ${EXIT_CODES.interrupted}  stopped by Ctrl-C
  ${EXIT_CODES.terminated}  toolbus serve stopped by a second SIGTERM without waiting (one SIGINT or SIGTERM: 0)`;
