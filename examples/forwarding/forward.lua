-- The rules of the forwarding example (loaded by init.lua). Endpoints are settings here so that
-- tests and other set-ups can point them elsewhere: require("forward").configure { ... }.
local scan = require "scan"

local M = {
  webhook = "http://127.0.0.1:8123/invoices",
  broker = "mqtt://127.0.0.1:1883",
  topic = "scanlua/products",
}

function M.configure(t)
  for k, v in pairs(t) do
    if M[k] == nil or type(v) ~= "string" then error("forward.configure: unknown setting or not a string: " .. tostring(k), 2) end
    M[k] = v
  end
end

-- One webhook call per invoice: the invoice with its items, as JSON (scanlua adds the
-- Idempotency-Key header, the same on every retry of this delivery).
scan.rule {
  name = "post-einvoice",
  on = "tw-einvoice",
  run = function(p)
    local items = {}
    for i, item in ipairs(p.items or {}) do
      items[i] = { name = item.name, quantity = item.quantity, unit_price = item.unit_price }
    end
    return {
      type = "http", url = M.webhook, method = "POST",
      body = { invoice_number = p.invoice_number, date = p.date, total_amount = p.total_amount,
               seller_id = p.seller_id, items = items },
    }
  end,
}

-- One retained MQTT message per product code, QoS 1 (the broker acknowledges it).
scan.rule {
  name = "publish-product",
  on = "product",
  run = function(p)
    return {
      type = "mqtt", broker = M.broker, topic = M.topic .. "/" .. p.code, qos = 1, retain = true,
      payload = { code = p.code, symbology = p.symbology, country = p.country },
    }
  end,
}

return M
