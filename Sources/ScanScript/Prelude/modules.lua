-- prelude 6/6, modules: `require` for user chunks (scan, codec, store, and Lua files on
-- the module path).
local host, core = ...
local raw_pcall = pcall
local type, error = type, error
local env = core.env

local loaded = { scan = core.scan, codec = host.codec, store = core.store }
local loading = {}
-- What each file run with --script (or as the config) returned, by path.
local run_results = {}
function core.keep_run_result(path, value) run_results[path] = value end

local function require_module(name)
  if type(name) ~= "string" then error("bad argument #1 to 'require' (string expected, got " .. type(name) .. ")", 2) end
  local m = loaded[name]
  if m ~= nil then return m end
  if loading[name] then error("require: loop while loading module '" .. name .. "'", 2) end
  local path, tried = host.loader.find_module(name)
  if not path then error("module '" .. name .. "' not found:" .. tried, 2) end
  local run_as = host.loader.was_run(path)
  if run_as then  -- loaded already by --script: its return value, as require gives
    local r = run_results[run_as]
    if r == nil then r = true end
    loaded[name] = r
    return r
  end
  local src, rerr = host.loader.read_file(path)
  if not src then error(rerr, 0) end
  local fn, err = load(src, "@" .. path, "t", env)
  if not fn then error(err, 0) end
  loading[name] = true
  local shipped = name == "default" or name:sub(1, 9) == "handlers."
  if shipped then host.loader.shipped(true) end
  local ok, res = raw_pcall(fn, name, path)
  if shipped then host.loader.shipped(false) end
  loading[name] = nil
  if not ok then error(res, 0) end
  if res == nil then res = true end
  loaded[name] = res
  return res
end
env.require = require_module

core.require = require_module
