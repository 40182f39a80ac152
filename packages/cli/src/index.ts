export type { CliConfig, ToolbusConfigFile } from './cli-config.ts';
export { loadCliConfig } from './cli-config.ts';
export type { CliIo } from './cli-io.ts';
export { CONFIG_KEYS } from './config-schema.ts';
export { runCli } from './main.ts';
export type { TerminalRendererOptions } from './terminal-renderer.ts';
export { TerminalRenderer } from './terminal-renderer.ts';
