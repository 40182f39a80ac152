// What a new user's first ten minutes need around the real `toolbus serve`: the scripted model that plays the
// assistant (over real HTTP), a loopback OpenAPI service to add as a tool, and its OpenAPI document.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chunkText, type ScriptedRequest, type ScriptedStep } from '@toolbus/core/testing';
import { TITLE_INSTRUCTION } from '../../../packages/server/src/chats/chat-titles.ts';

function lastUserText(request: ScriptedRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index -= 1) {
    const message = request.messages[index];
    if (message?.role === 'user') return message.text;
  }
  return '';
}

function answer(text: string): ScriptedStep[] {
  return chunkText(text, 12).flatMap((piece) => [
    { type: 'delay', ms: 10 } as const,
    { type: 'text', text: piece } as const,
  ]);
}

const chartCode = [
  'import matplotlib',
  "matplotlib.use('Agg')",
  'import matplotlib.pyplot as plt',
  "plt.bar(['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], [12, 19, 7, 15, 22], color='#4f7cff')",
  "plt.title('Support tickets this week')",
  "plt.savefig('tickets.png')",
  "print('saved tickets.png')",
].join('\n');

/**
 * The assistant of the first ten minutes: greets, draws a chart with run_python, answers from the uploaded
 * handbook with internal_search, and with a persona's tools calls the OpenAPI weather operation and the MCP echo
 * tool, answering from what they returned. It finds the tools by the names the server offers it.
 */
export function firstTenMinutesModel(): (request: ScriptedRequest) => ScriptedStep[] {
  return (request) => {
    if (request.messages.some((message) => message.role === 'system' && message.text === TITLE_INSTRUCTION))
      return [{ type: 'text', text: 'First steps with toolbus' }];
    const question = lastUserText(request);
    const last = request.messages.at(-1);
    const results = last?.role === 'tool' ? request.messages.filter((m) => m.role === 'tool') : [];
    const resultText = results.flatMap((message) => message.toolResults.map((result) => result.content));
    if (question.includes('chart')) {
      if (results.length === 0)
        return [{ type: 'tool-call', id: 'call_chart', name: 'run_python', arguments: { code: chartCode } }];
      return answer('Here is the chart of this week’s tickets: Friday was the busiest day.');
    }
    if (question.includes('handbook')) {
      if (results.length === 0)
        return [
          {
            type: 'tool-call',
            id: 'call_handbook',
            name: 'internal_search',
            arguments: { queries: ['refunds'] },
          },
        ];
      const cited = /\[(\d+)\]/.exec(resultText.join('\n'))?.[1];
      return answer(
        cited ? `The handbook says refunds take **14 days** [${cited}].` : 'The handbook has nothing on it.',
      );
    }
    if (question.includes('weather')) {
      const weather = request.toolNames.find((name) => /weather/i.test(name));
      const echo = request.toolNames.find((name) => /echo/i.test(name));
      if (!weather || !echo)
        return answer(`I lack a tool for that (I have: ${request.toolNames.join(', ')}).`);
      if (results.length === 0)
        return [
          { type: 'tool-call', id: 'call_weather', name: weather, arguments: { city: 'Paris' } },
          { type: 'tool-call', id: 'call_echo', name: echo, arguments: { message: 'bonjour' } },
        ];
      const all = resultText.join('\n');
      const degrees = /"temperature":\s*(-?\d+)/.exec(all)?.[1] ?? 'unknown';
      const echoed = /Echo: (\w+)/.exec(all)?.[1] ?? 'nothing';
      return answer(
        `It is ${degrees} °C in Paris, says the weather service; the echo server said "${echoed}".`,
      );
    }
    return answer('Hello! I can chart data, read your documents and use the tools you add.');
  };
}

/** A loopback weather service with an OpenAPI document, as a team's internal API would be. */
export interface WeatherService {
  readonly url: string;
  /** The `city` of every request it answered. */
  readonly asked: string[];
  /** Its OpenAPI document (JSON), as an admin would download it. */
  document(): string;
  close(): Promise<void>;
}

export async function startWeatherService(): Promise<WeatherService> {
  const asked: string[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== '/weather') {
      response.writeHead(404).end();
      return;
    }
    const city = url.searchParams.get('city') ?? '';
    asked.push(city);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ city, temperature: 21, sky: 'clear' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    asked,
    document: () =>
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Weather', version: '1.0.0' },
        servers: [{ url }],
        paths: {
          '/weather': {
            get: {
              operationId: 'getWeather',
              summary: 'The current weather in a city',
              parameters: [{ name: 'city', in: 'query', required: true, schema: { type: 'string' } }],
              responses: {
                '200': {
                  description: 'The weather',
                  content: { 'application/json': { schema: { type: 'object' } } },
                },
              },
            },
          },
        },
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
