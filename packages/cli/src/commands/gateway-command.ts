import { createNodeHttpFetch } from '@toolbus/core/node';
import { type GatewayUpstream, gatewayConfigSchema, startGateway } from '@toolbus/gateway';
import { createJsonLogger } from '@toolbus/server/logger';
import { omitUndefined, ToolbusError } from '@toolbus/spec';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { storedKeyAuthenticator } from '../gateway-key-check.ts';
import { parseCommandArgs } from '../parse-command-args.ts';
import { shutdownSignal } from '../shutdown-signal.ts';
import { UsageError } from '../usage-error.ts';
import type { CliCommand } from './cli-command.ts';

export const gatewayUsage = `Usage: toolbus gateway [--upstream [NAME=]URL ...] [--upstream-key-env VAR] [--port 4000]
                       [--host 127.0.0.1] [--auth none|api-keys] [--requests-per-minute N]
                       [--alias PATTERN=MODEL ...] [--default-model MODEL]

Point any OpenAI or Anthropic client at toolbus instead of your model server: an OpenAI Chat Completions
endpoint (POST /v1/chat/completions, GET /v1/models) and an Anthropic Messages endpoint (POST /v1/messages) in
front of any OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio); POST /v1/completions and
/v1/embeddings pass through. Tool calls the model wrote as text come back as real tool calls (streamed as
delta.tool_calls, or tool_use blocks), their markup never reaches the text, reasoning written into the text goes
to reasoning_content, and native calls pass through untouched.

  --upstream [NAME=]URL    an OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1 (repeatable; the first
                           takes every model the others do not list). Default: the config file's
                           gateway.upstreams, else Ollama at http://127.0.0.1:11434/v1.
  --upstream-key-env VAR   the NAME of the environment variable that holds the upstreams' key (never the key)
  --port N                 default 4000 (0 picks a free one)
  --host H                 default 127.0.0.1; any other address needs --auth api-keys
  --auth none|api-keys     none (the default, loopback only) takes every request; api-keys takes toolbus API
                           keys with the chat scope (made by toolbus serve --auth api-keys), as Bearer or x-api-key
  --requests-per-minute N  requests each key may make per minute (default: no limit)
  --alias PATTERN=MODEL    a model alias: requests naming PATTERN (an exact name, or * for any run of
                           characters: 'claude-*') go to MODEL, and answers keep the asked name (repeatable;
                           adds to the config file's gateway.models). Exact names win, then the longest pattern.
  --default-model MODEL    the model for names no alias or upstream matches (the same as --alias '*=MODEL').
                           Default: none; such a name goes to the first upstream, whose 404 names the models served

Config file (toolbus config path): "gateway": {"upstreams": [{"name": "vllm", "baseUrl": "http://gpu:8000/v1",
"apiKeyEnv": "VLLM_API_KEY", "models": ["qwen3-coder"]}], "models": {"claude-*": "qwen3-coder"},
"requestsPerMinute": 600}.

Responses say what recovery did in x-toolbus-recovery (a trailer on streams): recovered; calls=N, none, failed or
truncated (the token limit cut the call the model was writing) with x-toolbus-recovery-reason (the text then
reaches the client as the model wrote it). Logs are JSON lines on
stderr with names and figures only, never prompt text or keys. Ctrl-C or SIGTERM lets requests in flight finish
(up to 10 s) and exits 0; a second signal exits at once.
`;

/** `toolbus gateway`: the recovery gateway in front of OpenAI-compatible model servers. */
export const gatewayCommand: CliCommand = {
  name: 'gateway',
  synopsis: 'gateway [--upstream URL]   OpenAI/Anthropic endpoint that repairs text-written tool calls',
  usage: gatewayUsage,
  run: (argv, io) => runGatewayCommand(argv, io),
};

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export async function runGatewayCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs({
    argv,
    usage: gatewayUsage,
    positionals: false,
    options: {
      upstream: { type: 'string', multiple: true },
      'upstream-key-env': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      auth: { type: 'string' },
      'requests-per-minute': { type: 'string' },
      alias: { type: 'string', multiple: true },
      'default-model': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(gatewayUsage);
    return 0;
  }
  const port = values.port === undefined ? 4000 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError({ message: '--port takes a number from 0 to 65535.', usage: gatewayUsage });
  const auth = values.auth ?? 'none';
  if (auth !== 'none' && auth !== 'api-keys')
    throw new UsageError({ message: '--auth is "none" or "api-keys".', usage: gatewayUsage });
  const host = values.host ?? '127.0.0.1';
  if (auth === 'none' && !loopbackHosts.has(host))
    throw new UsageError({
      message: `--host ${host} is not a loopback address: serving on it needs --auth api-keys.`,
      usage: gatewayUsage,
    });
  const config = loadCliConfig({ env: io.env });
  const fileConfig = config.file.gateway;
  let requestsPerMinute = fileConfig?.requestsPerMinute;
  if (values['requests-per-minute'] !== undefined) {
    requestsPerMinute = Number(values['requests-per-minute']);
    if (!Number.isSafeInteger(requestsPerMinute) || requestsPerMinute < 1)
      throw new UsageError({
        message: '--requests-per-minute takes a whole number above 0.',
        usage: gatewayUsage,
      });
  }
  const upstreams = upstreamsFrom(values.upstream ?? [], values['upstream-key-env'], fileConfig?.upstreams);
  const models = modelAliasesFrom(values.alias ?? [], values['default-model'], fileConfig?.models);
  const logger = createJsonLogger((line) => io.stderr.write(line));
  // The workspace (storage and what it brings: hundreds of modules) only for the stored keys: the gateway's process
  // otherwise holds just the gateway and the answer repair.
  const workspace =
    auth === 'api-keys' ? await (await import('../open-workspace.ts')).openWorkspace(config) : undefined;
  try {
    const authenticate = workspace === undefined ? undefined : storedKeyAuthenticator(workspace.storage);
    let gateway: Awaited<ReturnType<typeof startGateway>>;
    try {
      gateway = await startGateway({
        upstreams,
        env: io.env,
        host,
        port,
        ...omitUndefined({
          authenticate,
          requestsPerMinute,
          maxRequestBytes: fileConfig?.maxRequestBytes,
          models,
        }),
        // Reads each model's chat template from its server (Ollama, llama.cpp) to learn its call dialect.
        fetch: createNodeHttpFetch() as typeof fetch,
        log: ({ event, ...fields }) => logger.info(event, fields),
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE')
        throw new ToolbusError({
          code: 'port_in_use',
          message: `port ${port} on ${host} is in use: pick another with --port (0 picks a free one).`,
        });
      throw error;
    }
    // Listen for the stop signal before the first line is printed (see serve-command.ts).
    const stop = shutdownSignal(io, 'toolbus gateway');
    io.stdout.write(`toolbus gateway on ${gateway.url}/v1 (auth: ${auth})\n`);
    for (const upstream of upstreams) {
      const served = upstream.models?.length ? ` for ${upstream.models.join(', ')}` : '';
      io.stdout.write(`  upstream ${upstream.name}: ${upstream.baseUrl}${served}\n`);
    }
    for (const [pattern, target] of Object.entries(models ?? {}))
      io.stdout.write(`  alias ${pattern} → ${target}\n`);
    io.stdout.write(`  try: curl ${gateway.url}/v1/models\n`);
    const signal = await stop.received;
    io.stdout.write(`toolbus gateway: ${signal} received, letting requests in flight finish\n`);
    await gateway.close(10_000);
    return EXIT_CODES.ok;
  } finally {
    await workspace?.close();
  }
}

/** Where the gateway forwards with no `--upstream` and none in the config file: Ollama on this machine. */
const defaultUpstream = { name: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1' };

/**
 * The upstreams of the `--upstream [NAME=]URL` flags (else the config file's, else {@link defaultUpstream}),
 * checked by the config file's own schema: a flag and the file refuse the same names, URLs and key variables.
 */
function upstreamsFrom(
  flags: readonly string[],
  keyEnv: string | undefined,
  configured: readonly GatewayUpstream[] | undefined,
): GatewayUpstream[] {
  if (flags.length === 0 && configured !== undefined && configured.length > 0) return [...configured];
  const key = omitUndefined({ apiKeyEnv: keyEnv || undefined });
  const upstreams =
    flags.length === 0
      ? [{ ...defaultUpstream, ...key }]
      : flags.map((flag, index) => {
          // `NAME=URL`; the `=` of a URL's query comes after its `:`, so it is never read as a name.
          const named = /^([^=:/]*)=(.+)$/.exec(flag);
          const name = named ? (named[1] as string) : index === 0 ? 'upstream' : `upstream-${index + 1}`;
          return { name, baseUrl: named ? (named[2] as string) : flag, ...key };
        });
  const checked = gatewayConfigSchema.shape.upstreams.safeParse(upstreams);
  if (checked.success) return upstreams;
  const [issue] = checked.error.issues;
  const [index, field] = issue?.path ?? [];
  // The variable's name may be the key itself, pasted by mistake: the refusal names the flag, never its value.
  const flag = field === 'apiKeyEnv' ? '--upstream-key-env' : `--upstream ${flags[Number(index)]}`;
  throw new UsageError({ message: `${flag}: expected ${issue?.message}.`, usage: gatewayUsage });
}

/**
 * The model aliases: the config file's `gateway.models`, then each `--alias PATTERN=MODEL` over them, then
 * `--default-model` as the `*` pattern; checked by the config file's own schema, so a flag and the file refuse the
 * same patterns. Undefined when there are none.
 */
function modelAliasesFrom(
  flags: readonly string[],
  defaultModel: string | undefined,
  configured: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  const models: Record<string, string> = { ...configured };
  for (const flag of flags) {
    const at = flag.indexOf('=');
    if (at <= 0 || at === flag.length - 1)
      throw new UsageError({
        message: `--alias ${flag}: expected PATTERN=MODEL, e.g. --alias 'claude-*=qwen3-coder'.`,
        usage: gatewayUsage,
      });
    models[flag.slice(0, at)] = flag.slice(at + 1);
  }
  if (defaultModel !== undefined) models['*'] = defaultModel;
  const checked = gatewayConfigSchema.shape.models.safeParse(models);
  if (!checked.success) {
    const [issue] = checked.error.issues;
    const pattern = String(issue?.path[0] ?? '');
    const flag =
      pattern === '*' && defaultModel !== undefined
        ? `--default-model ${defaultModel}`
        : `--alias ${pattern}=${models[pattern] ?? ''}`;
    throw new UsageError({ message: `${flag}: expected ${issue?.message}.`, usage: gatewayUsage });
  }
  return Object.keys(models).length > 0 ? models : undefined;
}
