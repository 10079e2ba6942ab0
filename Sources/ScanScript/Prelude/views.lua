-- prelude 1/6, views: read-only events and the parts the host builds them from.
-- Every prelude chunk runs once per engine, in the full environment, before any user
-- script, as chunk(host, core): `host` holds the Swift functions, `core` is what the
-- chunks share and what the host calls by name (see ScriptEngine+Prelude.swift).
local host, core = ...
local dgetmetatable = debug.getmetatable
local type, next, error, setmetatable, rawget, rawset = type, next, error, setmetatable, rawget, rawset

-- Events are read-only. The host hands over two tables: `fields` with the scalar fields
-- (symbology, text, bytes, ...) and `nested` with the tables (points, bbox, modifiers,
-- siblings). The event is an empty proxy whose metatable's __index is `fields` itself, so
-- reading a scalar is a plain table lookup; nested tables are frozen on first use and cached
-- in `fields`. Writing any field raises. (rawset can still write to the proxy: read-only is
-- a guard against mistakes, not a security boundary.)
local NESTED = {}  -- private key: fields[NESTED] = nested

local function readonly_error() error("scan event is read-only", 2) end

local freeze
local NESTED_NAMES = { "points", "bbox", "modifiers", "siblings" }
local EMPTY  -- frozen defaults for nested tables the host left out (no points, no siblings)

-- The host gives siblings as { frame, i }: the frame's symbol tables (one list shared by the
-- events of the frame) and this event's place in it. The list of the others is made on first
-- read: a frame of n codes costs n, not n * n, until handlers ask.
local function siblings_of(spec)
  local all, me, out = spec[1], spec[2], {}
  for j = 1, #all do
    if j ~= me then out[#out + 1] = all[j] end
  end
  return out
end

local fields_mt = {
  __index = function(fields, k)
    local v = rawget(fields, NESTED)[k]
    if v == nil then return EMPTY[k] end
    if type(v) == "table" then
      if k == "siblings" then v = siblings_of(v) end
      v = freeze(v)
      rawset(fields, k, v)
    end
    return v
  end,
}

-- Generic views for anything else (nested tables, siblings): reads go through a function.
local ORIGINAL, CACHE = {}, {}
local view_mt = {
  __index = function(view, k)
    local v = rawget(view, ORIGINAL)[k]
    if type(v) ~= "table" then return v end
    local cache = rawget(view, CACHE)
    if not cache then cache = {}; rawset(view, CACHE, cache) end
    local w = cache[k]
    if not w then w = freeze(v); cache[k] = w end
    return w
  end,
  __newindex = readonly_error,
  __len = function(view) return #rawget(view, ORIGINAL) end,
  __pairs = function(view)
    local t = rawget(view, ORIGINAL)
    return function(_, k)
      local nk = next(t, k)
      if nk == nil then return nil end
      return nk, view[nk]
    end, view, nil
  end,
  __metatable = "read-only",
  -- The record encoder (lua_shims.c) writes a view as the table it shows, not its private slot.
  __jsonkey = ORIGINAL,
}

function freeze(t)
  if type(t) ~= "table" then return t end
  return setmetatable({ [ORIGINAL] = t }, view_mt)
end

EMPTY = { points = freeze({}), modifiers = freeze({}), siblings = freeze({}),
          bbox = freeze({ x = 0, y = 0, width = 0, height = 0 }) }
local NO_NESTED = {}

local function event_pairs(fields)
  local k, n = nil, 0
  return function()
    if n == 0 then
      repeat k = next(fields, k) until k == nil or (k ~= NESTED and EMPTY[k] == nil)
      if k ~= nil then return k, fields[k] end
    end
    n = n + 1
    local name = NESTED_NAMES[n]
    if name then return name, fields[name] end
  end
end

-- Shared by every event proxy: its metatable's __index is the event's fields.
local function proxy_pairs(proxy) return event_pairs(dgetmetatable(proxy).__index) end

-- The event for values b[k..k+13] of a host batch (LuaEvent.swift, `eventSlots`): its fields
-- table and the read-only proxy handlers see. Table constructors with constant keys are the
-- cheapest way Lua has to make these tables.
local function event_from(b, k)
  local fields = setmetatable({ symbology = b[k], text = b[k + 1], bytes = b[k + 2], charset = b[k + 3],
    orientation = b[k + 4], quality = b[k + 5], source = b[k + 6], frame = b[k + 7], time = b[k + 8] // 1000, time_ms = b[k + 8],
    addon = b[k + 10] or nil, decoder = b[k + 11], symbology_id = b[k + 12] or nil, page = b[k + 13] or nil,
    [NESTED] = b[k + 9] or NO_NESTED }, fields_mt)
  return fields, setmetatable({}, { __index = fields, __newindex = readonly_error, __pairs = proxy_pairs,
    __metatable = "read-only" })
end

-- The parts an event is made of, for the benchmark's plain-Lua baseline (which builds the
-- same tables in its own loop).
local event_parts = { NESTED, NO_NESTED, fields_mt, readonly_error, proxy_pairs }

core.freeze = freeze
core.event_from = event_from
core.event_parts = event_parts
