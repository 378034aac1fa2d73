//! The Lua scripts `RedisStore` runs: each one atomic, so that every replica sees a claim, a
//! budget's count and the store's whole count change together.
//!
//! `KEYS` are the record, the marker, the account of the record's budget (a hash: per record
//! of the budget, when it expires, its size and its stage, `till:size:R` or `till:size:D`)
//! and the store's count (a hash: per budget, its live records and their bytes,
//! `records:bytes`, as last counted).

/// What every script starts with. Leaves `now` (ms since the epoch, Redis's clock),
/// `account(field, ms, size, stage)`, which enters a record that holds for `ms` more,
/// `holder(record)`, the token of a running record, and `tally(account)`, which drops the
/// expired entries of an account and answers its live records, their bytes, and its oldest
/// completed record (field and size).
pub(super) const PRELUDE: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local function account(field, ms, size, stage)
  redis.call('HSET', KEYS[3], field, (now + ms) .. ':' .. size .. ':' .. stage)
  if redis.call('PTTL', KEYS[3]) < ms then
    redis.call('PEXPIRE', KEYS[3], ms)
  end
end
local function holder(record)
  return record and string.match(record, '^R%d+|(.+)$')
end
local function parse(entry)
  local till, size, stage = string.match(entry, '^(%d+):(%d+):?(%a?)$')
  return tonumber(till), tonumber(size), stage
end
local function tally(account_key)
  local held = redis.call('HGETALL', account_key)
  local records, bytes, oldest, oldest_till, oldest_size = 0, 0, nil, nil, 0
  for i = 1, #held, 2 do
    local till, size, stage = parse(held[i + 1])
    if not till or till <= now then
      redis.call('HDEL', account_key, held[i])
    else
      records = records + 1
      bytes = bytes + size
      if stage == 'D' and (not oldest_till or till < oldest_till) then
        oldest, oldest_till, oldest_size = held[i], till, size
      end
    end
  end
  return records, bytes, oldest, oldest_size
end
";

/// The marker check that claims and renewals make. The marker is an id and the end of a quiet
/// time (ms, `0` for none). `ARGV[1]` is the marker this store saw last (`''` if none yet),
/// `ARGV[2]` an id for a new marker, `ARGV[3]` the lease. A missing marker that the store saw
/// before, or another marker whose quiet time is over (another store's first start after the
/// loss), means Redis lost records: a quiet time of a lease starts. Leaves `marker` and
/// `quiet` (the ms left of the quiet time).
pub(super) const MARKER: &str = r"
local marker = redis.call('GET', KEYS[2])
local function quiet_end(m)
  return tonumber(string.match(m, ':(%d+)$')) or 0
end
if not marker then
  local till = 0
  if ARGV[1] ~= '' then till = now + tonumber(ARGV[3]) end
  marker = ARGV[2] .. ':' .. till
  redis.call('SET', KEYS[2], marker)
elseif ARGV[1] ~= '' and marker ~= ARGV[1] and quiet_end(marker) <= now then
  marker = ARGV[2] .. ':' .. (now + tonumber(ARGV[3]))
  redis.call('SET', KEYS[2], marker)
end
local quiet = math.max(quiet_end(marker) - now, 0)
";

/// Claims the record for the token `ARGV[4]` under a lease of `ARGV[3]` ms, kept `ARGV[8]`
/// ms, entered in its budget's account as `ARGV[5]`. `ARGV[9]` is the store's prefix,
/// `ARGV[10]` the budget's name in the count; `ARGV[6]`, `ARGV[7]` the most records and bytes
/// of one budget, `ARGV[11]`, `ARGV[12]` of the whole store, `ARGV[13]`, `ARGV[14]` the least
/// a budget's share leaves it.
///
/// A budget's share is the store divided among the budgets that hold records, within the
/// least and the most. A claim past its budget's share evicts the budget's oldest completed
/// records; one past the whole store's bound, the oldest completed record of the budget that
/// holds the most. Answers `{marker, 'quiet', ms left}`, `{marker, 'found', record}`,
/// `{marker, 'lapsed', record}` (a running record whose lease ran out), `{marker, 'lost'}` (the
/// account holds a live entry for a record Redis no longer has), `{marker, 'full', records,
/// bytes}` (the budget's share is calls in progress), `{marker, 'busy', records, bytes}` (the
/// store is) or `{marker, 'claimed'}`.
pub(super) const CLAIM: &str = r"
if quiet > 0 then
  return {marker, 'quiet', tostring(quiet)}
end
local found = redis.call('GET', KEYS[1])
if found then
  local lease_end = string.match(found, '^R(%d+)|')
  if lease_end and tonumber(lease_end) <= now then
    return {marker, 'lapsed', found}
  end
  return {marker, 'found', found}
end
local entered = redis.call('HGET', KEYS[3], ARGV[5])
if entered then
  local till = parse(entered)
  if till and till > now then
    return {marker, 'lost'}
  end
end
local lease = tonumber(ARGV[3])
local running = 'R' .. (now + lease) .. '|' .. ARGV[4]
local size = string.len(KEYS[1]) + string.len(running)
local prefix, budget = ARGV[9], ARGV[10]
local counts, total_records, total_bytes = {}, 0, 0
local listed = redis.call('HGETALL', KEYS[4])
for i = 1, #listed, 2 do
  local r, b = string.match(listed[i + 1], '^(%d+):(%d+)$')
  if r then
    counts[listed[i]] = {tonumber(r), tonumber(b)}
    total_records = total_records + tonumber(r)
    total_bytes = total_bytes + tonumber(b)
  end
end
local function count(name)
  local r, b, oldest, oldest_size = tally(prefix .. 'scope:' .. name)
  local before = counts[name] or {0, 0}
  total_records = total_records - before[1] + r
  total_bytes = total_bytes - before[2] + b
  if r > 0 then
    counts[name] = {r, b}
    redis.call('HSET', KEYS[4], name, r .. ':' .. b)
  else
    counts[name] = nil
    redis.call('HDEL', KEYS[4], name)
  end
  return oldest, oldest_size
end
local function enter(name, r, b)
  counts[name] = {r, b}
  redis.call('HSET', KEYS[4], name, r .. ':' .. math.max(b, 0))
end
local function evict(name, field, field_size)
  redis.call('DEL', prefix .. field)
  redis.call('HDEL', prefix .. 'scope:' .. name, field)
  local c = counts[name]
  total_records = total_records - 1
  total_bytes = total_bytes - field_size
  enter(name, c[1] - 1, c[2] - field_size)
end
local oldest, oldest_size = count(budget)
local budgets = 0
for _ in pairs(counts) do budgets = budgets + 1 end
if not counts[budget] then budgets = budgets + 1 end
local function share(whole, most, least)
  return math.min(math.max(math.floor(whole / budgets), least), most)
end
local share_records = math.max(share(tonumber(ARGV[11]), tonumber(ARGV[6]), tonumber(ARGV[13])), 1)
local share_bytes = share(tonumber(ARGV[12]), tonumber(ARGV[7]), tonumber(ARGV[14]))
local function mine()
  local c = counts[budget] or {0, 0}
  return c[1], c[2]
end
local function over()
  local records, bytes = mine()
  return records + 1 > share_records or bytes + size > share_bytes
end
while over() do
  if not oldest then
    local records, bytes = mine()
    return {marker, 'full', tostring(records), tostring(bytes)}
  end
  evict(budget, oldest, oldest_size)
  if over() then
    oldest, oldest_size = count(budget)
  end
end
local spent = {}
while total_records + 1 > tonumber(ARGV[11]) or total_bytes + size > tonumber(ARGV[12]) do
  local by_records = total_records + 1 > tonumber(ARGV[11])
  local heaviest, most = nil, -1
  for name, c in pairs(counts) do
    local weight = c[2]
    if by_records then weight = c[1] end
    if not spent[name] and weight > most then
      heaviest, most = name, weight
    end
  end
  if not heaviest then
    return {marker, 'busy', tostring(total_records), tostring(total_bytes)}
  end
  local victim, victim_size = count(heaviest)
  if victim then
    evict(heaviest, victim, victim_size)
  else
    spent[heaviest] = true
  end
end
redis.call('SET', KEYS[1], running, 'PX', math.max(tonumber(ARGV[8]), lease))
account(ARGV[5], math.max(tonumber(ARGV[8]), lease), size, 'R')
local records, bytes = mine()
enter(budget, records + 1, bytes + size)
return {marker, 'claimed'}";

/// Extends the lease of the claim `ARGV[4]` (entered as `ARGV[5]`) to `ARGV[3]` ms from now,
/// its lease run out or not, while it is still the key's, or puts it back when the key has no
/// record (Redis lost it): the call still runs. `{marker, '1'}` when the key is the claim's,
/// `{marker, '0'}` when another record holds it.
pub(super) const RENEW: &str = r"
local record = redis.call('GET', KEYS[1])
if record and holder(record) ~= ARGV[4] then
  return {marker, '0'}
end
local lease = tonumber(ARGV[3])
local running = 'R' .. (now + lease) .. '|' .. ARGV[4]
local px = lease
if record then
  px = math.max(redis.call('PTTL', KEYS[1]), lease)
end
redis.call('SET', KEYS[1], running, 'PX', px)
local entered = redis.call('HGET', KEYS[3], ARGV[5])
if not entered or (parse(entered) or 0) <= now then
  account(ARGV[5], px, string.len(KEYS[1]) + string.len(running), 'R')
end
return {marker, '1'}";

/// Records the outcome `ARGV[2]` for `ARGV[3]` ms (entered as `ARGV[4]`, in the budget named
/// `ARGV[5]` in the count) while the key is still the claim `ARGV[1]`, its lease run out or
/// not, or has no record at all (Redis lost the claim: the call ran, and its outcome is the
/// key's).
pub(super) const COMPLETE: &str = r"
local record = redis.call('GET', KEYS[1])
if not record or holder(record) == ARGV[1] then
  local size = string.len(KEYS[1]) + string.len(ARGV[2])
  local prior = redis.call('HGET', KEYS[3], ARGV[4])
  local prior_till, prior_size = nil, 0
  if prior then
    prior_till, prior_size = parse(prior)
  end
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  account(ARGV[4], tonumber(ARGV[3]), size, 'D')
  local listed = redis.call('HGET', KEYS[4], ARGV[5])
  local records, bytes = 0, 0
  if listed then
    local r, b = string.match(listed, '^(%d+):(%d+)$')
    records, bytes = tonumber(r) or 0, tonumber(b) or 0
  end
  if prior_till and prior_till > now then
    bytes = bytes - (prior_size or 0) + size
  else
    records, bytes = records + 1, bytes + size
  end
  redis.call('HSET', KEYS[4], ARGV[5], records .. ':' .. math.max(bytes, 0))
  return 1
end
return 0";

/// Deletes the claim `ARGV[1]` (entered as `ARGV[2]`) while it is still the key's.
pub(super) const RELEASE: &str = r"
if holder(redis.call('GET', KEYS[1])) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('HDEL', KEYS[3], ARGV[2])
  return 1
end
return 0";
