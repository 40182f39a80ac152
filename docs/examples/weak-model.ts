import { defineTool, resolveLanguageModel, runChatTurn, textStream } from 'toolbus';
import * as z from 'zod';

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string() }),
  run: ({ city }) => `The weather in ${city}: light snow, -3 °C`,
});

// A small self-hosted model behind an OpenAI-compatible server (vLLM, llama.cpp, Ollama) often writes its call into
// the answer (`<tool_call>{"name": ...}</tool_call>`, `[get_weather(city="Oslo")]`, ...). toolbus recovers and runs
// it; the user never sees it. The model id picks the dialects tried first.
const model = resolveLanguageModel(
  process.env.TOOLBUS_MODEL ?? 'openai-compatible:http://localhost:8000/v1#qwen2.5-7b',
);
const turn = runChatTurn({
  model,
  messages: [{ role: 'user', content: 'Weather in Oslo?' }],
  tools: [weather],
});
for await (const text of textStream(turn)) process.stdout.write(text);
const result = await turn.result;
console.log(`\nrecovered ${result.recoveredToolCalls} call(s) written as text`);
