-- URLs in QR codes: payload type "url" with the URL's parts.
local scan = require "scan"
local url = require "url"

scan.parser {
  name = "url",
  symbologies = { "qrcode", "sqcode", "code128" },
  match = "^[%a][%w+.-]*://",
  priority = 10,
  parse = function(ev)
    local u = url.parse(ev.text)
    if not u or not u.host or u.host == "" then return nil end
    return {
      type = "url",
      url = ev.text,
      scheme = u.scheme,
      userinfo = u.userinfo,
      host = u.host,
      port = u.port,
      path = u.path,
      query = u.query_params,
      fragment = u.fragment,
    }
  end,
}
