"""Wire-format helpers for the Icom LAN protocol, written from the specification.

Shared by the independent Python peers (``anchor_mock.py``, ``anchor_client.py``).
Every layout here comes from ``shared/spec/icom-lan-protocol.md``; section numbers
are given in the docstrings.  Nothing is taken from rigweb's Rust sources.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

# --- §1.2 packet types ---------------------------------------------------------
T_DATA = 0x00  # data, or a bare 0x10 idle
T_RETRANSMIT = 0x01  # retransmit request (single 0x10, multi 0x10 + 4n)
T_AYT = 0x03  # are you there
T_IAH = 0x04  # I am here
T_DISCONNECT = 0x05
T_AYR = 0x06  # are you ready / I am ready
T_PING = 0x07

HEADER_LEN = 0x10  # §1.2
PING_LEN = 0x15  # §1.5
CIV_HEADER_LEN = 0x15  # §3.1
OPENCLOSE_LEN = 0x16  # §3.2
AUDIO_HEADER_LEN = 0x18  # §3.3
AUDIO_MAX_PAYLOAD = 1364  # §3.3

# Control-port packet sizes (§1.3)
TOKEN_LEN = 0x40
STATUS_LEN = 0x50
LOGIN_RESPONSE_LEN = 0x60
LOGIN_LEN = 0x80
CONNINFO_LEN = 0x90

# §1.6 / §1.9
TX_BUFFER_SIZE = 500
MAX_MISSING = 50

# §2.4 obfuscation table for indices 0x20..0x7E
_PASSCODE = bytes.fromhex(
    " ".join(
        [
            "47 5D 4C 42 66 20 23 46 4E 57 45 3D 67 76 60 41",  # 0x20
            "62 39 59 2D 68 7E 7C 65 7D 49 29 72 73 78 21 6E",  # 0x30
            "5A 5E 4A 3E 71 2C 2A 54 3C 3A 63 4F 43 75 27 79",  # 0x40
            "5B 35 70 48 6B 56 6F 34 32 6C 30 61 6D 7B 2F 4B",  # 0x50
            "64 38 2B 2E 50 40 3F 55 33 37 25 77 24 26 74 6A",  # 0x60
            "28 53 4D 69 22 5C 44 31 36 58 3B 7A 51 5F 52",  # 0x70
        ]
    )
)
assert len(_PASSCODE) == 95, len(_PASSCODE)


@dataclass(frozen=True)
class Header:
    """The 16-byte common header (§1.2); all fields little-endian."""

    length: int
    ptype: int
    seq: int
    sentid: int
    rcvdid: int

    @staticmethod
    def parse(data: bytes) -> Header:
        """Reads the header of a datagram of at least 16 bytes."""
        length, ptype, seq, sentid, rcvdid = struct.unpack_from("<IHHII", data, 0)
        return Header(length, ptype, seq, sentid, rcvdid)


def header(length: int, ptype: int, seq: int, sentid: int, rcvdid: int) -> bytearray:
    """A zero-filled packet of ``length`` bytes with the common header filled in."""
    pkt = bytearray(length)
    struct.pack_into("<IHHII", pkt, 0, length, ptype, seq & 0xFFFF, sentid, rcvdid)
    return pkt


def control(ptype: int, seq: int, sentid: int, rcvdid: int) -> bytes:
    """A bare 0x10 control packet: AYT, IAH, AYR, DISCONNECT, idle, single retransmit (§1.4)."""
    return bytes(header(HEADER_LEN, ptype, seq, sentid, rcvdid))


def ping(seq: int, reply: bool, time_ms: int, sentid: int, rcvdid: int) -> bytes:
    """A 0x15-byte ping request or reply (§1.5)."""
    pkt = header(PING_LEN, T_PING, seq, sentid, rcvdid)
    pkt[0x10] = 1 if reply else 0
    struct.pack_into("<I", pkt, 0x11, time_ms & 0xFFFFFFFF)
    return bytes(pkt)


def ping_reply_to(request: bytes, sentid: int, rcvdid: int) -> bytes:
    """The reply to a ping request: same seq, flag 1, the requester's time copied (§1.5)."""
    seq = struct.unpack_from("<H", request, 6)[0]
    pkt = header(PING_LEN, T_PING, seq, sentid, rcvdid)
    pkt[0x10] = 0x01
    pkt[0x11:0x15] = request[0x11:0x15]
    return bytes(pkt)


def multi_retransmit(seqs: list[int], sentid: int, rcvdid: int) -> bytes:
    """A multi retransmit request: header seq 0, each missing seq twice as LE u16 (§1.6)."""
    pkt = header(HEADER_LEN + 4 * len(seqs), T_RETRANSMIT, 0, sentid, rcvdid)
    for i, s in enumerate(seqs):
        struct.pack_into("<HH", pkt, HEADER_LEN + 4 * i, s, s)
    return bytes(pkt)


def retransmit_seqs(data: bytes) -> list[int]:
    """The sequence numbers a retransmit request asks for (single or multi form, §1.6).

    A multi request is walked in 2-byte steps, as both reference implementations do,
    so each entry (which holds the seq twice) yields it twice.
    """
    if len(data) == HEADER_LEN:
        return [struct.unpack_from("<H", data, 6)[0]]
    return [struct.unpack_from("<H", data, off)[0] for off in range(HEADER_LEN, len(data) - 1, 2)]


# --- §2.4 credentials ----------------------------------------------------------


def encode_credential(text: str) -> bytes:
    """Obfuscates a user name or password (first 16 characters, §2.4)."""
    out = bytearray()
    for i, ch in enumerate(text.encode("latin-1")[:16]):
        p = ch + i
        if p > 126:
            p = 32 + (p % 127)
        out.append(_PASSCODE[p - 0x20] if 0x20 <= p <= 0x7E else 0)
    return bytes(out)


# --- §2.2 token-family prefix --------------------------------------------------


def token_family(
    length: int,
    seq: int,
    sentid: int,
    rcvdid: int,
    requestreply: int,
    requesttype: int,
    innerseq: int,
    tokrequest: int,
    token: int,
) -> bytearray:
    """A control-port packet with the §2.2 prefix filled in (payloadsize BE, innerseq BE)."""
    pkt = header(length, T_DATA, seq, sentid, rcvdid)
    struct.pack_into(">I", pkt, 0x10, length - HEADER_LEN)
    pkt[0x14] = requestreply
    pkt[0x15] = requesttype
    struct.pack_into(">H", pkt, 0x16, innerseq)
    struct.pack_into("<H", pkt, 0x1A, tokrequest)
    struct.pack_into("<I", pkt, 0x1C, token)
    return pkt


# --- §3.1 / §3.2 CI-V port -----------------------------------------------------


def civ_data(seq: int, sentid: int, rcvdid: int, sendseq: int, payload: bytes) -> bytes:
    """A CI-V data packet: 0x15-byte header, marker 0xC1, datalen LE, sendseq BE (§3.1)."""
    pkt = header(CIV_HEADER_LEN + len(payload), T_DATA, seq, sentid, rcvdid)
    pkt[0x10] = 0xC1
    struct.pack_into("<H", pkt, 0x11, len(payload))
    struct.pack_into(">H", pkt, 0x13, sendseq)
    pkt[CIV_HEADER_LEN:] = payload
    return bytes(pkt)


def openclose(seq: int, sentid: int, rcvdid: int, sendseq: int, open_stream: bool) -> bytes:
    """OpenClose, 0x16 bytes: `C0 01 00`, sendseq BE, magic 0x04 open / 0x00 close (§3.2)."""
    pkt = header(OPENCLOSE_LEN, T_DATA, seq, sentid, rcvdid)
    struct.pack_into("<H", pkt, 0x10, 0x01C0)
    struct.pack_into(">H", pkt, 0x13, sendseq)
    pkt[0x15] = 0x04 if open_stream else 0x00
    return bytes(pkt)


def civ_frame(to: int, frm: int, body: bytes) -> bytes:
    """A CI-V frame `FE FE to from body… FD` (§4.1)."""
    return b"\xfe\xfe" + bytes([to, frm]) + body + b"\xfd"


def split_frames(payload: bytes) -> tuple[list[bytes], bytes]:
    """Splits a CI-V payload into complete `FE FE … FD` frames (§3.1, pitfall 26).

    Returns the frames and any bytes that were not part of a frame.
    """
    frames: list[bytes] = []
    junk = bytearray()
    i = 0
    while i < len(payload):
        start = payload.find(b"\xfe\xfe", i)
        if start < 0:
            junk += payload[i:]
            break
        junk += payload[i:start]
        end = payload.find(b"\xfd", start)
        if end < 0:
            junk += payload[start:]
            break
        frames.append(bytes(payload[start : end + 1]))
        i = end + 1
    return frames, bytes(junk)


# --- §4.3 encodings ------------------------------------------------------------


def bcd_freq(hz: int) -> bytes:
    """Frequency as 5 bytes little-endian BCD (§4.3)."""
    digits = f"{hz:010d}"
    return bytes((int(digits[9 - 2 * i - 1]) << 4) | int(digits[9 - 2 * i]) for i in range(5))


def unbcd_freq(data: bytes) -> int | None:
    """Decodes 5-byte LE BCD; None if a nibble is above 9 or the length is wrong (§4.3)."""
    if len(data) != 5:
        return None
    hz = 0
    for i, b in enumerate(data):
        hi, lo = b >> 4, b & 0x0F
        if hi > 9 or lo > 9:
            return None
        hz += lo * 10 ** (2 * i) + hi * 10 ** (2 * i + 1)
    return hz


def bcd_level(value: int) -> bytes:
    """A 0..9999 value as 2 bytes big-endian BCD, e.g. 128 → `01 28` (§4.3)."""
    d = f"{value:04d}"
    return bytes([(int(d[0]) << 4) | int(d[1]), (int(d[2]) << 4) | int(d[3])])


def unbcd_level(data: bytes) -> int | None:
    """Decodes 2-byte BE BCD; None if malformed."""
    if len(data) != 2:
        return None
    digits = [data[0] >> 4, data[0] & 0x0F, data[1] >> 4, data[1] & 0x0F]
    if any(d > 9 for d in digits):
        return None
    return digits[0] * 1000 + digits[1] * 100 + digits[2] * 10 + digits[3]


def bcd_byte(value: int) -> int:
    """0..99 as one BCD byte (§4.3)."""
    return ((value // 10) << 4) | (value % 10)


def unbcd_byte(b: int) -> int | None:
    """One BCD byte to 0..99; None if a nibble is above 9."""
    hi, lo = b >> 4, b & 0x0F
    return None if hi > 9 or lo > 9 else hi * 10 + lo


def self_test() -> None:
    """Checks the encoders against the specification's test vectors (§2.4, §4.3)."""
    vectors = {
        "admin": "38406A244D",
        "password": "282B5C447A223677",
        "testuser": "223F5C3158367758",
        "testpass": "223F5C31223F583B",
        "~~": "5247",
    }
    for text, want in vectors.items():
        got = encode_credential(text).hex().upper()
        assert got == want, (text, got, want)
    assert bcd_freq(14_074_000) == bytes.fromhex("0040071400")
    assert bcd_freq(7_074_000) == bytes.fromhex("0040070700")
    assert bcd_freq(1_296_100_000) == bytes.fromhex("0000109612")
    assert unbcd_freq(bytes.fromhex("0004581400")) == 14_580_400
    assert unbcd_freq(bytes.fromhex("0A04581400")) is None
    assert bcd_level(128) == b"\x01\x28" and unbcd_level(b"\x02\x55") == 255
    assert retransmit_seqs(
        bytes.fromhex("1C000000 0100 0000 C7DF0100 EFBEADDE ED02ED02 F702F702 F802F802")
    ) == [0x2ED, 0x2ED, 0x2F7, 0x2F7, 0x2F8, 0x2F8]
    assert multi_retransmit([0x2ED, 0x2F7, 0x2F8], 0x0001DFC7, 0xDEADBEEF) == bytes.fromhex(
        "1C00000001000000C7DF0100EFBEADDEED02ED02F702F702F802F802"
    )
    assert openclose(0, 0x00018234, 0xDEADBEEF, 0, True) == bytes.fromhex(
        "16000000 0000 0000 34820100 EFBEADDE C001 00 0000 04"
    )
    assert civ_data(5, 0x0001C35A, 0xAABBCCDD, 3, bytes.fromhex("FEFE98E003FD")) == bytes.fromhex(
        "1B000000 0000 0500 5AC30100 DDCCBBAA C1 0600 0003 FEFE98E003FD"
    )


if __name__ == "__main__":
    self_test()
    print("icom_wire self-test ok")
