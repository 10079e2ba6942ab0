-- The inventory by category, as an aligned table; --csv FILE also writes it as CSV.
--
--   scanlua run --db household.db examples/household/report.lua [--csv inventory.csv]
local store = require "store"
local textwidth = require "textwidth"
require "rules"   -- the schema, for a fresh database

local csv_path
for i = 1, #arg do if arg[i] == "--csv" then csv_path = arg[i + 1] end end

local mode_row = store.query("SELECT value FROM settings WHERE key = 'mode'")[1]
print(string.format("inventory in %s (scans count as: %s)", store.path(), mode_row and mode_row.value or "purchase"))
local rows = store.query("SELECT category, name, quantity, unit FROM inventory WHERE quantity > 0 ORDER BY category, name")
local function qty(n) return math.type(n) == "integer" and tostring(n) or (n == math.floor(n) and string.format("%d", n) or string.format("%.2f", n)) end
local width = 4
for _, r in ipairs(rows) do width = math.max(width, textwidth.width(r.name)) end
local category
for _, r in ipairs(rows) do
  if r.category ~= category then
    category = r.category
    print(category)
  end
  print("  " .. textwidth.pad(r.name, width) .. "  " .. textwidth.pad(qty(r.quantity), 6, true) .. " " .. (r.unit or ""))
end
if #rows == 0 then print("(the inventory is empty)") end
local unknown = store.query("SELECT gtin, scans FROM unknown_products ORDER BY gtin")
if #unknown > 0 then
  print("unknown products (add them to a products CSV and run import-products.lua):")
  for _, u in ipairs(unknown) do print("  " .. u.gtin .. "  scanned " .. u.scans .. "x") end
end

if csv_path then
  local f = assert(io.open(csv_path, "w"))
  f:write("category,name,quantity,unit\n")
  local function field(s) s = tostring(s or ""); return s:find('[,"\n]') and '"' .. s:gsub('"', '""') .. '"' or s end
  for _, r in ipairs(rows) do f:write(field(r.category), ",", field(r.name), ",", qty(r.quantity), ",", field(r.unit), "\n") end
  f:close()
  print("wrote " .. csv_path)
end
