local inspect = require "inspect"

describe("inspect", function()
  it("renders values deterministically", function()
    expect(inspect({ 1, "two", b = true, a = { x = 1 } })).to_equal('{1, "two", a = {x = 1}, b = true}')
    expect(inspect("line\nbreak")).to_equal('"line\\nbreak"')
    expect(inspect({ ["with space"] = 1 })).to_equal('{["with space"] = 1}')
  end)
  it("marks cycles and limits depth", function()
    local t = {}
    t.me = t
    expect(inspect(t)).to_equal("{me = <cycle>}")
    expect(inspect({ { { 1 } } }, { depth = 2 })).to_equal("{{{...}}}")
  end)
end)
