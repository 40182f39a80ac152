export type { CliConfig, ToolbusConfigFile } from './cli-config.ts';
export { CONFIG_KEYS, loadCliConfig } from './cli-config.ts';
export type { CliIo } from './cli-io.ts';
export { runCli } from './main.ts';
export type { TerminalRendererOptions } from './terminal-renderer.ts';
export { TerminalRenderer } from './terminal-renderer.ts';
