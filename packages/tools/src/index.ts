export { InterpreterUploadCache } from './python/interpreter-upload-cache.ts';
export type { PythonToolOptions } from './python/python-tool.ts';
export { createPythonTool } from './python/python-tool.ts';
export type { PythonToolFiles } from './python/python-tool-files.ts';
export type { StagingLimits } from './python/stage-chat-files.ts';
export { sanitizeStagedFilename } from './python/staged-filename.ts';
