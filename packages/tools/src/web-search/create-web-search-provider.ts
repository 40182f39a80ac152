import { omitUndefined, ToolbusError } from '@toolbus/spec';
import { createBraveProvider } from './brave-provider.ts';
import { createExaProvider } from './exa-provider.ts';
import { createGoogleProvider } from './google-provider.ts';
import { createSearxngProvider } from './searxng-provider.ts';
import { createSerperProvider } from './serper-provider.ts';
import { createTavilyProvider } from './tavily-provider.ts';
import type { WebSearchProvider, WebSearchProviderConfig } from './web-search-provider.ts';

/**
 * Builds the provider a configuration names. Fails closed with a `ToolbusError` (code
 * `web_search_not_configured`) when a required credential is missing, naming the setting but never a value.
 */
export function createWebSearchProvider(config: WebSearchProviderConfig): WebSearchProvider {
  const missing = (setting: string): never => {
    throw new ToolbusError({
      code: 'web_search_not_configured',
      message: `Web search provider "${config.provider}" needs ${setting}`,
    });
  };
  const { baseUrl } = config;
  const base = omitUndefined({ baseUrl });
  switch (config.provider) {
    case 'brave':
      if (!config.apiKey) missing('an apiKey');
      return createBraveProvider({
        apiKey: config.apiKey,
        ...base,
        ...omitUndefined({ country: config.country || undefined }),
      });
    case 'exa':
      if (!config.apiKey) missing('an apiKey');
      return createExaProvider({ apiKey: config.apiKey, ...base });
    case 'serper':
      if (!config.apiKey) missing('an apiKey');
      return createSerperProvider({ apiKey: config.apiKey, ...base });
    case 'google':
      if (!config.apiKey) missing('an apiKey');
      if (!config.searchEngineId) missing('a searchEngineId (the Programmable Search Engine "cx")');
      return createGoogleProvider({ apiKey: config.apiKey, searchEngineId: config.searchEngineId, ...base });
    case 'searxng':
      if (!config.baseUrl) missing('a baseUrl (the SearXNG instance)');
      return createSearxngProvider({ baseUrl: config.baseUrl });
    case 'tavily':
      if (!config.apiKey) missing('an apiKey');
      return createTavilyProvider({
        apiKey: config.apiKey,
        ...base,
        ...omitUndefined({ searchDepth: config.searchDepth }),
      });
    default:
      return missing(
        `a known provider (brave, exa, serper, google, searxng, tavily), not "${String((config as { provider?: unknown }).provider)}"`,
      );
  }
}
