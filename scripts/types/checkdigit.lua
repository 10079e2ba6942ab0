---@meta checkdigit
-- LuaLS annotations for `require "checkdigit"` (see scan.lua).

---@class scanlua.checkdigit
---@field gs1 fun(digits: string): integer
---@field gs1_valid fun(code: string): boolean
---@field mod11 fun(digits: string): string
---@field mod11_valid fun(isbn10: string): boolean
---@field mod97 fun(text: string): integer
---@field iban_valid fun(iban: string): boolean

---@type scanlua.checkdigit
local checkdigit = {}
return checkdigit
