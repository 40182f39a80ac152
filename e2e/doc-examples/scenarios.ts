// What each example under docs/examples meets when the tests run it: the scripted model's turns (served over real
// HTTP in OpenAI's wire format, named by TOOLBUS_MODEL) and what its output must show.
import type { ScriptedStep, ScriptedTurn } from '@toolbus/core/testing';

export interface ExampleScenario {
  /** The model's turns, in order; absent when the example calls no model. */
  readonly turns?: readonly (ScriptedTurn | readonly ScriptedStep[])[];
  /** The example needs a PostgreSQL database: one is started, named by DATABASE_URL (and TOOLBUS_SECRET_KEY set). */
  readonly postgres?: true;
  /** Every one must match the example's standard output. */
  readonly expect: readonly RegExp[];
}

const text = (...pieces: string[]): ScriptedStep[] => pieces.map((piece) => ({ type: 'text', text: piece }));

export const exampleScenarios: Readonly<Record<string, ExampleScenario>> = {
  'quick-start-tools.ts': {
    expect: [
      /call_1 success/,
      /call_2 call-error invalid_arguments/,
      /call_3 unknown-tool unknown-tool/,
      /call_1 The weather in Oslo: light snow/,
      /call_2 Tool failed with error: The arguments for "get_weather" are invalid/,
      /call_3 Tool failed with error: There is no tool named "no_such_tool"/,
    ],
  },
  'quick-start-turn.ts': {
    turns: [
      [
        { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } },
        { type: 'tool-call', id: 'call_2', name: 'get_weather', arguments: { city: 'Lisbon' } },
      ],
      text('Oslo has light snow; ', 'Lisbon too, oddly.'),
    ],
    expect: [
      /… get_weather \{"city":"Oslo"\}/,
      /✓ call_1 success in \d+ ms/,
      /✓ call_2 success/,
      /Oslo has light snow; Lisbon too, oddly\./,
      /4 messages to keep/,
    ],
  },
  'tool-errors.ts': {
    expect: [
      /orders: execution-error — Tool failed with error: The order system is down; try later\./,
      /invoices: unexpected-error — Tool failed with error: "invoices" stopped with an unexpected internal error/,
      /refunds: execution-error — Tool failed with error: backend returned 503/,
    ],
  },
  'answer-stream-filter.ts': { expect: [/^Let me check\. ?\n$/] },
  'mcp-stdio.ts': {
    turns: [
      [{ type: 'tool-call', id: 'call_1', name: 'echo', arguments: { message: 'hello' } }],
      text('The server said: Echo: hello'),
    ],
    expect: [/echo: success — Echo: hello/, /The server said: Echo: hello/],
  },
  'openapi-tools.ts': {
    expect: [
      /^shop_getOrder\n/,
      /call_1 success \{\n {2}"id": "7"/,
      /call_2 call-error .*HTTP 404 Not Found/,
    ],
  },
  'follow-up-turn.ts': {
    turns: [
      [{ type: 'tool-call', id: 'call_1', name: 'find_order', arguments: { id: '7' } }],
      text('Order 7 shipped on Monday.'),
      // The second question reaches the model with the first turn's call and result in its history.
      {
        match: (request) => request.messages.some((message) => message.toolResults.length > 0),
        steps: text('It held 2 chairs.'),
      },
    ],
    expect: [/find_order: success/, /It held 2 chairs\./],
  },
  'cancellation.ts': {
    turns: [
      [{ type: 'tool-call', id: 'call_1', name: 'build_report', arguments: { topic: 'sales' } }],
      text('Hi!'),
    ],
    expect: [/build_report: aborted/, /stop reason: user-cancelled/, /Hi!/],
  },
  'weak-model.ts': {
    turns: [
      text('<tool_call>\n{"name": "get_weather", ', '"arguments": {"city": "Oslo"}}\n</tool_call>'),
      text('Light snow in Oslo, -3 °C.'),
    ],
    expect: [/^Light snow in Oslo, -3 °C\.\nrecovered 1 call\(s\) written as text\n$/],
  },
  'ai-sdk-middleware.ts': {
    turns: [text('<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>')],
    expect: [/^tool call: get_weather \{"city":"Oslo"\}\n$/],
  },
  'text-stream.ts': {
    turns: [text('Hello', ' there', '.')],
    expect: [/^Hello there\.\n$/],
  },
  'skill-upload.ts': {
    expect: [/^201 \{"name":"weekly-report","files":1\}\n422 \{"code":"corrupt_zip",/],
  },
  'omit-undefined.ts': {
    expect: [
      /^report\.csv: timeout 30000 ms, user none\nreport\.csv: timeout 5000 ms, user ana\n/,
      /timeout undefined ms/,
    ],
  },
  'postgres-storage.ts': {
    postgres: true,
    expect: [/^schema \d+; user Ana\n/, /Weekly sales, week 49: Chairs sold best this week/],
  },
};
