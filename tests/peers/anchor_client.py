#!/usr/bin/env python3
"""A client that talks to a radio the way the reference client [A] does (spec §1–§4).

Usage: ``anchor_client.py CONTROL_PORT USER PASSWORD [--host 127.0.0.1]
[--controller 0xE0] [--loss P --seed N] [--ayr-retry] [--drop-ayr PORT] [--timeout 20]``

It goes through one whole session and checks what the radio sends on the way:

1. control socket: AYT (10 × 1 s) → IAH → AYR; login with tokrequest 0 and innerseq 0 as
   the first tracked packet (outer seq 0); token ack 0x02 (innerseq 0); GUID from the
   last 0x90 packet; conninfo (IC-7610 codecs rx 0x10 / tx 0x04, 48 kHz, local CI-V and
   audio ports BE, innerseq 1); Status 0x50 with a CI-V port (§2.1–§2.9);
2. CI-V socket bound to the advertised port: AYT/IAH/AYR, OpenClose(open) inner seq 0,
   the [A] 0.3 s flush, then a data-path packet (an idle or CI-V data, §2.10);
3. CI-V reads `03`, `04`, `25 00`, `25 01`, `26 00`, `15 02`; `05` 7.074 MHz and `03` back;
   `29 01 11`; `18`; `19 00` addressed to 0x00 (§4.1, §4.5, §4.7); then a retransmission
   probe: a seq the radio sent must come back byte-identical, seqs it never sent should get
   filler idles (§1.4, §1.9);
4. audio socket: AYT/IAH/AYR + OpenClose(open) (the [A] quirk), ~1 s of RX audio checked
   against §3.3 (≤1364 bytes, 0x18 header, inner seq, datalen, 48 kHz PCM16 stereo);
5. a token renewal (0x05; [A] sends it after 60 s) and the logout in the [A] order (§2.11).

All the while, on every socket: ping every 500 ms, answer every ping, tracked idles every
100 ms on CI-V and audio, answer retransmit requests from the TX buffer, request the
radio's missing seqs every 100 ms (§1.4–§1.10).

``--loss P`` drops each incoming and outgoing datagram with probability P (seeded) until
the logout starts, so retransmission is exercised on both sides.  The goodbye itself is
sent without loss: its packets are untracked or last, so nothing could recover them.

Prints one JSON summary line on stdout.  Exit status: 0 = everything conformed,
1 = something did not conform (see ``anomalies``/``failures``), 2 = login refused,
3 = timeout or no radio.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import random
import selectors
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import icom_wire as w

RADIO_CIV_ADDR = 0x98  # IC-7610 (§4.1)
RX_CODEC, TX_CODEC = 0x10, 0x04  # IC-7610 profile (§2.8)
SAMPLE_RATE = 48_000
CIV_MIN_INTERVAL = 0.035  # §3.1
PING_PERIOD, IDLE_PERIOD, RETRANSMIT_PERIOD = 0.5, 0.1, 0.1  # §1.10
TOKEN_RENEWAL = 60.0
RETRANSMIT_TRIES = 5  # [A] (§1.6)
AUDIO_BLOCK_SIZES = (1364, 1364, 1112)  # 3840 B per 20 ms, 48 kHz PCM16 stereo (§3.3)


class StepError(Exception):
    """Ends the session: a step that cannot go on.  ``code`` is the exit status."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def now() -> float:
    return time.monotonic()


def log(msg: str) -> None:
    """A progress line on stderr."""
    print(f"[anchor_client {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


@dataclass
class Report:
    """What the run found; printed as the JSON summary."""

    anomalies: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def anomaly(self, msg: str) -> None:
        """Something the radio sent that the spec does not allow (kept to 60 entries)."""
        if len(self.anomalies) < 60:
            self.anomalies.append(msg)
            log(f"ANOMALY: {msg}")

    def fail(self, msg: str) -> None:
        """A check that did not pass."""
        self.failures.append(msg)
        log(f"FAIL: {msg}")


class Stream:
    """One UDP socket towards one radio port (§1.1) with its own ids and counters."""

    def __init__(self, name: str, sock: socket.socket, client: Client) -> None:
        self.name = name
        self.sock = sock
        self.client = client
        self.local_port: int = sock.getsockname()[1]
        self.my_id = 0x00010000 | self.local_port  # [A] (§1.7)
        self.remote: tuple[str, int] | None = None
        self.remote_id = 0
        self.send_seq = 0  # [A] starts at 0 (§1.8)
        self.tx_buffer: collections.OrderedDict[int, bytes] = collections.OrderedDict()
        self.ping_seq = 0
        self.active = False  # timers run once AYR is done
        self.idles = name != "control"  # [A]: idles on CI-V and audio only (§1.10)
        self.last_tracked = 0.0
        self.next_ping = 0.0
        self.next_retransmit = 0.0
        # receive side (§1.8)
        self.highest: int | None = None
        self.missing: dict[int, int] = {}
        self.recent: collections.deque[int] = collections.deque(maxlen=2000)
        self.recent_set: set[int] = set()
        self.queue: collections.deque[tuple[float, bytes]] = collections.deque()
        self.handshake: collections.deque[bytes] = collections.deque()
        self.rx_datagrams = 0
        self.last_datapath = 0.0
        self.stats: collections.Counter[str] = collections.Counter()
        # for the retransmission probe: seqs watched, and the last data packets received
        self.watch: dict[int, list[bytes]] = {}
        self.lost_tracked: list[int] = []
        self.recent_bytes: collections.OrderedDict[int, bytes] = collections.OrderedDict()

    # --- sending -------------------------------------------------------------------

    def send_raw(self, data: bytes, tracked_seq: int | None = None) -> None:
        """Sends one datagram (or drops it, with the configured loss).

        ``tracked_seq`` marks the first transmission of a tracked packet, whose loss only
        the radio's retransmit request can repair.
        """
        assert self.remote is not None
        if self.client.lose():
            self.stats["tx_lost"] += 1
            if tracked_seq is not None:
                self.stats["tracked_lost"] += 1
                self.lost_tracked.append(tracked_seq)
            return
        try:
            self.sock.sendto(data, self.remote)
        except OSError as e:
            self.stats["tx_errors"] += 1
            log(f"{self.name}: send failed: {e}")

    def send_tracked(self, build: Callable[[int], bytes]) -> int:
        """Sends a tracked packet built for the next outer seq; keeps it for retransmission."""
        seq = self.send_seq
        if seq == 0:
            self.tx_buffer.clear()  # §1.8
        data = build(seq)
        self.tx_buffer[seq] = data
        while len(self.tx_buffer) > w.TX_BUFFER_SIZE:
            self.tx_buffer.popitem(last=False)
        self.send_seq = (seq + 1) & 0xFFFF
        self.last_tracked = now()
        self.stats["tracked_sent"] += 1
        self.send_raw(data, tracked_seq=seq)
        return seq

    def resend(self, seq: int) -> None:
        """Sends a stored tracked packet again, byte-identical (§1.9)."""
        self.stats["resent"] += 1
        self.send_raw(self.tx_buffer[seq])

    def control(self, ptype: int) -> None:
        """An untracked 0x10 packet with seq 0 (AYT, AYR, DISCONNECT)."""
        rid = 0 if ptype == w.T_AYT else self.remote_id
        self.send_raw(w.control(ptype, 0, self.my_id, rid))

    # --- receiving ------------------------------------------------------------------

    def on_datagram(self, data: bytes, addr: tuple[str, int]) -> None:
        """Transport-level handling of one datagram; data packets are queued for the session."""
        rep = self.client.report
        self.rx_datagrams += 1
        if self.remote is None:  # reserved socket, port not opened yet: nothing to answer
            self.stats["rx_before_discovery"] += 1
            return
        if addr != self.remote:
            rep.anomaly(f"{self.name}: datagram from unexpected address {addr}")
            return
        if len(data) < w.HEADER_LEN:
            rep.anomaly(f"{self.name}: runt datagram {data.hex()}")
            return
        h = w.Header.parse(data)
        ping_request = h.ptype == w.T_PING and len(data) == w.PING_LEN and data[0x10] == 0
        if h.length != len(data) and not (ping_request and h.length == 0):
            rep.anomaly(
                f"{self.name}: header len {h.length} != datagram {len(data)}: {data[:32].hex()}"
            )
        if self.remote_id and h.sentid != self.remote_id:
            rep.anomaly(f"{self.name}: sentid 0x{h.sentid:08x} != radio id 0x{self.remote_id:08x}")
        if h.rcvdid != self.my_id:
            rep.anomaly(
                f"{self.name}: rcvdid 0x{h.rcvdid:08x} != my id 0x{self.my_id:08x} "
                f"({data[:16].hex()})"
            )
        if h.ptype == w.T_PING:
            self.on_ping(data, h)
        elif h.ptype == w.T_RETRANSMIT:
            self.on_retransmit_request(data)
        elif h.ptype in (w.T_IAH, w.T_AYR) and len(data) == w.HEADER_LEN:
            self.handshake.append(data)
        elif h.ptype == w.T_DISCONNECT and len(data) == w.HEADER_LEN:
            self.stats["disconnect_from_radio"] += 1
            rep.anomaly(f"{self.name}: the radio sent DISCONNECT")
        elif h.ptype == w.T_DATA:
            self.on_data(data, h)
        else:
            rep.anomaly(f"{self.name}: unknown packet type 0x{h.ptype:02x}, {len(data)} bytes")

    def on_ping(self, data: bytes, h: w.Header) -> None:
        """Answers ping requests; counts replies (§1.5)."""
        if len(data) != w.PING_LEN or data[0x10] not in (0, 1):
            self.client.report.anomaly(f"{self.name}: malformed ping {data.hex()}")
            return
        if data[0x10] == 0:
            self.stats["pings_answered"] += 1
            self.send_raw(w.ping_reply_to(data, self.my_id, self.remote_id or h.sentid))
        else:
            self.stats["ping_replies"] += 1  # [A] does not use them

    def on_retransmit_request(self, data: bytes) -> None:
        """Resends what the radio asks for; unknown seqs are ignored, as [A] does (§1.4, §1.6)."""
        if len(data) != w.HEADER_LEN and (len(data) - w.HEADER_LEN) % 4 != 0:
            self.client.report.anomaly(f"{self.name}: malformed retransmit request {data.hex()}")
            return
        self.stats["retransmit_requests_received"] += 1
        for seq in w.retransmit_seqs(data):
            if seq in self.tx_buffer:
                self.stats["retransmits_answered"] += 1
                self.resend(seq)
            else:
                self.stats["retransmit_unknown_seq"] += 1

    def on_data(self, data: bytes, h: w.Header) -> None:
        """Gap tracking and duplicate removal (§1.8), then queueing."""
        if h.seq in self.watch:
            self.watch[h.seq].append(data)
        if len(data) > w.HEADER_LEN and h.seq != 0:
            self.recent_bytes[h.seq] = data
            while len(self.recent_bytes) > 64:
                self.recent_bytes.popitem(last=False)
        if len(data) != w.PING_LEN and h.seq != 0 and not self.track(h.seq):
            self.stats["duplicates_dropped"] += 1
            return
        self.last_datapath = now()
        if len(data) == w.HEADER_LEN:
            self.stats["idles_received"] += 1
            return
        self.queue.append((now(), data))

    def track(self, seq: int) -> bool:
        """Sequence bookkeeping; False for a duplicate."""
        if seq in self.recent_set and seq not in self.missing:
            return False
        if len(self.recent) == self.recent.maxlen:
            self.recent_set.discard(self.recent[0])
        self.recent.append(seq)
        self.recent_set.add(seq)
        if self.highest is None:
            self.highest = seq
            return True
        if seq in self.missing:
            del self.missing[seq]
            self.stats["gaps_filled"] += 1
            return True
        delta = (seq - self.highest) & 0xFFFF
        if 1 <= delta <= 0x7FFF:
            if delta > w.MAX_MISSING:
                self.stats["large_gaps"] += 1
                self.missing.clear()
            else:
                for k in range(1, delta):
                    self.missing[(self.highest + k) & 0xFFFF] = 0
                    self.stats["gaps_seen"] += 1
            self.highest = seq
        return True

    # --- timers -----------------------------------------------------------------------

    def due(self) -> float:
        """When this stream's next timer fires."""
        if not self.active:
            return float("inf")
        t = min(self.next_ping, self.next_retransmit)
        if self.idles:
            t = min(t, self.last_tracked + IDLE_PERIOD)
        return t

    def run_timers(self, t: float) -> None:
        """Pings (500 ms), idles (100 ms when quiet), retransmit requests (100 ms)."""
        if not self.active:
            return
        if t >= self.next_ping:
            self.send_raw(w.ping(self.ping_seq, False, int(t * 1000), self.my_id, self.remote_id))
            self.ping_seq = (self.ping_seq + 1) & 0xFFFF  # [A] increments after every request
            self.stats["pings_sent"] += 1
            self.next_ping = t + PING_PERIOD
        if self.idles and t >= self.last_tracked + IDLE_PERIOD:
            self.stats["idles_sent"] += 1
            self.send_tracked(lambda seq: w.control(w.T_DATA, seq, self.my_id, self.remote_id))
        if t >= self.next_retransmit:
            self.next_retransmit = t + RETRANSMIT_PERIOD
            self.request_missing()

    def request_missing(self) -> None:
        """One retransmit round: every missing seq, each asked for at most 5 times (§1.6)."""
        if not self.missing:
            return
        seqs = sorted(self.missing)
        if len(seqs) == 1:
            self.send_raw(w.control(w.T_RETRANSMIT, seqs[0], self.my_id, self.remote_id))
        else:
            self.send_raw(w.multi_retransmit(seqs, self.my_id, self.remote_id))
        self.stats["retransmit_requests_sent"] += 1
        for s in seqs:
            if self.missing[s] >= RETRANSMIT_TRIES - 1:
                del self.missing[s]
                self.stats["gaps_given_up"] += 1
            else:
                self.missing[s] += 1

    def start(self) -> None:
        """Starts the ping / idle / retransmit timers (§2.1, §2.10)."""
        t = now()
        self.active = True
        self.next_ping = t
        self.next_retransmit = t + RETRANSMIT_PERIOD
        self.last_tracked = t

    def recoverable_losses(self) -> int:
        """Lost tracked packets the radio could have noticed (§1.8): not seq 0 or 1 (the
        radio's first tracked seq is only remembered), and followed by at least three more
        tracked packets.  Only CI-V and audio, where idles keep the stream going."""
        if self.name == "control":
            return 0
        last = (self.send_seq - 1) & 0xFFFF
        return sum(1 for s in self.lost_tracked if s >= 2 and (last - s) & 0xFFFF >= 3)

    def close(self) -> None:
        """Stops the timers and closes the socket; its counters stay in the summary."""
        self.stats["tracked_lost_recoverable"] = self.recoverable_losses()
        self.active = False
        self.client.closed_stats[self.name] = self.stats
        with contextlib.suppress(KeyError, ValueError):
            self.client.selector.unregister(self.sock)
        self.sock.close()


class Client:
    """The session: three streams, one event loop, the [A] connect sequence."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.report = Report()
        self.rng = random.Random(args.seed)
        self.loss = args.loss
        self.deadline = now() + args.timeout
        self.selector = selectors.DefaultSelector()
        self.streams: dict[str, Stream] = {}
        self.ctl: int = args.controller
        self.innerseq = 0
        self.tokrequest = 0
        self.token = 0
        self.civ_inner = 0
        self.audio_inner = 0
        self.last_civ_send = 0.0
        self.resends = 0
        self.get_retries = 0
        self.started = now()
        self.next_renewal = float("inf")
        self.unsolicited: list[str] = []
        self.closed_stats: dict[str, collections.Counter[str]] = {}

    # --- plumbing ----------------------------------------------------------------------

    def lose(self) -> bool:
        """True when this datagram is to be dropped (``--loss``)."""
        return self.loss > 0 and self.rng.random() < self.loss

    def open_stream(self, name: str) -> Stream:
        """Binds a socket on 127.0.0.1 (an OS-chosen port) for one radio port."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("127.0.0.1", 0))
        sock.setblocking(False)
        s = Stream(name, sock, self)
        self.streams[name] = s
        self.selector.register(sock, selectors.EVENT_READ, s)
        return s

    def pump(self, duration: float, until: Callable[[], bool] | None = None) -> bool:
        """Runs the event loop for ``duration`` s or until ``until()`` holds (then True)."""
        end = now() + duration
        while True:
            if until is not None and until():
                return True
            t = now()
            if t >= self.deadline:
                raise StepError(3, f"overall timeout of {self.args.timeout} s")
            if t >= end:
                return False
            due = min(
                [s.due() for s in self.streams.values()] + [self.next_renewal, end, self.deadline]
            )
            for key, _ in self.selector.select(max(0.0, due - t)):
                stream: Stream = key.data
                self.drain(stream)
            t = now()
            for s in list(self.streams.values()):
                s.run_timers(t)
            if t >= self.next_renewal:
                self.renew_token()

    def drain(self, stream: Stream) -> None:
        """Reads every datagram waiting on a socket."""
        while True:
            try:
                data, addr = stream.sock.recvfrom(65535)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:  # e.g. ICMP port unreachable on loopback
                stream.stats["rx_errors"] += 1
                log(f"{stream.name}: receive error {e}")
                return
            if self.lose():
                stream.stats["rx_lost"] += 1
                continue
            stream.on_datagram(data, addr)

    def wait_queue(
        self, stream: Stream, match: Callable[[bytes], bool], timeout: float
    ) -> bytes | None:
        """Waits for a queued data packet that ``match``es; earlier other ones are dropped."""
        found: list[bytes] = []

        def check() -> bool:
            while stream.queue:
                _, data = stream.queue.popleft()
                if match(data):
                    found.append(data)
                    return True
                self.unmatched(stream, data)
            return False

        self.pump(timeout, check)
        return found[0] if found else None

    def unmatched(self, stream: Stream, data: bytes) -> None:
        """A data packet nobody waited for: checked for its size, then dropped ([A] discards)."""
        stream.stats[f"unwaited_{len(data):#x}"] += 1
        if stream.name == "control":
            self.check_control_packet(data)
        elif stream.name == "civ":
            for f in self.civ_frames(data):
                self.note_unsolicited(f)

    # --- §1.4 discovery ---------------------------------------------------------------------

    def discover(self, stream: Stream, remote: tuple[str, int]) -> None:
        """AYT up to 10 × 1 s → IAH, then AYR and up to 5 packets / 1 s for I-am-ready (§1.4)."""
        stream.remote = remote
        for attempt in range(10):
            stream.control(w.T_AYT)
            if self.pump(1.0, lambda: any(ptype_of(d) == w.T_IAH for d in stream.handshake)):
                break
            log(f"{stream.name}: no I-am-here after AYT #{attempt + 1}")
        else:
            raise StepError(3, f"{stream.name}: the radio does not answer AYT")
        iah = next(d for d in stream.handshake if ptype_of(d) == w.T_IAH)
        stream.handshake.clear()
        stream.remote_id = w.Header.parse(iah).sentid
        if stream.remote_id == 0:
            self.report.anomaly(f"{stream.name}: IAH with sentid 0")

        def ready() -> bool:
            return any(ptype_of(d) == w.T_AYR for d in stream.handshake)

        for _ in range(5 if self.args.ayr_retry else 1):
            self.send_ayr(stream)
            seen = stream.rx_datagrams
            if self.args.ayr_retry:  # ask again every second until I-am-ready
                self.pump(1.0, ready)
            else:  # [A]: up to 5 packets / 1 s each, then on regardless
                self.pump(5.0, lambda seen=seen: ready() or stream.rx_datagrams - seen >= 5)
            if ready():
                break
        else:
            msg = f"{stream.name}: no I-am-ready (type 0x06) after AYR"
            if self.loss == 0 and stream.name not in self.args.drop_ayr:
                self.report.anomaly(msg)
            log(msg + "; going on, as [A] does")
        stream.handshake.clear()
        stream.start()
        log(f"{stream.name}: radio id 0x{stream.remote_id:08x}, my id 0x{stream.my_id:08x}")

    def send_ayr(self, stream: Stream) -> None:
        """AYR (untracked, seq 0); ``--drop-ayr PORT`` loses the first one of that port."""
        if stream.name in self.args.drop_ayr and not stream.stats["ayr_dropped"]:
            stream.stats["ayr_dropped"] += 1
            log(f"{stream.name}: dropping our AYR (--drop-ayr)")
            return
        stream.control(w.T_AYR)

    # --- §2 control session -----------------------------------------------------------------

    def tracked_with_retry(
        self,
        stream: Stream,
        build: Callable[[int], bytes],
        match: Callable[[bytes], bool],
        what: str,
    ) -> bytes:
        """Sends a tracked packet and waits 2 s for the answer, resending the same bytes twice."""
        seq = stream.send_tracked(build)
        for attempt in range(3):
            reply = self.wait_queue(stream, match, 2.0)
            if reply is not None:
                return reply
            if attempt < 2:
                self.resends += 1
                log(f"no {what} yet: sending seq {seq} again")
                stream.resend(seq)
        raise StepError(3, f"no {what}")

    def login(self, ctl: Stream) -> None:
        """Login (0x80): tokrequest 0, innerseq 0, outer seq 0; checks the reply (§2.3, §2.5)."""
        args = self.args

        def build(seq: int) -> bytes:
            pkt = w.token_family(w.LOGIN_LEN, seq, ctl.my_id, ctl.remote_id, 0x01, 0x00, 0, 0, 0)
            pkt[0x40 : 0x40 + 16] = w.encode_credential(args.user).ljust(16, b"\0")
            pkt[0x50 : 0x50 + 16] = w.encode_credential(args.password).ljust(16, b"\0")
            pkt[0x60 : 0x60 + 8] = b"rigplane"
            return bytes(pkt)

        if ctl.send_seq != 0:
            self.report.fail("login is not the first tracked packet")
        resp = self.tracked_with_retry(
            ctl, build, lambda d: len(d) == w.LOGIN_RESPONSE_LEN, "login response"
        )
        tokreq, token, error = (
            struct.unpack_from("<H", resp, 0x1A)[0],
            struct.unpack_from("<I", resp, 0x1C)[0],
            struct.unpack_from("<I", resp, 0x30)[0],
        )
        conn_type = resp[0x40:0x50].split(b"\0")[0].decode("ascii", "replace")
        self.report.data["login"] = {
            "error": f"0x{error:08x}",
            "token": f"0x{token:08x}",
            "tokrequest": tokreq,
            "conn_type": conn_type,
            "outer_seq": w.Header.parse(resp).seq,
        }
        if struct.unpack_from(">H", resp, 0x16)[0] != 0:
            self.report.anomaly(
                f"login response innerseq {resp[0x16:0x18].hex()} is not the login's (0)"
            )
        if tokreq != self.tokrequest:
            self.report.anomaly(f"login response tokrequest {tokreq} != sent {self.tokrequest}")
        if error in (0xFEFFFFFF, 0xFFFFFFFF):
            raise StepError(2, f"login refused, error 0x{error:08x}")
        if error != 0:
            self.report.anomaly(f"login response error 0x{error:08x}")
        self.token = token
        log(f"logged in: token 0x{token:08x}, connection type {conn_type!r}")

    def token_packet(self, ctl: Stream, requesttype: int, innerseq: int) -> Callable[[int], bytes]:
        """Builder of a client token packet (0x40; resetcap 0x0798 BE @0x24, §2.6)."""

        def build(seq: int) -> bytes:
            pkt = w.token_family(
                w.TOKEN_LEN,
                seq,
                ctl.my_id,
                ctl.remote_id,
                0x01,
                requesttype,
                innerseq,
                self.tokrequest,
                self.token,
            )
            struct.pack_into(">H", pkt, 0x24, 0x0798)
            return bytes(pkt)

        return build

    def collect_guid(self, ctl: Stream) -> bytes | None:
        """[A]: sleep 0.3 s, then read until 0.1 s of silence (max 30); GUID of the last 0x90."""
        guid: bytes | None = None
        sizes: list[int] = []
        self.pump(0.3)
        quiet_since = now()
        while len(sizes) < 30:
            if ctl.queue:
                _, d = ctl.queue.popleft()
                sizes.append(len(d))
                self.check_control_packet(d)
                if len(d) == 0x42 + 0x66:
                    self.check_capabilities(d)
                if len(d) == w.CONNINFO_LEN:
                    guid = d[0x20:0x30]
                quiet_since = now()
                continue
            if now() - quiet_since >= 0.1:
                break
            self.pump(0.01, lambda: bool(ctl.queue))
        if guid is None and ctl.missing:
            log("no radio conninfo yet; waiting for retransmissions")
            d = self.wait_queue(ctl, lambda d: len(d) == w.CONNINFO_LEN, 1.0)
            if d is not None:
                sizes.append(len(d))
                guid = d[0x20:0x30]
        self.report.data["after_token_ack"] = [f"{s:#x}" for s in sizes]
        return guid

    def check_capabilities(self, d: bytes) -> None:
        """A one-radio capabilities packet (0xA8, §2.7): name, CI-V address, radio count."""
        name = d[0x52:0x72].split(b"\0")[0].decode("ascii", "replace")
        caps = {
            "name": name,
            "civ_addr": f"0x{d[0x94]:02x}",
            "numradios": struct.unpack_from(">H", d, 0x40)[0],
        }
        self.report.data["capabilities"] = caps
        if d[0x94] != RADIO_CIV_ADDR or caps["numradios"] != 1 or not name.startswith("IC-7610"):
            self.report.anomaly(f"capabilities: {caps}")

    def check_control_packet(self, d: bytes) -> None:
        """Sizes the radio may send on the control port (§1.3); Status errors / disc (§2.9)."""
        n = len(d)
        known = n in (w.TOKEN_LEN, w.STATUS_LEN, w.LOGIN_RESPONSE_LEN, w.CONNINFO_LEN) or (
            n >= 0x42 + 0x66 and (n - 0x42) % 0x66 == 0
        )
        if not known:
            self.report.anomaly(f"control: unexpected {n}-byte data packet {d[:32].hex()}")
        if n == w.STATUS_LEN and self.report.data.get("status"):
            err = struct.unpack_from("<I", d, 0x30)[0]
            if err or d[0x40] == 1:
                self.report.anomaly(f"control: later Status error 0x{err:08x} disc {d[0x40]}")

    def stream_request(
        self, ctl: Stream, civ: Stream, audio: Stream, guid: bytes | None
    ) -> tuple[int, int]:
        """Conninfo (0x90, innerseq 1) and the Status reply; returns (civ port, audio port)."""
        area = guid
        if area is None:
            self.report.anomaly(
                "no 0x90 conninfo from the radio: sending commoncap 0x8010 + zero MAC"
            )
            a = bytearray(16)
            struct.pack_into("<H", a, 0x07, 0x8010)
            area = bytes(a)
        innerseq = self.next_innerseq()

        def build(seq: int) -> bytes:
            pkt = w.token_family(
                w.CONNINFO_LEN,
                seq,
                ctl.my_id,
                ctl.remote_id,
                0x01,
                0x03,
                innerseq,
                self.tokrequest,
                self.token,
            )
            pkt[0x20:0x30] = area
            pkt[0x40 : 0x40 + 7] = b"IC-7610"
            pkt[0x60 : 0x60 + 16] = w.encode_credential(self.args.user).ljust(16, b"\0")
            pkt[0x70], pkt[0x71], pkt[0x72], pkt[0x73] = 1, 1, RX_CODEC, TX_CODEC
            struct.pack_into(
                ">IIIII", pkt, 0x74, SAMPLE_RATE, SAMPLE_RATE, civ.local_port, audio.local_port, 150
            )
            pkt[0x88] = 1
            return bytes(pkt)

        for _ in range(4):
            status = self.tracked_with_retry(
                ctl, build, lambda d: len(d) == w.STATUS_LEN, "Status (0x50)"
            )
            err = struct.unpack_from("<I", status, 0x30)[0]
            civ_port, audio_port = (
                struct.unpack_from(">H", status, 0x42)[0],
                struct.unpack_from(">H", status, 0x46)[0],
            )
            self.report.data["status"] = {
                "error": f"0x{err:08x}",
                "disc": status[0x40],
                "civ_port": civ_port,
                "audio_port": audio_port,
                "outer_seq": w.Header.parse(status).seq,
            }
            if err == 0xFFFFFFFF:
                raise StepError(1, "Status: session rejected (0xFFFFFFFF)")
            if status[0x20:0x30] != area:
                self.report.anomaly(
                    f"Status GUID area {status[0x20:0x30].hex()} is not our conninfo's {area.hex()}"
                )
            if civ_port > 0:
                return civ_port, audio_port
            log(f"Status with CI-V port 0 (session held): retrying in {self.args.held_pause} s")
            self.pump(self.args.held_pause)
        raise StepError(1, "Status kept reporting CI-V port 0")

    def renew_token_now(self, ctl: Stream) -> None:
        """A token renewal (0x05) now rather than after 60 s; the radio replies (§2.6)."""
        seq = ctl.send_tracked(self.token_packet(ctl, 0x05, self.next_innerseq()))
        reply = self.wait_queue(ctl, token_reply_to(0x05), 1.0)
        for _ in range(2):
            if reply is not None or self.loss == 0:
                break
            self.resends += 1
            ctl.resend(seq)
            reply = self.wait_queue(ctl, token_reply_to(0x05), 1.0)
        self.report.data["token_renewal_reply"] = token_reply_summary(reply)
        self.next_renewal = now() + TOKEN_RENEWAL

    def next_innerseq(self) -> int:
        """[A] innerseq: login 0, token ack 0, then 1, 2, … (§1.8)."""
        self.innerseq += 1
        return self.innerseq

    def renew_token(self) -> None:
        """Token renewal every 60 s (§2.6); [A] never reads the reply."""
        ctl = self.streams["control"]
        ctl.send_tracked(self.token_packet(ctl, 0x05, self.next_innerseq()))
        self.next_renewal = now() + TOKEN_RENEWAL
        self.report.data["token_renewals"] = self.report.data.get("token_renewals", 0) + 1

    # --- §2.10 / §3.1 CI-V -------------------------------------------------------------------

    def open_civ(self, civ: Stream, port: int) -> None:
        """AYT/IAH/AYR, OpenClose(open) inner seq 0, the 0.3 s flush, then a data-path packet."""
        self.discover(civ, (self.args.host, port))
        civ.send_tracked(self.openclose_builder(civ, True))
        t0 = now()
        self.pump(0.3)
        flushed = len(civ.queue)
        civ.queue.clear()  # [A] discards what arrived during the 0.3 s (§2.10 step 4)
        flush_end = now()
        retries = 0
        while now() - flush_end < 5.0:
            if self.pump(0.1, lambda: civ.last_datapath > flush_end):
                break
            if now() - max(flush_end, civ.last_datapath) > 2.0:
                retries += 1  # [A]'s CI-V watchdog: OpenClose(open) every 100 ms
                civ.send_tracked(self.openclose_builder(civ, True))
        else:
            raise StepError(1, "CI-V: no data-path packet within 5 s of OpenClose")
        self.report.data["civ_open"] = {
            "ready_after_ms": round((now() - t0) * 1000),
            "flushed": flushed,
            "openclose_retries": retries,
        }

    def openclose_builder(self, s: Stream, open_stream: bool) -> Callable[[int], bytes]:
        """OpenClose with the next inner sendseq of its port (CI-V shares it with data)."""
        if s.name == "civ":
            inner, self.civ_inner = self.civ_inner, (self.civ_inner + 1) & 0xFFFF
        else:
            inner, self.audio_inner = self.audio_inner, (self.audio_inner + 1) & 0xFFFF
        return lambda seq: w.openclose(seq, s.my_id, s.remote_id, inner, open_stream)

    def civ_frames(self, data: bytes) -> list[bytes]:
        """The CI-V frames of a radio data packet, after checking its header (§3.1)."""
        rep = self.report
        if len(data) == w.OPENCLOSE_LEN and data[0x10] == 0xC0:
            rep.anomaly(f"civ: OpenClose from the radio {data.hex()}")
            return []
        if len(data) <= w.CIV_HEADER_LEN or data[0x10] != 0xC1:
            rep.anomaly(f"civ: not a CI-V data packet: {data[:24].hex()}")
            return []
        datalen = struct.unpack_from("<H", data, 0x11)[0]
        if datalen + w.CIV_HEADER_LEN != len(data):
            rep.anomaly(f"civ: datalen {datalen} but {len(data) - w.CIV_HEADER_LEN} CI-V bytes")
        frames, junk = w.split_frames(data[w.CIV_HEADER_LEN :])
        if junk:
            rep.anomaly(f"civ: bytes outside any frame: {junk.hex()}")
        good = []
        for f in frames:
            if len(f) < 6:
                rep.anomaly(f"civ: frame shorter than 6 bytes: {f.hex(' ')}")
            elif f[3] != RADIO_CIV_ADDR or f[2] not in (self.ctl, 0x00):
                rep.anomaly(
                    f"civ: frame from 0x{f[3]:02x} to 0x{f[2]:02x} "
                    f"(controller 0x{self.ctl:02x}): {f.hex(' ')}"
                )
            else:
                good.append(f)
        return good

    def note_unsolicited(self, f: bytes) -> None:
        """A well-addressed frame nobody waited for (transceive broadcast or a late reply)."""
        if len(self.unsolicited) < 20:
            self.unsolicited.append(f.hex(" "))
        if f[2] != 0x00:
            self.report.anomaly(f"civ: reply nobody asked for: {f.hex(' ')}")

    def civ_request(self, body: bytes, read: bool, to: int = RADIO_CIV_ADDR) -> bytes:
        """Sends one CI-V command and returns the reply body (after `FE FE to from`, before FD).

        A read matches a reply that starts with the request's bytes (cmd29 replies therefore
        need the same receiver byte, §4.2); a set matches FB; FA (NAK) ends either.  On a
        2 s timeout the [A] CI-V watchdog re-opens the stream and the request is tried again.
        """
        civ = self.streams["civ"]
        frame = w.civ_frame(to, self.ctl, body)
        for _ in range(3):
            wait = self.last_civ_send + CIV_MIN_INTERVAL - now()
            if wait > 0:
                self.pump(wait)
            inner, self.civ_inner = self.civ_inner, (self.civ_inner + 1) & 0xFFFF
            civ.send_tracked(
                lambda seq, inner=inner: w.civ_data(seq, civ.my_id, civ.remote_id, inner, frame)
            )
            self.last_civ_send = now()
            reply = self.wait_civ_reply(body, read, 2.0)
            if reply is not None:
                return reply
            self.get_retries += 1
            log(f"civ: no reply to {body.hex(' ')}; OpenClose(open) and again")
            civ.send_tracked(self.openclose_builder(civ, True))
        raise StepError(1, f"civ: no reply to {body.hex(' ')}")

    def wait_civ_reply(self, body: bytes, read: bool, timeout: float) -> bytes | None:
        """Waits for the frame answering ``body``."""
        civ = self.streams["civ"]
        found: list[bytes] = []

        def check() -> bool:
            while civ.queue:
                _, data = civ.queue.popleft()
                for f in self.civ_frames(data):
                    reply = f[4:-1]
                    if (
                        f[2] == self.ctl
                        and not found
                        and (
                            reply == b"\xfa"
                            or (reply.startswith(body) if read else reply == b"\xfb")
                        )
                    ):
                        found.append(reply)
                    else:
                        self.note_unsolicited(f)
            return bool(found)

        self.pump(timeout, check)
        return found[0] if found else None

    def civ_checks(self) -> None:
        """The reads and the set of step 3; values go to the summary."""
        rep, v = self.report, {}
        rep.data["values"] = v

        def read(body: bytes, n: int) -> bytes | None:
            reply = self.civ_request(body, True)
            if reply == b"\xfa":
                rep.fail(f"{body.hex(' ')} was NAKed")
                return None
            data = reply[len(body) :]
            if len(data) != n:
                rep.fail(f"{body.hex(' ')}: {len(data)} data bytes, expected {n}: {reply.hex(' ')}")
                return None
            return data

        def freq(data: bytes | None, key: str) -> None:
            if data is not None:
                v[key] = w.unbcd_freq(data)
                if v[key] is None:
                    rep.fail(f"{key}: not LE BCD: {data.hex(' ')}")

        freq(read(b"\x03", 5), "freq")
        if (d := read(b"\x04", 2)) is not None:
            v["mode"], v["filter"] = d[0], d[1]
        freq(read(b"\x25\x00", 5), "selected_freq")
        freq(read(b"\x25\x01", 5), "unselected_freq")
        if (d := read(b"\x26\x00", 3)) is not None:
            v["selected_mode"] = {"mode": d[0], "data": d[1], "filter": d[2]}
        if (d := read(b"\x15\x02", 2)) is not None:
            v["smeter"] = w.unbcd_level(d)
        if (
            v.get("freq") is not None
            and v.get("selected_freq") is not None
            and v["freq"] != v["selected_freq"]
        ):
            rep.fail(f"03 says {v['freq']} but 25 00 says {v['selected_freq']}")
        ack = self.civ_request(b"\x05" + w.bcd_freq(7_074_000), False)
        v["set_freq_reply"] = ack.hex()
        if ack != b"\xfb":
            rep.fail("05 7.074 MHz was NAKed")
        freq(read(b"\x03", 5), "freq_after_set")
        if v.get("freq_after_set") != 7_074_000:
            rep.fail(f"read back {v.get('freq_after_set')} after setting 7074000")
        if (d := read(b"\x29\x01\x11", 1)) is not None:
            v["sub_att_db"] = w.unbcd_byte(d[0])
        if (d := read(b"\x18", 1)) is not None:
            v["power_on"] = d[0]
            if d[0] not in (0, 1):
                rep.fail(f"18: power state byte {d[0]:#x}")
        # §4.1: radios accept requests addressed to 0x00 ([A]'s probe `FE FE 00 E0 19 00 FD`)
        reply = self.civ_request(b"\x19\x00", True, to=0x00)
        v["id_via_broadcast"] = reply.hex(" ")
        if reply != bytes([0x19, 0x00, RADIO_CIV_ADDR]):
            rep.fail(f"19 00 to 0x00: {reply.hex(' ')}, expected 19 00 98")

    def retransmit_probe(self) -> None:
        """Asks the radio for packets again (§1.4, §1.6, §1.9) and records what comes back.

        * a seq it did send (the last CI-V reply): must come back byte-identical;
        * a seq it never sent, single and multi form: a simulator should answer each with
          an untracked "don't have it" filler idle carrying that seq ([W] behaviour, §1.4).
        """
        civ = self.streams["civ"]
        result: dict[str, Any] = {}
        self.report.data["retransmit_probe"] = result
        if civ.highest is None or not civ.recent_bytes:
            result["error"] = "nothing received to ask for"
            return
        known = next(reversed(civ.recent_bytes))
        original = civ.recent_bytes[known]
        unknown = [(civ.highest - 1000 - k) & 0xFFFF for k in range(3)]
        civ.watch = {s: [] for s in [known, *unknown]}
        civ.send_raw(w.control(w.T_RETRANSMIT, known, civ.my_id, civ.remote_id))
        civ.send_raw(w.control(w.T_RETRANSMIT, unknown[0], civ.my_id, civ.remote_id))
        civ.send_raw(w.multi_retransmit(unknown[1:], civ.my_id, civ.remote_id))
        self.pump(0.5, lambda: all(civ.watch.values()))
        again = civ.watch[known]
        result["known_seq"] = known
        result["known_resent"] = len(again)
        result["known_identical"] = bool(again) and all(d == original for d in again)
        if again and not result["known_identical"]:
            self.report.anomaly(
                f"civ: seq {known} resent with other bytes: {again[0].hex()} vs {original.hex()}"
            )

        def filler(seq: int) -> bool:
            return any(len(d) == w.HEADER_LEN and ptype_of(d) == w.T_DATA for d in civ.watch[seq])

        result["filler_single"] = filler(unknown[0])
        result["filler_multi"] = [filler(s) for s in unknown[1:]]
        civ.watch = {}

    # --- §3.3 audio ------------------------------------------------------------------------

    def audio_checks(self, audio: Stream, port: int) -> None:
        """AYT/IAH/AYR + OpenClose(open) on the audio port, then ~1 s of RX audio (§3.3)."""
        self.discover(audio, (self.args.host, port))
        audio.send_tracked(self.openclose_builder(audio, True))
        first = self.wait_queue(audio, lambda d: len(d) > w.AUDIO_HEADER_LEN, 3.0)
        if first is None:
            raise StepError(1, "audio: no RX audio within 3 s")
        packets: dict[int, tuple[float, bytes]] = {w.Header.parse(first).seq: (now(), first)}
        end = now() + 1.0
        while now() < end:
            self.pump(end - now(), lambda: bool(audio.queue))
            while audio.queue:
                t, d = audio.queue.popleft()
                packets[w.Header.parse(d).seq] = (t, d)
        self.pump(0.3)  # let retransmissions of the last gaps arrive
        while audio.queue:
            t, d = audio.queue.popleft()
            packets[w.Header.parse(d).seq] = (t, d)
        self.report.data["audio"] = self.check_audio(packets)

    def check_audio(self, packets: dict[int, tuple[float, bytes]]) -> dict[str, Any]:
        """Checks layout, counters and rate of the received audio packets."""
        rep = self.report
        sizes: collections.Counter[int] = collections.Counter()
        by_outer = sorted(packets)  # no wrap within one second
        inner: dict[int, int] = {}
        for seq in by_outer:
            _, d = packets[seq]
            if len(d) <= w.AUDIO_HEADER_LEN:
                rep.anomaly(f"audio: {len(d)}-byte data packet {d.hex()}")
                continue
            n = len(d) - w.AUDIO_HEADER_LEN
            sizes[n] += 1
            ident = struct.unpack_from("<H", d, 0x10)[0]
            inner[seq] = struct.unpack_from(">H", d, 0x12)[0]
            datalen = struct.unpack_from(">H", d, 0x16)[0]
            if n > w.AUDIO_MAX_PAYLOAD:
                rep.fail(f"audio: payload {n} > 1364")
            if datalen != n:
                rep.fail(f"audio: datalen {datalen} != payload {n} (outer seq {seq})")
            if ident != (0x9781 if n == 0xA0 else 0x0080):
                rep.fail(f"audio: ident 0x{ident:04x} for {n} bytes")
            if d[0x14:0x16] != b"\0\0":
                rep.anomaly(f"audio: bytes 0x14..0x15 = {d[0x14:0x16].hex()}")
        order = [s for s in by_outer if s in inner]
        inner_ok = all(inner_follows(inner, a, b) for a, b in zip(order, order[1:], strict=False))
        if not inner_ok:
            pairs = [(s, inner[s]) for s in order[:12]]
            rep.fail(f"audio: inner sendseq does not follow the outer seq: {pairs}")
        # 3840 bytes per 20 ms block → 1364 + 1364 + 1112, anchored on the 1112 packets
        pattern_ok = True
        anchors = [inner[s] for s in order if len(packets[s][1]) - w.AUDIO_HEADER_LEN == 1112]
        if anchors:
            a0 = anchors[0]
            for s in order:
                want = AUDIO_BLOCK_SIZES[2] if (inner[s] - a0) % 3 == 0 else AUDIO_BLOCK_SIZES[0]
                if len(packets[s][1]) - w.AUDIO_HEADER_LEN != want:
                    pattern_ok = False
        else:
            pattern_ok = False
        if not pattern_ok:
            rep.fail(f"audio: sizes are not 1364+1364+1112 per 20 ms: {dict(sizes)}")
        total = sum(sizes[n] * n for n in sizes)
        times = sorted(t for t, _ in packets.values())
        span = times[-1] - times[0] if len(times) > 1 else 0.0
        inner_span = (max(inner.values()) - min(inner.values()) + 1) if inner else 0
        rate = inner_span / 3 * 3840 / span if span > 0 else 0.0  # bytes/s the radio produced
        if not 0.7 * 192_000 <= rate <= 1.3 * 192_000:
            rep.fail(f"audio: {rate:.0f} B/s, expected about 192000 (48 kHz PCM16 stereo)")
        return {
            "packets": len(order),
            "bytes": total,
            "sizes": {str(k): v for k, v in sorted(sizes.items())},
            "max_payload": max(sizes) if sizes else 0,
            "inner_seq_ok": inner_ok,
            "pattern_ok": pattern_ok,
            "bytes_per_s": round(rate),
            "span_s": round(span, 3),
        }

    # --- §2.11 logout -------------------------------------------------------------------

    def logout(self) -> None:
        """[A] order: audio close + DISCONNECT, CI-V close + DISCONNECT, token 0x01, DISCONNECT."""
        self.loss = 0.0
        steps = []
        for name in ("audio", "civ"):
            s = self.streams.get(name)
            if s is None or s.remote is None:
                continue
            s.send_tracked(self.openclose_builder(s, False))
            s.control(w.T_DISCONNECT)
            steps += [f"{name}:openclose_close", f"{name}:disconnect"]
            s.close()
            del self.streams[name]
        ctl = self.streams["control"]
        ctl.send_tracked(self.token_packet(ctl, 0x01, self.next_innerseq()))
        ctl.control(w.T_DISCONNECT)
        steps += ["control:token_remove", "control:disconnect"]
        self.report.data["logout"] = steps
        # [A] does not wait for it, but a radio answers the token remove (§2.6)
        reply = self.wait_queue(ctl, token_reply_to(0x01), 0.3)
        self.report.data["token_remove_reply"] = token_reply_summary(reply)

    # --- the whole run ---------------------------------------------------------------------------

    def run(self) -> None:
        """Steps 1–5 of the module docstring."""
        args = self.args
        ctl = self.open_stream("control")
        self.discover(ctl, (args.host, args.control_port))
        self.login(ctl)
        ack_seq = ctl.send_tracked(self.token_packet(ctl, 0x02, 0))  # token ack, innerseq 0 ([A])
        self.next_renewal = now() + TOKEN_RENEWAL
        guid = self.collect_guid(ctl)
        for _ in range(2):
            if guid is not None or self.loss == 0:
                break
            # the radio never tells a lost token ack (nothing tracked follows it): send it again
            self.resends += 1
            log("no radio conninfo: sending the token ack again")
            ctl.resend(ack_seq)
            guid = self.collect_guid(ctl)
        self.report.data["guid"] = guid.hex() if guid else None
        civ = self.open_stream("civ")  # reserved before the conninfo names its port (§1.1)
        audio = self.open_stream("audio")
        civ_port, audio_port = self.stream_request(ctl, civ, audio, guid)
        log(f"Status: CI-V port {civ_port}, audio port {audio_port}")
        self.open_civ(civ, civ_port)
        self.civ_checks()
        self.retransmit_probe()
        self.audio_checks(audio, audio_port)
        # whatever else came in on the control port since the Status
        while ctl.queue:
            self.unmatched(ctl, ctl.queue.popleft()[1])
        self.renew_token_now(ctl)
        self.logout()

    def summary(self, exit_code: int, error: str | None) -> dict[str, Any]:
        """The JSON summary."""
        d: dict[str, Any] = {
            "ok": exit_code == 0,
            "exit": exit_code,
            "error": error,
            "controller": f"0x{self.ctl:02x}",
            "loss": self.args.loss,
            "elapsed_s": round(now() - self.started, 3),
        }
        d.update(self.report.data)
        d["unsolicited"] = self.unsolicited
        d["resends"] = self.resends
        d["get_retries"] = self.get_retries
        stats = {**self.closed_stats, **{n: s.stats for n, s in self.streams.items()}}
        d["transport"] = {n: dict(c) for n, c in stats.items()}
        d["transport_totals"] = dict(sum(stats.values(), collections.Counter()))
        d["anomalies"] = self.report.anomalies
        d["failures"] = self.report.failures
        return d


def inner_follows(inner: dict[int, int], a: int, b: int) -> bool:
    """Audio packets with outer seqs a < b: the inner sendseq moves forward with the outer
    one, by exactly one between consecutive outer seqs (§3.3: both increment)."""
    step = (inner[b] - inner[a]) & 0xFFFF
    return step == 1 if b - a == 1 else 0 < step < 0x8000


def token_reply_to(requesttype: int) -> Callable[[bytes], bool]:
    """Matches the radio's 0x40 token reply to one of our token packets (§2.6)."""
    return lambda d: len(d) == w.TOKEN_LEN and d[0x15] == requesttype


def token_reply_summary(reply: bytes | None) -> dict[str, Any] | None:
    """requestreply, requesttype, innerseq and response of a token reply."""
    if reply is None:
        return None
    return {
        "requestreply": reply[0x14],
        "requesttype": reply[0x15],
        "innerseq": struct.unpack_from(">H", reply, 0x16)[0],
        "response": f"0x{struct.unpack_from('<I', reply, 0x30)[0]:08x}",
    }


def ptype_of(data: bytes) -> int:
    """The packet type of a datagram."""
    return struct.unpack_from("<H", data, 4)[0]


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("control_port", type=int)
    p.add_argument("user")
    p.add_argument("password")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--controller", type=lambda v: int(v, 0), default=0xE0)
    p.add_argument("--loss", type=float, default=0.0, help="drop probability, each direction")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=20.0, help="hard limit for the whole run, s")
    p.add_argument(
        "--ayr-retry",
        action="store_true",
        help="send AYR again every second until I-am-ready (not [A]: it goes on after one)",
    )
    p.add_argument(
        "--drop-ayr",
        action="append",
        default=[],
        choices=["control", "civ", "audio"],
        help="lose our first AYR on this port (one lost datagram, reproducibly)",
    )
    p.add_argument(
        "--held-pause", type=float, default=1.0, help="pause after Status CI-V port 0, s"
    )
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.host not in ("127.0.0.1", "localhost"):
        print("this test peer talks to 127.0.0.1 only", file=sys.stderr)
        return 3
    client = Client(args)

    def hard_stop(signum: int, frame: Any) -> None:
        print(json.dumps(client.summary(3, "hard timeout")), flush=True)
        os._exit(3)

    signal.signal(signal.SIGALRM, hard_stop)
    signal.alarm(int(args.timeout) + 3)
    code, error = 0, None
    try:
        client.run()
    except StepError as e:
        code, error = e.code, str(e)
        log(f"stopped: {e}")
        ctl = client.streams.get("control")
        if ctl is not None and ctl.remote is not None:
            ctl.send_raw(w.control(w.T_DISCONNECT, 0, ctl.my_id, ctl.remote_id))
    if code == 0 and (client.report.anomalies or client.report.failures):
        code = 1
    print(json.dumps(client.summary(code, error)), flush=True)
    signal.alarm(0)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
