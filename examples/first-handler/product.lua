-- A first handler: EAN-13 product codes become payloads with their check digit verified,
-- and a rule warns about codes from the restricted-circulation range (GS1 prefix 20-29).
local scan = require "scan"
local checkdigit = require "checkdigit"

scan.parser {
  name = "product",
  symbologies = { "ean13" },
  parse = function(ev)
    return { type = "product", gtin = "0" .. ev.text, valid = checkdigit.gs1_valid(ev.text), prefix = ev.text:sub(1, 3) }
  end,
}

scan.rule {
  name = "restricted-range",
  on = "product",
  when = function(p) return p.prefix:match("^2") ~= nil end,
  run = function(p, ctx) ctx.emit { type = "warning", message = "in-store code " .. p.gtin .. ", not a global product" } end,
}
