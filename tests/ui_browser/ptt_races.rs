//! PTT against the clock: a release at any point of keying (the microphone prompt, TX
//! audio starting) stops TX audio and lets the microphone go; TX audio that cannot reach
//! the server (its socket dropped, or refused with `ptt_required`) unkeys the radio; the
//! latched countdown runs to the server's own `--tx-timeout`.

use super::*;

/// Holds `getUserMedia` until the test lets it answer (`window.__gum`: the waiting calls;
/// `window.__streams`: every stream it gave), as a permission prompt the operator takes
/// time over would; the microphone's idle time is cut to 300 ms.
const SLOW_MIC_PROMPT: &str = r#"(() => {
  const md = navigator.mediaDevices;
  const real = md.getUserMedia.bind(md);
  window.__gum = [];
  window.__streams = [];
  window.__gate = true;
  md.getUserMedia = (c) => {
    const go = () => real(c).then((s) => { window.__streams.push(s); return s; });
    if (!window.__gate) return go();
    return new Promise((resolve, reject) => window.__gum.push(() => go().then(resolve, reject)));
  };
  window.rigweb.parts.audio.mic.idleMs = 300;
  return true;
})()"#;

/// Holds the server's `audio_started` of TX until `window.__deliver()`.
const SLOW_TX_START: &str = r#"(() => {
  const a = window.rigweb.parts.audio;
  const orig = a.onText.bind(a);
  window.__held = [];
  window.__deliver = () => { window.__held.splice(0).forEach((m) => orig(m)); return true; };
  a.onText = (m) => { if (m.type === 'audio_started' && m.direction === 'tx') window.__held.push(m); else orig(m); };
  a.mic.idleMs = 300;
  return true;
})()"#;

/// Whether the page sends no TX audio and its microphone is closed.
const MIC_CLOSED: &str = "window.rigweb.parts.audio.tx.active === false && window.rigweb.parts.audio.mic.stream === null && window.rigweb.parts.audio.mic.onPacket === null";

fn ptt_button(page: &Page) -> (f64, f64) {
    page.eval("document.getElementById('ptt').scrollIntoView({block: 'center'})");
    page.center_of("#ptt")
}

fn tx_samples(srv: &Running) -> u64 {
    srv.sim
        .as_ref()
        .unwrap()
        .snapshot()
        .unwrap()
        .tx_audio_samples
}

/// Keys with the button and waits until TX audio reaches the simulated radio.
fn key_with_audio(page: &Page, srv: &Running) -> (f64, f64) {
    let (x, y) = ptt_button(page);
    let before = tx_samples(srv);
    page.mouse("mousePressed", x, y);
    wait_state(srv.addr(), "PTT on", |s| s["ptt"] == true);
    assert!(
        common::wait_for(Duration::from_secs(10), || tx_samples(srv)
            > before + 24_000),
        "TX audio reached the radio"
    );
    (x, y)
}

/// No TX audio reaches the radio for a second.
fn assert_no_tx_audio(srv: &Running) {
    let at = tx_samples(srv);
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(tx_samples(srv), at, "TX audio after the release");
}

fn toasts(page: &Page) -> String {
    page.eval("document.getElementById('toasts').textContent")
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn releasing_ptt_during_the_microphone_prompt_stops_tx_audio_and_the_microphone() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1280, 900, "dark");
    page.eval(SLOW_MIC_PROMPT);
    let (x, y) = ptt_button(&page);
    let before = tx_samples(&srv);
    page.mouse("mousePressed", x, y);
    // the key lands while the browser still asks for the microphone
    wait_state(addr, "PTT on", |s| s["ptt"] == true);
    page.wait_for("window.__gum.length === 1", Duration::from_secs(5));
    page.mouse("mouseReleased", x, y);
    wait_state(addr, "PTT off", |s| s["ptt"] == false);
    // then the operator answers the prompt
    page.eval("window.__gum.splice(0).forEach((go) => go()); true");
    page.wait_for("window.__streams.length === 1", Duration::from_secs(5));
    page.wait_for(
        &format!(
            "{MIC_CLOSED} && window.__streams.every((s) => s.getTracks().every((t) => t.readyState === 'ended'))"
        ),
        Duration::from_secs(5),
    );
    assert_no_tx_audio(&srv);
    assert_eq!(tx_samples(&srv), before, "no TX audio at all");
    assert_eq!(state(addr)["ptt"], false);
    assert_eq!(page.eval("window.rigweb.ptt.phase"), "idle");
    // the next press works as usual
    page.eval("window.__gate = false");
    let (x, y) = key_with_audio(&page, &srv);
    page.mouse("mouseReleased", x, y);
    wait_state(addr, "PTT off again", |s| s["ptt"] == false);
    page.wait_for(MIC_CLOSED, Duration::from_secs(5));
    assert_no_tx_audio(&srv);
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn releasing_ptt_while_tx_audio_starts_stops_it_and_the_microphone() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1280, 900, "dark");
    page.eval(SLOW_TX_START);
    let (x, y) = ptt_button(&page);
    let before = tx_samples(&srv);
    page.mouse("mousePressed", x, y);
    wait_state(addr, "PTT on", |s| s["ptt"] == true);
    // the server's audio_started is on its way when the operator lets go
    page.wait_for("window.__held.length === 1", Duration::from_secs(10));
    page.mouse("mouseReleased", x, y);
    wait_state(addr, "PTT off", |s| s["ptt"] == false);
    page.eval("window.__deliver()");
    page.wait_for(MIC_CLOSED, Duration::from_secs(5));
    assert_no_tx_audio(&srv);
    assert_eq!(tx_samples(&srv), before, "no TX audio at all");
    assert_eq!(page.eval("window.rigweb.parts.audio.tx.confirmed"), false);
    srv.shutdown();
}

#[test]
fn losing_the_audio_socket_while_transmitting_unkeys_and_says_why() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1280, 900, "dark");
    let (x, y) = key_with_audio(&page, &srv);
    // only the audio socket drops; the control socket stays up
    page.eval("window.rigweb.parts.audio.channel.ws.close(); true");
    wait_state(addr, "PTT released", |s| s["ptt"] == false);
    page.wait_for("window.rigweb.ptt.phase === 'idle'", Duration::from_secs(5));
    assert_eq!(page.eval("window.rigweb.link"), "online");
    assert!(
        toasts(&page).contains("audio connection to the server dropped"),
        "{}",
        toasts(&page)
    );
    assert_no_tx_audio(&srv);
    page.mouse("mouseReleased", x, y);
    assert_eq!(state(addr)["ptt"], false);
    srv.shutdown();
}

#[test]
fn the_servers_ptt_required_on_the_audio_socket_unkeys_and_says_why() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1280, 900, "dark");
    let (x, y) = key_with_audio(&page, &srv);
    // what the server sends when it takes TX audio from a client without PTT
    page.eval("window.rigweb.parts.audio.onText({ type: 'error', error: 'ptt_required', message: 'TX audio needs a confirmed PTT' }); true");
    wait_state(addr, "PTT released", |s| s["ptt"] == false);
    page.wait_for(
        "window.rigweb.ptt.phase === 'idle' && window.rigweb.parts.audio.tx.active === false",
        Duration::from_secs(5),
    );
    assert!(
        toasts(&page).contains("refused TX audio"),
        "{}",
        toasts(&page)
    );
    assert_no_tx_audio(&srv);
    page.mouse("mouseReleased", x, y);
    srv.shutdown();
}

#[test]
fn the_latched_countdown_runs_to_the_servers_tx_timeout() {
    let _t = turn();
    let mut cfg = serve_config("ic7610", None);
    cfg.tx_timeout = Duration::from_secs(90);
    let srv = start_server(cfg, Tuning::default());
    let addr = srv.addr();
    let page = open(addr, 1280, 900, "dark");
    assert_eq!(page.eval("window.rigweb.ptt.txTimeoutS"), 90);
    let (x, y) = ptt_button(&page);
    page.mouse("mousePressed", x, y);
    wait_state(addr, "PTT on", |s| s["ptt"] == true);
    page.wait_for("window.rigweb.ptt.phase === 'live'", Duration::from_secs(5));
    // latched (a double tap on a touch screen): the countdown shows what is left of 90 s
    let sub = page.eval("(() => { const p = window.rigweb.parts.ptt; p.machine.latched = true; p.render(); return document.getElementById('ptt-sub').textContent; })()");
    let sub = sub.as_str().unwrap();
    assert!(
        sub.contains("1:30 left") || sub.contains("1:29 left") || sub.contains("1:28 left"),
        "{sub}"
    );
    page.mouse("mouseReleased", x, y);
    page.mouse("mousePressed", x, y);
    wait_state(addr, "PTT off after the tap", |s| s["ptt"] == false);
    page.mouse("mouseReleased", x, y);
    srv.shutdown();
}
