export type { BashResult, BashToolOptions } from './bash-tool.ts';
export { BASH_TOOL_NAME, createBashTool } from './bash-tool.ts';
export type { RepositoryErrorCode } from './coding-agent-error.ts';
export { RepositoryError } from './coding-agent-error.ts';
export type { CodingAgentLimits } from './coding-agent-limits.ts';
export {
  BASH_COMMAND_TIMEOUT_MS,
  BASH_MAX_OUTPUT_CHARACTERS,
  CODING_AGENT_ANSWER_TOKENS,
  CODING_AGENT_MAX_CYCLES,
  CODING_AGENT_MAX_THINK_CYCLES,
  CODING_AGENT_STEP_TOKENS,
  CODING_AGENT_WALL_CLOCK_MS,
  DEFAULT_CODING_AGENT_LIMITS,
  REPOSITORY_CONNECT_TIMEOUT_MS,
  REPOSITORY_MAX_ARCHIVE_BYTES,
  REPOSITORY_READ_TIMEOUT_MS,
  REPOSITORY_UNPACK_TIMEOUT_MS,
} from './coding-agent-limits.ts';
export type { CodingAgentPrompts } from './coding-agent-prompts.ts';
export { DEFAULT_CODING_AGENT_PROMPTS } from './coding-agent-prompts.ts';
export type { CodingAgentToolOptions } from './coding-agent-tool.ts';
export { createCodingAgentTool } from './coding-agent-tool.ts';
export type { DownloadRepositoryArchiveOptions } from './download-repository-archive.ts';
export { downloadRepositoryArchive } from './download-repository-archive.ts';
export type {
  OpenRepositorySessionOptions,
  RepositoryHistory,
  RepositorySession,
} from './open-repository-session.ts';
export { openRepositorySession } from './open-repository-session.ts';
export type { RepositoryHost } from './repository-host.ts';
export { GITHUB_REPOSITORY_HOST } from './repository-host.ts';
export type { RepositorySource } from './repository-source.ts';
export { parseRepositorySource } from './repository-source.ts';
export type { CodingAgentOutcome, RunCodingAgentOptions } from './run-coding-agent.ts';
export { CODING_AGENT_FAILED_TEXT, GENERATE_ANSWER_TOOL_NAME, runCodingAgent } from './run-coding-agent.ts';
