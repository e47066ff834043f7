//! Golden-byte tests: every example and test vector of `icom-lan-protocol.md`.

use rigweb::wire::civ::{self, Frame};
use rigweb::wire::lan::{
    self, AudioRepr, CapabilitiesRepr, CivDataRepr, ControlRepr, LoginRepr, LoginResponseRepr,
    OpenCloseRepr, Origin, Packet, PingRepr, Port, RadioCapability, RetransmitRepr, StatusRepr,
    StreamRequestRepr, TokenRepr, credentials, ptype,
};

/// Parses a hex dump such as `"1C 00 0A"` into bytes.
fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
        .collect()
}

/// Builds a datagram of `len` zero bytes with the given `(offset, hex)` rows filled in.
fn rows(len: usize, rows: &[(usize, &str)]) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    for (off, bytes) in rows {
        let b = hex(bytes);
        buf[*off..*off + b.len()].copy_from_slice(&b);
    }
    buf
}

#[test]
fn credential_table_vectors() {
    assert_eq!(
        &credentials::encode("admin")[..5],
        &hex("38 40 6A 24 4D")[..]
    );
    assert_eq!(
        &credentials::encode("password")[..8],
        &hex("28 2B 5C 44 7A 22 36 77")[..]
    );
    assert_eq!(
        &credentials::encode("testuser")[..8],
        &hex("22 3F 5C 31 58 36 77 58")[..]
    );
    assert_eq!(
        &credentials::encode("testpass")[..8],
        &hex("22 3F 5C 31 22 3F 58 3B")[..]
    );
    assert_eq!(&credentials::encode("~~")[..2], &hex("52 47")[..]);
    // zero padded after the text, only the first 16 characters count
    assert_eq!(credentials::encode("admin")[5..], [0u8; 11]);
    assert_eq!(
        credentials::encode("abcdefghijklmnopqrstuvwxyz"),
        credentials::encode("abcdefghijklmnop")
    );
    assert!(credentials::matches(
        &credentials::encode("testpass"),
        "testpass"
    ));
    assert!(!credentials::matches(
        &credentials::encode("testpasS"),
        "testpass"
    ));
    let mut plain = [0u8; 16];
    plain[..8].copy_from_slice(b"testpass");
    assert!(
        credentials::matches(&plain, "testpass"),
        "clear-text password accepted"
    );
}

#[test]
fn login_example_builder() {
    let login = LoginRepr::new(
        (0x0001_C351, 0x1234_5678),
        0,
        0x30,
        0xBEEF,
        "admin",
        "password",
        "rust-client",
    );
    let want = rows(
        0x80,
        &[
            (0x00, "80 00 00 00 00 00 00 00 51 C3 01 00 78 56 34 12"),
            (0x10, "00 00 00 70 01 00 00 30 00 00 EF BE 00 00 00 00"),
            (0x40, "38 40 6A 24 4D"),
            (0x50, "28 2B 5C 44 7A 22 36 77"),
            (0x60, "72 75 73 74 2D 63 6C 69 65 6E 74"),
        ],
    );
    assert_eq!(login.emit(), want);
    assert_eq!(LoginRepr::parse(&want).unwrap(), login);
}

#[test]
fn login_observed_from_anchor() {
    let want = rows(
        0x80,
        &[
            (0x00, "80 00 00 00 00 00 00 00 E2 C0 01 00 EF BE AD DE"),
            (0x10, "00 00 00 70 01 00 00 00 00 00 00 00 00 00 00 00"),
            (0x40, "22 3F 5C 31 58 36 77 58 00 00 00 00 00 00 00 00"),
            (0x50, "22 3F 5C 31 22 3F 58 3B 00 00 00 00 00 00 00 00"),
            (0x60, "72 69 67 70 6C 61 6E 65 00 00 00 00 00 00 00 00"),
        ],
    );
    let login = LoginRepr::new(
        (0x0001_C0E2, 0xDEAD_BEEF),
        0,
        0,
        0,
        "testuser",
        "testpass",
        "rigplane",
    );
    assert_eq!(login.emit(), want);
    match Packet::parse(&want, Port::Control, Origin::Client).unwrap() {
        Packet::Login(l) => {
            assert!(credentials::matches(&l.username, "testuser"));
            assert!(credentials::matches(&l.password, "testpass"));
            assert_eq!(l.computer_name, "rigplane");
        }
        other => panic!("parsed as {}", other.name()),
    }
}

#[test]
fn token_ack_observed() {
    let want = rows(
        0x40,
        &[(
            0x00,
            "40 00 00 00 00 00 01 00 E2 C0 01 00 EF BE AD DE 00 00 00 30 01 02 00 00 00 00 00 00 \
             78 56 34 12 00 00 00 00 07 98",
        )],
    );
    let tok = TokenRepr::request(
        (0x0001_C0E2, 0xDEAD_BEEF),
        1,
        lan::token_kind::ACK,
        0,
        0,
        0x1234_5678,
    );
    assert_eq!(tok.emit(), want);
    assert_eq!(TokenRepr::parse(&want).unwrap(), tok);
}

#[test]
fn conninfo_observed() {
    let want = rows(
        0x90,
        &[
            (0x00, "90 00 00 00 00 00 02 00 E2 C0 01 00 EF BE AD DE"),
            (0x10, "00 00 00 80 01 03 00 01 00 00 00 00 78 56 34 12"),
            (0x20, "01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F 10"),
            (0x40, "49 43 2D 37 36 31 30 00 00 00 00 00 00 00 00 00"),
            (0x60, "22 3F 5C 31 58 36 77 58 00 00 00 00 00 00 00 00"),
            (0x70, "01 01 10 04 00 00 BB 80 00 00 BB 80 00 00 82 34"),
            (0x80, "00 00 E3 69 00 00 00 96 01 00 00 00 00 00 00 00"),
        ],
    );
    let guid: [u8; 16] = std::array::from_fn(|i| i as u8 + 1);
    let req = StreamRequestRepr {
        seq: 2,
        sent_id: 0x0001_C0E2,
        rcvd_id: 0xDEAD_BEEF,
        inner_seq: 1,
        tok_request: 0,
        token: 0x1234_5678,
        guid,
        radio_name: "IC-7610".into(),
        username: credentials::encode("testuser"),
        rx_enable: true,
        tx_enable: true,
        rx_codec: lan::codec::PCM16_STEREO,
        tx_codec: lan::codec::PCM16_MONO,
        rx_sample_rate: 48000,
        tx_sample_rate: 48000,
        civ_port: 33332,
        audio_port: 58217,
        tx_buffer_ms: 150,
        convert: 1,
    };
    assert_eq!(req.emit(), want);
    assert!(StreamRequestRepr::is_stream_request(&want));
    match Packet::parse(&want, Port::Control, Origin::Client).unwrap() {
        Packet::StreamRequest(r) => assert_eq!(r, req),
        other => panic!("parsed as {}", other.name()),
    }
    // the same bytes read by a client are a radio conninfo carrying the GUID area
    match Packet::parse(&want, Port::Control, Origin::Radio).unwrap() {
        Packet::RadioConnInfo(r) => assert_eq!(r.guid, guid),
        other => panic!("parsed as {}", other.name()),
    }
}

#[test]
fn retransmit_multi_and_single_observed() {
    let multi =
        hex("1C 00 00 00 01 00 00 00 C7 DF 01 00 EF BE AD DE ED 02 ED 02 F7 02 F7 02 F8 02 F8 02");
    let repr = RetransmitRepr {
        sent_id: 0x0001_DFC7,
        rcvd_id: 0xDEAD_BEEF,
        seqs: vec![0x02ED, 0x02F7, 0x02F8],
    };
    assert_eq!(repr.emit(), multi);
    assert_eq!(RetransmitRepr::parse(&multi).unwrap(), repr);

    let single = RetransmitRepr {
        sent_id: 0x0001_DFC7,
        rcvd_id: 0xDEAD_BEEF,
        seqs: vec![0x02ED],
    };
    let bytes = single.emit();
    assert_eq!(&bytes[..8], &hex("10 00 00 00 01 00 ED 02")[..]);
    assert_eq!(bytes.len(), 0x10);
    match Packet::parse(&bytes, Port::Civ, Origin::Client).unwrap() {
        Packet::Retransmit(r) => assert_eq!(r.seqs, vec![0x02ED]),
        other => panic!("parsed as {}", other.name()),
    }
}

#[test]
fn civ_data_examples() {
    let read_freq =
        hex("1B 00 00 00 00 00 05 00 5A C3 01 00 DD CC BB AA C1 06 00 00 03 FE FE 98 E0 03 FD");
    let repr = CivDataRepr {
        seq: 5,
        sent_id: 0x0001_C35A,
        rcvd_id: 0xAABB_CCDD,
        inner_seq: 3,
        payload: Frame::new(0x98, 0xE0, 0x03, &[]).emit(),
    };
    assert_eq!(repr.emit(), read_freq);
    assert_eq!(CivDataRepr::parse(&read_freq).unwrap(), repr);

    let set_freq = hex(
        "20 00 00 00 00 00 71 00 0E C2 01 00 EF BE AD DE C1 0B 00 00 5B FE FE 98 E0 05 00 40 07 07 00 FD",
    );
    let payload = Frame::new(0x98, 0xE0, 0x05, &civ::freq_to_bcd(7_074_000).unwrap()).emit();
    let repr = CivDataRepr {
        seq: 0x71,
        sent_id: 0x0001_C20E,
        rcvd_id: 0xDEAD_BEEF,
        inner_seq: 0x5B,
        payload,
    };
    assert_eq!(repr.emit(), set_freq);

    let ack =
        hex("1B 00 00 00 00 00 CF 01 EF BE AD DE 0E C2 01 00 C1 06 00 01 CF FE FE E0 98 FB FD");
    let parsed = CivDataRepr::parse(&ack).unwrap();
    assert_eq!(parsed.seq, 0x01CF);
    assert_eq!(parsed.inner_seq, 0x01CF);
    let frame = Frame::parse(&parsed.payload).unwrap();
    assert!(frame.is_ack());
    assert_eq!((frame.to, frame.from), (0xE0, 0x98));
}

#[test]
fn openclose_observed() {
    let open = hex("16 00 00 00 00 00 00 00 34 82 01 00 EF BE AD DE C0 01 00 00 00 04");
    let repr = OpenCloseRepr {
        seq: 0,
        sent_id: 0x0001_8234,
        rcvd_id: 0xDEAD_BEEF,
        inner_seq: 0,
        open: true,
    };
    assert_eq!(repr.emit(), open);
    match Packet::parse(&open, Port::Civ, Origin::Client).unwrap() {
        Packet::OpenClose(o) => assert_eq!(o, repr),
        other => panic!("parsed as {}", other.name()),
    }
    let close = OpenCloseRepr {
        open: false,
        seq: 9,
        inner_seq: 4,
        ..repr
    };
    let bytes = close.emit();
    assert_eq!(bytes[0x15], 0x00);
    assert_eq!(&bytes[0x13..0x15], &[0x00, 0x04]);
}

#[test]
fn ping_request_with_zero_len_header_parses() {
    // a wfview-style radio sends ping requests with len = 0
    let mut req = PingRepr {
        seq: 7,
        sent_id: 1,
        rcvd_id: 2,
        reply: false,
        time: 0xAABBCCDD,
    }
    .emit();
    req[0..4].copy_from_slice(&[0, 0, 0, 0]);
    let p = PingRepr::parse(&req).unwrap();
    let reply = p.reply_to(2).emit();
    assert_eq!(&reply[..4], &[0x15, 0, 0, 0]);
    assert_eq!(reply[0x10], 1);
    assert_eq!(&reply[0x11..0x15], &0xAABBCCDDu32.to_le_bytes());
    assert_eq!(&reply[0x06..0x08], &[7, 0]);
    assert_eq!(&reply[0x08..0x0C], &2u32.to_le_bytes());
    assert_eq!(&reply[0x0C..0x10], &1u32.to_le_bytes());
}

#[test]
fn control_packets() {
    let ayt = ControlRepr {
        ptype: ptype::ARE_YOU_THERE,
        seq: 0,
        sent_id: 0x0001_C351,
        rcvd_id: 0,
    };
    assert_eq!(
        ayt.emit(),
        hex("10 00 00 00 03 00 00 00 51 C3 01 00 00 00 00 00")
    );
    assert!(matches!(
        Packet::parse(&ayt.emit(), Port::Control, Origin::Client),
        Ok(Packet::AreYouThere(_))
    ));
    let idle = ControlRepr {
        ptype: ptype::DATA,
        seq: 3,
        sent_id: 1,
        rcvd_id: 2,
    };
    assert!(matches!(
        Packet::parse(&idle.emit(), Port::Audio, Origin::Radio),
        Ok(Packet::Idle(c)) if c.seq == 3
    ));
}

#[test]
fn status_ports_are_big_endian() {
    let st = StatusRepr {
        seq: 4,
        sent_id: 1,
        rcvd_id: 2,
        inner_seq: 1,
        tok_request: 0x1111,
        token: 0x2222_3333,
        guid: [0; 16],
        error: 0,
        disconnected: false,
        civ_port: 50002,
        audio_port: 50003,
    };
    let b = st.emit();
    assert_eq!(b.len(), 0x50);
    assert_eq!(&b[0x42..0x44], &hex("C3 52")[..]);
    assert_eq!(&b[0x46..0x48], &hex("C3 53")[..]);
    assert_eq!(&b[0x10..0x14], &hex("00 00 00 40")[..]);
    assert_eq!(StatusRepr::parse(&b).unwrap(), st);
    let rejected = StatusRepr {
        error: lan::ERROR_REJECTED,
        ..st
    };
    assert_eq!(&rejected.emit()[0x30..0x34], &hex("FF FF FF FF")[..]);
}

#[test]
fn login_response_error_codes() {
    let resp = LoginResponseRepr {
        seq: 1,
        sent_id: 2,
        rcvd_id: 3,
        inner_seq: 0,
        tok_request: 0xBEEF,
        token: 0x1234_5678,
        auth_start_id: 0,
        error: lan::LOGIN_ERROR_BAD_CREDENTIALS,
        connection_type: "FTTH".into(),
    };
    let b = resp.emit();
    assert_eq!(b.len(), 0x60);
    assert_eq!(&b[0x30..0x34], &hex("FF FF FF FE")[..]);
    assert_eq!(&b[0x40..0x45], b"FTTH\0");
    let parsed = LoginResponseRepr::parse(&b).unwrap();
    assert!(!parsed.is_ok());
    assert_eq!(parsed, resp);
}

#[test]
fn capabilities_single_radio_absolute_offsets() {
    let caps = CapabilitiesRepr {
        seq: 2,
        sent_id: 1,
        rcvd_id: 2,
        inner_seq: 0,
        tok_request: 5,
        token: 6,
        radios: vec![RadioCapability {
            guid: [0xAB; 16],
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
        }],
    };
    let b = caps.emit();
    assert_eq!(b.len(), 0xA8);
    assert_eq!(&b[0x40..0x42], &[0x00, 0x01]);
    assert_eq!(&b[0x52..0x59], b"IC-7610");
    assert_eq!(&b[0x72..0x7D], b"ICOM_VAUDIO");
    assert_eq!(&b[0x92..0x94], &[0x3F, 0x07]);
    assert_eq!(b[0x94], 0x98);
    assert_eq!(&b[0x95..0x97], &[0x01, 0x8B]);
    assert_eq!(&b[0x97..0x99], &[0x01, 0x8B]);
    assert_eq!(&b[0x9C..0xA0], &115_200u32.to_be_bytes());
    match Packet::parse(&b, Port::Control, Origin::Radio).unwrap() {
        Packet::Capabilities(c) => assert_eq!(c, caps),
        other => panic!("parsed as {}", other.name()),
    }
}

#[test]
fn audio_packet_layout() {
    let a = AudioRepr::new((1, 2), 9, 0x0102, vec![0x55; 0xA0]);
    let b = a.emit();
    assert_eq!(b.len(), 0x18 + 0xA0);
    assert_eq!(
        &b[0x10..0x12],
        &[0x81, 0x97],
        "ident 0x9781 for 160-byte payloads"
    );
    assert_eq!(&b[0x12..0x14], &[0x01, 0x02], "send seq is big-endian");
    assert_eq!(&b[0x16..0x18], &[0x00, 0xA0], "datalen is big-endian");
    let n = AudioRepr::new((1, 2), 9, 0, vec![0; 1364]).emit();
    assert_eq!(&n[0x10..0x12], &[0x80, 0x00]);
    assert_eq!(n.len(), 0x18 + 1364);
    assert_eq!(AudioRepr::parse(&b).unwrap(), a);
    // 48 kHz µ-law mono: one 960-byte packet, len 0x3D8
    assert_eq!(
        AudioRepr::new((1, 2), 0, 0, vec![0; 960]).emit().len(),
        0x3D8
    );
}

#[test]
fn bcd_vectors() {
    let cases: [(u64, &str); 5] = [
        (14_074_000, "00 40 07 14 00"),
        (7_050_000, "00 00 05 07 00"),
        (7_074_000, "00 40 07 07 00"),
        (145_500_000, "00 00 50 45 01"),
        (1_296_100_000, "00 00 10 96 12"),
    ];
    for (hz, bytes) in cases {
        assert_eq!(civ::freq_to_bcd(hz).unwrap().to_vec(), hex(bytes), "{hz}");
        assert_eq!(civ::bcd_to_freq(&hex(bytes)).unwrap(), hz);
    }
    assert_eq!(
        civ::bcd_to_freq(&hex("00 04 58 14 00")).unwrap(),
        14_580_400
    );
    assert!(civ::freq_to_bcd(10_000_000_000).is_err());
    assert!(
        civ::bcd_to_freq(&hex("0A 00 00 00 00")).is_err(),
        "nibble > 9"
    );
    assert!(civ::bcd_to_freq(&hex("00 00 00 00")).is_err(), "4 bytes");
    assert_eq!(civ::level_to_bcd(128).unwrap(), [0x01, 0x28]);
    assert_eq!(civ::level_to_bcd(255).unwrap(), [0x02, 0x55]);
    assert_eq!(civ::level_to_bcd(0).unwrap(), [0x00, 0x00]);
    assert_eq!(civ::bcd_to_level(&hex("01 50")).unwrap(), 150);
    assert!(civ::bcd_to_level(&hex("01 5A")).is_err());
    assert_eq!(civ::bcd_byte(45).unwrap(), 0x45);
    assert_eq!(civ::from_bcd_byte(0x21).unwrap(), 21);
    assert!(civ::from_bcd_byte(0x1F).is_err());
}

#[test]
fn mode_table_is_bcd() {
    assert_eq!(civ::Mode::Psk.code(), 0x12);
    assert_eq!(civ::Mode::Dv.code(), 0x17);
    assert_eq!(civ::Mode::Dd.code(), 0x22);
    assert_eq!(
        civ::Mode::from_code(0x07).map(civ::Mode::name),
        Some("CW-R")
    );
    assert_eq!(civ::Mode::from_code(0x18), None);
}

#[test]
fn civ_frames_split_and_cmd29() {
    let mut payload = Frame::new(0xE0, 0x98, 0x03, &civ::freq_to_bcd(14_074_000).unwrap()).emit();
    payload.extend(Frame::new(0x00, 0x98, 0x01, &[0x01, 0x02]).emit());
    let frames: Vec<_> = civ::split_frames(&payload)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[1].to, 0x00);
    // power-on preamble padding over serial is skipped
    let mut padded = vec![0xFE; 150];
    padded.extend(hex("FE FE 98 E0 18 01 FD"));
    let f = Frame::parse(&padded).unwrap();
    assert_eq!(
        (f.to, f.from, f.cmd, f.data.as_slice()),
        (0x98, 0xE0, 0x18, &[1u8][..])
    );
    // cmd29: read SUB ATT `29 01 11` and its wrapped reply
    let req = Frame::new(0x98, 0xE0, 0x11, &[]).wrap_receiver(civ::Receiver::Sub);
    assert_eq!(req.emit(), hex("FE FE 98 E0 29 01 11 FD"));
    let reply = Frame::parse(&hex("FE FE E0 98 29 01 11 06 FD")).unwrap();
    let (rx, inner) = reply.unwrap_receiver().unwrap();
    assert_eq!(
        (rx, inner.cmd, inner.data.as_slice()),
        (civ::Receiver::Sub, 0x11, &[0x06u8][..])
    );
    // too short, unterminated
    assert!(Frame::parse(&hex("FE FE 98 FD")).is_err());
    assert!(Frame::parse(&hex("FE FE 98 E0 03")).is_err());
}
