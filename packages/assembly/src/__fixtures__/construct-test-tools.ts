// constructTools as the tests call it: the tests' built-in factories and the real fetch (every server they reach is
// on loopback), with each test's own persona, user, storage and options.
import { type ConstructToolsOptions, constructTools, type ToolAssembly } from '../construct-tools.ts';
import { builtInFactories } from './test-tools.ts';

/** {@link constructTools} with the test defaults; `options` may still override the factories or the fetch. */
export function constructTestTools(
  options: Omit<ConstructToolsOptions, 'builtInFactories' | 'fetch'> &
    Partial<Pick<ConstructToolsOptions, 'builtInFactories' | 'fetch'>>,
): Promise<ToolAssembly> {
  return constructTools({ builtInFactories: builtInFactories(), fetch, ...options });
}
