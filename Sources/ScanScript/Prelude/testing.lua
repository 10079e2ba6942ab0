-- The test API of `scanlua test` (describe, it, expect): loaded only by that command.
local host, core = ...
local raw_pcall, raw_xpcall = pcall, xpcall
local type, pairs, ipairs, tostring, error, rawequal = type, pairs, ipairs, tostring, error, rawequal
local sformat, tconcat = string.format, table.concat
local require_module, env, scan = core.require, core.env, core.scan

local tests = {}
-- The describe blocks open now, outermost first: { name, before = {}, after = {} }.
local blocks = {}

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

-- A value shown on one line, cut to `max` characters.
local function short(v, max)
  local text = show(v):gsub("%s*\n%s*", " ")
  return #text > max and text:sub(1, max - 3) .. "..." or text
end

local function key_path(path, k)
  if type(k) == "string" and k:match("^[%a_][%w_]*$") then return path .. "." .. k end
  return path .. "[" .. (type(k) == "string" and sformat("%q", k) or tostring(k)) .. "]"
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(x, y)
    if type(x) == type(y) and (type(x) == "number" or type(x) == "string") then return x < y end
    return type(x) < type(y)
  end)
  return keys
end

-- The first place two values differ: its path (".payload.items[2].name"), and the two values
-- there; nil when they are deeply equal. Keys are visited in order, so the answer is stable.
local function first_difference(expected, actual, path, seen)
  if rawequal(expected, actual) then return nil end
  if type(expected) ~= "table" or type(actual) ~= "table" then return path, expected, actual end
  seen = seen or {}
  if seen[expected] == actual then return nil end
  seen[expected] = actual
  for _, k in ipairs(sorted_keys(expected)) do
    local p, e, a = first_difference(expected[k], actual[k], key_path(path, k), seen)
    if p then return p, e, a end
  end
  for _, k in ipairs(sorted_keys(actual)) do
    if expected[k] == nil then return key_path(path, k), nil, actual[k] end
  end
  return nil
end

local function fail(msg) error(msg, 3) end

local function expect(actual)
  local e = {}
  function e.to_equal(expected)
    if deep_equal(actual, expected) then return end
    local path, want, got = first_difference(expected, actual, "")
    if path and path ~= "" then
      fail("at " .. path .. ": expected " .. short(want, 200) .. ", got " .. short(got, 200)
           .. "\n  expected: " .. short(expected, 300) .. "\n  got:      " .. short(actual, 300))
    end
    fail("expected " .. show(expected) .. ", got " .. show(actual))
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
  blocks[#blocks + 1] = { name = name, before = {}, after = {} }
  fn()
  blocks[#blocks] = nil
end

-- The test's full name and the blocks around it (their before_each/after_each apply to it,
-- also those given after it in the block, as in busted).
local function register(name, fn, pending)
  local names, chain = {}, {}
  for i, b in ipairs(blocks) do names[i], chain[i] = b.name, b end
  local path = tconcat(names, " > ")
  tests[#tests + 1] = { name = (path ~= "" and path .. " > " or "") .. name, fn = fn, chain = chain, pending = pending }
end

local function it(name, fn)
  if type(name) ~= "string" then error("it: expected a name (a string)", 2) end
  if fn == nil then return register(name, nil, true) end  -- a test without a body is pending
  if type(fn) ~= "function" then error("it: expected a function after the name", 2) end
  register(name, fn, false)
end

--- pending("name"): a test written down but not yet written; counted, never run.
local function pending(name) register(name, nil, true) end

local function hook(kind)
  return function(fn)
    if type(fn) ~= "function" then error(kind .. ": expected a function", 2) end
    local b = blocks[#blocks]
    if not b then error(kind .. " belongs inside a describe block", 2) end
    local list = kind == "before_each" and b.before or b.after
    list[#list + 1] = fn
  end
end

-- The script errors of the scan.simulate calls of the running test: a failure shows them
-- (a parser that raised leaves only nil behind in the payload).
local simulate_errors
core.simulate_errors = function(errs)
  if not simulate_errors or not errs then return end
  for _, e in ipairs(errs) do
    local who = e.parser and ("parser '" .. e.parser .. "'") or e.rule and ("rule '" .. e.rule .. "'") or "scripts"
    simulate_errors[#simulate_errors + 1] = who .. ": " .. tostring(e.message)
  end
end

local function traced(e) return tostring(e) end

-- Runs the tests whose name contains `filter` (plain text; every test when nil): each with the
-- before_each functions of its blocks (outermost first), then the test, then the after_each
-- functions (innermost first), which run even when the test failed.
local function run_tests(filter)
  local results = {}
  for _, t in ipairs(tests) do
    if not filter or t.name:find(filter, 1, true) then
      if t.pending then
        results[#results + 1] = { name = t.name, status = "pending" }
      else
        simulate_errors = {}
        local ok, err = true, nil
        for _, b in ipairs(t.chain) do
          for _, f in ipairs(b.before) do
            if ok then ok, err = raw_xpcall(f, traced); if not ok then err = "before_each: " .. err end end
          end
        end
        if ok then ok, err = raw_xpcall(t.fn, traced) end
        for i = #t.chain, 1, -1 do
          for _, f in ipairs(t.chain[i].after) do
            local aok, aerr = raw_xpcall(f, traced)
            if not aok and ok then ok, err = false, "after_each: " .. aerr end
          end
        end
        if not ok and #simulate_errors > 0 then
          err = err .. "\n  script errors in this test's scan.simulate calls:\n    " .. tconcat(simulate_errors, "\n    ")
        end
        simulate_errors = nil
        results[#results + 1] = { name = t.name, status = ok and "passed" or "failed", message = not ok and err or nil }
      end
    end
  end
  return results
end

--- scan.decode_file(path): the symbols the loaded Lua decoders read in an image file, as scan
--- would make them: { {symbology, text, bytes, quality, points = {{x, y}, ...}}, ... }.
function scan.decode_file(path)
  if type(path) ~= "string" then error("scan.decode_file: expected a path (a string), got " .. type(path), 2) end
  local found = host.testing.decode_file(path)
  -- What each value carried for its parser, as the symbol's event would have it (ev.fields).
  for _, s in ipairs(found) do s.fields = core.decoder_fields_for(s.symbology, s.bytes) end
  return found
end

--- scan.scan_lines(path, { directions = "rows"|"columns"|"both", step = 4 }): the scan lines a
--- linear decoder would be given for an image file (every `step`-th row or column).
function scan.scan_lines(path, opts)
  if type(path) ~= "string" then error("scan.scan_lines: expected a path (a string), got " .. type(path), 2) end
  opts = opts or {}
  for k in pairs(opts) do
    if k ~= "directions" and k ~= "step" then error("scan.scan_lines: unknown option '" .. tostring(k) .. "' (directions, step)", 2) end
  end
  return host.testing.scan_lines(path, opts.directions or "rows", opts.step or 4)
end

env.describe, env.it, env.pending, env.expect, env.scan = describe, it, pending, expect, scan
env.before_each, env.after_each = hook("before_each"), hook("after_each")
core.run_tests = run_tests
