-- The household example's config: scanlua loads this with --config (or as ./scanlua.lua, once trusted).
--
--   scanlua scan --config examples/household/init.lua --db household.db examples/household/images
--   scanlua run --db household.db examples/household/report.lua
local scan = require "scan"

scan.options { max_failures = 3 }
require "rules"   -- found next to this file
