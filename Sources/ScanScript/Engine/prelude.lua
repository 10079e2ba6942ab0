-- scanlua prelude: the `scan` module, dispatch, sandbox and test API.
-- Runs once per engine, in the full environment, before any user script; it
-- receives the host's Swift functions and returns the table the host calls.
local host = ...
local budget_call, tripped, memory_refused = host.limits.call, host.limits.tripped, host.limits.memory_refused

local traceback, getinfo, dgetmetatable = debug.traceback, debug.getinfo, debug.getmetatable
local raw_pcall, raw_xpcall = pcall, xpcall
local type, pairs, ipairs, next, tostring, error, select = type, pairs, ipairs, next, tostring, error, select
local setmetatable, rawget, rawset, rawequal = setmetatable, rawget, rawset, rawequal
local sfind, sformat, tsort, tconcat = string.find, string.format, table.sort, table.concat

local parsers, rules = {}, {}
local parser_names, rule_names = {}, {}

-- {====================== Read-only views ======================

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

local fields_mt = {
  __index = function(fields, k)
    local v = rawget(fields, NESTED)[k]
    if v == nil then return EMPTY[k] end
    if type(v) == "table" then
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

-- The host builds each event itself from these parts (fields[NESTED] = nested or NO_NESTED,
-- fields_mt on fields, and an empty proxy whose metatable is { __index = fields,
-- __newindex = readonly_error, __pairs = proxy_pairs, __metatable = "read-only" }):
-- the same tables Lua code would make, without a Lua call per event.
local event_parts = { NESTED, NO_NESTED, fields_mt, readonly_error, proxy_pairs }

-- }==============================================================

-- {====================== Registration ======================

local function where(fn)
  local info = getinfo(fn, "S")
  return info.short_src .. ":" .. info.linedefined
end

local function spec_error(api, msg) error(api .. ": " .. msg, 3) end

local function string_set(api, field, v)
  if v == nil then return nil end
  if type(v) == "string" then v = { v } end
  if type(v) ~= "table" then spec_error(api, "'" .. field .. "' must be a string or a list of strings") end
  local set = {}
  for _, s in ipairs(v) do
    if type(s) ~= "string" then spec_error(api, "'" .. field .. "' must be a string or a list of strings") end
    set[s] = true
  end
  return set
end

local function check_common(api, spec, names)
  if type(spec) ~= "table" then spec_error(api, "expected a table, got " .. type(spec)) end
  if type(spec.name) ~= "string" or spec.name == "" then spec_error(api, "'name' must be a non-empty string") end
  if names[spec.name] then spec_error(api, "a handler named '" .. spec.name .. "' is already registered") end
  if spec.when ~= nil and type(spec.when) ~= "function" then spec_error(api, "'when' must be a function") end
end

local scan = {}

--- Registers a parser: symbol -> payload. See docs/lua-api.md.
function scan.parser(spec)
  check_common("scan.parser", spec, parser_names)
  if type(spec.parse) ~= "function" then spec_error("scan.parser", "'parse' must be a function") end
  if spec.match ~= nil then
    if type(spec.match) ~= "string" then spec_error("scan.parser", "'match' must be a Lua pattern string") end
    local ok, err = raw_pcall(sfind, "", spec.match)
    if not ok then spec_error("scan.parser", "bad 'match' pattern: " .. tostring(err)) end
  end
  if spec.priority ~= nil and type(spec.priority) ~= "number" then spec_error("scan.parser", "'priority' must be a number") end
  local p = {
    kind = "parser", name = spec.name, parse = spec.parse, fn = spec.parse, when = spec.when, match = spec.match,
    symbologies = string_set("scan.parser", "symbologies", spec.symbologies),
    priority = spec.priority or 0, order = #parsers + 1, where = where(spec.parse), failures = 0,
  }
  parsers[#parsers + 1] = p
  parser_names[p.name] = true
  -- Keyed parsers (with symbologies) first, then heuristics; higher priority first; then registration order.
  tsort(parsers, function(a, b)
    local ka, kb = a.symbologies and 0 or 1, b.symbologies and 0 or 1
    if ka ~= kb then return ka < kb end
    if a.priority ~= b.priority then return a.priority > b.priority end
    return a.order < b.order
  end)
  return spec.name
end

--- Registers a rule: payload -> actions. See docs/lua-api.md.
function scan.rule(spec)
  check_common("scan.rule", spec, rule_names)
  if type(spec.run) ~= "function" then spec_error("scan.rule", "'run' must be a function") end
  local on = spec.on
  if on == "*" then on = nil end
  local r = {
    kind = "rule", name = spec.name, run = spec.run, fn = spec.run, when = spec.when,
    on = string_set("scan.rule", "on", on), where = where(spec.run), failures = 0,
  }
  rules[#rules + 1] = r
  rule_names[r.name] = true
  return spec.name
end

local hooks = { frame = {}, start = {}, stop = {} }

local function add_hook(kind, fn)
  if type(fn) ~= "function" then spec_error("scan.on_" .. kind, "expected a function, got " .. type(fn)) end
  local list = hooks[kind]
  list[#list + 1] = { kind = "hook", name = "scan.on_" .. kind, fn = fn, where = where(fn), failures = 0 }
end

--- Runs fn(frame) after each frame of a session: { source, index, time, width, height, symbols = {
--- { symbology, text }, ... } } (all the frame's symbols, before duplicate filtering).
function scan.on_frame(fn) add_hook("frame", fn) end
--- Runs fn() when a scanning session starts, before its first frame.
function scan.on_start(fn) add_hook("start", fn) end
--- Runs fn({ frames, accepted, dropped }) when a session ends.
function scan.on_stop(fn) add_hook("stop", fn) end

local summaries, want_summaries = {}, false

--- Registers how --format text shows a payload type to people: format(payload) -> text.
function scan.summary(spec)
  if type(spec) ~= "table" then spec_error("scan.summary", "expected a table, got " .. type(spec)) end
  if type(spec.type) ~= "string" then spec_error("scan.summary", "'type' must be a payload type string") end
  if type(spec.format) ~= "function" then spec_error("scan.summary", "'format' must be a function") end
  summaries[spec.type] = { kind = "summary", name = spec.type, fn = spec.format, where = where(spec.format), failures = 0 }
end

local decoders, decoder_names = {}, {}
local zbar_names = {}
for n in ("qrcode ean13 ean8 upca upce isbn10 isbn13 ean2 ean5 i25 databar databar-exp codabar code39 code93 code128 sqcode"):gmatch("%S+") do
  zbar_names[n] = true
end

--- Registers a decoder: a new symbology read from scan lines or from the frame itself.
function scan.decoder(spec)
  check_common("scan.decoder", spec, decoder_names)
  if zbar_names[spec.name] then spec_error("scan.decoder", "'" .. spec.name .. "' is a zbar symbology; pick another name") end
  if type(spec.decode) ~= "function" then spec_error("scan.decoder", "'decode' must be a function") end
  local kind = spec.kind or "linear"
  if kind ~= "linear" and kind ~= "image" then spec_error("scan.decoder", "'kind' must be \"linear\" or \"image\"") end
  local directions = spec.directions or "rows"
  if directions ~= "rows" and directions ~= "columns" and directions ~= "both" then
    spec_error("scan.decoder", "'directions' must be \"rows\", \"columns\" or \"both\"")
  end
  local step = spec.step or 4
  if math.type(step) ~= "integer" or step < 1 then spec_error("scan.decoder", "'step' must be a positive integer") end
  local min_lines = spec.min_lines or 1
  if math.type(min_lines) ~= "integer" or min_lines < 1 then spec_error("scan.decoder", "'min_lines' must be a positive integer") end
  local d = {
    kind = "decoder", name = spec.name, fn = spec.decode, decoder_kind = kind, directions = directions,
    step = step, min_lines = min_lines, where = where(spec.decode), failures = 0,
  }
  decoders[#decoders + 1] = d
  decoder_names[d.name] = true
  return spec.name
end

local known_options = {
  instruction_limit = "number", memory_limit = "number", max_failures = "number",
  trust = "boolean", default_scripts = "boolean", db = "string",
  -- scan sessions (flags win over these): see scanlua help watch
  duplicates = "string", interval = "number", once = "boolean", roi = "string", max_frames = "number",
  max_fps = "number", timeout = "number", beep = "boolean",
}

--- Sets engine options from a config: scan.options { instruction_limit = 1e7, ... }.
function scan.options(t)
  if type(t) ~= "table" then spec_error("scan.options", "expected a table") end
  for k, v in pairs(t) do
    if not known_options[k] then spec_error("scan.options", "unknown option '" .. tostring(k) .. "'") end
    if type(v) ~= known_options[k] then spec_error("scan.options", "'" .. k .. "' must be a " .. known_options[k]) end
    host.set_option(k, v)
  end
end

--- Lists what is registered (for tools and tests): { parsers = {...}, rules = {...}, decoders = {...} }.
function scan.handlers()
  local ps, rs = {}, {}
  for i, p in ipairs(parsers) do ps[i] = p.name end
  for i, r in ipairs(rules) do rs[i] = r.name end
  local ds = {}
  for i, d in ipairs(decoders) do ds[i] = d.name end
  return { parsers = ps, rules = rs, decoders = ds }
end

-- }==============================================================

-- {====================== Dispatch ======================

local memory_message = "not enough memory"

local function handler_error(h, msg)
  local text = type(msg) == "string" and msg or tostring(msg)
  local message, trace = text:match("^(.-)\n(stack traceback:.*)$")
  message = message or text
  if text == memory_message then
    -- Lua raises memory errors without calling the message handler, so there is no
    -- traceback: name where the handler was defined instead.
    message = h.where .. ": memory limit exceeded (" .. host.memory_limit_text() .. ")"
    trace = nil
  end
  h.failures = h.failures + 1
  local err = { [h.kind] = h.name, message = message, traceback = trace }
  if h.failures >= host.max_failures() and not h.disabled then
    h.disabled = true
    host.log("warn", sformat("%s '%s' (%s) disabled after %d failures in a row; last: %s",
      h.kind, h.name, h.where, h.failures, message))
  end
  return err
end

-- when(a, b) and, if it holds, fn(a, c), inside one protected call (one budget for both).
local function when_then(when, fn, a, b, c)
  if when(a, b) then return true, fn(a, c) end
  return false
end

-- Runs a handler: h.when(a, b) if it has one, then h.fn(a, c), in one protected call under
-- the budget. Returns true, matched, result or false, error record.
local function call_when(h, a, b, c)
  local ok, matched, res
  if h.when then
    ok, matched, res = budget_call(when_then, h.when, h.fn, a, b, c)
  else
    ok, res = budget_call(h.fn, a, c)
    matched = res  -- the error message when not ok
  end
  if ok then
    if h.failures ~= 0 then h.failures = 0 end
    return true, matched ~= false or not h.when, res
  end
  return false, handler_error(h, matched)
end

local function is_action(a) return type(a) == "table" and type(rawget(a, "type")) == "string" end

local host_action_types = { append = true, stop = true }

-- What one dispatch collects. Lists are created on first use (most events have no errors,
-- actions or emits); the rule behind each action and emit is kept in a parallel list, so a
-- rule's own table is handed to the host as it is. Saved and restored around dispatch, so a
-- handler that calls scan.simulate does not mix two records.
local errors, actions, action_rules, emitted, emitted_rules
local current_rule

local function add_error(e)
  if not errors then errors = {} end
  errors[#errors + 1] = e
end

local function add_action(rule, a)
  if not is_action(a) then
    add_error({ rule = rule.name,
      message = rule.where .. ": an action must be a table with a string 'type', got " .. type(a) })
  elseif not host_action_types[a.type] then
    add_error({ rule = rule.name,
      message = rule.where .. ": unknown action type '" .. a.type .. "' (known: append, stop)" })
  else
    if not actions then actions, action_rules = {}, {} end
    local n = #actions + 1
    actions[n], action_rules[n] = a, rule.name
  end
end

-- The context rules act through. One table, refreshed for each rule run: valid during run().
local ctx = {
  emit = function(t)
    if type(t) ~= "table" then error("ctx.emit: expected a table, got " .. type(t), 2) end
    if not emitted then emitted, emitted_rules = {}, {} end
    local n = #emitted + 1
    emitted[n], emitted_rules[n] = t, current_rule.name
  end,
  log = function(level, msg)
    if level ~= "debug" and level ~= "info" and level ~= "warn" and level ~= "error" then
      error("ctx.log: level must be debug, info, warn or error", 2)
    end
    host.log(level, "rule '" .. current_rule.name .. "': " .. tostring(msg))
  end,
}

local function run_rules(payload, ev)
  local ptype = payload.type
  for i = 1, #rules do
    local r = rules[i]
    if not r.disabled and (not r.on or r.on[ptype]) then
      current_rule = r
      ctx.rule, ctx.event = r.name, ev
      local ok, matched, res = call_when(r, payload, ev, ctx)
      if not ok then
        add_error(matched)
      elseif matched and res ~= nil then
        if is_action(res) or type(res) ~= "table" then
          add_action(r, res)
        else
          for _, a in ipairs(res) do add_action(r, a) end
        end
      end
    end
  end
end

-- One symbol through the parsers and rules. Returns payload, parser name, errors, actions,
-- the rule of each action, emitted, the rule of each emitted record (lists nil when empty):
-- multiple values, so no record table is built.
local function dispatch(fields, ev)
  local saved_e, saved_a, saved_ar, saved_m, saved_mr, saved_rule =
    errors, actions, action_rules, emitted, emitted_rules, current_rule
  errors, actions, action_rules, emitted, emitted_rules = nil, nil, nil, nil, nil
  local text, symbology = fields.text, fields.symbology
  local payload, parser
  for i = 1, #parsers do
    local p = parsers[i]
    if not p.disabled and (not p.symbologies or p.symbologies[symbology])
        and (not p.match or sfind(text, p.match)) then
      local ok, matched, res = call_when(p, ev, ev, ev)
      if not ok then
        add_error(matched)
      elseif matched and res ~= nil then
        if type(res) ~= "table" then
          add_error({ parser = p.name, message = p.where .. ": parse must return a table or nil, got " .. type(res) })
        else
          if res.type == nil then res.type = p.name end
          payload, parser = res, p.name
          break
        end
      end
    end
  end
  payload = payload or { type = "raw" }
  if #rules > 0 then run_rules(payload, ev) end
  local summary
  local sh = want_summaries and summaries[payload.type]
  if sh and not sh.disabled then
    local ok, _, res = call_when(sh, payload, nil, nil)
    if not ok then add_error(_) elseif type(res) == "string" then summary = res end
  end
  local e, a, ar, m, mr = errors, actions, action_rules, emitted, emitted_rules
  errors, actions, action_rules, emitted, emitted_rules, current_rule =
    saved_e, saved_a, saved_ar, saved_m, saved_mr, saved_rule
  return payload, parser, e, a, ar, m, mr, summary
end

-- }==============================================================

-- {====================== Session hooks ======================

local function hook_count(kind) return #hooks[kind] end

-- Runs the hooks of one kind, each under the budget; failures go to the log.
local function run_hooks(kind, arg)
  for _, h in ipairs(hooks[kind]) do
    if not h.disabled then
      local ok, err = call_when(h, arg, nil, nil)
      if not ok then host.log("warn", h.name .. ": " .. err.message) end
    end
  end
end

-- }==============================================================

-- {====================== Decoders ======================

-- The specs the host needs to drive decoders: { {name, kind, directions, step, min_lines}, ... }.
local function decoder_specs()
  local out = {}
  for i, d in ipairs(decoders) do
    out[i] = { d.name, d.decoder_kind, d.directions, d.step, d.min_lines, not d.disabled }
  end
  return out
end

-- Calls decoder i on a scan line or frame view. Returns true, results (nil, a value, or a list
-- of values) or false, error message with the decoder's name.
local function call_decoder(i, arg)
  local d = decoders[i]
  if d.disabled then return true, nil end
  local ok, res = budget_call(d.fn, arg)
  if ok then
    if d.failures ~= 0 then d.failures = 0 end
    return true, res
  end
  local e = handler_error(d, res)
  return false, e.message
end

-- Frame views for image decoders: the pixels are one byte string, row by row.
local frame_methods = {}
local frame_mt = { __index = frame_methods }

local function new_frame(data, width, height, x, y)
  return setmetatable({ data = data, width = width, height = height, x = x or 0, y = y or 0 }, frame_mt)
end

--- The gray level (0 black ... 255 white) at column x, row y (0-based), or nil outside.
function frame_methods.get(f, x, y)
  if x < 0 or y < 0 or x >= f.width or y >= f.height then return nil end
  return f.data:byte(y * f.width + x + 1)
end

--- Row y (0-based) as a byte string of `width` gray levels.
function frame_methods.row(f, y)
  if y < 0 or y >= f.height then error("frame:row: row " .. tostring(y) .. " outside 0.." .. (f.height - 1), 2) end
  return f.data:sub(y * f.width + 1, (y + 1) * f.width)
end

--- Column x (0-based) as a byte string of `height` gray levels.
function frame_methods.column(f, x)
  if x < 0 or x >= f.width then error("frame:column: column " .. tostring(x) .. " outside 0.." .. (f.width - 1), 2) end
  return host.column(f.data, f.width, f.height, x)
end

--- A view of the rectangle (x, y, w, h), clipped to the frame; its x, y say where it sits.
function frame_methods.crop(f, x, y, w, h)
  local x0, y0 = math.max(0, x), math.max(0, y)
  local x1, y1 = math.min(f.width, x + w), math.min(f.height, y + h)
  if x1 <= x0 or y1 <= y0 then error("frame:crop: the rectangle is outside the frame", 2) end
  local rows = {}
  for r = y0, y1 - 1 do rows[#rows + 1] = f.data:sub(r * f.width + x0 + 1, r * f.width + x1) end
  return new_frame(table.concat(rows), x1 - x0, y1 - y0, f.x + x0, f.y + y0)
end

--- Otsu's threshold of the frame: the gray level that best splits dark from light.
function frame_methods.otsu(f)
  return host.otsu(f.data)
end

--- A black (0) and white (255) copy: below `level` is black. Without a level, Otsu's.
function frame_methods.binarize(f, level)
  return new_frame(host.binarize(f.data, level or host.otsu(f.data)), f.width, f.height, f.x, f.y)
end

--- A black and white copy thresholded against the mean of each pixel's (2r+1)^2 neighbourhood
--- minus `offset` (defaults r = 7, offset = 5): for uneven lighting.
function frame_methods.adaptive(f, r, offset)
  return new_frame(host.adaptive(f.data, f.width, f.height, r or 7, offset or 5), f.width, f.height, f.x, f.y)
end

-- }==============================================================

-- {====================== Sandbox ======================

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

local function sandbox_load(chunk, name, mode, e)
  if mode ~= nil and mode ~= "t" then return nil, "load: only text chunks are allowed" end
  return load(chunk, name, "t", e == nil and env or e)
end

local function fill_sandbox()
  for _, n in ipairs { "assert", "error", "ipairs", "next", "pairs", "rawequal", "rawget", "rawlen", "rawset",
      "select", "setmetatable", "getmetatable", "tonumber", "tostring", "type", "_VERSION" } do
    env[n] = full[n]
  end
  env.pcall, env.xpcall = safe_pcall, safe_xpcall
  env.print = stderr_print
  env.load = sandbox_load
  env.string = deep_copy_lib(string)
  env.string.dump = nil
  env.table = deep_copy_lib(table)
  env.math = deep_copy_lib(math)
  env.utf8 = deep_copy_lib(utf8)
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
  env.io = {
    -- Reading files under the working directory and the script directories; writing goes through actions.
    open = function(path, mode)
      if type(path) ~= "string" then error("bad argument #1 to 'open' (string expected, got " .. type(path) .. ")", 2) end
      mode = mode or "r"
      if mode ~= "r" and mode ~= "rb" then return nil, path .. ": only reading is allowed in the sandbox (mode 'r')" end
      if not host.path_allowed(path) then
        return nil, path .. ": outside the directories scripts may read (the working directory and script directories)"
      end
      return io.open(path, mode)
    end,
  }
  env.collectgarbage = function(opt)
    if opt == nil or opt == "count" or opt == "collect" or opt == "step" then return collectgarbage(opt) end
    error("collectgarbage: option '" .. tostring(opt) .. "' is not available in the sandbox", 2)
  end
  env._G = env
end

-- Trusted scripts (--trust, or scan.options { trust = true }) see the full standard library.
local function trust()
  for k, v in pairs(full) do
    if k ~= "_G" and k ~= "require" and k ~= "print" then env[k] = v end
  end
  env.io = io
  env.os = os
  env.debug = debug
  env.print = stderr_print  -- stdout carries records
end

fill_sandbox()

-- }==============================================================

-- {====================== Modules ======================

local loaded = { scan = scan, codec = host.codec, store = host.store }
local loading = {}

local function require_module(name)
  if type(name) ~= "string" then error("bad argument #1 to 'require' (string expected, got " .. type(name) .. ")", 2) end
  local m = loaded[name]
  if m ~= nil then return m end
  if loading[name] then error("require: loop while loading module '" .. name .. "'", 2) end
  local path, tried = host.find_module(name)
  if not path then error("module '" .. name .. "' not found:" .. tried, 2) end
  local src, rerr = host.read_file(path)
  if not src then error(rerr, 0) end
  local fn, err = load(src, "@" .. path, "t", env)
  if not fn then error(err, 0) end
  loading[name] = true
  local ok, res = raw_pcall(fn, name, path)
  loading[name] = nil
  if not ok then error(res, 0) end
  if res == nil then res = true end
  loaded[name] = res
  return res
end
env.require = require_module

-- }==============================================================

-- {====================== Simulate and tests ======================

local function raw_event(spec, api)
  if type(spec) ~= "table" then error(api .. ": expected a table", 3) end
  local bytes = spec.bytes or spec.text
  if type(bytes) ~= "string" then error(api .. ": needs 'text' or 'bytes' (a string)", 3) end
  local sibs = {}
  for i, s in ipairs(spec.siblings or {}) do
    local sb = s.bytes or s.text
    if type(sb) ~= "string" then error(api .. ": sibling " .. i .. " needs 'text' or 'bytes' (a string)", 3) end
    sibs[i] = { s.symbology or "qrcode", sb }
  end
  return host.make_event(spec.symbology or "qrcode", bytes, spec.source or "simulate", sibs)
end

--- Pushes a symbol through the registered parsers and rules and returns its record:
--- { payload = ..., parser = name?, actions = {...}, emitted = {...}, errors = {...} }.
local function tag(list, names)
  if not list then return nil end
  for i, t in ipairs(list) do t.rule = names[i] end
  return list
end

function scan.simulate(spec)
  local saved = want_summaries
  want_summaries = true
  local payload, parser, errs, acts, act_rules, emits, emit_rules, summary = dispatch(raw_event(spec, "scan.simulate"))
  want_summaries = saved
  return { payload = payload, parser = parser, errors = errs, actions = tag(acts, act_rules), emitted = tag(emits, emit_rules),
           summary = summary }
end

local tests = {}
local current = {}

local function deep_equal(a, b, seen)
  if rawequal(a, b) then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  seen = seen or {}
  if seen[a] == b then return true end
  seen[a] = b
  for k, v in pairs(a) do if not deep_equal(v, b[k], seen) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

local function show(v)
  local ok, inspect = raw_pcall(require_module, "inspect")
  if ok then return inspect(v) end
  return type(v) == "string" and sformat("%q", v) or tostring(v)
end

local function fail(msg) error(msg, 3) end

local function expect(actual)
  local e = {}
  function e.to_equal(expected)
    if not deep_equal(actual, expected) then fail("expected " .. show(expected) .. ", got " .. show(actual)) end
  end
  function e.to_be(expected)
    if not rawequal(actual, expected) then fail("expected " .. show(expected) .. ", got " .. show(actual)) end
  end
  function e.to_be_nil() if actual ~= nil then fail("expected nil, got " .. show(actual)) end end
  function e.to_be_truthy() if not actual then fail("expected a truthy value, got " .. show(actual)) end end
  function e.to_be_falsy() if actual then fail("expected a falsy value, got " .. show(actual)) end end
  function e.to_contain(x)
    if type(actual) == "string" then
      if not actual:find(x, 1, true) then fail("expected " .. show(actual) .. " to contain " .. show(x)) end
    elseif type(actual) == "table" then
      for _, v in pairs(actual) do if deep_equal(v, x) then return end end
      fail("expected " .. show(actual) .. " to contain " .. show(x))
    else
      fail("to_contain needs a string or a table, got " .. type(actual))
    end
  end
  function e.to_match(pattern)
    if type(actual) ~= "string" or not actual:find(pattern) then
      fail("expected " .. show(actual) .. " to match " .. show(pattern))
    end
  end
  function e.to_fail(pattern)
    if type(actual) ~= "function" then fail("to_fail needs a function, got " .. type(actual)) end
    local ok, err = raw_pcall(actual)
    if ok then fail("expected the function to raise an error") end
    if pattern and not tostring(err):find(pattern) then
      fail("expected an error matching " .. show(pattern) .. ", got " .. show(tostring(err)))
    end
  end
  return e
end

local function describe(name, fn)
  current[#current + 1] = name
  fn()
  current[#current] = nil
end

local function it(name, fn)
  local path = tconcat(current, " > ")
  tests[#tests + 1] = { name = (path ~= "" and path .. " > " or "") .. name, fn = fn }
end

local function run_tests()
  local results = {}
  for i, t in ipairs(tests) do
    local ok, err = raw_xpcall(t.fn, function(e) return tostring(e) end)
    results[i] = { name = t.name, ok = ok, message = not ok and err or nil }
  end
  return results
end

-- }==============================================================

return {
  env = env,
  dispatch = dispatch,
  enable_summaries = function(on) want_summaries = on end,
  hook_count = hook_count,
  run_hooks = run_hooks,
  decoder_specs = decoder_specs,
  call_decoder = call_decoder,
  frame_mt = frame_mt,
  event_parts = event_parts,
  trust = trust,
  require = require_module,
  install_test_api = function()
    env.describe, env.it, env.expect, env.scan = describe, it, expect, scan
  end,
  run_tests = run_tests,
}
