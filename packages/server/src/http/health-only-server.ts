import { Hono } from 'hono';
import type { ToolbusServer } from '../create-server.ts';

/**
 * The server as a worker replica shows it: `GET /health` (for the load balancer's checks and for operators) and
 * a 404 naming the reason for everything else, since its API is served by the API replicas.
 */
export function healthOnlyServer(server: ToolbusServer): ToolbusServer {
  const app = new Hono();
  app.get('/health', (context) => server.app.fetch(context.req.raw));
  app.all('*', (context) =>
    context.json(
      {
        error: {
          code: 'not_found',
          message: 'This replica only runs turns (--role worker); send API calls to an API replica.',
        },
      },
      404,
    ),
  );
  return { ...server, app };
}
