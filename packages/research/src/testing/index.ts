export * from './start-research-world.ts';
