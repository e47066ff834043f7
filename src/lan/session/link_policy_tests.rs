//! The link policy in virtual time.

use super::*;

const TIMING: PolicyTiming = PolicyTiming {
    link_timeout: Duration::from_secs(5),
    backoff_min: Duration::from_secs(1),
    backoff_max: Duration::from_secs(30),
    streams_retry: Duration::from_secs(1),
};

fn actions(p: &mut LinkPolicy) -> Vec<Action> {
    std::iter::from_fn(|| p.poll_action()).collect()
}

fn granted() -> Input {
    Input::StreamsGranted {
        civ_port: 50002,
        audio_port: 50003,
    }
}

fn failed(permanent: bool) -> Input {
    Input::SessionFailed {
        message: "no".into(),
        permanent,
    }
}

/// A policy whose link is up and ready at `t0`.
fn ready(t0: Instant) -> LinkPolicy {
    let mut p = LinkPolicy::new(TIMING);
    p.handle(Input::Connect, t0);
    p.handle(granted(), t0);
    p.handle(Input::Port(PortReport::CivOpened), t0);
    actions(&mut p);
    p
}

#[test]
fn a_connect_opens_a_session_then_civ_and_the_link_is_ready() {
    let t0 = Instant::now();
    let mut p = LinkPolicy::new(TIMING);
    assert_eq!(p.poll_timeout(t0), None, "idle: nothing to wait for");
    p.handle(Input::Connect, t0);
    assert_eq!(
        actions(&mut p),
        [Action::StartSession, Action::State(LinkState::Connecting)]
    );
    p.handle(granted(), t0);
    assert_eq!(
        actions(&mut p),
        [Action::State(LinkState::Connected), Action::OpenCiv(50002)]
    );
    p.handle(Input::Port(PortReport::CivOpened), t0);
    assert_eq!(
        actions(&mut p),
        [Action::Connected, Action::State(LinkState::Ready)]
    );
    // a second connect while up changes nothing
    p.handle(Input::Connect, t0);
    assert_eq!(actions(&mut p), []);
}

#[test]
fn a_silent_radio_is_standby_and_its_first_data_a_recovery() {
    let t0 = Instant::now();
    let mut p = LinkPolicy::new(TIMING);
    p.handle(Input::Connect, t0);
    p.handle(granted(), t0);
    actions(&mut p);
    p.handle(Input::Port(PortReport::CivSilent), t0);
    assert_eq!(
        actions(&mut p),
        [
            Action::Connected,
            Action::Emit(LinkEvent::Standby),
            Action::State(LinkState::Ready)
        ]
    );
    p.handle(Input::Port(PortReport::CivOpened), t0);
    assert_eq!(actions(&mut p), [Action::Emit(LinkEvent::CivRecovered)]);
}

#[test]
fn silence_past_the_link_timeout_loses_the_link_and_backs_off() {
    let t0 = Instant::now();
    let mut p = ready(t0);
    let heard = t0 + Duration::from_secs(2);
    assert_eq!(p.poll_timeout(heard), Some(heard + TIMING.link_timeout));
    p.handle_timeout(heard + Duration::from_millis(4999), heard);
    assert_eq!(actions(&mut p), [], "not yet");
    let t = heard + TIMING.link_timeout;
    p.handle_timeout(t, heard);
    let a = actions(&mut p);
    assert!(
        matches!(&a[0], Action::Emit(LinkEvent::Failed { permanent: false, message }) if message.contains("5.0 s")),
        "{a:?}"
    );
    assert_eq!(
        a[1..],
        [
            Action::Teardown { audio: false },
            Action::State(LinkState::Reconnecting {
                attempt: 1,
                retry_in: Duration::from_secs(1)
            })
        ]
    );
    assert_eq!(p.poll_timeout(heard), Some(t + Duration::from_secs(1)));
    p.handle_timeout(t + Duration::from_secs(1), heard);
    assert_eq!(
        actions(&mut p),
        [Action::StartSession, Action::State(LinkState::Connecting)]
    );
}

#[test]
fn an_old_civ_datagram_does_not_lose_a_link_just_granted() {
    let t0 = Instant::now();
    let long_ago = t0;
    let up = t0 + Duration::from_secs(60);
    let mut p = LinkPolicy::new(TIMING);
    p.handle(Input::Connect, up);
    p.handle(granted(), up);
    actions(&mut p);
    assert_eq!(p.poll_timeout(long_ago), Some(up + TIMING.link_timeout));
    p.handle_timeout(up + Duration::from_secs(1), long_ago);
    assert_eq!(actions(&mut p), []);
}

#[test]
fn back_off_doubles_per_failure_up_to_its_ceiling_and_a_ready_link_resets_it() {
    let mut now = Instant::now();
    let mut p = LinkPolicy::new(TIMING);
    p.handle(Input::Connect, now);
    actions(&mut p);
    let mut delays = Vec::new();
    for _ in 0..7 {
        p.handle(failed(false), now);
        let a = actions(&mut p);
        let Some(Action::State(LinkState::Reconnecting { retry_in, .. })) = a.last() else {
            panic!("{a:?}");
        };
        delays.push(retry_in.as_secs());
        now += *retry_in;
        assert_eq!(p.poll_timeout(now), Some(now));
        p.handle_timeout(now, now);
        assert_eq!(actions(&mut p)[0], Action::StartSession);
    }
    assert_eq!(delays, [1, 2, 4, 8, 16, 30, 30]);
    p.handle(granted(), now);
    p.handle(Input::Port(PortReport::CivOpened), now);
    p.handle(failed(false), now);
    let a = actions(&mut p);
    assert_eq!(
        a.last(),
        Some(&Action::State(LinkState::Reconnecting {
            attempt: 1,
            retry_in: Duration::from_secs(1)
        }))
    );
}

#[test]
fn a_permanent_failure_gives_up_until_asked_to_connect_again() {
    let t0 = Instant::now();
    let mut p = LinkPolicy::new(TIMING);
    p.handle(Input::Connect, t0);
    actions(&mut p);
    p.handle(failed(true), t0);
    assert_eq!(
        actions(&mut p),
        [
            Action::Emit(LinkEvent::Failed {
                message: "no".into(),
                permanent: true
            }),
            Action::Teardown { audio: false },
            Action::State(LinkState::Failed)
        ]
    );
    assert_eq!(p.poll_timeout(t0), None, "no retry");
    p.handle_timeout(t0 + Duration::from_secs(3600), t0);
    assert_eq!(actions(&mut p), []);
    p.handle(Input::Connect, t0);
    assert_eq!(actions(&mut p)[0], Action::StartSession);
}

#[test]
fn audio_opens_while_up_and_closes_with_the_streams() {
    let t0 = Instant::now();
    let mut p = LinkPolicy::new(TIMING);
    p.handle(Input::Audio(true), t0);
    assert_eq!(actions(&mut p), [], "nothing to open before the streams");
    p.handle(Input::Connect, t0);
    p.handle(granted(), t0);
    assert_eq!(
        actions(&mut p)[2..],
        [
            Action::State(LinkState::Connected),
            Action::OpenCiv(50002),
            Action::OpenAudio(50003)
        ]
    );
    p.handle(Input::Audio(true), t0);
    assert_eq!(actions(&mut p), [], "open already");
    p.handle(Input::StreamsClosed, t0);
    assert_eq!(actions(&mut p), [Action::CloseCiv, Action::CloseAudio]);
    let retry = t0 + TIMING.streams_retry;
    assert_eq!(p.poll_timeout(t0), Some(retry));
    p.handle_timeout(retry, t0);
    assert_eq!(actions(&mut p), [Action::RequestStreams]);
    p.handle(granted(), retry);
    assert_eq!(
        actions(&mut p),
        [Action::OpenCiv(50002), Action::OpenAudio(50003)]
    );
    p.handle(Input::Audio(false), retry);
    assert_eq!(actions(&mut p), [Action::CloseAudio]);
    p.handle(Input::Audio(true), retry);
    p.handle(Input::Port(PortReport::AudioLost), retry);
    p.handle(Input::Disconnect, retry);
    assert_eq!(
        actions(&mut p),
        [
            Action::OpenAudio(50003),
            Action::Teardown { audio: false },
            Action::State(LinkState::Idle)
        ],
        "audio the radio dropped is not closed again"
    );
}

#[test]
fn reports_that_do_not_fit_the_phase_change_nothing() {
    let t0 = Instant::now();
    let mut p = LinkPolicy::new(TIMING);
    for r in [
        PortReport::CivOpened,
        PortReport::CivSilent,
        PortReport::CivLost,
        PortReport::Malformed(3),
    ] {
        p.handle(Input::Port(r), t0);
    }
    assert_eq!(actions(&mut p), []);
    let mut p = ready(t0);
    p.handle(Input::Port(PortReport::CivLost), t0);
    let a = actions(&mut p);
    assert!(
        matches!(&a[0], Action::Emit(LinkEvent::Failed { message, .. }) if message.contains("CI-V")),
        "{a:?}"
    );
}
