//! The DX feeds against cluster nodes on 127.0.0.1 playing transcripts of the three
//! dialects and the RBN, with the faults of real nodes.

use std::sync::Arc;
use std::time::Duration;

use rigweb::station::dx::buffer::{SpotQuery, SpotSource};
use rigweb::station::dx::session::SessionConfig;
use rigweb::station::dx::{DxConfig, DxService, FeedConfig};
use rigweb::wire::civ::Mode;

use super::cluster::{Conn, Node, Script, dialect};
use crate::common::wait_for;

const CALL: &str = "N0CALL";

fn config(feeds: &[(&Node, SpotSource)], tweak: impl Fn(&mut SessionConfig)) -> DxConfig {
    let mut session = SessionConfig::new(CALL, None);
    session.backoff_min = Duration::from_millis(300);
    tweak(&mut session);
    DxConfig {
        feeds: feeds
            .iter()
            .map(|(n, source)| FeedConfig {
                address: n.addr().to_string(),
                source: *source,
            })
            .collect(),
        session,
        connect_timeout: Duration::from_secs(2),
    }
}

fn start(cfg: DxConfig) -> DxService {
    DxService::start(cfg, Arc::new(|_| Some(Mode::Usb))).unwrap()
}

fn all_spots(dx: &DxService) -> Vec<Arc<rigweb::station::dx::buffer::Spot>> {
    dx.spots(&SpotQuery::default())
}

fn until(what: &str, cond: impl FnMut() -> bool) {
    assert!(wait_for(Duration::from_secs(15), cond), "never: {what}");
}

/// Waits for the call, then sends `after`; a prompt must come before anything is read.
fn login(c: &mut Conn, banner: &[u8], greeting: &[u8]) -> bool {
    if !c.send(banner) {
        return false;
    }
    match c.line(Duration::from_secs(10)) {
        Some(call) if call == CALL => c.send(greeting),
        _ => false,
    }
}

fn script(f: impl Fn(&mut Conn) + Send + Sync + 'static) -> Script {
    Arc::new(f)
}

#[test]
fn dxspider_gets_the_call_at_its_prompt_and_only_spots_are_filed() {
    let node = Node::start(script(|c| {
        if !login(
            c,
            dialect::DXSPIDER_BANNER,
            &dialect::dxspider_greeting(CALL),
        ) {
            return;
        }
        let mut transcript: Vec<u8> = Vec::new();
        transcript.extend_from_slice(
            b"DX de K1ABC:     14025.0  JA1XYZ       CW 599 up 2                    1234Z\r\n",
        );
        transcript.extend_from_slice(
            b"WWV de W0MU <18>:   SFI=123, A=5, K=1, No Storms -> No Storms\r\n",
        );
        transcript.extend_from_slice(
            b"WCY de DK0WCY-1 <12> : K=2 expK=0 A=7 R=45 SFI=131 SA=qui GMF=qui Au=no\r\n",
        );
        transcript.extend_from_slice(b"To ALL de G4ABC: anyone for a sked on 6m?\r\n");
        transcript.extend_from_slice(b"To N0CALL de G4ABC: hello there\r\n");
        transcript.extend_from_slice(b"\x07\x07\xff\xfe\x00 garbage ;;; DX de\r\n");
        transcript.extend_from_slice(b"DX de ");
        transcript.extend(std::iter::repeat_n(b'x', 100 * 1024));
        transcript.extend_from_slice(b" 1200Z\r\n");
        transcript.extend_from_slice(b"DX de DL8LAS-    14025.0  DL1ABC       gr\xfc\xdfe aus K\xf6ln            0912Z JO62\r\n");
        transcript.extend_from_slice(b"N0CALL de GB7TST 21-Mar-2024 1531Z dxspider >\r\n");
        for chunk in transcript.chunks(1000) {
            if !c.send(chunk) {
                return;
            }
        }
        c.hold(Duration::from_secs(20));
    }));
    let dx = start(config(&[(&node, SpotSource::Cluster)], |_| {}));
    until("two spots", || all_spots(&dx).len() == 2);
    let spots = all_spots(&dx);
    assert_eq!(spots[0].line.call, "DL1ABC", "newest first");
    assert_eq!(spots[0].line.comment, "grüße aus Köln");
    assert_eq!(spots[0].line.spotter, "DL8LAS-");
    assert_eq!(spots[1].line.freq_hz, 14_025_000);
    assert_eq!(spots[1].mode, Some(Mode::Cw), "the comment says CW");
    assert_eq!(spots[0].mode, Some(Mode::Usb), "else the band plan's hint");
    until("the status", || dx.feeds()[0].dropped_lines == 1);
    let f = &dx.feeds()[0];
    assert!(f.connected, "{f:?}");
    assert_eq!(f.node.as_deref(), Some("GB7TST"));
    assert_eq!(f.source, SpotSource::Cluster);
    let heard = node.heard();
    assert_eq!(heard.text(0), "N0CALL\r\n", "the call and nothing else");
    dx.stop();
}

#[test]
fn ar_cluster_and_cc_cluster_banners_get_the_call_and_their_spots_are_read() {
    let ar = Node::start(script(|c| {
        if login(
            c,
            dialect::AR_BANNER,
            b"Hello Joe.\r\nN0CALL de K1TST 21-Mar-2024 1530Z >\r\n",
        ) {
            c.send(b"DX de W3LPL:      3525.0  K5ZD         loud in MD                     2101Z MD\r\n");
            c.hold(Duration::from_secs(20));
        }
    }));
    let cc = Node::start(script(|c| {
        if login(c, dialect::CC_BANNER, b"Hello N0CALL\r\n") {
            c.send(b"CC11^14025.0^JA1XYZ^21-Mar-2024^1234Z^CW 599^K1ABC^5^^K^^^\r\n");
            c.send(
                b"DX de VE7CC:     7010.0  VK9XX        cq                             0500Z\r\n",
            );
            c.hold(Duration::from_secs(20));
        }
    }));
    let dx = start(config(
        &[(&ar, SpotSource::Cluster), (&cc, SpotSource::Cluster)],
        |_| {},
    ));
    until("a spot from each", || all_spots(&dx).len() == 2);
    let calls: Vec<String> = all_spots(&dx).iter().map(|s| s.line.call.clone()).collect();
    assert!(
        calls.contains(&"K5ZD".to_string()) && calls.contains(&"VK9XX".to_string()),
        "{calls:?}"
    );
    let k5zd = all_spots(&dx)
        .into_iter()
        .find(|s| s.line.call == "K5ZD")
        .unwrap();
    assert_eq!(
        (k5zd.line.comment.as_str(), k5zd.line.time_utc.as_str()),
        ("loud in MD", "2101Z")
    );
    assert_eq!(ar.heard().text(0), "N0CALL\r\n");
    assert_eq!(cc.heard().text(0), "N0CALL\r\n");
    dx.stop();
}

#[test]
fn rbn_spots_are_marked_as_such_and_merge_with_cluster_duplicates() {
    let rbn = Node::start(script(|c| {
        if login(
            c,
            dialect::RBN_BANNER,
            b"\r\nHello N0CALL, this is the RBN\r\n",
        ) {
            c.send(
                b"DX de JI1HFJ-#:1294068.2  JA1ABC       CW    20 dB  22 WPM  CQ      2359Z\r\n",
            );
            std::thread::sleep(Duration::from_millis(800));
            c.send(b"DX de W3LPL-2-#:  7018.20  K5ZD  CW 12 dB 28 WPM CQ 0001Z\r\n");
            c.hold(Duration::from_secs(20));
        }
    }));
    let cluster = Node::start(script(|c| {
        if login(
            c,
            dialect::DXSPIDER_BANNER,
            &dialect::dxspider_greeting(CALL),
        ) {
            c.send(
                b"DX de K1ABC:      7015.0  K5ZD         cw                             0000Z\r\n",
            );
            c.hold(Duration::from_secs(20));
        }
    }));
    let dx = start(config(
        &[(&rbn, SpotSource::Rbn), (&cluster, SpotSource::Cluster)],
        |_| {},
    ));
    until("the RBN's second spot", || {
        all_spots(&dx).iter().any(|s| s.line.spotter == "W3LPL-2-#")
    });
    let spots = all_spots(&dx);
    let k5zd: Vec<_> = spots.iter().filter(|s| s.line.call == "K5ZD").collect();
    assert_eq!(
        k5zd.len(),
        1,
        "one call on one band within 10 min is one spot: {spots:?}"
    );
    let ja = spots.iter().find(|s| s.line.call == "JA1ABC").unwrap();
    assert_eq!(
        (ja.source, ja.line.freq_hz),
        (SpotSource::Rbn, 1_294_068_200)
    );
    assert_eq!(ja.to_json()["source"], "rbn");
    assert_eq!(ja.band(), Some("23cm"));
    dx.stop();
}

#[test]
fn a_node_that_never_prompts_gets_the_call_once_after_the_wait() {
    let node = Node::start(script(|c| {
        c.send(b"Welcome to a quiet node\r\n");
        if c.line(Duration::from_secs(10)).as_deref() == Some(CALL) {
            c.send(b"DX de K1ABC: 14025.0 JA1XYZ late but fine 1234Z\r\n");
        }
        c.hold(Duration::from_secs(20));
    }));
    let dx = start(config(&[(&node, SpotSource::Cluster)], |s| {
        s.prompt_timeout = Duration::from_millis(1500);
    }));
    until("the spot", || all_spots(&dx).len() == 1);
    std::thread::sleep(Duration::from_millis(500));
    let heard = node.heard();
    assert_eq!(heard.text(0), "N0CALL\r\n", "once");
    assert!(
        heard.first_at(0).unwrap() >= Duration::from_millis(1400),
        "{heard:?}"
    );
    dx.stop();
}

#[test]
fn a_node_that_closes_on_unasked_input_is_not_written_to_before_its_prompt() {
    let node = Node::start(script(|c| {
        c.send(b"CC-Cluster (strict)\r\n");
        // a slow banner: anything the client sends now ends the connection
        if c.hears_within(Duration::from_millis(1200)) {
            c.send(b"unasked input: bye\r\n");
            return;
        }
        if login(c, b"Please enter your call: ", b"Hello\r\n") {
            c.send(b"DX de K1ABC: 14025.0 JA1XYZ strict node 1234Z\r\n");
            c.hold(Duration::from_secs(20));
        }
    }));
    let dx = start(config(&[(&node, SpotSource::Cluster)], |_| {}));
    until("the spot", || all_spots(&dx).len() == 1);
    assert_eq!(node.accepted(), 1, "never dropped");
    assert!(node.heard().first_at(0).unwrap() >= Duration::from_millis(1200));
    dx.stop();
}

#[test]
fn a_node_that_drops_and_comes_back_is_reconnected_with_backoff() {
    let first = Node::start(script(|c| {
        if login(
            c,
            dialect::DXSPIDER_BANNER,
            &dialect::dxspider_greeting(CALL),
        ) {
            c.send(b"DX de K1ABC: 14025.0 JA1XYZ before 1234Z\r\n");
            std::thread::sleep(Duration::from_millis(200));
        }
    }));
    let addr = first.addr();
    let dx = start(config(&[(&first, SpotSource::Cluster)], |_| {}));
    until("the first spot", || all_spots(&dx).len() == 1);
    first.stop();
    until("the drop is seen", || !dx.feeds()[0].connected);
    std::thread::sleep(Duration::from_millis(1500));
    let err = dx.feeds()[0].error.clone().unwrap_or_default();
    assert!(err.contains("connect") || err.contains("closed"), "{err}");
    let back = Node::start_on(
        addr,
        script(|c| {
            if login(
                c,
                dialect::DXSPIDER_BANNER,
                &dialect::dxspider_greeting(CALL),
            ) {
                c.send(b"DX de K1ABC: 7025.0 JA1XYZ after 1235Z\r\n");
                c.hold(Duration::from_secs(20));
            }
        }),
    );
    until("the spot after the node came back", || {
        all_spots(&dx).len() == 2
    });
    assert!(dx.feeds()[0].connected);
    assert_eq!(back.heard().text(0), "N0CALL\r\n");
    dx.stop();
}

#[test]
fn an_idle_node_gets_a_heartbeat_and_a_password_prompt_the_password() {
    let node = Node::start(script(|c| {
        if login(c, dialect::DXSPIDER_BANNER, b"password: ") {
            let pw = c.line(Duration::from_secs(5));
            c.send(format!("got {pw:?}\r\nN0CALL de GB7TST >\r\n").as_bytes());
            c.hold(Duration::from_secs(20));
        }
    }));
    let dx = start(config(&[(&node, SpotSource::Cluster)], |s| {
        s.password = Some(rigweb::util::Secret("s3cret".into()));
        s.heartbeat_after = Duration::from_millis(800);
    }));
    until("a heartbeat", || {
        node.heard().text(0).ends_with("s3cret\r\n\r\n")
    });
    assert_eq!(node.heard().text(0), "N0CALL\r\ns3cret\r\n\r\n");
    dx.stop();
}

#[test]
fn stopping_ends_feeds_that_wait_on_a_silent_node_or_a_closed_port() {
    let silent = Node::start(script(|c| c.hold(Duration::from_secs(30))));
    let gone = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let gone_addr = gone.local_addr().unwrap();
    drop(gone);
    let mut cfg = config(&[(&silent, SpotSource::Cluster)], |_| {});
    cfg.feeds.push(FeedConfig {
        address: gone_addr.to_string(),
        source: SpotSource::Rbn,
    });
    let dx = start(cfg);
    until("connected to the silent node", || silent.accepted() == 1);
    until("the closed port is reported", || {
        dx.feeds()[1].error.is_some()
    });
    let t = std::time::Instant::now();
    dx.stop();
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let status = dx.status_json();
    assert_eq!(status["feeds"].as_array().unwrap().len(), 2);
}
