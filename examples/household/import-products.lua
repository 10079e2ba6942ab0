-- Fills the products table from a CSV or TSV file with a header row (an Open Food Facts export
-- has this shape: code, product_name, categories ...). Existing products are updated.
--
--   scanlua run --db household.db examples/household/import-products.lua examples/household/products.csv
local store = require "store"
local household = require "rules"   -- the schema, and what unknown scans become

local path = arg[1] or error("usage: import-products.lua FILE.csv", 0)
local file = assert(io.open(path, "r"))
local header = file:read("l") or ""
local sep = header:find("\t", 1, true) and "\t" or ","
local function split(line)
  local t = {}
  for field in (line .. sep):gmatch("(.-)" .. sep) do t[#t + 1] = field:gsub('^"(.*)"$', "%1") end
  return t
end
local columns = {}
for i, name in ipairs(split(header)) do columns[name:lower()] = i end
local code_col = columns.code or columns.gtin or error(path .. ": no 'code' column", 0)
local name_col = columns.product_name or columns.name or error(path .. ": no 'product_name' column", 0)
local cat_col = columns.categories or columns.category
local n = 0
local resolved = {}   -- scans that waited for these names
for line in file:lines() do
  local f = split(line)
  local code, name = f[code_col], f[name_col]
  if code and code:match("^%d+$") and name and name ~= "" then
    local category = cat_col and f[cat_col] and f[cat_col]:match("^[^,]*") or nil
    store.exec([[INSERT INTO products VALUES (?, ?, ?)
                 ON CONFLICT(gtin) DO UPDATE SET name = excluded.name, category = excluded.category]],
               { code, name, category or "other" })
    local applied = household.resolve_unknown(code, name, category or "other")
    if applied ~= 0 then resolved[#resolved + 1] = string.format("%s %+d", name, applied) end
    n = n + 1
  end
end
file:close()
print(string.format("%d products imported from %s into %s", n, path, store.path()))
if #resolved > 0 then print("counted now, scanned before their names were known: " .. table.concat(resolved, ", ")) end
