//! The session in virtual time: no sockets, no sleeps.

use super::*;

const CALL: &str = "N0CALL";

fn cfg(password: Option<&str>) -> SessionConfig {
    SessionConfig::new(CALL, password.map(|p| Secret(p.to_string())))
}

/// A session, connected at `t0`.
fn connected(password: Option<&str>) -> (Session, Instant) {
    let t0 = Instant::now();
    let mut s = Session::new(cfg(password), t0);
    assert_eq!(s.poll_action(t0), Some(Action::Connect));
    s.on_connected(t0);
    (s, t0)
}

fn writes(s: &mut Session, now: Instant) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while let Some(a) = s.poll_action(now) {
        match a {
            Action::Write(b) => out.push(b),
            other => panic!("unexpected {other:?}"),
        }
    }
    out
}

fn spots(s: &mut Session) -> Vec<SpotLine> {
    std::iter::from_fn(|| s.poll_event())
        .filter_map(|e| match e {
            Event::Spot(x) => Some(x),
            _ => None,
        })
        .collect()
}

#[test]
fn nothing_is_written_before_the_dxspider_prompt_without_newline() {
    let (mut s, t0) = connected(None);
    s.on_data(b"Hello, this is GB7DJK running DXSpider\r\n", t0);
    assert!(writes(&mut s, t0).is_empty(), "a banner is not a prompt");
    s.on_data(b"log", t0);
    assert!(
        writes(&mut s, t0).is_empty(),
        "half a prompt is not a prompt"
    );
    s.on_data(b"in: ", t0 + Duration::from_millis(10));
    assert_eq!(writes(&mut s, t0), vec![b"N0CALL\r\n".to_vec()]);
    assert!(s.logged_in());
    assert_eq!(s.poll_event(), Some(Event::LoggedIn));
}

#[test]
fn ar_and_cc_banners_that_end_in_enter_your_call_are_answered() {
    for banner in [
        &b"AR-Cluster node K1TTT\r\nPlease enter your call: "[..],
        b"Welcome to the RBN telnet server\r\nPlease enter your call:\r\n",
        b"CC-Cluster\r\nEnter your call sign\r\n",
    ] {
        let (mut s, t0) = connected(None);
        s.on_data(banner, t0);
        assert_eq!(
            writes(&mut s, t0),
            vec![b"N0CALL\r\n".to_vec()],
            "{banner:?}"
        );
    }
}

#[test]
fn a_node_that_never_prompts_gets_the_call_once_after_ten_seconds() {
    let (mut s, t0) = connected(None);
    s.on_data(b"Welcome\r\n", t0);
    assert_eq!(s.poll_timeout(), Some(t0 + Duration::from_secs(10)));
    assert!(writes(&mut s, t0 + Duration::from_secs(9)).is_empty());
    let t10 = t0 + Duration::from_secs(10);
    assert_eq!(writes(&mut s, t10), vec![b"N0CALL\r\n".to_vec()]);
    // a later prompt is not answered again
    s.on_data(b"login: ", t10 + Duration::from_secs(1));
    assert!(writes(&mut s, t10 + Duration::from_secs(1)).is_empty());
}

#[test]
fn the_password_prompt_is_answered_only_when_a_password_is_given_and_only_once() {
    let (mut s, t0) = connected(Some("s3cret"));
    s.on_data(b"login: ", t0);
    assert_eq!(writes(&mut s, t0).len(), 1);
    s.on_data(b"password: ", t0 + Duration::from_secs(1));
    assert_eq!(writes(&mut s, t0), vec![b"s3cret\r\n".to_vec()]);
    s.on_data(b"password: ", t0 + Duration::from_secs(2));
    assert!(writes(&mut s, t0).is_empty(), "never twice");
    // a talk line much later that ends in "password:" gets nothing
    let (mut s, t0) = connected(Some("s3cret"));
    s.on_data(b"login: ", t0);
    writes(&mut s, t0);
    let later = t0 + Duration::from_secs(120);
    s.on_data(b"To N0CALL de G4XYZ: what is the password:\r\n", later);
    assert!(writes(&mut s, later).is_empty());
}

#[test]
fn a_password_prompt_without_a_password_closes_with_an_error_and_backs_off() {
    let (mut s, t0) = connected(None);
    s.on_data(b"login: ", t0);
    writes(&mut s, t0);
    s.on_data(b"password: ", t0);
    assert_eq!(s.poll_action(t0), Some(Action::Close));
    s.on_closed(t0, "closed by us");
    assert!(
        s.error().unwrap().contains("--dx-cluster-password-file"),
        "{:?}",
        s.error()
    );
    assert!(!s.connected());
    assert_eq!(s.poll_action(t0), None, "not at once");
    assert_eq!(s.poll_timeout(), Some(t0 + Duration::from_secs(1)));
}

#[test]
fn spots_flow_after_login_and_other_lines_are_ignored() {
    let (mut s, t0) = connected(None);
    s.on_data(b"login: ", t0);
    writes(&mut s, t0);
    s.on_data(
        b"N0CALL de GB7DJK 21-Mar-2024 1530Z dxspider >\r\n\
          WWV de W0MU <18>:   SFI=123, A=5, K=1\r\n\
          DX de K1ABC:     14025.0  JA1XYZ       CW 599                         1234Z\r\n\
          \x07\x07garbage \xff\xfe\r\n\
          DX de JI1HFJ-#:1294068.2  JA1ABC       CW    20 dB  22 WPM  CQ      2359Z\r\n",
        t0,
    );
    let events: Vec<Event> = std::iter::from_fn(|| s.poll_event()).collect();
    assert!(events.contains(&Event::Node("GB7DJK".into())), "{events:?}");
    let got: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            Event::Spot(x) => Some(x.freq_hz),
            _ => None,
        })
        .collect();
    assert_eq!(got, vec![14_025_000, 1_294_068_200]);
}

#[test]
fn spot_lines_before_login_are_not_taken() {
    let (mut s, t0) = connected(None);
    s.on_data(b"DX de K1ABC: 14025.0 JA1XYZ x 1234Z\r\n", t0);
    assert!(spots(&mut s).is_empty());
}

#[test]
fn heartbeats_go_out_after_sixty_seconds_of_silence_and_a_dead_node_is_closed() {
    let (mut s, t0) = connected(None);
    s.on_data(b"login: ", t0);
    writes(&mut s, t0);
    let t = |secs| t0 + Duration::from_secs(secs);
    assert_eq!(s.poll_timeout(), Some(t(60)));
    assert!(writes(&mut s, t(59)).is_empty());
    assert_eq!(writes(&mut s, t(60)), vec![b"\r\n".to_vec()]);
    assert_eq!(s.poll_timeout(), Some(t(120)), "the next beat");
    // the node answers: the clock restarts from its bytes
    s.on_data(b"N0CALL de GB7DJK >\r\n", t(61));
    assert!(writes(&mut s, t(120)).is_empty());
    assert_eq!(writes(&mut s, t(121)), vec![b"\r\n".to_vec()]);
    // silence for five minutes: given up
    let mut now = t(121);
    let mut closed = false;
    while now <= t(61 + 300) {
        now += Duration::from_secs(30);
        while let Some(a) = s.poll_action(now) {
            closed |= a == Action::Close;
        }
    }
    assert!(closed);
    s.on_closed(now, "closed by us");
    assert!(
        s.error().unwrap().contains("nothing from the node"),
        "{:?}",
        s.error()
    );
}

#[test]
fn reconnects_back_off_from_one_second_to_five_minutes_and_reset_after_a_stable_session() {
    let t0 = Instant::now();
    let mut s = Session::new(cfg(None), t0);
    let mut now = t0;
    let mut delays = Vec::new();
    for _ in 0..12 {
        assert_eq!(s.poll_action(now), Some(Action::Connect));
        s.on_connect_failed(now, "refused");
        let next = s.poll_timeout().unwrap();
        delays.push((next - now).as_secs());
        assert_eq!(s.poll_action(next - Duration::from_millis(1)), None);
        now = next;
    }
    assert_eq!(
        delays,
        vec![1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]
    );
    // a session that stays up a minute starts the backoff again from 1 s
    assert_eq!(s.poll_action(now), Some(Action::Connect));
    s.on_connected(now);
    s.on_data(b"login: ", now);
    writes(&mut s, now);
    let later = now + Duration::from_secs(61);
    s.on_data(b"x\r\n", later);
    s.on_closed(later, "reset by peer");
    assert_eq!(s.poll_timeout(), Some(later + Duration::from_secs(1)));
    assert_eq!(s.error(), Some("reset by peer"));
    // a session dropped at once does not
    assert_eq!(
        s.poll_action(later + Duration::from_secs(1)),
        Some(Action::Connect)
    );
    s.on_connected(later);
    s.on_closed(later, "dropped");
    assert_eq!(s.poll_timeout(), Some(later + Duration::from_secs(2)));
}

#[test]
fn a_line_of_100_kib_is_dropped_and_the_session_goes_on() {
    let (mut s, t0) = connected(None);
    s.on_data(b"login: ", t0);
    writes(&mut s, t0);
    let mut big = b"DX de K1ABC: 14025.0 JA1XYZ ".to_vec();
    big.extend(std::iter::repeat_n(b'x', 100 * 1024));
    big.extend_from_slice(b" 1234Z\r\nDX de K1ABC: 7025.0 JA1XYZ ok 1234Z\r\n");
    for chunk in big.chunks(1500) {
        s.on_data(chunk, t0);
    }
    let got: Vec<u64> = spots(&mut s).iter().map(|x| x.freq_hz).collect();
    assert_eq!(got, vec![7_025_000]);
    assert_eq!(s.dropped_lines(), 1);
}

#[test]
fn bytes_after_close_or_before_connect_are_ignored() {
    let t0 = Instant::now();
    let mut s = Session::new(cfg(None), t0);
    s.on_data(b"login: ", t0);
    assert_eq!(s.poll_action(t0), Some(Action::Connect));
    s.on_connected(t0);
    s.on_closed(t0, "gone");
    s.on_data(b"login: ", t0);
    assert_eq!(s.poll_action(t0), None);
}
