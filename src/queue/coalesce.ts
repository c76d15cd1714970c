/**
 * Coalesce a Redis connection's writes: commands sent during one event-loop turn leave in one
 * socket write when the turn ends, not one write each. A busy push worker completes several
 * jobs per turn, and on a virtual machine each socket write costs about as much CPU as the
 * JavaScript of the command that made it. Commands still leave in order, at the latest with
 * the next turn's immediates (before the loop waits for I/O again).
 */
import type { Redis } from "ioredis";

export function coalesceWrites(redis: Redis): Redis {
  const send = redis.sendCommand.bind(redis);
  let corked: Redis["stream"] | null = null;
  const uncork = () => {
    corked?.uncork();
    corked = null;
  };
  redis.sendCommand = (...args: Parameters<Redis["sendCommand"]>) => {
    const socket = redis.stream;
    // Only a connected socket is corked: before "ready", ioredis queues commands itself.
    if (corked === null && redis.status === "ready" && socket && !socket.destroyed) {
      corked = socket;
      socket.cork();
      setImmediate(uncork);
    }
    return send(...args);
  };
  return redis;
}
