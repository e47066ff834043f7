#!/usr/bin/env python3
"""Smoke test of a running rigweb (python3 standard library only, so that it runs on a
clean machine): GET /api/v1/info, a command over the control WebSocket (set_freq, answered
ok and seen in the state), one Opus frame from /api/v1/audio, and GET /metrics.

    smoke_client.py HOST:PORT [--timeout SECONDS]

Exits 0 and prints one line per check, or exits 1 naming the check that failed.
"""

import base64
import json
import os
import socket
import struct
import sys
import time
import urllib.request


def fail(msg):
    print(f"smoke: FAIL: {msg}", flush=True)
    sys.exit(1)


def http_get(addr, path, timeout):
    with urllib.request.urlopen(f"http://{addr}{path}", timeout=timeout) as r:
        return r.status, r.read()


class WebSocket:
    """A minimal RFC 6455 client: masked frames out, unfragmented frames in."""

    def __init__(self, addr, path, timeout):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise OSError(f"{path}: connection closed during the handshake")
            head += chunk
        if not head.startswith(b"HTTP/1.1 101"):
            raise OSError(f"{path}: handshake refused: {head.splitlines()[0]!r}")

    def _exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise OSError("connection closed")
            buf += chunk
        return buf

    def send_text(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            head = struct.pack("!BB", 0x81, 0x80 | n)
        else:
            head = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def recv(self):
        """(opcode, payload) of the next frame."""
        b0, b1 = self._exact(2)
        n = b1 & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", self._exact(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", self._exact(8))
        return b0 & 0x0F, self._exact(n)

    def recv_json(self, want, deadline):
        """The next text message whose `type` is `want`."""
        while time.monotonic() < deadline:
            op, payload = self.recv()
            if op == 1:
                msg = json.loads(payload)
                if msg.get("type") == want:
                    return msg
        raise TimeoutError(f"no {want!r} message")


def main():
    if len(sys.argv) < 2:
        fail("usage: smoke_client.py HOST:PORT [--timeout SECONDS]")
    addr = sys.argv[1]
    timeout = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--timeout" else 60.0
    deadline = time.monotonic() + timeout

    # 1. the server answers (it may still be starting, more so under emulation)
    info = None
    while time.monotonic() < deadline:
        try:
            status, body = http_get(addr, "/api/v1/info", 5)
            info = json.loads(body)
            break
        except OSError:
            time.sleep(0.5)
    if info is None:
        fail(f"GET /api/v1/info: no answer from {addr} within {timeout:.0f} s")
    print(f"smoke: info: {info.get('server')} {info.get('version')} model {info.get('model')}", flush=True)

    # 2. a command on the control socket, once the radio link is up
    while time.monotonic() < deadline:
        try:
            status, _ = http_get(addr, "/readyz", 5)
            if status == 200:
                break
        except OSError:
            pass
        time.sleep(0.5)
    else:
        fail("GET /readyz: the radio link never became ready")
    ws = WebSocket(addr, "/api/v1/ws", timeout)
    ws.recv_json("hello", deadline)
    ws.send_text(json.dumps({"type": "cmd", "id": "smoke-1", "name": "set_freq", "params": {"freq": 14074000}}))
    resp = ws.recv_json("response", deadline)
    if not resp.get("ok"):
        fail(f"set_freq answered {resp}")
    _, body = http_get(addr, "/api/v1/state", 5)
    state = json.dumps(json.loads(body))
    if "14074000" not in state:
        fail("set_freq was answered ok but the state does not show 14074000")
    print("smoke: control: set_freq 14074000 ok and in the state", flush=True)

    # 3. one Opus frame of RX audio
    audio = WebSocket(addr, "/api/v1/audio", timeout)
    audio.send_text(json.dumps({"type": "audio_start", "direction": "rx", "codec": "opus", "channels": 1}))
    audio.recv_json("audio_started", deadline)
    while time.monotonic() < deadline:
        op, payload = audio.recv()
        if op == 2:
            if len(payload) > 8 and payload[0] == 0x10 and payload[1] == 0x01:
                print(f"smoke: audio: Opus frame of {len(payload) - 8} bytes", flush=True)
                break
            fail(f"audio: unexpected binary frame header {payload[:8].hex()}")
    else:
        fail("audio: no Opus frame")

    # 4. the metrics page
    _, body = http_get(addr, "/metrics", 5)
    text = body.decode()
    for name in ("rigweb_uptime_seconds", "rigweb_ws_clients", "rigweb_commands_total"):
        if name not in text:
            fail(f"/metrics has no {name}")
    print("smoke: metrics ok", flush=True)
    print("smoke: PASS", flush=True)


if __name__ == "__main__":
    try:
        main()
    except (OSError, TimeoutError, ValueError) as e:
        fail(str(e))
