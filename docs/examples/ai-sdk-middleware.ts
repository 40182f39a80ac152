import { jsonSchema, streamText, wrapLanguageModel } from 'ai';
import { recoveryMiddleware, resolveLanguageModel } from 'toolbus';

// Keep your AI SDK code and add toolbus's recovery of calls written as text to any model (`npm install ai`).
const model = wrapLanguageModel({
  model: resolveLanguageModel(process.env.TOOLBUS_MODEL),
  middleware: recoveryMiddleware,
});
const result = streamText({
  model,
  prompt: 'Weather in Oslo?',
  tools: {
    get_weather: {
      description: 'Current weather for a city',
      inputSchema: jsonSchema<{ city: string }>({
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      }),
    },
  },
});
for await (const text of result.textStream) process.stdout.write(text);
for (const call of await result.toolCalls)
  console.log(`tool call: ${call.toolName} ${JSON.stringify(call.input)}`);
