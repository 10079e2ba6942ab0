-- The fuzz test's large bodies (run by `make fuzz` with the release build:
-- `.build/release/scanlua test scripts/handlers/fuzz_large.lua`).
local cases = require "handlers.fuzz_cases"

cases.run("fuzz, large bodies", {
  string.rep("A", 1 << 20),            -- 1 MB
  string.rep("x:1:2:", 1 << 17),       -- 768 KB of item-like records
})
