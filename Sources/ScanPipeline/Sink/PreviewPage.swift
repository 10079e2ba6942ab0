import ScanCore

/// The preview page of `watch --serve`: one HTML document with its style and script inline (no
/// external assets, so it works offline). Code texts are hostile input: the script puts them
/// in the page with `textContent` only, never as HTML.
enum PreviewPage {
    /// The page's Content-Security-Policy: only its own inline style and script (by their
    /// SHA-256), images and streams from this server, and no page may frame it (the torch switch
    /// cannot be clicked through another page).
    static let contentSecurityPolicy: String = {
        func hash(between open: String, _ close: String) -> String {
            guard let a = html.range(of: open), let b = html.range(of: close, range: a.upperBound..<html.endIndex) else { return "'none'" }
            var out: [UInt8] = []
            Base64.encode(SHA256.digest(Array(html[a.upperBound..<b.lowerBound].utf8)), to: &out)
            return "'sha256-\(String(decoding: out, as: UTF8.self))'"
        }
        return "default-src 'self'; script-src \(hash(between: "<script>", "</script>")); style-src \(hash(between: "<style>", "</style>")); "
            + "img-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    }()

    /// The page as served: with the latest frame already in it when there is one, so the page's
    /// load event waits for that image (a one-shot `chromium --headless --screenshot` shows it).
    static func page(frameID: Int) -> String {
        guard frameID > 0 else { return html }
        return html.replacingOccurrences(of: #"<img id="frame" alt="latest frame" hidden><div id="nothing">"#,
                                         with: #"<img id="frame" alt="latest frame" data-frame="\#(frameID)" src="/frame.jpg?frame=\#(frameID)"><div id="nothing" hidden>"#)
    }

    static let html = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>scanlua preview</title>
    <style>
      body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #111; color: #eee; }
      header { padding: 8px 12px; background: #222; display: flex; gap: 18px; align-items: center; flex-wrap: wrap; }
      header b { color: #7d7; }
      main { display: flex; gap: 12px; padding: 12px; align-items: flex-start; flex-wrap: wrap; }
      #view { flex: 3 1 480px; }
      #frame { width: 100%; background: #000; display: block; image-rendering: pixelated; }
      #legend { color: #999; font-size: 12px; margin-top: 4px; }
      #legend .accepted { color: #0c0; } #legend .seen { color: #fb0; }
      #nothing { color: #999; padding: 40px 0; }
      aside { flex: 1 1 280px; }
      #codes { list-style: none; padding: 0; margin: 0; }
      .code { background: #1c2a1c; border-left: 4px solid #0c0; margin: 0 0 6px; padding: 6px 8px; word-break: break-all; }
      .symbology { color: #9c9; font-weight: bold; margin-right: 6px; }
      .payload { display: block; color: #bbb; font-size: 12px; }
      #torch[hidden], #ended[hidden], #frame[hidden], #nothing[hidden] { display: none; }
      .count { color: #7d7; font-weight: bold; margin-left: 6px; }
      #ended { color: #fc6; }
    </style>
    </head>
    <body>
    <header>
      <span>scanlua <b id="source"></b></span>
      <span>frames <b id="frames">0</b></span>
      <span>codes <b id="accepted">0</b></span>
      <span>dropped <b id="dropped">0</b></span>
      <span><b id="fps">0</b> fps</span>
      <label id="torch" hidden><input type="checkbox" id="torch-switch"> torch</label>
      <span id="ended" hidden>the source ended</span>
    </header>
    <main>
      <div id="view"><img id="frame" alt="latest frame" hidden><div id="nothing">waiting for the first frame</div>
        <div id="legend"><span class="accepted">&#9632;</span> accepted in this frame &nbsp;
          <span class="seen">&#9632;</span> read again (a duplicate, not accepted)</div></div>
      <aside><ul id="codes"></ul></aside>
    </main>
    <script>
    "use strict";
    const $ = id => document.getElementById(id);
    const codes = $("codes"), frame = $("frame");
    // The page may come with a frame in it already (its load event waits for that image).
    let shown = Number(frame.dataset.frame || 0), loading = false, wanted = shown;

    // The payload in one line: its type, then its plain fields.
    function summary(payload) {
      if (!payload) return "";
      const parts = [payload.type];
      for (const [k, v] of Object.entries(payload)) {
        if (k === "type" || v === null || typeof v === "object") continue;
        parts.push(k + "=" + v);
        if (parts.length > 5) break;
      }
      return parts.join("  ");
    }

    // A code read again (the one in view, accepted once per interval) counts up on its line and
    // moves to the top, rather than filling the list with repeats.
    function addCode(record) {
      const key = record.symbology + "\u0000" + record.text;
      for (const li of codes.children) {
        if (li.dataset.key !== key) continue;
        const n = Number(li.dataset.count) + 1;
        li.dataset.count = n;
        li.querySelector(".count").textContent = "\u00d7" + n;
        li.querySelector(".payload").textContent = summary(record.payload);
        codes.prepend(li);
        return;
      }
      const li = document.createElement("li");
      li.className = "code";
      li.dataset.symbology = record.symbology;
      li.dataset.key = key;
      li.dataset.count = 1;
      const s = document.createElement("span");
      s.className = "symbology";
      s.textContent = record.symbology;
      const t = document.createElement("span");
      t.className = "text";
      t.textContent = record.text;
      const p = document.createElement("span");
      p.className = "payload";
      p.textContent = summary(record.payload);
      const c = document.createElement("span");
      c.className = "count";
      li.append(s, t, c, p);
      codes.prepend(li);
      while (codes.children.length > 50) codes.lastChild.remove();
    }

    function loadFrame() {
      if (loading || wanted === shown) return;
      loading = true;
      const id = wanted;
      frame.onload = () => { loading = false; shown = id; frame.hidden = false; $("nothing").hidden = true; loadFrame(); };
      frame.onerror = () => { loading = false; };
      frame.src = "/frame.jpg?frame=" + id;
    }

    function showStatus(s) {
      $("source").textContent = s.source;
      $("frames").textContent = s.frames;
      $("accepted").textContent = s.accepted;
      $("dropped").textContent = s.dropped;
      $("fps").textContent = s.fps;
      $("ended").hidden = !s.ended;
      $("torch").hidden = s.torch === null;
      if (s.torch !== null) $("torch-switch").checked = s.torch;
      if (s.frame_id > 0) { wanted = s.frame_id; loadFrame(); }
    }

    $("torch-switch").onchange = e => {
      fetch("/torch?on=" + (e.target.checked ? 1 : 0), { method: "POST", headers: { "X-Scanlua": "torch" } })
        .then(r => r.json()).then(s => { if (s.error) { alert(s.error); } else { showStatus(s); } });
    };

    const events = new EventSource("/events");
    events.onmessage = e => addCode(JSON.parse(e.data));
    events.addEventListener("status", e => showStatus(JSON.parse(e.data)));
    </script>
    </body>
    </html>
    """#
}
