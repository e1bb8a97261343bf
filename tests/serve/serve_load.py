#!/usr/bin/env python3
"""`gpuplan serve` under slow clients (ctest serve.load; issue 34).

Loopback only, bounded (about 10 s), stops by itself. Eight slow clients each open a connection
and send one header line every 0.5 s, never finishing their request (the attack that used to
hold every worker). Beside them, four normal clients fetch the page's files one after another.
Checks:
  - the normal clients' p99 latency stays under 100 ms;
  - each slow client is cut off by the total request deadline (5 s; 408 with a JSON body),
    not served for ever;
  - a form-encoded body over 8 KiB gets 415 with a JSON body; a body over 1 MiB gets 413 with one.
Exits 77 (skipped) when the binary has no server or no web assets.
"""
import json
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

GPUPLAN = sys.argv[1]
SLOW_CLIENTS = 8
NORMAL_CLIENTS = 4
RUN_S = 7.0
DEADLINE_S = 5.0


def start_server():
    log = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen([GPUPLAN, "serve", "--port", "0"], stdout=log, stderr=subprocess.STDOUT)
    for _ in range(200):
        log.seek(0)
        text = log.read()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", text)
        if m:
            return proc, int(m.group(1))
        if proc.poll() is not None:
            if "built without" in text:
                print("SKIP:", text.strip())
                sys.exit(77)
            print("serve exited early:", text)
            sys.exit(1)
        time.sleep(0.05)
    proc.kill()
    print("serve did not start")
    sys.exit(1)


def request(port, raw, timeout=5.0):
    """Sends `raw` and returns (status, body, seconds)."""
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(raw)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            head, sep, body = data.partition(b"\r\n\r\n")
            if sep:
                m = re.search(rb"Content-Length: (\d+)", head, re.I)
                if m and len(body) >= int(m.group(1)):
                    break
    elapsed = time.monotonic() - t0
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
    return status, body, elapsed


def slow_client(port, results, index):
    t0 = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=RUN_S + 5) as s:
            s.sendall(b"GET /api/gpus HTTP/1.1\r\nHost: x\r\n")
            data = b""
            while time.monotonic() - t0 < RUN_S + 3:
                try:
                    s.sendall(b"X-Slow-%d: still typing\r\n" % index)
                except OSError:
                    break
                s.settimeout(0.5)
                try:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                except socket.timeout:
                    continue
                except OSError:
                    break
            results[index] = (time.monotonic() - t0, data)
    except OSError as e:
        results[index] = (time.monotonic() - t0, str(e).encode())


def normal_client(port, latencies, stop_at):
    # The page's own files: what a browser asks for first, and cheap, so the latency measured is
    # the server's (a free worker, the accept queue), not the machine's CPU load of an API call.
    paths = [b"/style.css", b"/index.html", b"/app.js"]
    i = 0
    while time.monotonic() < stop_at:
        path = paths[i % len(paths)]
        try:
            status, _, elapsed = request(port, b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        except OSError:  # a timeout: no worker came
            status, elapsed = 0, float("inf")
        if status != 200:
            latencies.append(float("inf"))
        else:
            latencies.append(elapsed)
        i += 1


def main():
    proc, port = start_server()
    try:
        # Warm the catalog and the page once, then start the slow clients and give them time to
        # take their workers.
        request(port, b"GET /api/gpus HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        slow = {}
        slow_threads = [threading.Thread(target=slow_client, args=(port, slow, i)) for i in range(SLOW_CLIENTS)]
        for t in slow_threads:
            t.start()
        time.sleep(1.0)
        latencies = []
        stop_at = time.monotonic() + RUN_S - 1.0
        normal = [threading.Thread(target=normal_client, args=(port, latencies, stop_at)) for _ in range(NORMAL_CLIENTS)]
        for t in normal:
            t.start()
        for t in normal:
            t.join()
        for t in slow_threads:
            t.join()

        failures = []
        latencies.sort()
        p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] if latencies else float("inf")
        if latencies:
            print(f"normal clients: {len(latencies)} requests, p50 {latencies[len(latencies) // 2] * 1e3:.1f} ms, "
                  f"p99 {p99 * 1e3:.1f} ms, max {latencies[-1] * 1e3:.1f} ms")
        if len(latencies) < 20:
            failures.append(f"only {len(latencies)} normal requests answered")
        if p99 >= 0.100:
            failures.append(f"normal clients' p99 {p99 * 1e3:.1f} ms is not under 100 ms")
        for i in range(SLOW_CLIENTS):
            held_s, data = slow.get(i, (None, b""))
            cut = b" 408 " in data.split(b"\r\n", 1)[0] and b'"error"' in data
            print(f"slow client {i}: held {held_s:.1f} s, {'408 with JSON' if cut else data[:60]!r}")
            if not cut:
                failures.append(f"slow client {i} was not cut off with 408 and a JSON body")
            elif held_s > DEADLINE_S + 1.5:
                failures.append(f"slow client {i} held its worker {held_s:.1f} s, past the {DEADLINE_S:g} s deadline")

        status, body, _ = request(port, b"POST /api/train HTTP/1.1\r\nHost: x\r\nContent-Type: "
                                  b"application/x-www-form-urlencoded\r\nContent-Length: 9000\r\n\r\n" + b"a" * 9000)
        print(f"form-encoded body: HTTP {status}: {body[:100]!r}")
        if status != 415 or "error" not in json.loads(body):
            failures.append(f"form-encoded body: HTTP {status}, not 415 with a JSON error")
        big = b"{" + b" " * (1 << 20) + b"}"
        status, body, _ = request(port, b"POST /api/train HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                  b"Content-Length: %d\r\n\r\n" % len(big) + big)
        print(f"body over 1 MiB: HTTP {status}: {body[:100]!r}")
        if status != 413 or "error" not in json.loads(body):
            failures.append(f"body over 1 MiB: HTTP {status}, not 413 with a JSON error")
        latin1 = b'{"model":"\xff"}'
        status, body, _ = request(port, b"POST /api/train HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                  b"Content-Length: %d\r\n\r\n" % len(latin1) + latin1)
        print(f"body not UTF-8: HTTP {status}: {body[:120]!r}")
        if status != 400 or "not UTF-8" not in json.loads(body)["error"]["message"]:
            failures.append(f"body not UTF-8: HTTP {status}, not 400 naming the byte")

        for f in failures:
            print("FAIL:", f)
        return 1 if failures else 0
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    sys.exit(main())
