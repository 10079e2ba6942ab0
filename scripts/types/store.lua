---@meta store
-- LuaLS annotations for `require "store"` (see scan.lua).

---@class scanlua.store
---@field exec fun(sql: string, params: table?): integer                 changed rows
---@field query fun(sql: string, params: table?): table<string, any>[]   rows as {column = value}
---@field once fun(key: string): boolean                                 true the first time
---@field migrate fun(migrations: table<integer, string>): integer       migrations applied now
---@field path fun(): string

---@type scanlua.store
local store = {}
return store
