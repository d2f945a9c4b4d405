/**
 * The Lua scripts behind `RedisStore`. Each compound operation is one script, so Redis runs it
 * atomically: no other client's command can land between its reads and its writes (H4, H6).
 *
 * Keys of a budget `k`: KEYS[1] = `P{k}` (settled counter, JSON integer), KEYS[2] = `P{k}:h`
 * (hash: reservation id -> amount, or `s` for an id settled lately; the field `""`, which no id can
 * be, holds the sum of the live amounts), KEYS[3] = `P{k}:x` (sorted set: id -> expiry, ms on the
 * server's clock). The `{k}` hash tag keeps the three in one Redis Cluster slot.
 *
 * Reading a budget is O(1) in the number of reservations: the sum is kept up to date by every
 * script, and each expired id is purged once (amortized O(1) per reservation), never summed again.
 *
 * Scripts check everything before their first write that changes what a reader sees (purging
 * expired ids changes nothing a reader sees): Redis does not roll a script back when it raises an
 * error halfway.
 */

/** Helpers shared by the scripts: server clock, integer counter, purge of expired ids, the sum of holds. */
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
local function live(holds)
  return tonumber(redis.call('HGET', holds, '') or '0')
end
local function set_live(holds, n)
  if n > 0 then redis.call('HSET', holds, '', int(n)) else redis.call('HDEL', holds, '') end
end
-- The amount held under id, or nil when it is not live (absent, or settled).
local function held(holds, id)
  local v = redis.call('HGET', holds, id)
  return v and tonumber(v) or nil
end
local function purge(holds, expiries, now)
  local dead = redis.call('ZRANGEBYSCORE', expiries, '-inf', now)
  if #dead == 0 then return end
  local freed = 0
  -- In batches: unpack() of thousands of ids would overflow Lua's C stack.
  for i = 1, #dead, 500 do
    local last = math.min(i + 499, #dead)
    for _, v in ipairs(redis.call('HMGET', holds, unpack(dead, i, last))) do
      local n = v and tonumber(v)
      if n then freed = freed + n end
    end
    redis.call('HDEL', holds, unpack(dead, i, last))
  end
  redis.call('ZREMRANGEBYSCORE', expiries, '-inf', now)
  if freed ~= 0 then set_live(holds, live(holds) - freed) end
end
-- Both hold keys expire with their last id, so a crashed worker leaves nothing behind.
local function touch(holds, expiries)
  local last = redis.call('ZRANGE', expiries, -1, -1, 'WITHSCORES')[2]
  if last then
    redis.call('PEXPIREAT', holds, last)
    redis.call('PEXPIREAT', expiries, last)
  else
    redis.call('DEL', holds)
  end
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
  incr: script(
    "agentOnionIncr",
    1,
    `
local by = tonumber(ARGV[1])
check_sum(counter(KEYS[1]) + by)
return add(KEYS[1], ARGV[1], ARGV[2])
`,
  ),

  /**
   * incrWithin: KEYS v, h, x; ARGV by, limit, ttl|''. Add `by` only if settled + live holds + by <= limit;
   * returns { admitted, settled, reserved } after the call.
   */
  incrWithin: script(
    "agentOnionIncrWithin",
    3,
    `
local by, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
purge(KEYS[2], KEYS[3], now_ms())
local settled, reserved = counter(KEYS[1]), live(KEYS[2])
if settled + reserved + by > limit then return { 0, settled, reserved } end
check_sum(settled + reserved + by)
return { 1, add(KEYS[1], ARGV[1], ARGV[3]), reserved }
`,
  ),

  /**
   * reserve: KEYS v, h, x; ARGV id, amount, limit, ttl. Purge expired ids; admit if settled + other
   * live holds + amount <= limit, storing the hold (replacing one under the same id) with its expiry;
   * returns { admitted, settled, reserved } after the call.
   */
  reserve: script(
    "agentOnionReserve",
    3,
    `
local id, amount, limit, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now = now_ms()
purge(KEYS[2], KEYS[3], now)
local settled, reserved = counter(KEYS[1]), live(KEYS[2])
local others = reserved - (held(KEYS[2], id) or 0)
if settled + others + amount > limit then return { 0, settled, reserved } end
redis.call('HSET', KEYS[2], id, ARGV[2])
set_live(KEYS[2], others + amount)
redis.call('ZADD', KEYS[3], int(now + ttl), id)
touch(KEYS[2], KEYS[3])
return { 1, settled, others + amount }
`,
  ),

  /** renew: KEYS h, x; ARGV id, ttl. Make live hold `id` expire ttl ms from now; 1 if it was live, else 0. */
  renew: script(
    "agentOnionRenew",
    2,
    `
local now = now_ms()
purge(KEYS[1], KEYS[2], now)
if not held(KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[2], int(now + tonumber(ARGV[2])), ARGV[1])
touch(KEYS[1], KEYS[2])
return 1
`,
  ),

  /**
   * settle: KEYS v, h, x; ARGV id, actual, ttl|'', keptMs. Drop hold `id` (if live), add `actual` to
   * settled spend (the TTL applies when this creates the counter) and remember `id` as settled for
   * keptMs, so that settling it again adds nothing; returns settled spend.
   */
  settle: script(
    "agentOnionSettle",
    3,
    `
local now = now_ms()
purge(KEYS[2], KEYS[3], now)
local prior = redis.call('HGET', KEYS[2], ARGV[1])
if prior == 's' then return counter(KEYS[1]) end
check_sum(counter(KEYS[1]) + tonumber(ARGV[2]))
local own = prior and tonumber(prior) or 0
if own ~= 0 then set_live(KEYS[2], live(KEYS[2]) - own) end
redis.call('HSET', KEYS[2], ARGV[1], 's')
redis.call('ZADD', KEYS[3], int(now + tonumber(ARGV[4])), ARGV[1])
touch(KEYS[2], KEYS[3])
return add(KEYS[1], ARGV[2], ARGV[3])
`,
  ),

  /** release: KEYS h, x; ARGV id. Drop live hold `id` without spending; an id settled or unknown is left as it is. */
  release: script(
    "agentOnionRelease",
    2,
    `
purge(KEYS[1], KEYS[2], now_ms())
local own = held(KEYS[1], ARGV[1])
if not own then return 0 end
set_live(KEYS[1], live(KEYS[1]) - own)
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
touch(KEYS[1], KEYS[2])
return 1
`,
  ),

  /** used: KEYS v, h, x. Purge expired ids; return { settled, reserved }. */
  used: script(
    "agentOnionUsed",
    3,
    `
purge(KEYS[2], KEYS[3], now_ms())
return { counter(KEYS[1]), live(KEYS[2]) }
`,
  ),
} as const;
