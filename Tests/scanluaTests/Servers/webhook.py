#!/usr/bin/env python3
"""A webhook receiver for the forwarding tests (loopback only).

Every request is one JSON line in --log: method, path, Idempotency-Key, body, and the status it
was answered with. --fail-first N answers the first N requests 503; --flap K answers every K-th
of the rest 503 too; --hang-first S waits S seconds before answering the first request (a client
killed meanwhile never sees the answer). It prints "ready PORT" once listening.
"""
import argparse, json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--log", required=True)
parser.add_argument("--fail-first", type=int, default=0)
parser.add_argument("--flap", type=int, default=0)
parser.add_argument("--hang-first", type=float, default=0)
parser.add_argument("--hang-all", type=float, default=0)
parser.add_argument("--body-bytes", type=int, default=0)  # each answer carries this many bytes  # every request waits this long: a server that never answers in time
args = parser.parse_args()

lock = threading.Lock()
count = 0


class Handler(BaseHTTPRequestHandler):
    def handle_one(self):
        global count
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        with lock:
            count += 1
            n = count
        if n == 1 and args.hang_first:
            time.sleep(args.hang_first)
        if args.hang_all:
            time.sleep(args.hang_all)
        status = 503 if n <= args.fail_first or (args.flap and n % args.flap == 0) else 200
        with lock, open(args.log, "a") as f:
            f.write(json.dumps({"n": n, "method": self.command, "path": self.path, "key": self.headers.get("Idempotency-Key"),
                                "type": self.headers.get("Content-Type"), "body": body, "status": status}) + "\n")
        self.send_response(status)
        self.send_header("Content-Length", str(args.body_bytes))
        self.end_headers()
        chunk = b"x" * 65536
        left = args.body_bytes
        while left > 0:
            self.wfile.write(chunk[:min(left, len(chunk))])
            left -= min(left, len(chunk))

    do_POST = do_PUT = do_GET = handle_one

    def log_message(self, *a):
        pass


server = ThreadingHTTPServer((args.host, args.port), Handler)
print("ready", server.server_address[1], flush=True)
server.serve_forever()
