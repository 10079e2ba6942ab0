-- prelude 5/6, sandbox: the globals user chunks see, and trust.
local host, core = ...
local dgetmetatable = debug.getmetatable
local tripped, memory_refused = host.limits.tripped, host.limits.memory_refused
local raw_pcall, raw_xpcall = pcall, xpcall
local type, pairs, ipairs, tostring, error, select = type, pairs, ipairs, tostring, error, select
local tconcat = table.concat
local memory_message = "not enough memory"

-- A pcall that cannot swallow the instruction budget or the memory cap: once either
-- fired, the error goes on up to the handler's own protected call.
local function rethrow_fatal(ok, ...)
  if not ok and (tripped() or (memory_refused() and (...) == memory_message)) then error((...), 0) end
  return ok, ...
end
local function safe_pcall(f, ...) return rethrow_fatal(raw_pcall(f, ...)) end
local function safe_xpcall(f, msgh, ...) return rethrow_fatal(raw_xpcall(f, msgh, ...)) end

local function copy_fields(src, names)
  local t = {}
  for _, n in ipairs(names) do t[n] = src[n] end
  return t
end

-- A read-only view of a library table: reads and pairs see it, writes raise.
local FROZEN = {}
local function frozen(lib, name)
  return setmetatable({}, {
    __index = lib, [FROZEN] = lib,
    __newindex = function(_, k) error("the " .. name .. " library is read-only (cannot set '" .. tostring(k) .. "')", 2) end,
    __pairs = function() return next, lib, nil end,
    __len = function() return #lib end,
    __metatable = "read-only",
  })
end

local function deep_copy_lib(lib)
  local t = {}
  for k, v in pairs(lib) do t[k] = v end
  return t
end

local env = {}  -- the globals every user chunk sees
local full = _G

local function stderr_print(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  host.log("print", tconcat(parts, "\t"))
end

-- Text chunks only, in the sandbox's globals unless given others; compiling is charged too.
local sandbox_load = host.limits.metered(load, "load", env)

local function fill_sandbox()
  for _, n in ipairs { "assert", "error", "ipairs", "next", "pairs", "rawequal", "rawget", "rawlen", "rawset",
      "select", "setmetatable", "getmetatable", "tonumber", "tostring", "type", "_VERSION" } do
    env[n] = full[n]
  end
  env.pcall, env.xpcall = safe_pcall, safe_xpcall
  -- No finalizers: Lua runs __gc with hooks off (during collection and at close), so a looping
  -- one could not be stopped by the instruction budget. (Lua marks an object for finalization
  -- only when its metatable has __gc at setmetatable time, so checking here is enough.)
  local raw_setmetatable = setmetatable
  env.setmetatable = function(t, mt)
    if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
      error("setmetatable: __gc finalizers are not available in the sandbox", 2)
    end
    return raw_setmetatable(t, mt)
  end
  env.print = stderr_print
  env.load = sandbox_load
  -- Library functions whose work in C the count hook cannot see are charged to the budget:
  -- patterns step by step (lua_patterns.c), the rest by the bytes or table length they handle.
  local metered = host.limits.metered
  local function meter(lib, names, kind)
    for _, n in ipairs(names) do lib[n] = metered(lib[n], kind) end
  end
  local str = deep_copy_lib(string)
  str.dump = nil  -- bytecode is refused by load anyway; dump would leak function internals
  for n, f in pairs(host.limits.patterns) do str[n] = f end
  meter(str, { "byte", "char", "lower", "upper", "reverse", "sub", "pack", "unpack" }, "bytes")
  meter(str, { "rep" }, "rep")
  meter(str, { "format" }, "format")
  env.string = frozen(str, "string")
  -- Strings' own metatable (s:match) reads from the same frozen library, and scripts cannot get
  -- at the real one: replacing a string function would change every later handler.
  local string_mt = dgetmetatable("")
  string_mt.__index = env.string
  string_mt.__metatable = "read-only"
  env.table = deep_copy_lib(table)
  meter(env.table, { "concat", "insert", "remove", "unpack" }, "table")
  meter(env.table, { "sort" }, "sort")
  meter(env.table, { "move" }, "move")
  env.math = deep_copy_lib(math)
  env.utf8 = deep_copy_lib(utf8)
  meter(env.utf8, { "char", "codepoint", "len", "offset" }, "bytes")
  -- Coroutines always carry the count hook, wherever they were created (see lua_shims.c).
  env.coroutine = deep_copy_lib(coroutine)
  local raw_create, raw_resume = coroutine.create, coroutine.resume
  local hook_thread = host.limits.hook_thread
  local function create(f)
    local co = raw_create(f)
    hook_thread(co)
    return co
  end
  local function wrap_results(ok, ...)
    if not ok then error((...), 0) end
    return ...
  end
  env.coroutine.create = create
  env.coroutine.wrap = function(f)
    local co = create(f)
    return function(...) return wrap_results(raw_resume(co, ...)) end
  end
  env.os = copy_fields(os, { "time", "clock", "date", "difftime" })
  meter(env.os, { "date" }, "strftime")  -- charged per byte of its format
  env.io = {
    -- Reading files under the working directory and the script directories; writing goes through actions.
    open = function(path, mode)
      if type(path) ~= "string" then error("bad argument #1 to 'open' (string expected, got " .. type(path) .. ")", 2) end
      mode = mode or "r"
      if mode ~= "r" and mode ~= "rb" then return nil, path .. ": only reading is allowed in the sandbox (mode 'r')" end
      local allowed, why = host.loader.path_allowed(path)
      if not allowed then return nil, path .. ": " .. why end
      return io.open(path, mode)
    end,
  }
  env.collectgarbage = function(opt)
    if opt == nil or opt == "count" or opt == "collect" or opt == "step" then return collectgarbage(opt) end
    error("collectgarbage: option '" .. tostring(opt) .. "' is not available in the sandbox", 2)
  end
  env._G = env
  -- What the full library has and the sandbox leaves out says so when used, instead of
  -- "attempt to call a nil value (field 'execute')" (trust() puts the real ones in place).
  local function hidden(what)
    error(what .. " is not available in the sandbox: scripts run sandboxed unless trusted (--trust, or a config"
          .. " made trusted with `scanlua trust`); see docs/security.md", 3)
  end
  local function guard(lib, name, full_lib)
    setmetatable(lib, { __index = function(_, k)
      if full_lib[k] ~= nil then hidden(name .. "." .. tostring(k)) end
    end })
  end
  guard(env.os, "os", os)
  guard(env.io, "io", io)
  local hidden_globals = { debug = true, dofile = true, loadfile = true, package = true }
  setmetatable(env, { __index = function(_, k) if hidden_globals[k] then hidden(k) end end })
end

-- Trusted scripts (--trust, or scan.options { trust = true }) see the full standard library.
-- The budget still holds: the metered libraries, coroutines and pcall stay.
local function trust()
  local kept = { _G = true, require = true, print = true, string = true, table = true, utf8 = true,
                 coroutine = true, pcall = true, xpcall = true }
  for k, v in pairs(full) do
    if not kept[k] then env[k] = v end
  end
  env.io = io
  env.os = os
  env.debug = debug
  setmetatable(env, nil)
  env.print = stderr_print  -- stdout carries records
end

fill_sandbox()

core.env, core.trust = env, trust
