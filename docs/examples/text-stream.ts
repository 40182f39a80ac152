import { resolveLanguageModel, runChatTurn, textStream } from 'toolbus';

// Only the answer, as it streams: tool calls a weak model wrote as text never reach it.
const turn = runChatTurn({
  model: resolveLanguageModel(process.env.TOOLBUS_MODEL),
  messages: [{ role: 'user', content: 'Say hello.' }],
});
for await (const text of textStream(turn)) process.stdout.write(text);
process.stdout.write('\n');
