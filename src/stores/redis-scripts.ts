/**
 * The Lua scripts behind `RedisStore`. Each compound operation is one script, so Redis runs it
 * atomically: no other client's command can land between its reads and its writes (H4, H6).
 *
 * Keys of a budget `k`: KEYS[1] = `P{k}` (settled counter, JSON integer), KEYS[2] = `P{k}:h`
 * (hash: reservation id -> amount), KEYS[3] = `P{k}:x` (sorted set: reservation id -> expiry,
 * ms on the server's clock). The `{k}` hash tag keeps the three in one Redis Cluster slot.
 *
 * Scripts check everything before their first write: Redis does not roll a script back when it
 * raises an error halfway.
 */

/** Helpers shared by the scripts: server clock, integer counter, purge and sum of holds. */
const prelude = `
local MAX = 9007199254740991
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function int(n) return string.format('%.0f', n) end
local function counter(key)
  local v = redis.call('GET', key)
  if not v then return 0 end
  local n = tonumber(v)
  if not string.match(v, '^%-?%d+$') or n == nil or math.abs(n) > MAX then
    error({ err = 'AONOTINT state key does not hold an integer' })
  end
  return n
end
local function check_sum(n)
  if math.abs(n) > MAX then error({ err = 'AORANGE the result would pass the safe integer range' }) end
  return n
end
local function purge(holds, expiries, now)
  local dead = redis.call('ZRANGEBYSCORE', expiries, '-inf', now)
  -- HDEL in batches: unpack() of thousands of ids would overflow Lua's C stack.
  for i = 1, #dead, 500 do
    redis.call('HDEL', holds, unpack(dead, i, math.min(i + 499, #dead)))
  end
  if #dead > 0 then redis.call('ZREMRANGEBYSCORE', expiries, '-inf', now) end
end
local function live(holds)
  local sum = 0
  for _, v in ipairs(redis.call('HVALS', holds)) do sum = sum + tonumber(v) end
  return sum
end
local function add(key, by, ttl)
  local created = redis.call('EXISTS', key) == 0
  local n = redis.call('INCRBY', key, by)
  if created and ttl ~= '' then redis.call('PEXPIRE', key, ttl) end
  return n
end
`;

/**
 * A script's name (as an ioredis command), its key count and its source.
 *
 * @example
 * client.defineCommand(spec.name, { numberOfKeys: spec.numberOfKeys, lua: spec.lua });
 */
export interface ScriptSpec {
  readonly name: string;
  readonly numberOfKeys: number;
  readonly lua: string;
}

const script = (name: string, numberOfKeys: number, body: string): ScriptSpec => ({
  name,
  numberOfKeys,
  lua: prelude + body,
});

/**
 * The scripts, by operation.
 *
 * @example
 * scripts.reserve.name // "agentOnionReserve"
 */
export const scripts = {
  /** incr: KEYS v; ARGV by, ttl|''. Add `by` (may be negative); the TTL applies when this creates the key. */
  incr: script("agentOnionIncr", 1, `
local by = tonumber(ARGV[1])
check_sum(counter(KEYS[1]) + by)
return add(KEYS[1], ARGV[1], ARGV[2])
`),

  /** incrWithin: KEYS v, h, x; ARGV by, limit, ttl|''. Add `by` only if settled + live holds + by <= limit. */
  incrWithin: script("agentOnionIncrWithin", 3, `
local by, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
purge(KEYS[2], KEYS[3], now_ms())
local used = counter(KEYS[1]) + live(KEYS[2])
if used + by > limit then return { 0, used } end
check_sum(used + by)
add(KEYS[1], ARGV[1], ARGV[3])
return { 1, used + by }
`),

  /**
   * reserve: KEYS v, h, x; ARGV id, amount, limit, ttl. Purge expired holds; admit if settled + other
   * live holds + amount <= limit, storing the hold (replacing one under the same id) with its expiry;
   * both hold keys expire with their last hold, so a crashed worker leaves nothing behind.
   */
  reserve: script("agentOnionReserve", 3, `
local id, amount, limit, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now = now_ms()
purge(KEYS[2], KEYS[3], now)
local own = tonumber(redis.call('HGET', KEYS[2], id) or '0')
local others = counter(KEYS[1]) + live(KEYS[2]) - own
if others + amount > limit then return { 0, others + own } end
redis.call('HSET', KEYS[2], id, ARGV[2])
redis.call('ZADD', KEYS[3], int(now + ttl), id)
local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')[2]
redis.call('PEXPIREAT', KEYS[2], last)
redis.call('PEXPIREAT', KEYS[3], last)
return { 1, others + amount }
`),

  /**
   * settle: KEYS v, h, x; ARGV id, actual, ttl|''. Drop hold `id` (if live) and add `actual` to
   * settled spend (the TTL applies when this creates the counter); returns settled spend.
   */
  settle: script("agentOnionSettle", 3, `
check_sum(counter(KEYS[1]) + tonumber(ARGV[2]))
purge(KEYS[2], KEYS[3], now_ms())
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return add(KEYS[1], ARGV[2], ARGV[3])
`),

  /** release: KEYS h, x; ARGV id. Drop hold `id` without spending. */
  release: script("agentOnionRelease", 2, `
purge(KEYS[1], KEYS[2], now_ms())
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`),

  /** used: KEYS v, h, x. Purge expired holds; return settled spend plus live holds. */
  used: script("agentOnionUsed", 3, `
purge(KEYS[2], KEYS[3], now_ms())
return counter(KEYS[1]) + live(KEYS[2])
`),
} as const;
