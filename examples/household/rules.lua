-- Household import rules: what a shopping trip's e-invoices and product barcodes do to the
-- inventory (SQLite, through the store module). Edit the tables at the top to make them yours.
local scan = require "scan"
local store = require "store"

local household = {}

-- {====================== Your rules ======================

-- Item names on invoices -> the name in the inventory.
household.rename = {
  ["鮮乳"] = "milk",
  ["蘋果"] = "apple",
  ["洗衣精"] = "laundry detergent",
  ["衛生紙"] = "toilet paper",
}

-- Categories by Lua pattern on the (renamed) name, first match wins.
household.categories = {
  { "milk", "dairy" }, { "乳", "dairy" }, { "cheese", "dairy" },
  { "detergent", "cleaning" }, { "清潔", "cleaning" }, { "洗", "cleaning" },
  { "toilet paper", "paper goods" }, { "紙", "paper goods" },
  { "apple", "fruit" }, { "果", "fruit" },
}

-- Lines that are not household items.
household.skip = { "購物袋", "塑膠袋", "折扣", "折價", "贈品" }

-- Pack sizes read from names: "衛生紙12捲" is 12 rolls of toilet paper.
household.units = { { "(%d+)捲$", "roll" }, { "(%d+)入$", "piece" }, { "(%d+)包$", "pack" }, { "(%d+)瓶$", "bottle" } }

-- }============================================================

-- The SQL below runs on SQLite and PostgreSQL alike (--db file or --db postgresql://...):
-- columns named with their table in ON CONFLICT updates, CASE rather than max(a, b).
store.migrate {
  [1] = [[
    CREATE TABLE products (gtin TEXT PRIMARY KEY, name TEXT NOT NULL, category TEXT);
    CREATE TABLE inventory (name TEXT PRIMARY KEY, category TEXT, quantity REAL NOT NULL DEFAULT 0, unit TEXT,
                            updated TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
    CREATE TABLE purchases (invoice TEXT NOT NULL, date TEXT, name TEXT NOT NULL, invoice_name TEXT NOT NULL,
                            quantity REAL NOT NULL, unit TEXT, unit_price REAL);
    CREATE TABLE unknown_products (gtin TEXT PRIMARY KEY, scans INTEGER NOT NULL DEFAULT 0,
                                   first_seen TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT);
  ]],
  -- Scans of a product whose name was not known yet: the stock change they stand for (+1 a
  -- purchase, -1 a use), applied when import-products.lua brings the name.
  [2] = [[
    ALTER TABLE unknown_products ADD COLUMN pending REAL NOT NULL DEFAULT 0;
    UPDATE unknown_products SET pending = scans;
  ]],
}

--- What an invoice line becomes: nil (skipped, with the reason) or {name, category, quantity, unit}.
function household.import_line(item)
  local raw = item.name:gsub("^[%s　]+", ""):gsub("[%s　]+$", "")
  for _, word in ipairs(household.skip) do
    if raw:find(word, 1, true) then return nil, "skipped: " .. word end
  end
  if not item.quantity or item.quantity <= 0 then return nil, "skipped: no quantity" end
  if not item.unit_price or item.unit_price <= 0 then return nil, "skipped: free or discount line" end
  local quantity, unit, base = item.quantity, "piece", raw
  for _, u in ipairs(household.units) do
    local n = raw:match(u[1])
    if n then
      quantity, unit, base = item.quantity * tonumber(n), u[2], raw:gsub(u[1], "")
      break
    end
  end
  local name = household.rename[base] or base
  local category = "other"
  for _, c in ipairs(household.categories) do
    if name:find(c[1]) then category = c[2]; break end
  end
  return { name = name, invoice_name = item.name, category = category, quantity = quantity, unit = unit, unit_price = item.unit_price }
end

local function add_stock(name, category, quantity, unit)
  store.exec([[INSERT INTO inventory (name, category, quantity, unit) VALUES (:name, :category, :quantity, :unit)
               ON CONFLICT(name) DO UPDATE SET quantity = inventory.quantity + excluded.quantity, updated = CURRENT_TIMESTAMP]],
             { name = name, category = category, quantity = quantity, unit = unit })
end

local function use_stock(name)
  store.exec("UPDATE inventory SET quantity = CASE WHEN quantity > 1 THEN quantity - 1 ELSE 0 END, updated = CURRENT_TIMESTAMP WHERE name = ?", { name })
end

--- A product's name arrived (import-products.lua): the scans that waited for it change the stock
--- now, and it is no longer unknown. Returns the stock change applied (0 when none waited).
function household.resolve_unknown(gtin, name, category)
  local row = store.query("SELECT pending FROM unknown_products WHERE gtin = ?", { gtin })[1]
  if not row then return 0 end
  local pending = row.pending or 0
  if pending > 0 then add_stock(name, category or "other", pending, "piece") end
  for _ = 1, math.min(-pending, 1000) do use_stock(name) end
  store.exec("DELETE FROM unknown_products WHERE gtin = ?", { gtin })
  return pending
end

--- Imports one invoice once. Returns imported lines, skipped lines (with reasons), or nil when
--- this invoice was imported before.
function household.import_invoice(p)
  if not store.once("tw-einvoice:" .. p.invoice_number .. ":" .. (p.date or "")) then return nil end
  local merged, order, skipped = {}, {}, {}
  for _, item in ipairs(p.items) do
    local line, reason = household.import_line(item)
    if line then
      local m = merged[line.name]
      if m then m.quantity = m.quantity + line.quantity  -- the same thing twice on one invoice
      else merged[line.name] = line; order[#order + 1] = line.name end
    else
      skipped[#skipped + 1] = item.name .. " (" .. reason .. ")"
    end
  end
  for _, name in ipairs(order) do
    local l = merged[name]
    store.exec("INSERT INTO purchases VALUES (?, ?, ?, ?, ?, ?, ?)",
               { p.invoice_number, p.date or "", l.name, l.invoice_name, l.quantity, l.unit, l.unit_price })
    add_stock(l.name, l.category, l.quantity, l.unit)
  end
  return order, skipped
end

local function mode()
  local row = store.query("SELECT value FROM settings WHERE key = 'mode'")[1]
  return row and row.value or "purchase"
end

-- Barcode Buddy's mode codes switch between adding and using up stock.
scan.parser {
  name = "household-mode",
  types = "household-mode",
  match = "^BBUDDY%-[PC]$",
  priority = 50,
  parse = function(ev) return { type = "household-mode", mode = ev.text == "BBUDDY-P" and "purchase" or "consume" } end,
}

scan.rule {
  name = "household-mode",
  on = "household-mode",
  run = function(p, ctx)
    store.exec("INSERT INTO settings VALUES ('mode', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", { p.mode })
    ctx.emit { type = "mode", mode = p.mode }
  end,
}

local function import_rule(invoice, ctx)
  if not (invoice.valid and invoice.complete) then return end
  local imported, skipped = household.import_invoice(invoice)
  if imported == nil then
    ctx.emit { type = "already-imported", invoice = invoice.invoice_number }
  else
    ctx.emit { type = "imported", invoice = invoice.invoice_number, items = imported, skipped = skipped }
  end
end

scan.rule { name = "household-invoice", on = "tw-einvoice", run = import_rule }
-- A right code seen after its left code, in a later frame, carries the completed invoice.
scan.rule {
  name = "household-invoice-late",
  on = "tw-einvoice-right",
  when = function(p) return p.invoice ~= nil end,
  run = function(p, ctx) import_rule(p.invoice, ctx) end,
}

scan.rule {
  name = "household-product",
  on = "product",
  run = function(p, ctx)
    -- The same photo scanned again is the same scan, not another purchase.
    local file = p.code and ctx.event.source ~= "simulate" and not ctx.event.source:match("^stdin")
    if file and not store.once("product-scan:" .. ctx.event.source .. ":" .. ctx.event.frame .. ":" .. p.gtin) then
      ctx.emit { type = "already-counted", gtin = p.gtin }
      return
    end
    local product = store.query("SELECT name, category FROM products WHERE gtin = ? OR gtin = ?", { p.gtin, p.code })[1]
    if not product then
      local delta = mode() == "purchase" and 1 or -1
      store.exec([[INSERT INTO unknown_products (gtin, scans, pending) VALUES (?, 1, ?)
                   ON CONFLICT(gtin) DO UPDATE SET scans = unknown_products.scans + 1,
                   pending = unknown_products.pending + excluded.pending]], { p.code, delta })
      ctx.emit { type = "unknown-product", gtin = p.code, pending = delta,
                 hint = "name it with import-products.lua: this scan counts then" }
      return
    end
    local m = mode()
    if m == "purchase" then
      add_stock(product.name, product.category or "other", 1, "piece")
    else
      use_stock(product.name)
    end
    ctx.emit { type = m == "purchase" and "added" or "used", name = product.name }
  end,
}

return household
