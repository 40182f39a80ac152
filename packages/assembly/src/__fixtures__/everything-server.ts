// Where the real `@modelcontextprotocol/server-everything` from npm lives, to run it over stdio with this Node.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** Path of the server's entry script (`dist/index.js`); run as `node <entry>` it speaks MCP over stdio. */
export const everythingServerEntry = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
