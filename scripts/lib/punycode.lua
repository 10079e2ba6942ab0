--- punycode: RFC 3492 Punycode and IDNA host labels (xn--).
---   punycode.decode(ascii) -> unicode | nil, reason       (the part after "xn--")
---   punycode.encode(unicode) -> ascii | nil, reason
---   punycode.host_to_unicode(host) / punycode.host_to_ascii(host) -> host with every label converted
local punycode = {}

local base, tmin, tmax, skew, damp, initial_bias, initial_n = 36, 1, 26, 38, 700, 72, 128

local function adapt(delta, numpoints, first)
  delta = first and delta // damp or delta // 2
  delta = delta + delta // numpoints
  local k = 0
  while delta > ((base - tmin) * tmax) // 2 do
    delta = delta // (base - tmin)
    k = k + base
  end
  return k + (base - tmin + 1) * delta // (delta + skew)
end

local function digit_value(c)
  if c >= 48 and c <= 57 then return c - 22 end      -- 0-9 -> 26-35
  if c >= 65 and c <= 90 then return c - 65 end      -- A-Z
  if c >= 97 and c <= 122 then return c - 97 end     -- a-z
end

local function digit_char(d) return d < 26 and string.char(d + 97) or string.char(d + 22) end

function punycode.decode(input)
  local output = {}
  local b = 0
  for i = #input, 1, -1 do if input:byte(i) == 45 then b = i; break end end
  for i = 1, b - 1 do
    local c = input:byte(i)
    if c >= 128 then return nil, "punycode: non-ASCII basic code point" end
    output[#output + 1] = c
  end
  local n, i, bias = initial_n, 0, initial_bias
  local pos = b > 0 and b + 1 or 1
  while pos <= #input do
    local oldi, w, k = i, 1, base
    while true do
      if pos > #input then return nil, "punycode: truncated input" end
      local digit = digit_value(input:byte(pos))
      pos = pos + 1
      if not digit then return nil, "punycode: bad digit" end
      i = i + digit * w
      if i > 0x7FFFFFFF then return nil, "punycode: overflow" end
      local t = k <= bias and tmin or (k >= bias + tmax and tmax or k - bias)
      if digit < t then break end
      w = w * (base - t)
      k = k + base
    end
    bias = adapt(i - oldi, #output + 1, oldi == 0)
    n = n + i // (#output + 1)
    i = i % (#output + 1)
    if n > 0x10FFFF then return nil, "punycode: code point out of range" end
    table.insert(output, i + 1, n)
    i = i + 1
  end
  local ok, s = pcall(utf8.char, table.unpack(output))
  if not ok then return nil, "punycode: bad code point" end
  return s
end

function punycode.encode(input)
  local cps = {}
  local ok = pcall(function() for _, c in utf8.codes(input) do cps[#cps + 1] = c end end)
  if not ok then return nil, "punycode: input is not UTF-8" end
  local output = {}
  for _, c in ipairs(cps) do if c < 128 then output[#output + 1] = string.char(c) end end
  local h, b = #output, #output
  if b > 0 then output[#output + 1] = "-" end
  local n, delta, bias = initial_n, 0, initial_bias
  while h < #cps do
    local m = math.huge
    for _, c in ipairs(cps) do if c >= n and c < m then m = c end end
    delta = delta + (m - n) * (h + 1)
    n = m
    for _, c in ipairs(cps) do
      if c < n then delta = delta + 1 end
      if c == n then
        local q, k = delta, base
        while true do
          local t = k <= bias and tmin or (k >= bias + tmax and tmax or k - bias)
          if q < t then break end
          output[#output + 1] = digit_char(t + (q - t) % (base - t))
          q = (q - t) // (base - t)
          k = k + base
        end
        output[#output + 1] = digit_char(q)
        bias = adapt(delta, h + 1, h == b)
        delta = 0
        h = h + 1
      end
    end
    delta = delta + 1
    n = n + 1
  end
  return table.concat(output)
end

local function map_labels(host, fn)
  local labels = {}
  for label in (host .. "."):gmatch("(.-)%.") do
    local converted, err = fn(label)
    if not converted then return nil, err end
    labels[#labels + 1] = converted
  end
  return table.concat(labels, ".")
end

function punycode.host_to_unicode(host)
  return map_labels(host, function(label)
    if label:lower():sub(1, 4) == "xn--" then return punycode.decode(label:sub(5)) end
    return label
  end)
end

function punycode.host_to_ascii(host)
  return map_labels(host, function(label)
    if label:find("[\128-\255]") then
      local e, err = punycode.encode(label)
      return e and "xn--" .. e, err
    end
    return label
  end)
end

return punycode
