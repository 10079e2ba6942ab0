#!/usr/bin/env python3
"""Clients of the preview page for PreviewTests, with the standard library only.

  preview_client.py page URL --codes N --screenshot PNG
      Opens URL in headless Chromium, waits (up to 30 s) until the page lists N codes and shows a
      frame, then prints the page's state read from its DOM as JSON and saves a screenshot.
      Talks to Chromium over the DevTools protocol (a WebSocket client is written out below).
      --no-frame: do not wait for a frame (a page before the first one).
  preview_client.py shot URL --out PNG
      One-shot `chromium --headless --screenshot`, as a person or a monitoring job would take it.
  preview_client.py events URL --count N [--header "Name: value"]...
      Reads the Server-Sent Events stream until N records came; prints each record's `data:` line.
  preview_client.py mjpeg URL --parts N --out DIR
      Reads N parts of the multipart MJPEG stream; writes DIR/part-K.jpg; prints each part's headers as JSON.
  preview_client.py get URL  |  post URL   [--header "Name: value"]...
      Prints the reply's status code, then its body.
"""
import argparse, base64, json, os, shutil, socket, struct, subprocess, sys, tempfile, time, urllib.error, urllib.parse, urllib.request


class WebSocket:
    """The client side of RFC 6455, enough for the DevTools protocol: text frames, masked."""

    def __init__(self, url):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("no WebSocket upgrade: " + head.decode(errors="replace"))
        self.next_id = 0

    def _read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError("DevTools connection closed")
            data += chunk
        return data

    def send(self, text):
        payload = text.encode()
        n = len(payload)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                                bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536 else
                                bytes([0x80 | 127]) + struct.pack(">Q", n))
        mask = os.urandom(4)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                (n,) = struct.unpack(">H", self._read(2))
            elif n == 127:
                (n,) = struct.unpack(">Q", self._read(8))
            message += self._read(n)
            if b0 & 0x80:
                return message.decode()

    def call(self, method, **params):
        self.next_id += 1
        self.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self.receive())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]


STATE = """(() => {
  const t = id => document.getElementById(id).textContent;
  const img = document.getElementById('frame');
  return JSON.stringify({
    codes: [...document.querySelectorAll('#codes .code')].map(li => ({
      symbology: li.querySelector('.symbology').textContent, text: li.querySelector('.text').textContent,
      payload: li.querySelector('.payload').textContent, count: Number(li.dataset.count), html: li.innerHTML})),
    title: document.title, source: t('source'), frames: t('frames'), accepted: t('accepted'), dropped: t('dropped'),
    torch_hidden: document.getElementById('torch').hidden, ended_hidden: document.getElementById('ended').hidden,
    frame_shown: !img.hidden && img.complete && img.naturalWidth > 0,
    frame_size: [img.naturalWidth, img.naturalHeight], frame_src: img.getAttribute('src') || '',
    frame_display: getComputedStyle(img).display, waiting_display: getComputedStyle(document.getElementById('nothing')).display});
})()"""


def page(args):
    profile = tempfile.mkdtemp(prefix="scanlua-chromium-")
    chromium = subprocess.Popen(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         f"--user-data-dir={profile}", "--remote-debugging-port=0", "--window-size=1200,800", args.url],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not os.path.exists(port_file) or not open(port_file).read().strip():
            if time.time() > deadline or chromium.poll() is not None:
                sys.exit("chromium did not start its DevTools server")
            time.sleep(0.1)
        port = int(open(port_file).read().split()[0])
        target = None
        while target is None:
            targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
            target = next((t for t in targets if t["type"] == "page" and t["url"].startswith(args.url)), None)
            if target is None:
                if time.time() > deadline:
                    sys.exit("the page did not open")
                time.sleep(0.1)
        ws = WebSocket(target["webSocketDebuggerUrl"])
        state = {}
        while time.time() < deadline:
            value = ws.call("Runtime.evaluate", expression=STATE, returnByValue=True)["result"].get("value")
            state = json.loads(value) if value else {}
            # --codes counts records: a code read again counts up on its line.
            if state and sum(c.get("count", 1) for c in state.get("codes", [])) >= args.codes and (state.get("frame_shown") or args.no_frame):
                break
            time.sleep(0.2)
        if args.screenshot:
            shot = ws.call("Page.captureScreenshot", format="png")
            with open(args.screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        print(json.dumps(state))
    finally:
        chromium.terminate()
        try:
            chromium.wait(10)
        except subprocess.TimeoutExpired:
            chromium.kill()
        shutil.rmtree(profile, ignore_errors=True)


def shot(args):
    profile = tempfile.mkdtemp(prefix="scanlua-chromium-")
    try:
        subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                        f"--user-data-dir={profile}", "--window-size=1200,800", f"--screenshot={args.out}", args.url],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60, check=True)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    print(os.path.getsize(args.out))


def events(args):
    count = 0
    headers = dict(h.split(": ", 1) for h in args.header or [])
    with urllib.request.urlopen(urllib.request.Request(args.url, headers=headers), timeout=30) as r:
        print(json.dumps({"content_type": r.headers["Content-Type"]}))
        for raw in r:
            line = raw.decode().rstrip("\n")
            if line.startswith("data: ") and not last_event:
                print(line[6:])
                count += 1
                if count >= args.count:
                    return
            last_event = line.startswith("event: ")
            if line == "":
                last_event = False


last_event = False


def mjpeg(args):
    os.makedirs(args.out, exist_ok=True)
    with urllib.request.urlopen(args.url, timeout=30) as r:
        print(json.dumps({"content_type": r.headers["Content-Type"]}))
        for k in range(args.parts):
            line = r.readline()
            while line.strip() == b"":
                line = r.readline()
            headers = {"boundary": line.decode().strip()}
            while True:
                h = r.readline().decode().strip()
                if not h:
                    break
                name, value = h.split(":", 1)
                headers[name.strip()] = value.strip()
            body = r.read(int(headers["Content-Length"]))
            with open(os.path.join(args.out, f"part-{k}.jpg"), "wb") as f:
                f.write(body)
            print(json.dumps(headers))


def request(args, method):
    headers = dict(h.split(": ", 1) for h in args.header or [])
    try:
        with urllib.request.urlopen(urllib.request.Request(args.url, method=method, headers=headers), timeout=30) as r:
            status, body = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, body = e.code, e.read()
    print(status)
    print(body.decode(errors="replace"))


p = argparse.ArgumentParser()
sub = p.add_subparsers(dest="cmd", required=True)
a = sub.add_parser("page"); a.add_argument("url"); a.add_argument("--codes", type=int, default=1); a.add_argument("--screenshot")
a.add_argument("--no-frame", action="store_true")
a = sub.add_parser("shot"); a.add_argument("url"); a.add_argument("--out", required=True)
a = sub.add_parser("events"); a.add_argument("url"); a.add_argument("--count", type=int, default=1); a.add_argument("--header", action="append")
a = sub.add_parser("mjpeg"); a.add_argument("url"); a.add_argument("--parts", type=int, default=1); a.add_argument("--out", required=True)
a = sub.add_parser("get"); a.add_argument("url"); a.add_argument("--header", action="append")
a = sub.add_parser("post"); a.add_argument("url"); a.add_argument("--header", action="append")
args = p.parse_args()
{"page": page, "shot": shot, "events": events, "mjpeg": mjpeg, "get": lambda a: request(a, "GET"),
 "post": lambda a: request(a, "POST")}[args.cmd](args)
