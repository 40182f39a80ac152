import { z } from 'zod';

/** What every failed request answers: a stable code, a message to show, and the request field at fault. */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string().describe('Stable: not_found, invalid_request, unauthorized, …'),
    message: z.string(),
    field: z.string().optional().describe('The request field at fault, e.g. body.content'),
  }),
});

/** `GET /health`: serving, how many turns run, and the state of the parts the server depends on. */
export const healthSchema = z.object({
  ok: z.literal(true),
  runningTurns: z.number(),
  status: z.enum(['ok', 'degraded']).optional(),
  components: z
    .record(
      z.string(),
      z.object({ status: z.enum(['ok', 'degraded', 'down']), detail: z.string().optional() }),
    )
    .optional(),
});
