import { type CodeInterpreter, CodeInterpreterClient, CodeInterpreterPool } from '@toolbus/sandbox';
import type { BuiltInToolSettings } from './built-in-tool-settings.ts';

/** The configured sandbox service(s) as one interpreter, with what to call when the process ends. */
export interface ConfiguredInterpreter {
  readonly interpreter: CodeInterpreter;
  /** How many services it spreads runs over. */
  readonly serviceCount: number;
  close(): void;
}

/**
 * `sandboxUrls` (several services: a {@link CodeInterpreterPool}, load-balanced and health-checked) or
 * `sandboxUrl` (one: a plain client); undefined when neither is set, and the caller starts one in-process. The
 * services are the deployment's own (often on loopback or a cluster network), so they are reached with the
 * plain fetch, not the guarded one that refuses internal addresses.
 */
export function configuredInterpreter(file: BuiltInToolSettings): ConfiguredInterpreter | undefined {
  const urls = file.sandboxUrls ?? (file.sandboxUrl === undefined ? [] : [file.sandboxUrl]);
  const [only] = urls;
  if (only === undefined) return undefined;
  if (urls.length === 1) {
    return { interpreter: new CodeInterpreterClient({ baseUrl: only }), serviceCount: 1, close: () => {} };
  }
  const pool = new CodeInterpreterPool({ baseUrls: urls });
  return { interpreter: pool, serviceCount: urls.length, close: () => pool.close() };
}
