-- prelude 2/6, registry: the `scan` module's registration calls (parser, rule, decoder,
-- summary, hooks, options, handlers).
local host, core = ...
local getinfo = debug.getinfo
local raw_pcall = pcall
local type, pairs, ipairs, tostring, error = type, pairs, ipairs, tostring, error
local sfind, tsort = string.find, table.sort

local parsers, rules = {}, {}
local parser_names, rule_names = {}, {}

local function where(fn)
  local info = getinfo(fn, "S")
  return info.short_src .. ":" .. info.linedefined
end

-- Where the user's call is: the first Lua frame outside the prelude (a mistake in a spec is
-- named at the user's file:line, not in the prelude's checking code).
local function user_where()
  for level = 3, 30 do
    local info = getinfo(level, "Sl")
    if not info then break end
    if info.what ~= "C" and not sfind(info.short_src, "^prelude/") then
      return info.short_src .. ":" .. (info.currentline or 0) .. ": "
    end
  end
  return ""
end

local function spec_error(api, msg) error(user_where() .. api .. ": " .. msg, 0) end

-- The fields each spec may have: anything else is a mistake (`symbology` for `symbologies`).
local spec_fields = {
  ["scan.parser"] = { "name", "parse", "match", "symbologies", "priority", "when", "types" },
  ["scan.rule"] = { "name", "run", "on", "when" },
  ["scan.decoder"] = { "name", "decode", "kind", "directions", "step", "min_lines" },
  ["scan.summary"] = { "type", "format" },
}
local function check_fields(api, spec)
  local allowed = {}
  for _, f in ipairs(spec_fields[api]) do allowed[f] = true end
  for k in pairs(spec) do
    if not allowed[k] then
      local hint = ""
      if type(k) == "string" and #k >= 3 then
        for _, f in ipairs(spec_fields[api]) do  -- a near miss: the same but for its last letter
          if f:sub(1, #k - 1) == k:sub(1, #k - 1) then hint = "; did you mean '" .. f .. "'?"; break end
        end
      end
      spec_error(api, "unknown field '" .. tostring(k) .. "'" .. hint .. " (fields: " .. table.concat(spec_fields[api], ", ") .. ")")
    end
  end
end

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
  check_fields(api, spec)
  if type(spec.name) ~= "string" or spec.name == "" then spec_error(api, "'name' must be a non-empty string") end
  if names[spec.name] then spec_error(api, "a handler named '" .. spec.name .. "' is already registered") end
  if spec.when ~= nil and type(spec.when) ~= "function" then spec_error(api, "'when' must be a function") end
end

local scan = {}

-- Every registration returns a handle that scan.remove takes away. A handle only says what it
-- is ({ kind = "parser", name = "url" }); what it stands for is kept here.
local handles = setmetatable({}, { __mode = "k" })
local function handle_for(entry, list, names)
  local h = setmetatable({}, { __index = { kind = entry.kind, name = entry.name }, __newindex = function()
    error("a scan handle is read-only", 2) end, __metatable = "scan handle" })
  handles[h] = { entry = entry, list = list, names = names }
  return h
end

-- Lists changed while an event is being dispatched or hooks run (a parser that removes itself,
-- a rule that registers another) change after that event: the dispatcher's loops must not see
-- them shift under them (a handler skipped, another run twice). core.busy counts the runs under
-- way (dispatch.lua); core.settle() applies what waited.
core.busy = 0
local waiting = {}
local function change(fn)
  if core.busy > 0 then waiting[#waiting + 1] = fn else fn() end
end

-- Adds entry to list (by `add`, which may sort it) now or once nothing is being dispatched; a
-- handle removed before that still counts as registered (entry.waiting).
local function add_entry(entry, add)
  entry.waiting = true
  change(function() entry.waiting = nil; add() end)
end
function core.settle()
  for i = 1, #waiting do
    local fn = waiting[i]
    waiting[i] = nil
    fn()
  end
end
core.waiting = waiting

local function remove_entry(list, entry)
  for i = #list, 1, -1 do
    if list[i] == entry then table.remove(list, i); return end
  end
end

--- Takes a registration away: scan.remove(handle) -> true, or false when it was removed before.
-- Handles already removed: removing one again returns false, as documented (weak: no leak).
local removed = setmetatable({}, { __mode = "k" })

function scan.remove(h)
  local r = handles[h]
  if not r then
    if removed[h] then return false end
    spec_error("scan.remove", "expected a handle returned by scan.parser, rule, decoder, summary or on_*")
  end
  handles[h] = nil
  removed[h] = true
  if r.list.by_key then
    if r.list.by_key[r.entry.name] ~= r.entry then return false end
    r.list.by_key[r.entry.name] = nil
    return true
  end
  local listed = r.entry.waiting
  for i = #r.list, 1, -1 do
    if r.list[i] == r.entry then listed = true; break end
  end
  if not listed then return false end
  if r.names then r.names[r.entry.name] = nil end
  -- It stops at once; it leaves its list when nothing is being dispatched.
  r.entry.disabled = true
  change(function() remove_entry(r.list, r.entry) end)
  return true
end

local next_order = 1

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
  local symbologies = string_set("scan.parser", "symbologies", spec.symbologies)
  for s in pairs(symbologies or {}) do
    if not core.known_symbology(s) then
      spec_error("scan.parser", "unknown symbology '" .. s .. "' in 'symbologies' (built in: " .. table.concat(host.symbologies, ", ")
        .. "; a Lua decoder's name counts once it is registered)")
    end
  end
  local p = {
    kind = "parser", name = spec.name, parse = spec.parse, fn = spec.parse, when = spec.when, match = spec.match,
    symbologies = symbologies, types = string_set("scan.parser", "types", spec.types),
    priority = spec.priority or 0, order = next_order, where = where(spec.parse), failures = 0,
  }
  next_order = next_order + 1
  parser_names[p.name] = true
  add_entry(p, function()
    parsers[#parsers + 1] = p
    -- Higher priority first, across keyed parsers (with symbologies) and heuristics alike; at the
    -- same priority keyed ones first; then registration order.
    tsort(parsers, function(a, b)
      if a.priority ~= b.priority then return a.priority > b.priority end
      local ka, kb = a.symbologies and 0 or 1, b.symbologies and 0 or 1
      if ka ~= kb then return ka < kb end
      return a.order < b.order
    end)
  end)
  return handle_for(p, parsers, parser_names)
end

--- Registers a rule: payload -> actions. See docs/lua-api.md.
function scan.rule(spec)
  check_common("scan.rule", spec, rule_names)
  if type(spec.run) ~= "function" then spec_error("scan.rule", "'run' must be a function") end
  local on = spec.on
  if on == "*" then on = nil end
  local r = {
    kind = "rule", name = spec.name, run = spec.run, fn = spec.run, when = spec.when,
    on = string_set("scan.rule", "on", on), where = where(spec.run), failures = 0, at = user_where(),
  }
  add_entry(r, function() rules[#rules + 1] = r end)
  rule_names[r.name] = true
  return handle_for(r, rules, rule_names)
end

local hooks = { frame = {}, start = {}, stop = {} }

local function add_hook(kind, fn)
  if type(fn) ~= "function" then spec_error("scan.on_" .. kind, "expected a function, got " .. type(fn)) end
  local list = hooks[kind]
  local entry = { kind = "hook", name = "scan.on_" .. kind, fn = fn, where = where(fn), failures = 0 }
  add_entry(entry, function() list[#list + 1] = entry end)
  return handle_for(entry, list, nil)
end

--- Runs fn(frame) after each frame of a session: { source, index, time, width, height, symbols = {
--- { symbology, text }, ... } } (all the frame's symbols, before duplicate filtering).
function scan.on_frame(fn) return add_hook("frame", fn) end
--- Runs fn() when a scanning session starts, before its first frame.
function scan.on_start(fn) return add_hook("start", fn) end
--- Runs fn({ frames, accepted, dropped }) when a session ends.
function scan.on_stop(fn) return add_hook("stop", fn) end

local summaries = {}

--- Registers how --format text shows a payload type to people: format(payload) -> text.
function scan.summary(spec)
  if type(spec) ~= "table" then spec_error("scan.summary", "expected a table, got " .. type(spec)) end
  check_fields("scan.summary", spec)
  if type(spec.type) ~= "string" then spec_error("scan.summary", "'type' must be a payload type string") end
  if type(spec.format) ~= "function" then spec_error("scan.summary", "'format' must be a function") end
  local entry = { kind = "summary", name = spec.type, fn = spec.format, where = where(spec.format), failures = 0 }
  summaries[spec.type] = entry
  return handle_for(entry, { by_key = summaries }, nil)
end

local decoders, decoder_names = {}, {}
-- The built-in symbologies (the host's registry): a Lua decoder may not take their names.
local builtin_names = {}
for _, n in ipairs(host.symbologies) do builtin_names[n] = true end
function core.known_symbology(name) return builtin_names[name] == true or decoder_names[name] == true end

--- Registers a decoder: a new symbology read from scan lines or from the frame itself.
function scan.decoder(spec)
  check_common("scan.decoder", spec, decoder_names)
  if builtin_names[spec.name] then spec_error("scan.decoder", "'" .. spec.name .. "' is a built-in symbology; pick another name") end
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
  return handle_for(d, decoders, decoder_names)
end

-- The settings a config may give, with their Lua types (the host's option registry).
local known_options, list_options = host.policy.options, host.policy.list_options

--- Sets engine options from a config: scan.options { instruction_limit = 1e7, ... }.
function scan.options(t)
  if type(t) ~= "table" then spec_error("scan.options", "expected a table") end
  for k, v in pairs(t) do
    if not known_options[k] then spec_error("scan.options", "unknown option '" .. tostring(k) .. "'") end
    -- A names setting (network, decoders) may be a list of strings: its names, joined.
    if type(v) == "table" and list_options[k] then
      for i, item in ipairs(v) do
        if type(item) ~= "string" then spec_error("scan.options", "'" .. k .. "' item " .. i .. " must be a string") end
      end
      v = table.concat(v, ",")
    end
    if type(v) ~= known_options[k] then spec_error("scan.options", "'" .. k .. "' must be a " .. known_options[k]) end
    host.policy.set_option(k, v)
  end
end

-- Switches off the parsers and rules named `name`; true when there was one.
function core.disable(name)
  local found = false
  for _, list in ipairs { parsers, rules, decoders } do
    for i = #list, 1, -1 do
      if list[i].name == name then table.remove(list, i); found = true end
    end
  end
  return found
end

-- Levenshtein distance, for "did you mean" (names are short).
local function distance(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = { [0] = i }
    for j = 1, #b do
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a:byte(i) == b:byte(j) and 0 or 1))
    end
    prev = cur
  end
  return prev[#b]
end

--- The known name nearest `name` (at most 2 edits, or one name containing the other), or nil.
function core.did_you_mean(name, known)
  local best, best_d
  for _, k in ipairs(known) do
    local d = distance(name, k)
    if d <= 2 or (#name >= 3 and (k:find(name, 1, true) or name:find(k, 1, true))) then
      if not best_d or d < best_d then best, best_d = k, d end
    end
  end
  return best
end

-- Once everything is loaded: each rule's `on` type that no parser returns and no summary
-- formats, as a warning naming the rule's file:line (a typo never matches anything). A parser
-- returns the types of its `types`, or, without `types`, its own name (payload.type's default).
function core.rule_type_warnings()
  local known, names = { raw = true }, {}
  for _, p in ipairs(parsers) do
    if p.types then
      for t in pairs(p.types) do known[t] = true end
    else
      known[p.name] = true
    end
  end
  for t in pairs(summaries) do known[t] = true end
  for t in pairs(known) do names[#names + 1] = t end
  table.sort(names)
  local warnings = {}
  for _, r in ipairs(rules) do
    local missing = {}
    for t in pairs(r.on or {}) do if not known[t] then missing[#missing + 1] = t end end
    table.sort(missing)
    for _, t in ipairs(missing) do
      local near = core.did_you_mean(t, names)
      warnings[#warnings + 1] = r.at .. "scan.rule '" .. r.name .. "': no parser returns payload type '" .. t .. "'"
        .. (near and " (did you mean '" .. near .. "'?)" or "")
        .. " (known: " .. table.concat(names, ", ") .. "; a parser declares what it returns in 'types')"
    end
  end
  return warnings
end

function core.handler_names()
  local names = {}
  for _, list in ipairs { parsers, rules, decoders } do
    for _, h in ipairs(list) do names[#names + 1] = h.name end
  end
  table.sort(names)
  return names
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

core.scan = scan
core.parsers, core.rules, core.hooks, core.summaries, core.decoders = parsers, rules, hooks, summaries, decoders
core.where, core.spec_error = where, spec_error
