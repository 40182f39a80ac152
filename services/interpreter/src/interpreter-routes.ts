import { handleExecute, handleExecuteStream } from './execute-routes.ts';
import { handleDeleteFile, handleDownload, handleUpload } from './file-routes.ts';
import { handleHealth } from './health-route.ts';
import type { Route } from './route-table.ts';
import {
  handleCreateSession,
  handleDeleteSession,
  handleSessionCommand,
  handleSessionCommandStream,
} from './session-routes.ts';

/** The service's API (protocol v1): every path, method and handler, in one table. */
export const interpreterRoutes: readonly Route[] = [
  { path: '/health', methods: { GET: handleHealth } },
  { path: '/v1/execute', methods: { POST: handleExecute } },
  { path: '/v1/execute/stream', methods: { POST: handleExecuteStream } },
  { path: '/v1/files', methods: { POST: handleUpload } },
  { path: '/v1/files/:fileId', methods: { GET: handleDownload, DELETE: handleDeleteFile } },
  { path: '/v1/sessions', methods: { POST: handleCreateSession } },
  { path: '/v1/sessions/:sessionId', methods: { DELETE: handleDeleteSession } },
  { path: '/v1/sessions/:sessionId/bash', methods: { POST: handleSessionCommand } },
  { path: '/v1/sessions/:sessionId/bash/stream', methods: { POST: handleSessionCommandStream } },
];
