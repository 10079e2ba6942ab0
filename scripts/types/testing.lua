---@meta
-- The test API of `scanlua test` (busted's shape): globals in *_test.lua files only.

---@class scanlua.Expectation
---@field to_equal fun(expected: any)     deep equality
---@field to_be fun(expected: any)        rawequal
---@field to_be_nil fun()
---@field to_be_truthy fun()
---@field to_be_falsy fun()
---@field to_contain fun(item: any)       substring, or an element of a table
---@field to_match fun(pattern: string)
---@field to_fail fun(pattern: string?)   the function raises (an error matching pattern)

---Test files only (`scanlua test`): a group of tests.
---@param name string
---@param fn fun()
function describe(name, fn) end

---Test files only: one test; without fn it is pending.
---@param name string
---@param fn fun()?
function it(name, fn) end

---Test files only: a test written down but not yet written (counted as pending).
---@param name string
function pending(name) end

---Test files only: runs before each test of the describe block it is in (and its inner blocks).
---@param fn fun()
function before_each(fn) end

---Test files only: runs after each test of its block, also when the test failed.
---@param fn fun()
function after_each(fn) end

---Test files only.
---@param actual any
---@return scanlua.Expectation
function expect(actual) end

