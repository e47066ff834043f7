//! The binary frames of the stream channels against byte strings written by hand from
//! the tables of interface.md §2.5 (not from the project's own emitters): a scope frame
//! header, a meter frame and audio frame headers, with every client's first `sequence`
//! set to 0x1234 so that its little-endian bytes show.

#[macro_use]
mod common;

use std::time::Duration;

use common::audio::*;
use common::web::*;
use rigweb::app::{Running, Tuning};
use rigweb::web::context::WebConfig;
use serde_json::json;

fn server(model: &str) -> Running {
    let tuning = Tuning {
        web: Some(WebConfig {
            first_sequence: 0x1234,
            ..WebConfig::default()
        }),
        ..Tuning::default()
    };
    start_server(serve_config(model, None), tuning)
}

#[test]
fn scope_frame_bytes() {
    let srv = server("ic7610");
    let a = srv.addr();
    let mut ctl = Ws::control(a);
    assert_eq!(
        ctl.cmd("f", "set_freq", json!({"freq": 14_100_000}))["ok"],
        true
    );
    let mut w = Ws::connect(a, "/api/v1/scope", &[]).unwrap();
    let frames = w.binaries_for(Duration::from_millis(1_500));
    assert!(frames.len() >= 2, "{}", frames.len());
    // the IC-7610's default centre span of ±25 kHz around 14.1 MHz, 689 pixels
    #[rustfmt::skip]
    let header: [u8; 16] = [
        0x01,                   // msg_type scope_frame
        0x00,                   // receiver Main
        0x00,                   // mode center
        0x78, 0xC4, 0xD6, 0x00, // start_freq 14 075 000 Hz (0x00D6C478)
        0xC8, 0x87, 0xD7, 0x00, // end_freq 14 125 000 Hz (0x00D787C8)
        0x34, 0x12,             // sequence 0x1234
        0x00,                   // flags: in range
        0xB1, 0x02,             // pixel_count 689 (0x02B1)
    ];
    assert_eq!(frames[0][..16], header);
    assert_eq!(frames[0].len(), 16 + 689);
    assert_eq!(frames[1][11..13], [0x35, 0x12], "the next sequence");
    assert!(frames[0][16..].iter().all(|p| *p <= 160));
    srv.shutdown();
}

#[test]
fn meter_frame_bytes() {
    let srv = server("ic7610");
    let mut w = Ws::connect(srv.addr(), "/api/v1/meters", &[]).unwrap();
    w.send(&json!({"type": "meters_start", "meters": ["smeter", "smeter_sub"], "fps": 20}));
    let frames = w.binaries_for(Duration::from_millis(600));
    assert!(frames.len() >= 2, "{}", frames.len());
    let f = &frames[0];
    #[rustfmt::skip]
    let expect = [
        0x20,       // msg_type meter_frame
        0x34, 0x12, // sequence 0x1234
        0x02,       // count
        0x01,       // S-meter (Main), value_lo, value_hi (0..255: hi 0)
        f[5], 0x00,
        0x02,       // S-meter (Sub)
        f[8], 0x00,
    ];
    assert_eq!(*f, expect);
    assert_eq!(frames[1][..4], [0x20, 0x35, 0x12, 0x02]);
    srv.shutdown();
}

#[test]
fn audio_frame_headers() {
    let srv = server("ic7610");
    let a = srv.addr();
    let mut opus = Ws::connect(a, "/api/v1/audio", &[]).unwrap();
    let mut pcm = Ws::connect(a, "/api/v1/audio", &[]).unwrap();
    audio_start(
        &mut opus,
        json!({"type": "audio_start", "direction": "rx", "codec": "opus", "channels": 1}),
    );
    audio_start(
        &mut pcm,
        json!({"type": "audio_start", "direction": "rx", "codec": "pcm16", "channels": 2}),
    );
    let o = opus.binaries_for(Duration::from_millis(1_000));
    let p = pcm.binaries_for(Duration::from_millis(200));
    assert!(o.len() >= 2 && p.len() >= 2, "{} {}", o.len(), p.len());
    #[rustfmt::skip]
    let opus_header = [
        0x10,       // msg_type audio_rx
        0x01,       // codec Opus
        0x34, 0x12, // sequence 0x1234
        0xE0, 0x01, // sample_rate 48000 / 100 = 480 (0x01E0)
        0x01,       // channels mono
        0x14,       // frame_ms 20
    ];
    assert_eq!(o[0][..8], opus_header);
    assert!(o[0].len() > 8, "an Opus packet follows");
    assert_eq!(o[1][2..4], [0x35, 0x12]);
    #[rustfmt::skip]
    let pcm_header = [0x10, 0x02, 0x34, 0x12, 0xE0, 0x01, 0x02, 0x14];
    assert_eq!(p[0][..8], pcm_header);
    assert_eq!(p[0].len(), 8 + 960 * 2 * 2, "20 ms of 48 kHz stereo i16");
    srv.shutdown();
}

both_ways!(latency_figures_count_the_frames_written);
fn latency_figures_count_the_frames_written() {
    // the figures run from the datagram's arrival to the frame written to the socket,
    // whichever thread wrote it (the producer on a plain socket, the client's own on
    // TLS): every frame a client got was counted
    let srv = start_server(serve_config("ic7610", None), Tuning::default());
    let a = srv.addr();
    let mut scope = Ws::connect(a, "/api/v1/scope", &[]).unwrap();
    let mut opus = Ws::connect(a, "/api/v1/audio", &[]).unwrap();
    audio_start(
        &mut opus,
        json!({"type": "audio_start", "direction": "rx", "codec": "opus"}),
    );
    let dur = Duration::from_millis(1_500);
    let (s, o) = std::thread::scope(|sc| {
        let h = sc.spawn(|| opus.binaries_for(dur));
        let s = scope.binaries_for(dur);
        (s, h.join().unwrap())
    });
    assert!(s.len() > 20 && o.len() > 30, "{} {}", s.len(), o.len());
    let stats = &srv.app.stream_stats;
    // a frame is counted just after its write returns, so the reader may be a frame ahead
    // for a moment
    common::wait_for(Duration::from_secs(2), || {
        stats.scope.count() >= s.len() as u64 && stats.audio.count() >= o.len() as u64
    });
    let (sc, ac) = (stats.scope.count(), stats.audio.count());
    assert!(
        sc >= s.len() as u64,
        "scope: {sc} counted, {} received",
        s.len()
    );
    assert!(
        ac >= o.len() as u64,
        "audio: {ac} counted, {} received",
        o.len()
    );
    assert!(stats.scope.percentile(50.0).is_some());
    srv.shutdown();
}
