import { omitUndefined, ToolbusError } from '@toolbus/spec';
import type { Hono } from 'hono';
import type { ServerLogger } from '../server-logger.ts';
import { toErrorAnswer } from './error-answer.ts';
import { ServerError } from './server-error.ts';

/**
 * Makes every failure of `app` a JSON error (`{ error: { code, message, field } }`, the shape `@toolbus/api-schema`
 * declares as `errorBodySchema`) with its status: what a handler throws is mapped by {@link toErrorAnswer}, an
 * unknown path is a 404. A 500 is logged as a bug (its code only); a refusal by a rule or a dependency as a warning.
 */
export function answerErrorsAsJson(app: Hono, logger: ServerLogger): void {
  app.onError((error, context) => {
    const answer = toErrorAnswer(error);
    const where = { method: context.req.method, path: context.req.routePath };
    if (answer.status === 500) {
      logger.error('request.failed', {
        ...where,
        error: ToolbusError.isInstance(error) ? error.code : 'internal_error',
      });
    } else if (!ServerError.isInstance(error)) {
      // A rule or a dependency refused it (an SSRF block, an MCP server that would not start): not a bug.
      logger.warn('request.refused', { ...where, status: answer.status, error: answer.code });
    }
    if (answer.retryAfterSeconds !== undefined)
      context.header('retry-after', String(answer.retryAfterSeconds));
    return context.json(
      {
        error: {
          code: answer.code,
          message: answer.message,
          ...omitUndefined({ field: answer.field }),
        },
      },
      answer.status as 400,
    );
  });
  app.notFound((context) =>
    context.json(
      { error: { code: 'not_found', message: `No route ${context.req.method} ${context.req.path}.` } },
      404,
    ),
  );
}
