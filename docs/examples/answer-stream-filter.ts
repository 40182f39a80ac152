import { AnswerStreamFilter, defineTool } from 'toolbus';
import * as z from 'zod';

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string() }),
  run: ({ city }) => `Snow in ${city}`,
});

// Text as a weak model streams it, with a Hermes-style call in the middle.
const modelText = [
  'Let me check. <tool',
  '_call>{"name": "get_weather", ',
  '"arguments": {"city": "Oslo"}}</tool_call>',
];

const filter = new AnswerStreamFilter({ tools: [weather.definition()] });
for (const chunk of modelText) process.stdout.write(filter.process(chunk));
process.stdout.write(filter.flush()); // the held text, without the calls it held
process.stdout.write('\n');
// Reasoning the model wrote into its text (Harmony's analysis channel) is never shown; read it with
// filter.takeReasoning() after each process() and flush() if you want to show it as reasoning.
