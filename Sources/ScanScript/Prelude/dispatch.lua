-- prelude 3/6, dispatch: events through parsers and rules, in batches; session hooks;
-- scan.simulate.
local host, core = ...
local budget_call, budget_parse = host.limits.call, host.limits.parse
local type, pairs, ipairs, tostring, error, rawget, rawset, rawlen, next =
  type, pairs, ipairs, tostring, error, rawget, rawset, rawlen, next
local sfind, sformat = string.find, string.format
local parsers, rules, hooks, summaries = core.parsers, core.rules, core.hooks, core.summaries
local scan = core.scan

local memory_message = "not enough memory"

local function handler_error(h, msg)
  -- Not tostring: an error object's __tostring would run here, outside any budget.
  local text = type(msg) == "string" and msg or ("(error object is a " .. type(msg) .. " value)")
  local message, trace = text:match("^(.-)\n(stack traceback:.*)$")
  message = message or text
  if text == memory_message then
    -- Lua raises memory errors without calling the message handler, so there is no
    -- traceback: name where the handler was defined instead.
    message = h.where .. ": memory limit exceeded (" .. host.policy.memory_limit_text() .. ")"
    trace = nil
  end
  h.failures = h.failures + 1
  local err = { [h.kind] = h.name, message = message, traceback = trace }
  if h.failures >= host.policy.max_failures() and not h.disabled then
    h.disabled = true
    host.log("later", sformat("%s '%s' (%s) disabled after %d failures in a row; last: %s",
      h.kind, h.name, h.where, h.failures, message))
  end
  return err
end

-- when(a, b) and, if it holds, fn(a, c), inside one protected call (one budget for both).
local function when_then(when, fn, a, b, c)
  if when(a, b) then return true, fn(a, c) end
  return false
end

-- A parser with `when`: its value, or nothing when `when` declines.
local function when_parse(when, fn, ev)
  if when(ev, ev) then return (fn(ev, ev)) end
end

-- Runs a handler: h.when(a, b) if it has one, then h.fn(a, c), in one protected call under
-- the budget. Returns true, matched, result or false, error record.
local function call_when(h, a, b, c)
  local ok, matched, res
  if h.when then
    ok, matched, res = budget_call(when_then, h.when, h.fn, a, b, c)
  else
    ok, res = budget_call(h.fn, a, c)
    matched = ok or res  -- the error message when not ok
  end
  if ok then
    if h.failures ~= 0 then h.failures = 0 end
    return true, matched ~= false, res
  end
  return false, handler_error(h, matched)
end

local function is_action(a) return type(a) == "table" and type(rawget(a, "type")) == "string" end

-- The action types the host carries out (its registry), and how errors name them.
local host_action_types, known_actions = {}, table.concat(host.action_types, ", ")
for _, t in ipairs(host.action_types) do host_action_types[t] = true end

-- What one dispatch collects. Lists are created on first use (most events have no errors,
-- actions or emits); the rule behind each action and emit is kept in a parallel list, so a
-- rule's own table is handed to the host as it is. scan.simulate saves and restores them, so a
-- handler that calls it does not mix two records.
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
      message = rule.where .. ": unknown action type '" .. a.type .. "' (known: " .. known_actions .. ")" })
  else
    if not actions then actions, action_rules = {}, {} end
    local n = #actions + 1
    actions[n], action_rules[n] = a, rule.name
  end
end

-- The first value in `t` (or below it) that has no JSON form: its path, or nil. As json.encode
-- raises on them, so does ctx.emit (a record would otherwise hold "<function>").
local json_types = { string = true, number = true, boolean = true, table = true }
local function unencodable(t, path, seen)
  if seen[t] then return nil end
  seen[t] = true
  for k, v in next, t do
    local p = path .. (type(k) == "string" and ("." .. k) or ("[" .. tostring(k) .. "]"))
    if not json_types[type(v)] then return p, type(v) end
    if type(v) == "table" then
      local q, kind = unencodable(v, p, seen)
      if q then return q, kind end
    end
  end
end

-- The context rules act through. One table, refreshed for each rule run: valid during run().
local ctx = {
  emit = function(t)
    if type(t) ~= "table" then error("ctx.emit: expected a table, got " .. type(t), 2) end
    local path, kind = unencodable(t, "", {})
    if path then error("ctx.emit: field '" .. path:sub(2) .. "' is a " .. kind .. ", which has no JSON form (records hold strings, numbers, booleans and tables)", 2) end
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
      local ok, matched, res
      if r.when then
        ok, matched, res = call_when(r, payload, ev, ctx)
      else
        ok, res = budget_call(r.fn, payload, ctx)
        if ok then
          if r.failures ~= 0 then r.failures = 0 end
          matched = true
        else
          matched = handler_error(r, res)
        end
      end
      if not ok then
        add_error(matched)
      elseif matched and res ~= nil then
        if is_action(res) or type(res) ~= "table" then
          add_action(r, res)
        else
          -- Raw: ipairs would run the list's metamethods outside any budget.
          for i = 1, rawlen(res) do add_action(r, rawget(res, i)) end
        end
      end
    end
  end
end

local want_summaries = false

-- One symbol through the parsers and rules. Returns payload, parser name, errors, actions,
-- the rule of each action, emitted, the rule of each emitted record, summary (lists nil when
-- empty): multiple values, so no record table is built.
local function dispatch(fields, ev)
  errors, actions, action_rules, emitted, emitted_rules = nil, nil, nil, nil, nil
  local text, symbology = fields.text, fields.symbology
  -- A Lua decoder's value may carry fields for its parser (scan.decoder: `fields = {...}`);
  -- scan.simulate's own `fields` win over what an earlier scan.decode_file kept.
  if core.decoder_fields_kept and rawget(fields, "fields") == nil then
    local carried = core.decoder_fields_for(symbology, fields.bytes)
    if carried then rawset(fields, "fields", core.freeze(carried)) end
  end
  local payload, parser
  for i = 1, #parsers do
    local p = parsers[i]
    if not p.disabled and (not p.symbologies or p.symbologies[symbology])
        and (not p.match or sfind(text, p.match)) then
      -- One protected call under the budget (with `when` first, if any); the value's checks are
      -- done in C, raw (limits.parse): whether it is a table of its own, and its type.
      local ok, res, is_table, t
      if p.when then
        ok, res, is_table, t = budget_parse(when_parse, p.when, p.fn, ev)
      else
        ok, res, is_table, t = budget_parse(p.fn, ev, ev)
      end
      if ok and p.failures ~= 0 then p.failures = 0 end
      if not ok then
        add_error(handler_error(p, res))
      elseif res ~= nil then
        if not is_table then
          add_error({ parser = p.name, message = p.where .. ": parse must return a table or nil, got " .. (t or type(res)) })
        else
          -- Read raw (limits.parse): a payload's metamethods would run here, outside any budget.
          if t == nil then rawset(res, "type", p.name); t = p.name end
          -- A type rules can match: a string the parser declares (its name without `types`).
          local types = p.types
          if types and types[t] or not types and t == p.name then
            payload, parser = res, p.name
            break
          elseif type(t) ~= "string" then
            add_error({ parser = p.name, message = p.where .. ": payload.type must be a string, got " .. type(t) })
          elseif types then
            add_error({ parser = p.name, message = p.where .. ": payload.type '" .. t .. "' is not among the parser's types" })
          else
            payload, parser = res, p.name
            break
          end
        end
      end
    end
  end
  payload = payload or { type = "raw" }
  if rules[1] then run_rules(payload, ev) end
  local summary
  local sh = want_summaries and summaries[payload.type]
  if sh and not sh.disabled then
    local ok, _, res = call_when(sh, payload, nil, nil)
    if not ok then add_error(_) elseif type(res) == "string" then summary = res end
  end
  return payload, parser, errors, actions, action_rules, emitted, emitted_rules, summary
end

-- Copies of a rule's tables with the rule's name added (the rule's own table is not changed).
local function tagged(list, names)
  if not list then return nil end
  local out = {}
  for i, t in ipairs(list) do
    local c = {}
    for k, v in next, t do c[k] = v end  -- raw: no __pairs outside a budget
    c.rule = names[i]
    out[i] = c
  end
  return out
end

-- The store module for scripts: the host's functions, noting that this event used the store
-- (its transaction then ends with the event: committed unless a handler failed).
-- A store error names the script line that made the call (the host's message has no place).
local store_used = false
local store = {}
local function located(ok, ...)
  if not ok then
    local msg = ...
    if type(msg) == "string" then error(msg, 2) end  -- level 2: the caller of store.<fn> (a tail call left no frame between)
    error(msg, 0)
  end
  return ...
end
for name, fn in pairs(host.store) do
  store[name] = function(...) store_used = true; return located(pcall(fn, ...)) end
end
core.store = store

-- The records of a batch go straight into the host's buffer as JSON text, each right after
-- its event (a later event's rules cannot change what an earlier record says).
local append_record, encodable = host.append_record, host.encodable
local dispatching = false

-- The record of an event when part of it is not JSON (a table with a cycle): a bad payload
-- becomes raw; a bad action or emitted record is left out with an error naming its rule, and
-- the rest of the record stays.
local function append_unencodable(payload, parser, e, a, ar, m, mr, summary, err, part)
  e = e or {}
  if part == "payload" then
    -- Named where its parser was defined, as the parser's other errors are.
    local where = "scanlua"
    for _, p in ipairs(parsers) do if p.name == parser then where = p.where end end
    e[#e + 1] = { parser = parser, message = where .. ": the payload is not JSON: " .. err }
    payload, parser = { type = "raw" }, nil
  end
  local function keep(list, rules, what)
    if not list then return nil, nil end
    local kept, kept_rules = {}, {}
    for i, t in ipairs(list) do
      if encodable(t) then
        kept[#kept + 1], kept_rules[#kept_rules + 1] = t, rules[i]
      else
        e[#e + 1] = { rule = rules[i], message = "scanlua: " .. what .. " of rule '" .. rules[i] .. "' is not JSON: " .. err }
      end
    end
    return kept, kept_rules
  end
  a, ar = keep(a, ar, "an action")
  m, mr = keep(m, mr, "an emitted record")
  for i = #e, 1, -1 do if not encodable(e[i]) then table.remove(e, i) end end
  local ok = append_record(payload, parser, { errors = e, actions = tagged(a, ar), emitted = tagged(m, mr), summary = summary })
  if not ok then append_record({ type = "raw" }, nil, { errors = { { message = "scanlua: the record is not JSON: " .. err } } }) end
end

-- Dispatches the n events of a host batch (their values in one flat list, see views.lua's
-- event_from) and appends each record: payload, parser name, and {errors, actions, emitted,
-- summary} when there are any.
-- core.batch_done counts the events finished, so the host can go on after a dispatcher
-- failure (memory exhausted between handlers) with only that one event lost to it.
local event_from, SLOTS = core.event_from, 14
local done = 0
local waiting, settle = core.waiting, core.settle
function core.dispatch_batch(values, n)
  done = 0
  dispatching = true
  -- Handlers registered or removed by a handler change the lists after its event (registry.lua).
  settle()
  core.busy = 1
  for i = 1, n do
    local payload, parser, e, a, ar, m, mr, summary = dispatch(event_from(values, (i - 1) * SLOTS + 1))
    if waiting[1] then settle() end
    if store_used then
      store_used = false
      local err = host.end_event(e == nil)
      if err then
        e = e or {}
        e[#e + 1] = { message = err }
      end
    end
    local ok, err, part
    if e or a or m or summary then
      ok, err, part = append_record(payload, parser, { errors = e, actions = tagged(a, ar), emitted = tagged(m, mr), summary = summary })
    else
      ok, err, part = append_record(payload, parser)
    end
    if not ok then append_unencodable(payload, parser, e, a, ar, m, mr, summary, err, part) end
    done = i
  end
  core.busy = 0
  dispatching = false
end

--- How many events of the last batch finished (after a dispatcher failure, the host goes on from there).
function core.batch_done() return done end

--- Turns on the text summaries (scan.summary) that --format text prints.
function core.enable_summaries(on) want_summaries = on end

-- The fields of a mock scan (as simulate's NDJSON lines have them), and of a sibling.
local SIM_FIELDS = { symbology = "string", text = "string", bytes = "string", source = "string", time = "number",
                     modifiers = "table", symbology_id = "string", siblings = "table", fields = "table" }
local SIB_FIELDS = { symbology = "string", text = "string", bytes = "string", modifiers = "table", symbology_id = "string" }

local function check_fields(t, known, what, api)
  for k, v in next, t do
    local want = known[k]
    if not want then
      local names = {}
      for n in next, known do names[#names + 1] = n end
      table.sort(names)
      error(api .. ": unknown field " .. what .. "'" .. tostring(k) .. "' (known: " .. table.concat(names, ", ") .. ")", 4)
    elseif type(v) ~= want then
      error(api .. ": " .. what .. "'" .. k .. "' must be a " .. want .. ", got " .. type(v), 4)
    end
  end
end

local function modifier_list(m, api)
  if m == nil then return {} end
  for i = 1, #m do if type(m[i]) ~= "string" then error(api .. ": 'modifiers' must be a list of strings, such as { \"gs1\" }", 4) end end
  return m
end

-- A symbology a scan could give: the registry's names and the Lua decoders' own.
local function known_symbology(name)
  for _, n in ipairs(host.symbologies) do if n == name then return true end end
  for _, d in ipairs(core.decoders) do if d.name == name then return true end end
  return false
end

local function raw_event(spec, api)
  if type(spec) ~= "table" then error(api .. ": expected a table", 3) end
  check_fields(spec, SIM_FIELDS, "", api)
  if spec.time and not (spec.time >= -62135596800 and spec.time <= 253402300799) then
    error(api .. ": 'time' must be seconds since 1970, of a year from 1 to 9999", 3)
  end
  for _, s in ipairs({ spec, table.unpack(spec.siblings or {}) }) do
    if type(s) == "table" and s.symbology ~= nil and not known_symbology(s.symbology) then
      error(api .. ": unknown symbology '" .. tostring(s.symbology) .. "' (a name of --symbologies or of a loaded Lua decoder)", 3)
    end
  end
  local bytes = spec.bytes or spec.text
  if type(bytes) ~= "string" then error(api .. ": needs 'text' or 'bytes' (a string)", 3) end
  local sibs = {}
  for i, s in ipairs(spec.siblings or {}) do
    if type(s) ~= "table" then error(api .. ": sibling " .. i .. " must be a table", 3) end
    check_fields(s, SIB_FIELDS, "of sibling " .. i .. " ", api)
    local sb = s.bytes or s.text
    if type(sb) ~= "string" then error(api .. ": sibling " .. i .. " needs 'text' or 'bytes' (a string)", 3) end
    sibs[i] = { s.symbology or "qrcode", sb, modifier_list(s.modifiers, api), s.symbology_id or false }
  end
  local fields, ev = event_from(host.simulate.make_event(spec.symbology or "qrcode", bytes, spec.source or "simulate", sibs, spec.time or false,
                                                modifier_list(spec.modifiers, api), spec.symbology_id or false), 1)
  -- What a Lua decoder's value would carry (ev.fields), to test its parser without an image.
  if spec.fields then rawset(fields, "fields", core.freeze(spec.fields)) end
  return fields, ev
end

--- Pushes a symbol through the registered parsers and rules and returns its record:
--- { payload = ..., parser = name?, actions = {...}, emitted = {...}, errors = {...} }.

function scan.simulate(spec)
  local fields, ev = raw_event(spec, "scan.simulate")
  -- Inside a handler the running event's lists, ctx and store transaction are put back after.
  local saved = want_summaries
  local saved_e, saved_a, saved_ar, saved_m, saved_mr, saved_rule, saved_ctx_rule, saved_ctx_event =
    errors, actions, action_rules, emitted, emitted_rules, current_rule, ctx.rule, ctx.event
  local outer_used = store_used
  store_used = false
  want_summaries = true
  if not dispatching then host.simulate.events(true) end
  local busy = core.busy
  core.busy = busy + 1
  local payload, parser, errs, acts, act_rules, emits, emit_rules, summary = dispatch(fields, ev)
  core.busy = busy
  if busy == 0 then settle() end
  if core.simulate_errors then core.simulate_errors(errs) end
  errors, actions, action_rules, emitted, emitted_rules, current_rule, ctx.rule, ctx.event =
    saved_e, saved_a, saved_ar, saved_m, saved_mr, saved_rule, saved_ctx_rule, saved_ctx_event
  want_summaries = saved
  if dispatching then
    store_used = outer_used or store_used  -- the running event's end decides
  else
    if store_used then
      store_used = false
      host.end_event(errs == nil)
    end
    host.simulate.events(false)
  end
  return { payload = payload, parser = parser, errors = errs, actions = tagged(acts, act_rules),
           emitted = tagged(emits, emit_rules), summary = summary }
end

-- {====================== Session hooks ======================

local function hook_count(kind) return #hooks[kind] end

-- Runs the hooks of one kind, each under the budget; failures go to the log.
local function run_hooks(kind, arg)
  local busy = core.busy
  core.busy = busy + 1
  for _, h in ipairs(hooks[kind]) do
    if not h.disabled then
      local ok, err = call_when(h, arg, nil, nil)
      if not ok then host.log("warn", h.name .. ": " .. err.message) end
    end
  end
  core.busy = busy
  if busy == 0 then settle() end
end

core.hook_count, core.run_hooks = hook_count, run_hooks
core.handler_error = handler_error
