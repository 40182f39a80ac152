export type { StartRedisServerOptions, TestRedisServer } from './start-redis-server.ts';
export { startRedisServer } from './start-redis-server.ts';
