export type {
  AgentBehaviour,
  BackendHit,
  OrchestratorScript,
  ResearchWorld,
} from './start-research-world.ts';
export { startResearchWorld } from './start-research-world.ts';
