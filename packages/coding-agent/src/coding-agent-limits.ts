/** Every limit of a coding-agent run. Sizes are bytes, times milliseconds. */
export interface CodingAgentLimits {
  /** Cycles that run commands (think calls do not count). */
  readonly maxCycles: number;
  /** Think calls, capped on their own. */
  readonly maxThinkCycles: number;
  /** No new cycle starts after this much wall-clock time: the agent answers with what it has. */
  readonly wallClockMs: number;
  /** One bash command's wall-clock limit (the sandbox service allows at most 60 s). */
  readonly commandTimeoutMs: number;
  /** stdout and stderr of one command are each cut to this many characters for the model. */
  readonly maxOutputCharacters: number;
  /** Output tokens of one agent step. */
  readonly stepTokens: number;
  /** Output tokens of the final answer. */
  readonly answerTokens: number;
  /** Largest repository archive; the download stops as soon as it is passed. */
  readonly maxArchiveBytes: number;
  /** Time to the archive's response headers. */
  readonly connectTimeoutMs: number;
  /** Longest silence while the archive body streams. */
  readonly readTimeoutMs: number;
  /** Wall-clock limit of unpacking the archive inside the sandbox. */
  readonly unpackTimeoutMs: number;
}

/** Command cycles per run. */
export const CODING_AGENT_MAX_CYCLES = 20;
/** Think calls per run (non-reasoning models think through `think_tool`). */
export const CODING_AGENT_MAX_THINK_CYCLES = 8;
/** Wall-clock budget of the agent loop: 25 minutes. */
export const CODING_AGENT_WALL_CLOCK_MS = 25 * 60_000;
/** One command's timeout: the sandbox service's maximum. */
export const BASH_COMMAND_TIMEOUT_MS = 60_000;
/** Characters of stdout (and of stderr) the model reads per command. */
export const BASH_MAX_OUTPUT_CHARACTERS = 50_000;
/** Output tokens of one agent step. */
export const CODING_AGENT_STEP_TOKENS = 2048;
/** Output tokens of the final answer. */
export const CODING_AGENT_ANSWER_TOKENS = 4000;
/** Largest repository archive: 500 MiB. */
export const REPOSITORY_MAX_ARCHIVE_BYTES = 500 * 1024 * 1024;
/** Time to the archive's response headers. */
export const REPOSITORY_CONNECT_TIMEOUT_MS = 30_000;
/** Longest silence while the archive streams. */
export const REPOSITORY_READ_TIMEOUT_MS = 300_000;
/** Unpacking inside the sandbox. */
export const REPOSITORY_UNPACK_TIMEOUT_MS = 60_000;

/** The limits used when a caller overrides none. */
export const DEFAULT_CODING_AGENT_LIMITS: CodingAgentLimits = {
  maxCycles: CODING_AGENT_MAX_CYCLES,
  maxThinkCycles: CODING_AGENT_MAX_THINK_CYCLES,
  wallClockMs: CODING_AGENT_WALL_CLOCK_MS,
  commandTimeoutMs: BASH_COMMAND_TIMEOUT_MS,
  maxOutputCharacters: BASH_MAX_OUTPUT_CHARACTERS,
  stepTokens: CODING_AGENT_STEP_TOKENS,
  answerTokens: CODING_AGENT_ANSWER_TOKENS,
  maxArchiveBytes: REPOSITORY_MAX_ARCHIVE_BYTES,
  connectTimeoutMs: REPOSITORY_CONNECT_TIMEOUT_MS,
  readTimeoutMs: REPOSITORY_READ_TIMEOUT_MS,
  unpackTimeoutMs: REPOSITORY_UNPACK_TIMEOUT_MS,
};
