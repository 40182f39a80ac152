import type { BuiltInToolFactory } from '@toolbus/assembly';
import { CodeInterpreterClient } from '@toolbus/sandbox';
import type { Storage } from '@toolbus/storage';
import { createInternalSearchTool, createPythonTool, type DocumentIndex } from '@toolbus/tools';
import type { CliConfig } from './cli-config.ts';

/**
 * How the CLI builds each built-in tool. A tool whose service is not configured is simply not offered (its
 * factory is absent, and assembly reports it as skipped), never a failed turn.
 */
export function builtInToolFactories(options: {
  readonly config: CliConfig;
  readonly index: DocumentIndex;
  readonly storage: Storage;
  readonly fetch: typeof fetch;
  readonly userId: string;
}): Map<string, BuiltInToolFactory> {
  const factories = new Map<string, BuiltInToolFactory>();
  factories.set('SearchTool', () => createInternalSearchTool({ index: options.index }));
  const sandboxUrl = options.config.file.sandboxUrl;
  if (sandboxUrl) {
    factories.set('PythonTool', () =>
      createPythonTool({
        // The sandbox is the user's own service (often on loopback), so it is reached with plain fetch.
        client: new CodeInterpreterClient({ baseUrl: sandboxUrl }),
        files: {
          readContent: (fileId) => options.storage.files.readContent(fileId),
          saveGenerated: (file) => options.storage.files.put({ userId: options.userId, ...file }),
        },
      }),
    );
  }
  return factories;
}
