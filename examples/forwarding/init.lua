-- Forwarding: each e-invoice is posted to a webhook, each product code published to an MQTT
-- topic (what a Home Assistant style consumer subscribes to). Deliveries that cannot be made
-- (server down, broker down, 5xx) wait in the outbox of the store and are retried:
--
--   scanlua scan --config examples/forwarding/init.lua examples/images
--   scanlua outbox --config examples/forwarding/init.lua          # what still waits
--   scanlua outbox --config examples/forwarding/init.lua --flush  # send it now
--   scanlua export --config examples/forwarding/init.lua --format csv
local scan = require "scan"

scan.options {
  -- Only the config (or --network) says where actions may connect; a --script cannot add hosts.
  network = { "127.0.0.1:8123", "127.0.0.1:1883" },
  db = "forwarding.db",   -- the outbox and the scan history live here
}
require "forward"   -- found next to this file
