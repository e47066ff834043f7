//! Seeds of the stateful targets. Their inputs are scripts read by
//! `rigweb_fuzz::common::Bytes` (bytes in order, little-endian integers); the encoders
//! below mirror the readers of each target (`fuzz/fuzz_targets/<target>.rs` and
//! `Peer::datagram` in `fuzz/src/common.rs`) and must be kept in step with them.

use std::time::SystemTime;

use rigweb::profile::ProfileRegistry;
use rigweb::radio::state::Selected;
use rigweb::radio::table::{COMMANDS, parse};
use rigweb::radio::service::initial_content;
use rigweb::wire::civ::{Frame, freq_to_bcd};
use serde_json::{Value, json};

/// A script under construction.
#[derive(Default, Clone)]
pub struct Script(pub Vec<u8>);

impl Script {
    fn u8(mut self, v: u8) -> Self {
        self.0.push(v);
        self
    }
    fn u16(mut self, v: u16) -> Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn u32(mut self, v: u32) -> Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn u64(mut self, v: u64) -> Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn bytes(mut self, v: &[u8]) -> Self {
        self.0.extend_from_slice(v);
        self
    }
    /// A length byte and the bytes (`Bytes::chunk`).
    fn chunk(self, v: &[u8]) -> Self {
        assert!(v.len() < 256);
        self.u8(v.len() as u8).bytes(v)
    }
}

fn pos(list: &[u8], v: u8) -> u8 {
    list.iter().position(|&x| x == v).expect("in list") as u8
}

// ---------------------------------------------------------------------------
// scope_assembler: [amp_max] then ops.
// ---------------------------------------------------------------------------

/// Header frame (op 3), flags 0x02: rx, seq 1, seq_max `1 + max_sel`, mode, BCD edges,
/// in range, `n` pixels of `fill`.
fn sa_header(s: Script, rx: u8, max_sel: u8, mode: u8, f1: u64, f2: u32, n: u16) -> Script {
    s.u8(3)
        .u8(0x02 | (rx & 1))
        .u8(max_sel)
        .u8(mode)
        .u64(f1)
        .u32(f2)
        .u8(0)
        .u16(n)
        .u8(7)
}

/// Pixel frame (op 6), flags 0x02: rx, seq `2 + seq_sel`, seq_max `1 + max_sel`, `n` pixels.
fn sa_pixels(s: Script, rx: u8, seq_sel: u8, max_sel: u8, n: u16) -> Script {
    s.u8(6)
        .u8(0x02 | (rx & 1))
        .u8(seq_sel)
        .u8(max_sel)
        .u16(n)
        .u8(0x40)
}

pub fn scope_assembler() -> Vec<(&'static str, Vec<u8>)> {
    let lan = sa_header(Script::default().u8(200), 0, 0, 0, 14_074_000, 25_000, 689);
    let fixed = sa_header(
        Script::default().u8(160),
        1,
        0,
        1,
        7_000_000,
        7_300_000,
        475,
    );
    // USB: header + 9 pixel frames of 50 + the last of 25 (seqmax 11), then a stale one
    let mut usb = sa_header(Script::default().u8(160), 0, 10, 1, 7_000_000, 300_000, 0);
    for k in 0..9 {
        usb = sa_pixels(usb, 0, k, 10, 50);
    }
    usb = sa_pixels(usb, 0, 9, 10, 25);
    usb = sa_header(usb, 1, 10, 0, 14_200_000, 50_000, 10);
    usb = usb.u8(1).u8(6); // 6 s later
    usb = sa_pixels(usb, 1, 0, 10, 10);
    let oor = Script::default()
        .u8(200)
        .u8(3)
        .u8(0x00)
        .u8(0)
        .u8(2)
        .u64(50_000_000_000)
        .u32(1)
        .u8(1)
        .chunk(&[]);
    let big = sa_header(Script::default().u8(255), 0, 0, 3, 100, 50, 4096);
    vec![
        ("lan_center", lan.0),
        ("lan_fixed_rx1", fixed.0),
        ("usb_multi_stale", usb.0),
        ("out_of_range", oor.0),
        ("max_pixels", big.0),
    ]
}

// ---------------------------------------------------------------------------
// apply_frame: [profile sel] then frames.
// ---------------------------------------------------------------------------

const AF_CMDS: [u8; 15] = [
    0x00, 0x01, 0x03, 0x04, 0x25, 0x26, 0x07, 0x0F, 0x11, 0x16, 0x14, 0x1C, 0x18, 0x29, 0x27,
];

/// A frame: cmd from the table, optional prefix selector, data mode and its bytes.
fn af(s: Script, cmd: u8, prefix: Option<u8>, mode: u8, tail: &[u8]) -> Script {
    let flags = if prefix.is_some() { 8 } else { 0 } | (mode << 4);
    let mut s = s.u8(flags).u8(pos(&AF_CMDS, cmd));
    if let Some(p) = prefix {
        s = s.u8(p);
    }
    s.bytes(tail)
}

pub fn apply_frame() -> Vec<(&'static str, Vec<u8>)> {
    let mut s = Script::default().u8(0x80); // every profile
    s = af(s, 0x00, None, 2, &7_074_000u64.to_le_bytes());
    s = af(s, 0x25, Some(1), 2, &145_500_000u64.to_le_bytes());
    s = af(s, 0x26, Some(0), 3, &[0x03, 0x01, 0x02]);
    s = af(s, 0x01, None, 3, &[0x01, 0x00, 0x01]);
    s = af(s, 0x07, Some(2), 0, &[0]); // 07 D2 01, then an empty chunk
    s = af(s, 0x11, None, 1, &[1, 12]);
    s = af(s, 0x16, Some(0), 1, &[1, 2]);
    s = af(s, 0x14, Some(0), 1, &[2, 1, 28]);
    s = af(s, 0x29, Some(1), 1, &[1, 18]);
    s = af(s, 0x27, Some(2), 1, &[1, 3]);
    s = af(s, 0x27, Some(3), 2, &50_000u64.to_le_bytes());
    s = af(s, 0x1C, Some(0), 0, &[1, 1]);
    let one = af(
        Script::default().u8(2),
        0x03,
        None,
        2,
        &14_074_000u64.to_le_bytes(),
    );
    vec![("every_command", s.0), ("read_freq", one.0)]
}

// ---------------------------------------------------------------------------
// Peer::datagram: kind byte, flags byte, then the kind's fields.
// ---------------------------------------------------------------------------

mod kind {
    pub const AYT: u8 = 2;
    pub const IAH: u8 = 3;
    pub const AYR: u8 = 4;
    pub const DISCONNECT: u8 = 5;
    pub const IDLE: u8 = 6;
    pub const PING: u8 = 7;
    pub const RETRANSMIT: u8 = 8;
    pub const LOGIN: u8 = 9;
    pub const LOGIN_RESPONSE: u8 = 10;
    pub const TOKEN: u8 = 11;
    pub const RADIO_CONNINFO: u8 = 13;
    pub const STREAM_REQUEST: u8 = 14;
    pub const STATUS: u8 = 15;
    pub const CIV_DATA: u8 = 16;
    pub const OPENCLOSE: u8 = 17;
    pub const AUDIO: u8 = 18;
}

/// A CI-V payload of `Peer::civ_payload`: one frame per entry, to the radio from E0.
fn civ_frames(s: Script, frames: &[(u8, &[u8])]) -> Script {
    assert!((1..=4).contains(&frames.len()));
    let mut s = s.u8(frames.len() as u8 - 1);
    for (cmd, data) in frames {
        s = s.u8(2).u8(*cmd).chunk(data);
    }
    s
}

// ---------------------------------------------------------------------------
// lan_session: [head] then ops (op % 4: 0 time, 1 action, 2/3 datagram).
// ---------------------------------------------------------------------------

fn ls_dgram(s: Script, kind: u8, flags: u8) -> Script {
    s.u8(2).u8(kind).u8(flags)
}

fn ls_wait(s: Script, ms: u16) -> Script {
    s.u8(0).u16(ms)
}

pub fn lan_session() -> Vec<(&'static str, Vec<u8>)> {
    // Control: login response, radio conninfo, status -> Ready; renewal; ping; retransmit.
    let mut c = Script::default().u8(0);
    c = ls_dgram(c, kind::LOGIN_RESPONSE, 0)
        .u16(0x31)
        .u16(0x1234)
        .u8(0);
    c = ls_dgram(c, kind::RADIO_CONNINFO, 0)
        .u8(0)
        .u8(1)
        .u32(0x7F00_0001);
    c = ls_dgram(c, kind::STATUS, 0);
    c = ls_wait(c, 400);
    c = c.u8(0x80).u8(61); // 61 s: token renewal
    c = ls_dgram(c, kind::TOKEN, 0x80).u8(1);
    c = ls_dgram(c, kind::PING, 0).u16(9).u32(1234);
    c = ls_dgram(c, kind::RETRANSMIT, 0).u8(3).u8(2);
    c = ls_dgram(c, kind::IDLE, 0);
    c = ls_dgram(c, kind::STATUS, 0x40); // streams closed
    c = c.u8(1); // request the streams again
    c = ls_dgram(c, kind::STATUS, 0x20); // rejected

    // Control, held session then bad credentials.
    let mut h = Script::default().u8(0);
    h = ls_dgram(h, kind::LOGIN_RESPONSE, 0).u16(0x31).u16(1).u8(0);
    h = ls_wait(h, 1500);
    h = ls_dgram(h, kind::STATUS, 0x80);
    h = h.u8(0x80).u8(11);
    h = ls_dgram(h, kind::LOGIN_RESPONSE, 0x20)
        .u16(0x32)
        .u16(1)
        .u8(1);

    // CI-V: data (opens the stream), frames, silence (recovery), data again, disconnect.
    let mut v = Script::default().u8(1);
    v = ls_dgram(v, kind::CIV_DATA, 0);
    v = civ_frames(v, &[(0x03, &[]), (0x00, &[0x00, 0x40, 0x07, 0x14, 0x00])]);
    v = ls_wait(v, 2500);
    v = ls_wait(v, 700);
    v = ls_dgram(v, kind::IDLE, 0);
    v = ls_dgram(v, kind::CIV_DATA, 0);
    v = civ_frames(v, &[(0xFB, &[])]);
    v = v.u8(1).chunk(&Frame::new(0x98, 0xE0, 0x03, &[]).emit());
    v = ls_dgram(v, kind::DISCONNECT, 0);

    // Audio: blocks, TX audio, a retransmit request.
    let mut a = Script::default().u8(2);
    a = ls_dgram(a, kind::AUDIO, 0).u16(1364).u8(3).u16(0);
    a = ls_dgram(a, kind::AUDIO, 0).u16(160).u8(5).u16(1);
    a = a.u8(0x81).u16(3000).u8(1);
    a = ls_dgram(a, kind::RETRANSMIT, 0).u8(2).u8(1);
    a = ls_wait(a, 600);

    // No handshake: raw bytes and discovery retries.
    let mut r = Script::default().u8(0x80);
    r = ls_dgram(r, kind::IAH, 0);
    r = ls_dgram(r, kind::AYR, 0).u8(1);
    r = ls_wait(r, 600);
    vec![
        ("control_ready", c.0),
        ("control_held", h.0),
        ("civ_open_recover", v.0),
        ("audio_blocks", a.0),
        ("discovery", r.0),
    ]
}

// ---------------------------------------------------------------------------
// lan_window: [head] then the window or stream settings and ops.
// ---------------------------------------------------------------------------

pub fn lan_window() -> Vec<(&'static str, Vec<u8>)> {
    // RxWindow, ordered: in order, a gap, requests, the gap filled, a wrap, a reset.
    let mut w = Script::default().u8(0x01).u16(50).u8(5).u16(0xFFF0);
    for _ in 0..4 {
        w = w.u8(1).u8(0x00); // +1
    }
    w = w.u8(1).u8(0x03); // +4: gap
    w = w.u8(0).u8(0);
    w = w.u8(1).u8(0x80 | 0x1D); // back 3
    w = w.u8(1).u8(0x80 | 0x21); // +1
    w = w.u8(0x81); // repeat
    for _ in 0..20 {
        w = w.u8(1).u8(0x01);
    }
    w = w.u8(1).u8(0xC1).u16(200); // far ahead: reset
    let unordered = {
        let mut s = w.clone();
        s.0[0] = 0x00;
        s
    };
    // Stream (client config), ordered: data, gaps, retransmit requests, pings, time.
    let mut s = Script::default()
        .u8(0x81)
        .u8(0)
        .u16(50)
        .u16(500)
        .u16(1)
        .u16(0);
    s = s.u8(1).u8(10); // send tracked
    s = s.u8(1).u8(20);
    s = s.u8(4).u8(0x00); // data +1
    s = s.u8(4).u8(0x02); // data +3 (gap)
    s = s.u8(0).u16(30);
    s = s.u8(0).u16(120);
    s = s.u8(2).u8(3).u16(1).u8(0).u8(0).u8(0).u8(0);
    s = s.u8(3).u8(0).u16(5).u32(99);
    s = s.u8(4).u8(0x80 | 0x1E); // back 2: fills the gap
    s = s.u8(0).u16(600);
    vec![
        ("window_ordered", w.0),
        ("window_unordered", unordered.0),
        ("stream_client", s.0),
    ]
}

// ---------------------------------------------------------------------------
// sim_protocol: [profile] then ops (op % 4 == 0 time; else client/port in the op byte).
// ---------------------------------------------------------------------------

fn sp(s: Script, client: u8, port: u8, kind: u8, flags: u8) -> Script {
    s.u8(1 | (client << 2) | (port << 4)).u8(kind).u8(flags)
}

fn sp_wait(s: Script, ms: u16) -> Script {
    s.u8(0).u16(ms)
}

/// Log in client `c`, ask for streams, open CI-V and audio.
fn sp_session(mut s: Script, c: u8, rx_codec: u8, rate: u8) -> Script {
    s = sp(s, c, 0, kind::AYT, 0);
    s = sp(s, c, 0, kind::AYR, 0).u8(1);
    s = sp(s, c, 0, kind::LOGIN, 0).u8(0);
    s = sp(s, c, 0, kind::TOKEN, 0x20); // token ack
    // rx codec, tx codec (PCM16 mono), rx rate, tx rate (48 kHz)
    s = sp(s, c, 0, kind::STREAM_REQUEST, 0)
        .u8(rx_codec)
        .u8(2)
        .u8(rate)
        .u8(3);
    s = sp(s, c, 1, kind::AYT, 0);
    s = sp(s, c, 1, kind::AYR, 0).u8(1);
    s = sp(s, c, 1, kind::OPENCLOSE, 0);
    s = sp(s, c, 2, kind::AYT, 0);
    s = sp(s, c, 2, kind::AYR, 0).u8(1);
    s
}

pub fn sim_protocol() -> Vec<(&'static str, Vec<u8>)> {
    // IC-7610 (index 2): a session, scope on, frequency read, time for sweeps and audio,
    // TX audio, a retransmit request, logout.
    let mut s = sp_session(Script::default().u8(2), 0, 4, 3);
    s = sp(s, 0, 1, kind::CIV_DATA, 0);
    s = civ_frames(
        s,
        &[
            (0x27, &[0x10, 0x01]),
            (0x27, &[0x11, 0x01]),
            (0x03, &[]),
            (0x1C, &[0x00, 0x01]),
        ],
    );
    for _ in 0..5 {
        s = sp_wait(s, 40);
    }
    s = sp(s, 0, 2, kind::AUDIO, 0).u16(960).u8(1).u16(0);
    s = sp(s, 0, 1, kind::RETRANSMIT, 0).u8(4).u8(2);
    s = sp(s, 0, 0, kind::PING, 0).u16(1).u32(5);
    s = sp_wait(s, 600);
    s = sp(s, 0, 0, kind::TOKEN, 0x30); // remove
    s = sp(s, 0, 0, kind::DISCONNECT, 0);

    // IC-705 (index 0): a second client is held, the first vanishes (stale + cooldown).
    let mut t = sp_session(Script::default().u8(0), 0, 2, 3);
    t = sp(t, 1, 0, kind::AYT, 0);
    t = sp(t, 1, 0, kind::LOGIN, 0).u8(0);
    t = sp(t, 1, 0, kind::TOKEN, 0x20);
    t = sp(t, 1, 0, kind::STREAM_REQUEST, 0).u8(2).u8(2).u8(3).u8(3);
    t = t.u8(0x80).u8(40); // 20 s: client 0 goes stale
    t = sp(t, 1, 0, kind::STREAM_REQUEST, 0).u8(2).u8(2).u8(3).u8(3);

    // Bad credentials, a stereo TX codec, a stranger.
    let mut u = Script::default().u8(3);
    u = sp(u, 0, 0, kind::AYT, 0);
    u = sp(u, 0, 0, kind::LOGIN, 0x10).u8(2).u8(2).u8(0);
    u = sp(u, 0, 0, kind::LOGIN, 0).u8(0);
    u = sp(u, 0, 0, kind::TOKEN, 0x20);
    u = sp(u, 0, 0, kind::STREAM_REQUEST, 0).u8(4).u8(4).u8(3).u8(3);
    u = sp(u, 3, 1, kind::AYT, 0);
    vec![
        ("ic7610_session", s.0),
        ("ic705_held_stale", t.0),
        ("rejections", u.0),
    ]
}

// ---------------------------------------------------------------------------
// sim_rig: [profile, seed] then ops (op % 8: 0/1 time, 2 audio, 3 TX audio, 4.. frame).
// ---------------------------------------------------------------------------

const SR_CMDS: [u8; 24] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0F, 0x10, 0x11, 0x14, 0x15, 0x16, 0x18, 0x19,
    0x1A, 0x1B, 0x1C, 0x21, 0x25, 0x26, 0x27, 0x29,
];

/// A request to the radio from E0 with raw data (data mode 0); command 29 takes its
/// receiver and inner command from the first two data bytes.
fn sr(s: Script, cmd: u8, data: &[u8]) -> Script {
    let s = s.u8(4).u8(0x00).u8(pos(&SR_CMDS, cmd));
    match (cmd, data) {
        (0x29, [rx, inner, rest @ ..]) => s.u8(*rx).u8(pos(&SR_CMDS, *inner)).chunk(rest),
        _ => s.chunk(data),
    }
}

pub fn sim_rig() -> Vec<(&'static str, Vec<u8>)> {
    let mut out = Vec::new();
    for (name, profile) in [("ic7610", 2u8), ("ic705", 0), ("ic9700", 3), ("ic7100", 1)] {
        let mut s = Script::default().u8(profile).u8(1);
        s = sr(s, 0x27, &[0x10, 0x01]);
        s = sr(s, 0x27, &[0x11, 0x01]);
        s = sr(s, 0x27, &[0x13, 0x01]);
        s = sr(s, 0x05, &freq_to_bcd(14_074_000).unwrap());
        s = sr(s, 0x06, &[0x01, 0x02]);
        s = sr(s, 0x03, &[]);
        s = sr(s, 0x1A, &[0x05, 0x01, 0x31]);
        s = sr(s, 0x27, &[0x14, 0x00, 0x01]);
        s = sr(s, 0x27, &[0x1E, 0x05, 0x01]);
        s = sr(s, 0x29, &[0x01, 0x03]);
        s = s.u8(0).u16(40).u8(0).u16(40);
        s = s.u8(2).u16(960).u8(2).u8(5); // 960 samples, 2 channels, 48 kHz
        s = sr(s, 0x1C, &[0x00, 0x01]);
        s = s.u8(3).u16(960).u16(77);
        s = s.u8(0).u16(40);
        s = sr(s, 0x18, &[0x00]);
        s = s.u8(2).u16(100).u8(1).u8(3);
        s = sr(s, 0x18, &[0x01]);
        s = s.u8(0).u16(500);
        out.push((name, s.0));
    }
    out
}

// ---------------------------------------------------------------------------
// command_json: [command index, profile index] JSON.
// ---------------------------------------------------------------------------

pub fn command_json() -> Vec<(String, Vec<u8>)> {
    let reg = ProfileRegistry::embedded();
    let ids = reg.ids();
    let cases: [(&str, &str, Value); 13] = [
        (
            "set_freq",
            "ic7610",
            json!({"freq": 14_074_000, "vfo": "SUB"}),
        ),
        (
            "set_freq",
            "ic705",
            json!({"freq": 145_500_000, "vfo": "b"}),
        ),
        (
            "set_mode",
            "ic7610",
            json!({"mode": "cw-r", "filter": "FIL2", "receiver": 1}),
        ),
        ("set_filter", "ic9700", json!({"filter": "FIL3"})),
        ("ptt", "ic705", json!({"state": true})),
        ("set_power", "ic7610", json!({"level": 128})),
        ("set_att", "ic7610", json!({"db": 6, "receiver": 0})),
        ("set_preamp", "ic7100", json!({"level": 1})),
        ("vfo_swap", "ic705", json!({})),
        ("vfo_equalize", "ic7610", Value::Null),
        ("set_band", "ic7610", json!({"band": 16})),
        ("set_freq", "ic7610", json!({"freq": 1e300, "frq": [1]})),
        ("set_mode", "ic705", json!({"mode": "PSK", "vfo": "SUB2"})),
    ];
    let mut out = Vec::new();
    for (i, (name, model, params)) in cases.into_iter().enumerate() {
        let ci = COMMANDS
            .iter()
            .position(|c| c.name == name)
            .expect("command") as u8;
        let pi = ids.iter().position(|x| x == model).expect("profile") as u8;
        let p = reg.get(model).expect("profile");
        // checked: it parses (Ok or a validation error), never panics
        let _ = parse(name, Some(&params), &p);
        let mut seed = vec![ci, pi];
        seed.extend(serde_json::to_vec(&params).expect("json"));
        out.push((format!("{i:02}_{name}_{model}"), seed));
    }
    // a junk name (selector >= 0xF0): name bytes, NUL, JSON
    let mut junk = vec![0xF0, 0];
    junk.extend(b"set_fre\0{\"freq\": 1}");
    out.push(("junk_name".into(), junk));
    out
}

// ---------------------------------------------------------------------------
// audio_codec: [codec] then the payload (first four bytes also the rate, LE).
// ---------------------------------------------------------------------------

pub fn audio_codec() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for c in [0x01u8, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x41] {
        let mut seed = vec![c];
        seed.extend(48_000u32.to_le_bytes());
        seed.extend((0..200u32).map(|i| (i * 37) as u8));
        out.push((format!("codec_{c:02x}"), seed));
    }
    out
}

// ---------------------------------------------------------------------------
// json_diff: old JSON, 0xFF, new JSON.
// ---------------------------------------------------------------------------

pub fn json_diff() -> Vec<(&'static str, Vec<u8>)> {
    let reg = ProfileRegistry::embedded();
    let p = reg.get("ic7610").expect("profile");
    let mut c = initial_content(&p);
    let old = Value::Object(c.to_json(1, SystemTime::UNIX_EPOCH));
    c.radio.main.freq_hz = Some(7_074_000);
    c.radio.sub = None;
    c.radio.active = Some(Selected::Sub);
    c.detail.message = Some("x".into());
    let new = Value::Object(c.to_json(2, SystemTime::UNIX_EPOCH));
    let pair = |a: &Value, b: &Value| {
        let mut v = serde_json::to_vec(a).expect("json");
        v.push(0xFF);
        v.extend(serde_json::to_vec(b).expect("json"));
        v
    };
    let small_a = json!({"a": {"b": 1, "c": [1, 2]}, "d": {"e": {"f": null}}, "": 0});
    let small_b = json!({"a": {"b": 2}, "d": {"e": 5}, "g": {"h": {}}, "": {}});
    vec![
        ("state_update", pair(&old, &new)),
        ("nested", pair(&small_a, &small_b)),
    ]
}

// ---------------------------------------------------------------------------
// web_request: token, 0xFF, Authorization value, 0xFF, request target.
// ---------------------------------------------------------------------------

pub fn web_request() -> Vec<(&'static str, Vec<u8>)> {
    let seed = |t: &str, h: &str, u: &str| {
        let mut v = t.as_bytes().to_vec();
        v.push(0xFF);
        v.extend(h.as_bytes());
        v.push(0xFF);
        v.extend(u.as_bytes());
        v
    };
    vec![
        ("bearer", seed("s3cret", "Bearer s3cret", "/api/v1/state")),
        (
            "ws_query",
            seed("s3cret", "", "/api/v1/ws?x=1&TOKEN=s3cret&token=&token"),
        ),
        (
            "etag",
            seed("abc", "W/\"abc\", \"def\"", "/api/v1/state?a=b=c&&"),
        ),
    ]
}
