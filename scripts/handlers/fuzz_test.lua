-- Hostile input through every shipped parser, small bodies: random bytes (seeded), NUL bytes,
-- invalid UTF-8 and separator floods. The megabyte bodies are in fuzz_large.lua (`make fuzz`,
-- release build): they are most of the time of the debug-build suite otherwise.
local cases = require "handlers.fuzz_cases"

local bodies = {}
math.randomseed(42)  -- seeded: a failure reproduces
local function random_bytes(n)
  local t = {}
  for i = 1, n do t[i] = string.char(math.random(0, 255)) end
  return table.concat(t)
end
bodies[#bodies + 1] = random_bytes(64)
bodies[#bodies + 1] = random_bytes(1000)
bodies[#bodies + 1] = string.rep("\0", 100)
bodies[#bodies + 1] = "\255\254\253\192\128invalid utf-8\237\160\128"
bodies[#bodies + 1] = string.rep(":", 5000)
bodies[#bodies + 1] = string.rep(";", 5000)
bodies[#bodies + 1] = string.rep("\\", 5000)
bodies[#bodies + 1] = string.rep("\r\n", 3000)
bodies[#bodies + 1] = string.rep("=", 4000)

cases.run("fuzz", bodies)
