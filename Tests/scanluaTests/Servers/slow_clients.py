#!/usr/bin/env python3
"""Slow clients against the preview page (loopback only): COUNT connections from 127.0.0.2 that
send a request one byte at a time and never finish it, then a normal GET /status from 127.0.0.1
(timed), the headers of /, and whether the server ends a trickling connection by itself.
With a third argument `streams`: first 64 complete GET /events requests held open, 8 from each
of 127.0.0.10-17 (every slot a stream could take), then the same. Prints one JSON object."""
import json, socket, sys, time, urllib.request

port, count = int(sys.argv[1]), int(sys.argv[2])
held = []
if len(sys.argv) > 3 and sys.argv[3] == "streams":
    for a in range(8):
        for _ in range(8):
            s = socket.socket()
            s.bind((f"127.0.0.{10 + a}", 0))
            try:
                s.connect(("127.0.0.1", port))
                s.send(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                held.append(s)
            except OSError:
                s.close()
    time.sleep(0.5)
socks = []
for _ in range(count):
    s = socket.socket()
    s.bind(("127.0.0.2", 0))
    try:
        s.connect(("127.0.0.1", port))
        s.send(b"G")
        socks.append(s)
    except OSError:
        s.close()
time.sleep(0.5)
for s in socks:
    try:
        s.send(b"E")
    except OSError:
        pass
t = time.time()
with urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=10) as r:
    status_code, _ = r.status, r.read()
status_seconds = time.time() - t
with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
    headers = dict(r.headers)
# Keep trickling on the first connection the server kept: when does the server end it?
start, closed = time.time(), False
for s in socks:
    s.settimeout(0.5)
alive = None
for s in socks:
    try:
        s.send(b"T")
        alive = s
        break
    except OSError:
        continue
while alive and time.time() - start < 10:
    try:
        alive.send(b"T")
        if alive.recv(100) == b"":
            closed = True
            break
    except socket.timeout:
        continue
    except OSError:
        closed = True
        break
print(json.dumps({"status_code": status_code, "status_seconds": status_seconds, "closed": closed,
                  "closed_after": time.time() - start, "x_frame_options": headers.get("X-Frame-Options"),
                  "csp": headers.get("Content-Security-Policy")}))
