require("scan").rule { name = "post", run = function(p, ctx) return { type = "http", url = "http://127.0.0.1:18931/hook", body = { text = ctx.event.text } } end }
