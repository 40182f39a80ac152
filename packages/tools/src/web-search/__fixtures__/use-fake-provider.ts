// One fake provider per suite, and the web_search tool that reaches it through the real network guard.
import { after, before } from 'node:test';
import { createGuardedFetch, type GuardedFetch } from '@toolbus/core/node';
import type { Tool } from '@toolbus/spec';
import { createWebSearchProvider } from '../create-web-search-provider.ts';
import { createWebSearchTool, type WebSearchToolOptions } from '../web-search-tool.ts';
import { type FakeProviderDefinition, type FakeProviderServer, startFakeProvider } from './fake-search-providers.ts';

/** What a suite reads once its `before` hook ran. */
export interface FakeProviderSuite {
  readonly fake: FakeProviderServer;
  /** A web_search tool on the provider's real client, configured by `definition.config` with the suite's key. */
  tool(options?: Omit<WebSearchToolOptions, 'provider' | 'fetch'>): Tool;
}

/** Registers hooks in the calling `describe` that start the fake and a guarded fetch, and close both after. */
export function useFakeProvider(definition: FakeProviderDefinition, apiKey: string): FakeProviderSuite {
  let fake: FakeProviderServer | undefined;
  let fetch: GuardedFetch | undefined;
  before(async () => {
    fake = await startFakeProvider(definition, apiKey);
    // The guard is real: loopback is refused unless allowed, so the suite allows exactly the fake's address.
    fetch = createGuardedFetch({ allow: ['127.0.0.1/32'] });
  });
  after(async () => {
    await fetch?.close();
    await fake?.close();
  });
  const started = () => {
    if (!fake || !fetch) throw new Error('the fake provider starts in the suite’s before hook');
    return { fake, fetch };
  };
  return {
    get fake() {
      return started().fake;
    },
    tool: (options = {}) =>
      createWebSearchTool({
        provider: createWebSearchProvider(definition.config(started().fake.origin, apiKey)),
        fetch: started().fetch,
        ...options,
      }),
  };
}
