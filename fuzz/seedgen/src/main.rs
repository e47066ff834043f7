//! Writes the seed corpus of every fuzz target to `fuzz/seeds/<target>/`.
//!
//! Each seed is a well-formed message built with rigweb's own `emit()`s (so the
//! fuzzers start on the accepting paths), and each one is checked to be accepted
//! by the parser it is meant for before it is written.
//!
//! Run from the repository root: `cargo run --manifest-path fuzz/seedgen/Cargo.toml`.

mod scripts;

use std::fs;
use std::path::{Path, PathBuf};

use rigweb::wire::civ::{self, Frame, freq_to_bcd, level_to_bcd};
use rigweb::wire::lan::{
    AudioRepr, CapabilitiesRepr, CivDataRepr, ControlRepr, LoginRepr, LoginResponseRepr,
    OpenCloseRepr, Origin, Packet, PingRepr, Port, RadioCapability, RadioConnInfoRepr,
    RetransmitRepr, StatusRepr, StreamRequestRepr, TokenRepr, codec, credentials, mac_form_guid,
    ptype, token_kind,
};
use rigweb::wire::web::{AUDIO_RX_FRAME, AudioFrame, MeterFrame, ScopeFrame};

const IDS: (u32, u32) = (0x1122_3344, 0x5566_7788);

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    fs::write(dir.join(name), bytes).expect("write seed");
}

/// One seed per LAN packet kind, with the port it belongs to.
fn lan_packets() -> Vec<(&'static str, Port, Origin, Vec<u8>)> {
    let ctl = |t| ControlRepr {
        ptype: t,
        seq: 1,
        sent_id: IDS.0,
        rcvd_id: IDS.1,
    };
    let guid = mac_form_guid([0x00, 0x90, 0xC7, 0x12, 0x34, 0x56]);
    let radio = RadioCapability {
        guid,
        name: "IC-7610".into(),
        audio_name: "ICOM_VAUDIO".into(),
        conn_type: 0x073F,
        civ_addr: 0x98,
        rx_caps: 0x8B01,
        tx_caps: 0x8B01,
        enable: [1, 1, 1],
        baud: 115_200,
        capf: 0x5001,
        capg: 0x0190,
    };
    let civ_payload = Frame::new(0x98, civ::CONTROLLER, 0x03, &[]).emit();
    let c = Port::Control;
    let r = Origin::Radio;
    let cl = Origin::Client;
    vec![
        ("are_you_there", c, cl, ctl(ptype::ARE_YOU_THERE).emit()),
        ("i_am_here", c, r, ctl(ptype::I_AM_HERE).emit()),
        ("are_you_ready", c, r, ctl(ptype::ARE_YOU_READY).emit()),
        ("disconnect", c, cl, ctl(ptype::DISCONNECT).emit()),
        ("idle", Port::Civ, r, ctl(ptype::DATA).emit()),
        (
            "retransmit_single",
            c,
            r,
            RetransmitRepr {
                sent_id: IDS.0,
                rcvd_id: IDS.1,
                seqs: vec![7],
            }
            .emit(),
        ),
        (
            "retransmit_multi",
            Port::Audio,
            r,
            RetransmitRepr {
                sent_id: IDS.0,
                rcvd_id: IDS.1,
                seqs: vec![7, 8, 10],
            }
            .emit(),
        ),
        (
            "ping",
            c,
            cl,
            PingRepr {
                seq: 3,
                sent_id: IDS.0,
                rcvd_id: IDS.1,
                reply: false,
                time: 123_456,
            }
            .emit(),
        ),
        (
            "login",
            c,
            cl,
            LoginRepr::new(IDS, 1, 1, 0xBEEF, "admin", "password", "rigweb").emit(),
        ),
        (
            "login_response",
            c,
            r,
            LoginResponseRepr {
                seq: 1,
                sent_id: IDS.1,
                rcvd_id: IDS.0,
                inner_seq: 1,
                tok_request: 0xBEEF,
                token: 0xCAFE_F00D,
                auth_start_id: 0x1234,
                error: 0,
                connection_type: "FTTH".into(),
            }
            .emit(),
        ),
        (
            "token",
            c,
            cl,
            TokenRepr::request(IDS, 2, token_kind::RENEW, 2, 0xBEEF, 0xCAFE_F00D).emit(),
        ),
        (
            "capabilities",
            c,
            r,
            CapabilitiesRepr {
                seq: 2,
                sent_id: IDS.1,
                rcvd_id: IDS.0,
                inner_seq: 2,
                tok_request: 0xBEEF,
                token: 0xCAFE_F00D,
                radios: vec![radio],
            }
            .emit(),
        ),
        (
            "radio_conninfo",
            c,
            r,
            RadioConnInfoRepr {
                seq: 3,
                sent_id: IDS.1,
                rcvd_id: IDS.0,
                inner_seq: 3,
                tok_request: 0xBEEF,
                token: 0xCAFE_F00D,
                guid,
                radio_name: "IC-7610".into(),
                busy: 0,
                computer_name: "shack-pc".into(),
                user_ip: 0x7F00_0001,
            }
            .emit(),
        ),
        (
            "stream_request",
            c,
            cl,
            StreamRequestRepr {
                seq: 4,
                sent_id: IDS.0,
                rcvd_id: IDS.1,
                inner_seq: 4,
                tok_request: 0xBEEF,
                token: 0xCAFE_F00D,
                guid,
                radio_name: "IC-7610".into(),
                username: credentials::encode("admin"),
                rx_enable: true,
                tx_enable: true,
                rx_codec: codec::PCM16_STEREO,
                tx_codec: codec::PCM16_MONO,
                rx_sample_rate: 48_000,
                tx_sample_rate: 48_000,
                civ_port: 50_002,
                audio_port: 50_003,
                tx_buffer_ms: 150,
                convert: 1,
            }
            .emit(),
        ),
        (
            "status",
            c,
            r,
            StatusRepr {
                seq: 5,
                sent_id: IDS.1,
                rcvd_id: IDS.0,
                inner_seq: 5,
                tok_request: 0xBEEF,
                token: 0xCAFE_F00D,
                guid,
                error: 0,
                disconnected: false,
                civ_port: 50_002,
                audio_port: 50_003,
            }
            .emit(),
        ),
        (
            "civ_data",
            Port::Civ,
            cl,
            CivDataRepr {
                seq: 6,
                sent_id: IDS.0,
                rcvd_id: IDS.1,
                inner_seq: 1,
                payload: civ_payload,
            }
            .emit(),
        ),
        (
            "openclose",
            Port::Civ,
            cl,
            OpenCloseRepr {
                seq: 7,
                sent_id: IDS.0,
                rcvd_id: IDS.1,
                inner_seq: 0,
                open: true,
            }
            .emit(),
        ),
        (
            "audio",
            Port::Audio,
            r,
            AudioRepr::new(IDS, 8, 1, vec![0x10; 32]).emit(),
        ),
    ]
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("fuzz dir")
        .join("seeds");
    let dir = |t: &str| {
        let d = root.join(t);
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).expect("create seed dir");
        d
    };

    // lan_packet: raw datagrams.
    let d = dir("lan_packet");
    let packets = lan_packets();
    for (name, port, origin, bytes) in &packets {
        let p = Packet::parse(bytes, *port, *origin).expect(name);
        assert_eq!(
            p.name().replace('-', "_"),
            name.replace("_single", "").replace("_multi", "")
        );
        write(&d, name, bytes);
    }

    // lan_auth / lan_stream: selector byte (bit 7 set: bytes used as they are) + datagram.
    let auth = [
        "login",
        "login_response",
        "token",
        "capabilities",
        "radio_conninfo",
        "stream_request",
        "status",
    ];
    let stream = [
        "idle",
        "ping",
        "retransmit_multi",
        "civ_data",
        "openclose",
        "audio",
    ];
    for (target, names) in [("lan_auth", &auth[..]), ("lan_stream", &stream[..])] {
        let d = dir(target);
        let n = names.len() as u8;
        for (k, name) in names.iter().enumerate() {
            let sel = (0x80..=0xFFu8).find(|s| s % n == k as u8).unwrap();
            let bytes = &packets.iter().find(|p| p.0 == *name).unwrap().3;
            let mut seed = vec![sel];
            seed.extend_from_slice(bytes);
            write(&d, name, &seed);
        }
    }

    // civ_frames: CI-V payloads.
    let d = dir("civ_frames");
    let freq = freq_to_bcd(14_074_000).unwrap();
    let set_freq = Frame::new(0x98, civ::CONTROLLER, 0x05, &freq);
    let level = Frame::new(0x98, civ::CONTROLLER, 0x14, &[0x01, 0x01, 0x28]);
    let ack = Frame::new(civ::CONTROLLER, 0x98, civ::ACK, &[]);
    let sub_mode = Frame::new(0x98, civ::CONTROLLER, 0x06, &[0x01, 0x01]).wrap_receiver(civ::Receiver::Sub);
    let mut several = vec![0xFE];
    for f in [&set_freq, &level, &ack] {
        several.extend(f.emit());
    }
    several.extend([0x00, 0xFE, 0xFE, 0x98]); // unterminated tail
    write(&d, "set_freq", &set_freq.emit());
    write(&d, "cmd29_mode", &sub_mode.emit());
    write(&d, "several", &several);
    // MAX_FRAME_LEN boundary: the longest frame accepted, and one byte more.
    let data = vec![0x11; civ::MAX_FRAME_LEN - 6];
    let longest = Frame::new(0x98, civ::CONTROLLER, 0x27, &data).emit();
    assert_eq!(longest.len(), civ::MAX_FRAME_LEN);
    assert!(Frame::parse(&longest).is_ok());
    let mut too_long = longest.clone();
    too_long.insert(6, 0x11);
    assert!(Frame::parse(&too_long).is_err());
    write(&d, "longest", &longest);
    write(&d, "too_long", &too_long);

    // bcd: 14.074 MHz, level 128, a byte.
    let d = dir("bcd");
    let mut b = freq.to_vec();
    b.extend(level_to_bcd(128).unwrap());
    b.extend(1_296_000_000u64.to_le_bytes());
    write(&d, "freq_level", &b);

    // civ_memory: a channel and its content, an empty channel.
    let d = dir("civ_memory");
    let content = civ::memory::encode(&civ::memory::MemoryContent {
        freq_hz: 14_074_000,
        mode: 0x01,
        filter: 1,
        data: 1,
        name: "FT8 20M".into(),
    })
    .unwrap();
    let mut b = vec![0x00, 0x01];
    b.extend(content);
    write(&d, "channel_content", &b);
    write(&d, "empty", &[civ::memory::EMPTY]);

    // web_frames.
    let d = dir("web_frames");
    let scope = ScopeFrame {
        receiver: 0,
        mode: 0,
        start_freq: 14_000_000,
        end_freq: 14_350_000,
        sequence: 1,
        out_of_range: false,
        pixels: (0..64).map(|i| (i * 2) as u8).collect(),
    };
    let meter = MeterFrame {
        sequence: 2,
        readings: vec![(1, 120), (2, 0), (3, 9999)],
    };
    let audio = AudioFrame {
        msg_type: AUDIO_RX_FRAME,
        codec: 2,
        sequence: 3,
        sample_rate: 48_000,
        channels: 1,
        frame_ms: 20,
        payload: vec![0; 16],
    };
    assert_eq!(ScopeFrame::parse(&scope.emit()), Ok(scope.clone()));
    assert_eq!(MeterFrame::parse(&meter.emit()), Ok(meter.clone()));
    assert_eq!(AudioFrame::parse(&audio.emit()), Ok(audio.clone()));
    write(&d, "scope", &scope.emit());
    write(&d, "meter", &meter.emit());
    write(&d, "audio", &audio.emit());

    // credentials: "<configured>\xFF<received field>".
    let d = dir("credentials");
    for (name, text) in [("admin", "admin"), ("long", "a-very-long-password!")] {
        let mut seed = text.as_bytes().to_vec();
        seed.push(0xFF);
        seed.extend(credentials::significant(&credentials::encode(text)));
        write(&d, name, &seed);
    }

    // The stateful targets: scripts (see `scripts.rs`).
    let named = |v: Vec<(&'static str, Vec<u8>)>| -> Vec<(String, Vec<u8>)> {
        v.into_iter().map(|(n, b)| (n.to_string(), b)).collect()
    };
    for (target, seeds) in [
        ("scope_assembler", named(scripts::scope_assembler())),
        ("apply_frame", named(scripts::apply_frame())),
        ("lan_session", named(scripts::lan_session())),
        ("lan_window", named(scripts::lan_window())),
        ("sim_protocol", named(scripts::sim_protocol())),
        ("sim_rig", named(scripts::sim_rig())),
        ("command_json", scripts::command_json()),
        ("audio_codec", scripts::audio_codec()),
        ("json_diff", named(scripts::json_diff())),
        ("web_request", named(scripts::web_request())),
    ] {
        let d = dir(target);
        for (name, bytes) in seeds {
            write(&d, &name, &bytes);
        }
    }

    println!("seeds written to {}", root.display());
}
