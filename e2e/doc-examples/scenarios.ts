// What each example under docs/examples meets when the tests run it: the scripted model's turns (served over real
// HTTP in OpenAI's wire format, named by TOOLBUS_MODEL) and what its output must show.
import type { ScriptedStep, ScriptedTurn } from '@toolbus/core/testing';

export interface ExampleScenario {
  /** The model's turns, in order; absent when the example calls no model. */
  readonly turns?: readonly (ScriptedTurn | readonly ScriptedStep[])[];
  /** Every one must match the example's standard output. */
  readonly expect: readonly RegExp[];
}

const text = (...pieces: string[]): ScriptedStep[] => pieces.map((piece) => ({ type: 'text', text: piece }));

export const exampleScenarios: Readonly<Record<string, ExampleScenario>> = {
  'quick-start-tools.ts': {
    expect: [
      /call_1 success/,
      /call_2 call-error invalid_arguments/,
      /call_3 unknown-tool unknown_tool/,
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
  'text-stream.ts': {
    turns: [text('Hello', ' there', '.')],
    expect: [/^Hello there\.\n$/],
  },
};
