import { defineTool, resolveLanguageModel, runChatTurn } from 'toolbus';
import * as z from 'zod';

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string() }),
  run: ({ city }) => `The weather in ${city}: light snow, -3 °C`,
});

// TOOLBUS_MODEL picks the model: ollama:qwen2.5:7b, openai:gpt-4.1 (OPENAI_API_KEY), anthropic:claude-sonnet-4-5,
// openai-compatible:http://localhost:8000/v1#my-model (vLLM, llama.cpp, LM Studio). Unset: a local Ollama.
// Any AI SDK model instance works too: runChatTurn({ model: openai('gpt-4.1'), ... }).
const model = resolveLanguageModel(process.env.TOOLBUS_MODEL);
const turn = runChatTurn({
  model,
  messages: [{ role: 'user', content: 'Weather in Oslo and Lisbon?' }],
  tools: [weather],
});
for await (const { obj } of turn) {
  if (obj.type === 'tool-start') console.log(`… ${obj.displayName} ${JSON.stringify(obj.arguments)}`);
  if (obj.type === 'tool-end')
    console.log(`${obj.error ? '✗' : '✓'} ${obj.toolCallId} ${obj.status} in ${obj.durationMs} ms`);
  if (obj.type === 'message-delta') process.stdout.write(obj.content);
}
const { answer, messages } = await turn.result; // `messages`: this turn's history, to send with the next question
console.log(`\n${answer.length} characters; ${messages.length} messages to keep`);
