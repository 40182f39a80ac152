import { parsePublicOrigin, type ServerAuthMode } from '@toolbus/server';
import { UsageError } from '../usage-error.ts';

/** The replica roles of `toolbus serve --role`. */
export const serveRoles = ['both', 'api', 'worker'] as const;

/** `toolbus serve`'s flags, for parseCommandArgs. */
export const serveArgOptions = {
  port: { type: 'string' },
  host: { type: 'string' },
  auth: { type: 'string' },
  model: { type: 'string' },
  role: { type: 'string' },
  'public-origin': { type: 'string' },
  'turns-per-user': { type: 'string' },
  'requests-per-minute': { type: 'string' },
  'turn-lock-ms': { type: 'string' },
  'stalled-check-ms': { type: 'string' },
  'slot-ttl-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The string flags of `toolbus serve` that {@link parseServeFlags} checks, as parseArgs returns them. */
export interface ServeFlagValues {
  readonly port?: string | undefined;
  readonly auth?: string | undefined;
  readonly role?: string | undefined;
  readonly 'public-origin'?: string | undefined;
  readonly 'turns-per-user'?: string | undefined;
  readonly 'requests-per-minute'?: string | undefined;
}

/** `toolbus serve`'s flags, checked. */
export interface ServeFlags {
  readonly port: number;
  readonly publicOrigin: string | undefined;
  readonly auth: ServerAuthMode;
  readonly role: (typeof serveRoles)[number];
  readonly limits: { concurrentTurnsPerUser?: number; requestsPerMinute?: number };
}

/** Checks serve's flags, each refusal a {@link UsageError} that says what the flag takes. */
export function parseServeFlags(options: {
  readonly values: ServeFlagValues;
  readonly usage: string;
}): ServeFlags {
  const { values, usage } = options;
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError({ message: '--port takes a number from 0 to 65535.', usage });
  }
  let publicOrigin: string | undefined;
  try {
    publicOrigin =
      values['public-origin'] === undefined ? undefined : parsePublicOrigin(values['public-origin']);
  } catch {
    throw new UsageError({
      message:
        '--public-origin takes an origin such as https://toolbus.example.com (http or https, no path).',
      usage,
    });
  }
  const auth = (values.auth ?? 'local') as ServerAuthMode;
  if (auth !== 'local' && auth !== 'api-keys') {
    throw new UsageError({ message: '--auth is "local" or "api-keys".', usage });
  }
  const role = (values.role ?? 'both') as (typeof serveRoles)[number];
  if (!serveRoles.includes(role)) {
    throw new UsageError({ message: '--role is "both", "api" or "worker".', usage });
  }
  return { port, publicOrigin, auth, role, limits: parseLimits(values, usage) };
}

function parseLimits(values: ServeFlagValues, usage: string): ServeFlags['limits'] {
  const limits: { concurrentTurnsPerUser?: number; requestsPerMinute?: number } = {};
  for (const [flag, field] of [
    ['turns-per-user', 'concurrentTurnsPerUser'],
    ['requests-per-minute', 'requestsPerMinute'],
  ] as const) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new UsageError({ message: `--${flag} takes a whole number above 0.`, usage });
    }
    limits[field] = value;
  }
  return limits;
}
