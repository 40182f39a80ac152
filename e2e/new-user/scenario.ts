// What the scripted model answers e2e/new-user/support-agent.ts, turn by turn, and what its output must show.
// The follow-up and the turn after the cancelled one are matched on the history they must carry, so a program
// that dropped its history would get no answer.
import type { ScriptedRequest, ScriptedStep } from '@toolbus/core/testing';
import type { ExampleScenario } from '../doc-examples/scenarios.ts';

const text = (...pieces: string[]): ScriptedStep[] => pieces.map((piece) => ({ type: 'text', text: piece }));
const hasToolResult = (request: ScriptedRequest, toolCallId: string) =>
  request.messages.some((message) => message.toolResults.some((result) => result.toolCallId === toolCallId));

/** The program, relative to the repository. */
export const supportAgentFile = 'e2e/new-user/support-agent.ts';

export const supportAgentScenario: ExampleScenario = {
  turns: [
    // Two tools in parallel, one of them failing.
    [
      { type: 'tool-call', id: 'call_weather', name: 'get_weather', arguments: { city: 'Oslo' } },
      { type: 'tool-call', id: 'call_stock', name: 'check_stock', arguments: { product: 'blue chair' } },
    ],
    text('Light snow in Oslo; ', 'the stock system is down.'),
    // A follow-up: answered only if the first turn's results are in the history.
    {
      match: (request) => hasToolResult(request, 'call_weather'),
      steps: text('It said: light snow, -3 °C.'),
    },
    // MCP over stdio.
    [{ type: 'tool-call', id: 'call_echo', name: 'echo', arguments: { message: 'hello' } }],
    text('The server said: Echo: hello'),
    // A weak model writes its call as text.
    text('<tool_call>\n{"name": "get_weather", ', '"arguments": {"city": "Lisbon"}}\n</tool_call>'),
    text('Light snow in Lisbon too.'),
    // A call the user cancels.
    [{ type: 'tool-call', id: 'call_report', name: 'build_report', arguments: { topic: 'sales' } }],
    // The conversation goes on after it: the cancelled call has its result in the history.
    { match: (request) => hasToolResult(request, 'call_report'), steps: text('Hi!') },
  ],
  expect: [
    /get_weather: success — The weather in Oslo: light snow, -3 °C/,
    /check_stock: execution-error — The stock system is down\./,
    /< Light snow in Oslo; the stock system is down\. \[finished, 0 recovered\]/,
    /< It said: light snow, -3 °C\. \[finished, 0 recovered\]/,
    /echo: success — Echo: hello/,
    /get_weather: success — The weather in Lisbon/,
    /< Light snow in Lisbon too\. \[finished, 1 recovered\]/,
    /build_report: aborted/,
    /\[user-cancelled, 0 recovered\]/,
    /< Hi! \[finished, 0 recovered\]\n$/,
  ],
};
