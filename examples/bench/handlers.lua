-- A busier benchmark pair than `scanlua bench`'s built-in one:
--   scanlua bench --simulate 200000 --script examples/bench/handlers.lua
-- The parser does string work on the event; the rule has a `when` and returns an action
-- (stop, not carried out by bench) for every other event.
local scan = require "scan"

scan.parser {
  name = "bench",
  types = "bench",
  symbologies = { "qrcode" },
  match = "^BENCH%-",
  parse = function(ev) return { type = "bench", n = tonumber(ev.text:sub(7)) } end,
}

scan.rule {
  name = "bench-even",
  on = "bench",
  when = function(p) return p.n % 2 == 0 end,
  run = function(p, ctx) return { type = "stop", reason = "even" } end,
}
