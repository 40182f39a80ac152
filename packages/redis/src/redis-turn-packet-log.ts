import type { PacketLogRead, SharedTurnPacketLog } from '@toolbus/server';
import type { StoredPacket } from '@toolbus/storage';
import type { Redis } from 'ioredis';
import type { BlockingConnections } from './blocking-connections.ts';
import type { RedisKeys } from './redis-keys.ts';
import { RedisScaleOutError } from './redis-scale-out-error.ts';

/** How long a turn's stream stays in Redis after its end (followers after that replay from storage). */
export const DEFAULT_ENDED_TURN_RETENTION_MS = 10 * 60_000;

const pageSize = 500;

// Appends packets with their sequence as the entry id `0-<sequence>`, so Redis itself keeps the order: an id at or
// below the last is skipped (a repeat), one past the next is a gap and refused. The end is entry `1-0`.
const appendScript = `
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local last = 0
if #top > 0 then
  local id = top[1][1]
  if string.sub(id, 1, 2) == '1-' then return -1 end
  last = tonumber(string.match(id, '^0%-(%d+)$'))
end
for i = 1, #ARGV, 2 do
  local sequence = tonumber(ARGV[i])
  if sequence > last then
    if sequence ~= last + 1 then return -2 - last end
    redis.call('XADD', KEYS[1], '0-' .. sequence, 'p', ARGV[i + 1])
    last = sequence
  end
end
return last
`;

const endScript = `
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #top == 0 or string.sub(top[1][1], 1, 2) ~= '1-' then
  redis.call('XADD', KEYS[1], '1-0', 'end', '1')
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

type StreamEntry = [id: string, fields: string[]];

/**
 * A turn's packets in a Redis Stream: any replica serves a resume with `XRANGE` after the cursor and then follows
 * live with `XREAD BLOCK` (on a connection of its own), reading each packet once, in order.
 */
export class RedisTurnPacketLog implements SharedTurnPacketLog {
  readonly #redis: Redis;
  readonly #blocking: BlockingConnections;
  readonly #keys: RedisKeys;
  readonly #retentionMs: number;

  constructor(options: {
    readonly redis: Redis;
    readonly blocking: BlockingConnections;
    readonly keys: RedisKeys;
    readonly endedRetentionMs?: number;
  }) {
    this.#redis = options.redis;
    this.#blocking = options.blocking;
    this.#keys = options.keys;
    this.#retentionMs = options.endedRetentionMs ?? DEFAULT_ENDED_TURN_RETENTION_MS;
  }

  async append(chatId: string, turn: number, packets: readonly StoredPacket[]): Promise<void> {
    if (packets.length === 0) return;
    const args: string[] = [];
    for (const packet of packets) args.push(String(packet.sequence), JSON.stringify(packet.packet));
    const last = (await this.#redis.eval(
      appendScript,
      1,
      this.#keys.packets(chatId, turn),
      ...args,
    )) as number;
    if (last === -1) {
      throw new RedisScaleOutError({
        code: 'turn_log_ended',
        message: `Turn ${turn} of chat ${chatId} has ended in the packet log; nothing more can be appended.`,
      });
    }
    if (last < -1) {
      throw new RedisScaleOutError({
        code: 'packet_gap',
        message: `Turn ${turn} of chat ${chatId}: the packet log ends at ${-2 - last} and cannot take packet ${packets[0]?.sequence} (packets would be missing).`,
      });
    }
  }

  async end(chatId: string, turn: number): Promise<void> {
    await this.#redis.eval(endScript, 1, this.#keys.packets(chatId, turn), String(this.#retentionMs));
  }

  async lastSequence(chatId: string, turn: number): Promise<number> {
    const top = (await this.#redis.xrevrange(
      this.#keys.packets(chatId, turn),
      '(1-0',
      '-',
      'COUNT',
      1,
    )) as StreamEntry[];
    return top[0] ? sequenceOf(top[0][0]) : 0;
  }

  async read(
    chatId: string,
    turn: number,
    after: number,
    options: { readonly blockMs: number },
  ): Promise<PacketLogRead> {
    const key = this.#keys.packets(chatId, turn);
    const entries = (await this.#redis.xrange(key, `(0-${after}`, '+', 'COUNT', pageSize)) as StreamEntry[];
    if (entries.length > 0 || options.blockMs <= 0) return decode(entries, after);
    const blocked = await this.#blocking.with(
      (connection) =>
        connection.xread(
          'COUNT',
          pageSize,
          'BLOCK',
          options.blockMs,
          'STREAMS',
          key,
          `0-${after}`,
        ) as Promise<[string, StreamEntry[]][] | null>,
    );
    return decode(blocked?.[0]?.[1] ?? [], after);
  }
}

function sequenceOf(id: string): number {
  return Number(id.slice(2));
}

function decode(entries: readonly StreamEntry[], after: number): PacketLogRead {
  const packets: StoredPacket[] = [];
  let ended = false;
  let expected = after + 1;
  for (const [id, fields] of entries) {
    if (id.startsWith('1-')) {
      ended = true;
      break;
    }
    const sequence = sequenceOf(id);
    if (sequence !== expected) {
      throw new RedisScaleOutError({
        code: 'packet_gap',
        message: `The packet log holds packet ${sequence} where ${expected} was expected.`,
      });
    }
    const payload = fields[fields.indexOf('p') + 1];
    packets.push({ sequence, packet: JSON.parse(payload ?? 'null') as unknown });
    expected += 1;
  }
  return { packets, ended };
}
