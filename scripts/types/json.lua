---@meta json
-- LuaLS annotations for `require "json"` (see scan.lua).

---@class scanlua.json
---@field encode fun(value: any, options: {sort_keys: boolean?, indent: string?}?): string
---@field decode fun(text: string): any, string?
---@field null table
---@field array fun(t: table?): table

---@type scanlua.json
local json = {}
return json
