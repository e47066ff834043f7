#!/usr/bin/env python3
"""A fake IC-7610 that behaves like the anchor project's test mock (spec §7.1).

It is deliberately *not* a good radio: it reproduces the mock's quirks so that a client
can be checked against a peer that real clients have been developed against.

* Two UDP sockets on 127.0.0.1 (control, CI-V); no audio socket, although the Status
  packet advertises audio = CI-V port + 1.
* Radio id 0xDEADBEEF on every port, token 0x12345678, CI-V address 0x98.
* Control port, dispatched by datagram length: AYT → IAH, AYR → AYR, ping → reply,
  login (0x80) → login response (0x60), token 0x02 → a 0x90 "conninfo" carrying only the
  GUID bytes 01..10 at 0x20, conninfo 0x03 → Status (0x50) with the CI-V port (BE @0x42)
  and the audio port (BE @0x46).  Every control reply has outer seq 0 and leaves
  payloadsize / requestreply / innerseq zero.
* CI-V port: AYT/AYR/ping as above; an OpenClose(open) (0x16, magic 0x04) is answered
  with the malformed, data-less frame `FE FE 00 98 00 FD`; CI-V data is dispatched per
  §7.1.  CI-V replies carry outer seq = inner sendseq = one counter starting at 1.
* No idles, no pings of its own; retransmit requests are ignored.

Output: the first stdout line is ``{"control": P, "civ": Q}`` once both sockets are bound;
after that one ``{"event": "state", ...}`` line after every change of the radio state
(and once at start-up), so a test can check what a client set; and one
``{"event": "goodbye", "what": ..., "t_ns": ...}`` line per logout step received
(OpenClose close, DISCONNECT, token remove) with its kernel arrival time.  Diagnostics go to
stderr, including every datagram the mock cannot classify.

Beyond the anchor's mock, it also *observes* (without changing any reply) whether the
client's packets follow the spec, and reports each finding once as
``{"event": "deviation", "what": ...}`` on stdout: login / token / conninfo layout
(§2.3, §2.6, §2.8), the GUID echo (pitfall 6), CI-V traffic from the advertised local
port (§1.1), the 0x15-byte CI-V header and datalen (§3.1), OpenClose layout (§3.2),
non-zero ids (§1.7).
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import json
import selectors
import socket
import struct
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import icom_wire as w

RADIO_ID = 0xDEADBEEF
TOKEN = 0x12345678
GUID = bytes(range(0x01, 0x11))

CMD_FREQ_GET, CMD_FREQ_SET = 0x03, 0x05
CMD_MODE_GET, CMD_MODE_SET = 0x04, 0x06
CMD_ATT, CMD_LEVEL, CMD_METER, CMD_PREAMP = 0x11, 0x14, 0x15, 0x16
CMD_29, CMD_ACK, CMD_NAK = 0x29, 0xFB, 0xFA

Addr = tuple[str, int]

# Linux SO_TIMESTAMPNS (= SCM_TIMESTAMPNS); Python 3.11's socket module lacks the name.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


@dataclass
class RigState:
    """The mock's radio state (§7.1 defaults)."""

    freq: int = 14_074_000
    mode: int = 0x01  # USB
    filter: int = 1
    power: int = 100
    smeter: int = 120
    swr: int = 10
    alc: int = 0
    att: int = 0
    preamp: int = 0
    digisel: int = 0


def log(msg: str) -> None:
    """A diagnostic line on stderr."""
    print(f"[anchor_mock] {msg}", file=sys.stderr, flush=True)


def emit(obj: dict) -> None:
    """One JSON line on stdout."""
    print(json.dumps(obj), flush=True)


def quirky_freq(data: bytes) -> int:
    """The mock's frequency decoder: LE BCD without any nibble validation."""
    hz = 0
    for i, b in enumerate(data):
        hz += (b & 0x0F) * 10 ** (2 * i) + (b >> 4) * 10 ** (2 * i + 1)
    return hz


def quirky_level(data: bytes) -> int:
    """The mock's 2-byte BCD decoder: no validation; raises IndexError if too short."""
    return (data[0] >> 4) * 1000 + (data[0] & 0x0F) * 100 + (data[1] >> 4) * 10 + (data[1] & 0x0F)


class AnchorMock:
    """The two sockets, the dispatch tables and the radio state."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.radio_addr: int = args.civ_addr
        self.state = RigState()
        self.civ_seq = 1  # outer seq = inner sendseq of CI-V replies; never reset
        self.client_id = {"control": 0, "civ": 0}
        self.ctrl = self._bind(args.control_port)
        self.civ = self._bind(args.civ_port)
        self.civ_port = self.civ.getsockname()[1]
        self.pending: list[tuple[float, int, Callable[[], None]]] = []
        self.counter = 0
        self.stats: dict[str, int] = {}
        self.deviations: set[str] = set()
        self.arrival_ns = 0
        self.first_rx = 0.0
        self.advertised_civ_port = 0

    @staticmethod
    def _bind(port: int) -> socket.socket:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", port))
        s.setblocking(False)
        # kernel receive timestamps, so the order of the client's goodbye across the two
        # sockets can be reported exactly (select() order is not arrival order)
        with contextlib.suppress(OSError):  # not Linux: arrival = processing time
            s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        return s

    @staticmethod
    def receive(sock: socket.socket) -> tuple[bytes, Addr, int]:
        """One datagram, its source and its kernel arrival time in ns (0 if unknown)."""
        data, anc, _flags, addr = sock.recvmsg(65535, socket.CMSG_SPACE(16))
        t_ns = 0
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(payload) >= 16:
                sec, nsec = struct.unpack_from("=qq", payload)
                t_ns = sec * 1_000_000_000 + nsec
        return data, addr, t_ns or time.time_ns()

    # --- plumbing ----------------------------------------------------------------

    def count(self, key: str) -> None:
        """Counts a classified datagram (reported on exit)."""
        self.stats[key] = self.stats.get(key, 0) + 1

    def send(self, sock: socket.socket, data: bytes, addr: Addr) -> None:
        """Sends now, or after ``--response-delay`` (the mock's only knob that delays)."""

        def go() -> None:
            try:
                sock.sendto(data, addr)
            except OSError as e:
                log(f"send to {addr} failed: {e}")

        if self.args.response_delay > 0:
            self.counter += 1
            heapq.heappush(
                self.pending, (time.monotonic() + self.args.response_delay, self.counter, go)
            )
        else:
            go()

    def emit_state(self) -> None:
        """Reports the radio state on stdout."""
        emit({"event": "state", **asdict(self.state)})

    def unclassified(self, port: str, data: bytes, addr: Addr, why: str) -> None:
        """Logs a datagram the mock does not know what to do with."""
        self.count(f"{port}:unclassified")
        log(f"unclassified {port} datagram from {addr} ({why}), {len(data)} bytes: {data.hex()}")

    def goodbye(self, what: str) -> None:
        """Reports one step of a client's logout with its arrival time (§2.11)."""
        emit({"event": "goodbye", "what": what, "t_ns": self.arrival_ns})

    def deviation(self, what: str) -> None:
        """Reports (once) something in the client's packets that the spec does not allow."""
        if what not in self.deviations:
            self.deviations.add(what)
            log(f"DEVIATION: {what}")
            emit({"event": "deviation", "what": what})

    def check_header(self, port: str, data: bytes, h: w.Header, addr: Addr) -> None:
        """Common-header checks: len field, non-zero sentid, rcvdid after discovery (§1.2, §1.7)."""
        ping_request = h.ptype == w.T_PING and len(data) == w.PING_LEN
        if h.length != len(data) and not (ping_request and h.length == 0):
            self.deviation(f"{port}: header len {h.length} != datagram {len(data)}")
        if h.sentid == 0:
            self.deviation(f"{port}: sentid 0")
        if h.ptype not in (w.T_AYT,) and h.rcvdid not in (RADIO_ID,):
            self.deviation(
                f"{port}: rcvdid 0x{h.rcvdid:08x} in a type 0x{h.ptype:02x} packet "
                "(the radio id is 0xdeadbeef)"
            )
        if port == "civ" and self.advertised_civ_port and addr[1] != self.advertised_civ_port:
            self.deviation(
                f"civ: datagrams from port {addr[1]}, "
                f"conninfo advertised {self.advertised_civ_port} (§1.1)"
            )

    def check_token_family(self, data: bytes, what: str, requesttype: int) -> None:
        """The §2.2 prefix of a client packet: payloadsize BE, requestreply 0x01, requesttype."""
        size = struct.unpack_from(">I", data, 0x10)[0]
        if size != len(data) - w.HEADER_LEN:
            self.deviation(
                f"{what}: payloadsize 0x{size:x}, expected 0x{len(data) - w.HEADER_LEN:x} (BE)"
            )
        if data[0x14] != 0x01 or data[0x15] != requesttype:
            self.deviation(f"{what}: requestreply/requesttype {data[0x14]:#04x}/{data[0x15]:#04x}")

    def check_login(self, data: bytes) -> None:
        """Login layout (§2.3): credentials obfuscated, computer name."""
        self.check_token_family(data, "login", 0x00)
        if not any(data[0x40:0x50]) or not any(data[0x50:0x60]):
            self.deviation("login: empty user name or password field")
        if any(b > 0x7E or (b and b < 0x20) for b in data[0x40:0x60]):
            self.deviation("login: credential bytes outside the obfuscation table")

    def check_token(self, data: bytes) -> None:
        """Client token packet (§2.6): resetcap 0x0798 BE @0x24, the radio's token."""
        self.check_token_family(data, f"token 0x{data[0x15]:02x}", data[0x15])
        if data[0x24:0x26] != b"\x07\x98":
            self.deviation(
                f"token 0x{data[0x15]:02x}: resetcap {data[0x24:0x26].hex()}, expected 0798"
            )
        if struct.unpack_from("<I", data, 0x1C)[0] != TOKEN:
            self.deviation(
                f"token 0x{data[0x15]:02x}: token is not the one the login response gave"
            )

    def check_conninfo(self, data: bytes) -> None:
        """Client conninfo (§2.8): GUID echo, mono TX codec, BE rates and ports."""
        self.check_token_family(data, "conninfo", 0x03)
        if data[0x20:0x30] != GUID:
            self.deviation(
                f"conninfo: GUID area {data[0x20:0x30].hex()} is not the radio's (pitfall 6)"
            )
        if struct.unpack_from("<I", data, 0x1C)[0] != TOKEN:
            self.deviation("conninfo: token is not the one the login response gave")
        if data[0x73] not in (0x01, 0x02, 0x04):
            self.deviation(f"conninfo: TX codec 0x{data[0x73]:02x} is not mono (pitfall 8)")
        rx_rate, tx_rate, civ_port, audio_port = struct.unpack_from(">IIII", data, 0x74)
        if rx_rate not in (8000, 16000, 24000, 48000) or tx_rate not in (8000, 16000, 24000, 48000):
            self.deviation(f"conninfo: sample rates {rx_rate}/{tx_rate} (BE u32 @0x74/0x78)")
        if not 0 < civ_port < 65536 or not 0 < audio_port < 65536:
            self.deviation(f"conninfo: local ports {civ_port}/{audio_port} (BE u32 @0x7C/0x80)")
        self.advertised_civ_port = civ_port

    def run(self) -> None:
        """The event loop; returns after ``--lifetime`` seconds."""
        emit({"control": self.ctrl.getsockname()[1], "civ": self.civ_port})
        self.emit_state()
        sel = selectors.DefaultSelector()
        sel.register(self.ctrl, selectors.EVENT_READ, "control")
        sel.register(self.civ, selectors.EVENT_READ, "civ")
        end = time.monotonic() + self.args.lifetime
        while time.monotonic() < end:
            timeout = end - time.monotonic()
            if self.pending:
                timeout = min(timeout, max(0.0, self.pending[0][0] - time.monotonic()))
            for key, _ in sel.select(timeout):
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data, addr, self.arrival_ns = self.receive(sock)
                except OSError:
                    continue
                try:
                    self.on_datagram(key.data, sock, data, addr)
                except Exception as e:  # the anchor mock logs and drops (no reply)
                    log(f"error handling {key.data} datagram {data.hex()}: {e!r}")
            while self.pending and self.pending[0][0] <= time.monotonic():
                heapq.heappop(self.pending)[2]()
        log(f"lifetime over; datagrams: {json.dumps(self.stats, sort_keys=True)}")

    # --- dispatch ------------------------------------------------------------------

    def on_datagram(self, port: str, sock: socket.socket, data: bytes, addr: Addr) -> None:
        """Entry point: remembers the client id, then dispatches by datagram length."""
        if len(data) < w.HEADER_LEN:
            self.unclassified(port, data, addr, "shorter than a header")
            return
        if not self.first_rx:
            self.first_rx = time.monotonic()
        h = w.Header.parse(data)
        self.check_header(port, data, h, addr)
        self.client_id[port] = h.sentid
        if port == "control":
            self.on_control(sock, data, h, addr)
        else:
            self.on_civ_port(sock, data, h, addr)

    def common(self, port: str, sock: socket.socket, data: bytes, h: w.Header, addr: Addr) -> bool:
        """AYT, AYR, ping request and DISCONNECT, the same on both ports."""
        n = len(data)
        if n == w.HEADER_LEN and h.ptype == w.T_AYT:
            self.count(f"{port}:ayt")
            self.send(sock, w.control(w.T_IAH, 0, RADIO_ID, h.sentid), addr)
            return True
        if n == w.HEADER_LEN and h.ptype == w.T_AYR:
            self.count(f"{port}:ayr")
            self.send(sock, w.control(w.T_AYR, 0, RADIO_ID, h.sentid), addr)
            return True
        if n == w.PING_LEN and h.ptype == w.T_PING and data[0x10] == 0x00:
            self.count(f"{port}:ping")
            self.send(sock, w.ping_reply_to(data, RADIO_ID, h.sentid), addr)
            return True
        if n == w.HEADER_LEN and h.ptype == w.T_DISCONNECT:
            self.count(f"{port}:disconnect")
            log(f"{port}: DISCONNECT from {addr}")
            self.goodbye(f"{port}:disconnect")
            if port == "control":
                elapsed = time.monotonic() - self.first_rx if self.first_rx else 0.0
                emit({"event": "stats", "elapsed_s": round(elapsed, 3), "datagrams": self.stats})
            return True
        # Classified but ignored, as by the anchor's mock: idles, retransmit requests,
        # ping replies (it never pings, so any reply is unexpected but harmless).
        if n == w.HEADER_LEN and h.ptype == w.T_DATA:
            self.count(f"{port}:idle")
            return True
        if h.ptype == w.T_RETRANSMIT and (n - w.HEADER_LEN) % 4 == 0:
            self.count(f"{port}:retransmit_request(ignored)")
            return True
        if n == w.PING_LEN and h.ptype == w.T_PING:
            self.count(f"{port}:ping_reply(unexpected)")
            return True
        return False

    def on_control(self, sock: socket.socket, data: bytes, h: w.Header, addr: Addr) -> None:
        """Control port (§7.1): everything by datagram length."""
        if self.common("control", sock, data, h, addr):
            return
        n = len(data)
        if n == w.LOGIN_LEN:
            self.count("control:login")
            self.check_login(data)
            self.send(sock, self.login_response(data, h.sentid), addr)
            return
        if n == w.TOKEN_LEN and data[0x15] == 0x02:
            self.count("control:token_ack")
            self.check_token(data)
            pkt = w.header(w.CONNINFO_LEN, w.T_DATA, 0, RADIO_ID, h.sentid)
            pkt[0x20:0x30] = GUID
            self.send(sock, bytes(pkt), addr)
            return
        if n == w.TOKEN_LEN and data[0x15] in (0x05, 0x01):
            self.count(f"control:token_{data[0x15]:02x}")
            self.check_token(data)
            log(f"control: token requesttype 0x{data[0x15]:02x} (no reply)")
            if data[0x15] == 0x01:
                self.goodbye("control:token_remove")
            return
        if n == w.CONNINFO_LEN and data[0x15] == 0x03:
            self.count("control:conninfo")
            self.check_conninfo(data)
            pkt = w.header(w.STATUS_LEN, w.T_DATA, 0, RADIO_ID, h.sentid)
            struct.pack_into(">H", pkt, 0x42, self.civ_port)
            struct.pack_into(">H", pkt, 0x46, self.civ_port + 1)
            self.send(sock, bytes(pkt), addr)
            return
        self.unclassified("control", data, addr, f"type 0x{h.ptype:02x}")

    def login_response(self, login: bytes, client: int) -> bytes:
        """0x60 login response: tokrequest echoed; token + "FTTH", or error 0xFEFFFFFF."""
        pkt = w.header(w.LOGIN_RESPONSE_LEN, w.T_DATA, 0, RADIO_ID, client)
        pkt[0x1A:0x1C] = login[0x1A:0x1C]
        if self.args.auth_fail:
            struct.pack_into("<I", pkt, 0x30, 0xFEFFFFFF)
            log("login refused (--auth-fail)")
        else:
            struct.pack_into("<I", pkt, 0x1C, TOKEN)
            pkt[0x40:0x44] = b"FTTH"
        return bytes(pkt)

    def on_civ_port(self, sock: socket.socket, data: bytes, h: w.Header, addr: Addr) -> None:
        """CI-V port (§7.1)."""
        if self.common("civ", sock, data, h, addr):
            return
        n = len(data)
        if n == w.OPENCLOSE_LEN:
            self.count("civ:openclose")
            if data[0x10:0x13] != b"\xc0\x01\x00" or data[0x15] not in (0x00, 0x04):
                self.deviation(
                    f"civ: OpenClose layout {data[0x10:].hex()} (expected c0 01 00 <seq BE> 04|00)"
                )
            if data[0x15] == 0x04:
                log("civ: OpenClose(open) -> FE FE 00 98 00 FD")
                frame = w.civ_frame(0x00, self.radio_addr, bytes([0x00]))
                self.send_civ(sock, frame, h.sentid, addr)
            else:
                log(f"civ: OpenClose magic 0x{data[0x15]:02x}")
                self.goodbye("civ:openclose_close")
            return
        if h.ptype == w.T_DATA and n > w.CIV_HEADER_LEN:
            self.count("civ:data")
            self.on_civ_data(sock, data, h.sentid, addr)
            return
        self.unclassified("civ", data, addr, f"type 0x{h.ptype:02x}")

    def send_civ(self, sock: socket.socket, frame: bytes, client: int, addr: Addr) -> None:
        """Wraps a frame: outer seq = inner sendseq = the mock's one counter."""
        seq = self.civ_seq
        self.civ_seq = (self.civ_seq + 1) & 0xFFFF
        self.send(sock, w.civ_data(seq, RADIO_ID, client, seq, frame), addr)

    def on_civ_data(self, sock: socket.socket, data: bytes, client: int, addr: Addr) -> None:
        """A CI-V data packet: datalen must fit, the bytes must be one `FE FE … FD`, to == radio."""
        datalen = struct.unpack_from("<H", data, 0x11)[0]
        end = w.CIV_HEADER_LEN + datalen
        if data[0x10] != 0xC1 or end != len(data):
            self.deviation(
                f"civ: data header {data[0x10:0x15].hex()} "
                f"for {len(data) - w.CIV_HEADER_LEN} CI-V bytes"
            )
        if end > len(data):
            log(f"civ: datalen {datalen} beyond the datagram ({len(data)} bytes): dropped")
            return
        civ = data[w.CIV_HEADER_LEN : end]
        if len(civ) < 6 or civ[:2] != b"\xfe\xfe" or civ[-1] != 0xFD:
            log(f"civ: not a CI-V frame: {civ.hex()}")
            return
        to, frm, cmd, payload = civ[2], civ[3], civ[4], civ[5:-1]
        if to != self.radio_addr:
            log(f"civ: frame to 0x{to:02x}, not to the radio: {civ.hex()}")
            return
        reply = self.dispatch(cmd, bytes(payload), frm)
        if reply is None:
            return
        if self.args.verbose or reply[4] == CMD_NAK:
            log(f"civ: {civ.hex(' ')} -> {reply.hex(' ')}")
        self.send_civ(sock, reply, client, addr)

    # --- CI-V command table (§7.1) -----------------------------------------------------

    def dispatch(self, cmd: int, payload: bytes, ctl: int) -> bytes | None:
        """The reply frame for one CI-V command, or None for no reply."""
        frame = lambda body: w.civ_frame(ctl, self.radio_addr, body)  # noqa: E731
        ack, nak = frame(bytes([CMD_ACK])), frame(bytes([CMD_NAK]))
        s = self.state
        if cmd == CMD_29:
            if len(payload) < 2:
                return nak
            return self.dispatch_29(payload[0], payload[1], payload[2:], frame)
        if cmd == CMD_FREQ_GET:
            return frame(bytes([CMD_FREQ_GET]) + w.bcd_freq(s.freq))
        if cmd == CMD_FREQ_SET:
            if len(payload) == 5:
                self.change(freq=quirky_freq(payload))
            return ack
        if cmd == CMD_MODE_GET:
            return frame(bytes([CMD_MODE_GET, s.mode, s.filter]))
        if cmd == CMD_MODE_SET:
            if payload:
                self.change(mode=payload[0], filter=payload[1] if len(payload) > 1 else s.filter)
            return ack
        if cmd == CMD_LEVEL:
            if not payload or payload[0] != 0x0A:
                return nak
            if len(payload) > 1:
                self.change(power=quirky_level(payload[1:]))
                return ack
            return frame(bytes([CMD_LEVEL, 0x0A]) + w.bcd_level(s.power))
        if cmd == CMD_METER:
            meters = {0x02: s.smeter, 0x12: s.swr, 0x13: s.alc}
            if not payload or payload[0] not in meters:
                return nak
            return frame(bytes([CMD_METER, payload[0]]) + w.bcd_level(meters[payload[0]]))
        if cmd in (CMD_ACK, CMD_NAK):
            return None
        return nak

    def dispatch_29(
        self, rx: int, cmd: int, inner: bytes, frame: Callable[[bytes], bytes]
    ) -> bytes:
        """Command 29: ATT, preamp, DIGI-SEL, S-meter; one shared state, the receiver byte only echoed."""
        ack, nak = frame(bytes([CMD_ACK])), frame(bytes([CMD_NAK]))
        s = self.state
        if cmd == CMD_ATT:
            if inner:
                self.change(att=(inner[0] >> 4) * 10 + (inner[0] & 0x0F))
                return ack
            return frame(bytes([CMD_29, rx, CMD_ATT, w.bcd_byte(s.att)]))
        if cmd == CMD_PREAMP and inner and inner[0] in (0x02, 0x4E):
            field = "preamp" if inner[0] == 0x02 else "digisel"
            if len(inner) > 1:
                self.change(**{field: inner[1]})
                return ack
            return frame(bytes([CMD_29, rx, CMD_PREAMP, inner[0], getattr(s, field)]))
        if cmd == CMD_METER and inner == b"\x02":
            # each receiver's own S-meter (the IC-7610 routes `15 02` through command 29)
            return frame(bytes([CMD_29, rx, CMD_METER, 0x02]) + w.bcd_level(s.smeter))
        return nak

    def change(self, **fields: int) -> None:
        """Applies a change to the state and reports the new state."""
        for k, v in fields.items():
            setattr(self.state, k, v)
        self.emit_state()


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--control-port", type=int, default=0, help="0 = any free port")
    p.add_argument("--civ-port", type=int, default=0, help="0 = any free port")
    p.add_argument("--auth-fail", action="store_true", help="refuse every login (0xFEFFFFFF)")
    p.add_argument("--civ-addr", type=lambda v: int(v, 0), default=0x98)
    p.add_argument("--response-delay", type=float, default=0.0, help="seconds before every reply")
    p.add_argument("--lifetime", type=float, default=120.0, help="exit after this many seconds")
    p.add_argument("--verbose", action="store_true", help="log every CI-V exchange")
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    """Runs the mock until its lifetime is over (or it is killed)."""
    mock = AnchorMock(parse_args(argv))
    with contextlib.suppress(KeyboardInterrupt):
        mock.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
