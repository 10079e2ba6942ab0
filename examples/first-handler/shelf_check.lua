-- A first handler: EAN-13 codes scanned at the shelf become "shelf-check" payloads with their
-- check digit verified, and a rule warns about in-store codes (GS1 prefix 20-29).
-- Priority 20 puts it ahead of the shipped product parser (priority 10) for EAN-13.
local scan = require "scan"
local checkdigit = require "checkdigit"

scan.parser {
  name = "shelf-check",
  types = "shelf-check",
  priority = 20,
  symbologies = { "ean13" },
  parse = function(ev)
    return { type = "shelf-check", gtin = "0" .. ev.text, valid = checkdigit.gs1_valid(ev.text), prefix = ev.text:sub(1, 3) }
  end,
}

scan.rule {
  name = "restricted-range",
  on = "shelf-check",
  when = function(p) return p.prefix:match("^2") ~= nil end,
  run = function(p, ctx) ctx.emit { type = "warning", message = "in-store code " .. p.gtin .. ", not a global product" } end,
}
