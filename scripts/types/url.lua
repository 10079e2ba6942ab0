---@meta url
-- LuaLS annotations for `require "url"` (see scan.lua).

---@class scanlua.URL
---@field scheme string
---@field userinfo string?
---@field host string?
---@field port integer?
---@field path string
---@field query string?
---@field query_params table<string, string|string[]>?
---@field fragment string?

---@class scanlua.url
---@field parse fun(text: string): scanlua.URL|nil, string?
---@field decode fun(text: string, plus_as_space: boolean?): string|nil, string?
---@field encode fun(text: string): string

---@type scanlua.url
local url = {}
return url
