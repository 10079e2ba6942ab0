#!/usr/bin/env python3
"""A raw TCP listener for the header tests (loopback only): answers every connection with one
fixed HTTP 200 and writes everything it received, byte for byte, to --log (connections appended
in order, each followed by a line "--- end of connection"; connections that sent nothing, such as
the tests' own readiness probe, are not logged). Nothing parses the request, so a
smuggled second request shows up as the bytes it really was."""
import argparse, socket, threading

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--log", required=True)
args = parser.parse_args()

lock = threading.Lock()
server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", args.port))
server.listen(16)


def serve(conn):
    conn.settimeout(1.0)
    data, answered = b"", False
    try:
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
            if not answered and b"\r\n\r\n" in data:
                # Answer once a header block arrived; keep reading whatever else comes for a moment.
                answered = True
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    except OSError:
        pass
    conn.close()
    if not data:
        return  # the test's own "is it listening" probe
    with lock, open(args.log, "ab") as f:
        f.write(data + b"\n--- end of connection\n")


while True:
    c, _ = server.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
