import type { Bus } from './bus.ts';
import { MemoryBus } from './memory.ts';
import { RedisBus } from './redis.ts';

export * from './bus.ts';
export { MemoryBus, RedisBus };

export function createBus(redisUrl?: string, opts: { prefix?: string; retainMs?: Record<string, number> } = {}): Bus {
  return redisUrl ? RedisBus.connect(redisUrl, opts) : new MemoryBus();
}
