export type { CitingModelHandlerOptions } from './citing-model-handler.ts';
export { createCitingModelHandler } from './citing-model-handler.ts';
export type { TestRunContext, TestRunContextOptions } from './create-test-run-context.ts';
export { createTestRunContext } from './create-test-run-context.ts';
export { freeLoopbackPort } from './free-loopback-port.ts';
export type { ScriptedModelServer, ScriptedModelServerOptions } from './scripted-model-server.ts';
export { startScriptedModelServer } from './scripted-model-server.ts';
export type {
  ScriptedFinishReason,
  ScriptedMessage,
  ScriptedRequest,
  ScriptedRequestOutcome,
  ScriptedStep,
  ScriptedTurn,
  ScriptedTurnMatcher,
} from './scripted-turn.ts';
export { chunkText, cutText, splitTextAt, textSteps } from './scripted-turn.ts';
export type {
  LoopbackHttpHandler,
  LoopbackHttpServer,
  ReceivedHttpRequest,
} from './start-loopback-http-server.ts';
export { startLoopbackHttpServer } from './start-loopback-http-server.ts';
export type { PacketOfType } from './turn-packets.ts';
export { collectTurn, packetsOfType } from './turn-packets.ts';
