import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { BuiltInToolContext, ServerOptions } from '../server-options.ts';

/**
 * The ids of the built-in tools this deployment can run for a caller: those it has a factory for (a tool whose
 * service is not configured has none). Making the map builds no tool and starts nothing; anything a factory
 * registers to close is closed at once.
 */
export function availableBuiltInIds(options: {
  readonly factories: ServerOptions['builtInToolFactories'];
  readonly model: () => LanguageModelV4;
}): (context: Pick<BuiltInToolContext, 'user' | 'organizationId'>) => Promise<ReadonlySet<string>> {
  return async (caller) => {
    if (!options.factories) return new Set();
    const cleanups: (() => Promise<void>)[] = [];
    try {
      const factories = options.factories({
        ...caller,
        get model() {
          return options.model();
        },
        onClose: (cleanup) => cleanups.push(cleanup),
      });
      return new Set(factories.keys());
    } finally {
      await Promise.allSettled(cleanups.map((cleanup) => cleanup()));
    }
  };
}
