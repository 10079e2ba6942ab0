-- The test API of `scanlua test` (describe, it, expect): loaded only by that command.
local host, core = ...
local raw_pcall, raw_xpcall = pcall, xpcall
local type, pairs, ipairs, tostring, error, rawequal = type, pairs, ipairs, tostring, error, rawequal
local sformat, tconcat = string.format, table.concat
local require_module, env, scan = core.require, core.env, core.scan

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

env.describe, env.it, env.expect, env.scan = describe, it, expect, scan
core.run_tests = run_tests
