//! Transmitting: PTT from the button, Space and a double tap, release on every path, the
//! microphone encoded for TX audio.

use super::*;

#[test]
fn ptt_keys_the_simulator_and_releasing_unkeys() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1440, 900, "dark");
    page.eval("document.getElementById('ptt').scrollIntoView({block: 'center'})");
    let (x, y) = page.center_of("#ptt");
    page.mouse("mousePressed", x, y);
    wait_state(addr, "PTT on", |s| s["ptt"] == true);
    page.wait_for(
        "!document.getElementById('onair').hidden && document.body.classList.contains('tx')",
        Duration::from_secs(5),
    );
    // TX meters come alive while transmitting
    page.wait_for(
        "!document.querySelector('#tx-meters .mtr').classList.contains('idle')",
        Duration::from_secs(10),
    );
    std::thread::sleep(Duration::from_millis(600));
    page.screenshot("transmitting.png");
    page.mouse("mouseReleased", x, y);
    wait_state(addr, "PTT off", |s| s["ptt"] == false);
    page.wait_for(
        "document.getElementById('onair').hidden",
        Duration::from_secs(5),
    );
    // Space held keys, releasing it unkeys
    page.call("Input.dispatchKeyEvent", serde_json::json!({"type": "keyDown", "key": " ", "code": "Space", "windowsVirtualKeyCode": 32}));
    wait_state(addr, "PTT on from Space", |s| s["ptt"] == true);
    page.call("Input.dispatchKeyEvent", serde_json::json!({"type": "keyUp", "key": " ", "code": "Space", "windowsVirtualKeyCode": 32}));
    wait_state(addr, "PTT off after Space", |s| s["ptt"] == false);
    // a hidden tab never stays on the air
    page.mouse("mousePressed", x, y);
    wait_state(addr, "PTT on again", |s| s["ptt"] == true);
    page.eval("Object.defineProperty(document, 'hidden', {value: true, configurable: true}); document.dispatchEvent(new Event('visibilitychange'))");
    wait_state(addr, "PTT off when the tab hides", |s| s["ptt"] == false);
    page.mouse("mouseReleased", x, y);
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn ptt_sends_microphone_audio_to_the_simulator() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1280, 900, "dark");
    let sim = srv.sim.as_ref().unwrap();
    let before = sim.snapshot().unwrap().tx_audio_samples;
    page.eval("document.getElementById('ptt').scrollIntoView({block: 'center'})");
    let (x, y) = page.center_of("#ptt");
    page.mouse("mousePressed", x, y);
    wait_state(addr, "PTT on", |s| s["ptt"] == true);
    // Chromium's fake microphone beeps; its frames reach the radio while keyed
    assert!(
        common::wait_for(Duration::from_secs(10), || {
            sim.snapshot()
                .is_some_and(|r| r.tx_audio_samples > before + 48_000 / 2)
        }),
        "half a second of TX audio reached the simulated radio"
    );
    page.mouse("mouseReleased", x, y);
    wait_state(addr, "PTT off", |s| s["ptt"] == false);
    let after = sim.snapshot().unwrap().tx_audio_samples;
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        sim.snapshot().unwrap().tx_audio_samples,
        after,
        "no audio after unkeying"
    );
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn the_fake_microphone_is_encoded_into_opus_frames() {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1280, 900, "dark");
    // what the PTT path does once keyed: the microphone (Chromium's fake one beeps),
    // captured by the worklet in 20 ms frames, encoded by WebCodecs
    let got = page.eval(
        "(async () => { const a = window.rigweb.parts.audio; await a.context(); const packets = [];          await a.mic.start((codec, bytes) => packets.push([codec, bytes.length]));          await new Promise((r) => setTimeout(r, 1500)); a.mic.stop();          return { n: packets.length, codec: a.mic.codec, level: a.mic.level, sizes: packets.slice(0, 5) }; })()",
    );
    assert_eq!(got["codec"], "opus", "{got}");
    let n = got["n"].as_u64().unwrap();
    assert!((40..=90).contains(&n), "about 75 packets in 1.5 s: {got}");
    assert!(
        got["sizes"][0][0] == 1 && got["sizes"][0][1].as_u64().unwrap() > 2,
        "{got}"
    );
    srv.shutdown();
}

#[test]
fn losing_the_server_while_transmitting_resets_the_ptt_button_and_the_on_air_sign() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1280, 900, "dark");
    page.eval("document.getElementById('ptt').scrollIntoView({block: 'center'})");
    let (x, y) = page.center_of("#ptt");
    page.mouse("mousePressed", x, y);
    wait_state(addr, "PTT on", |s| s["ptt"] == true);
    page.wait_for(
        "!document.getElementById('onair').hidden",
        Duration::from_secs(5),
    );
    // the server goes away (and, being the server, unkeys the radio)
    srv.shutdown();
    page.wait_for(
        "window.rigweb.link === 'offline' && window.rigweb.ptt.phase === 'idle'",
        Duration::from_secs(10),
    );
    page.wait_for(
        "document.getElementById('onair').hidden && !document.body.classList.contains('tx')",
        Duration::from_secs(5),
    );
    assert_eq!(
        page.eval("document.getElementById('ptt').getAttribute('aria-pressed')"),
        "false"
    );
    page.mouse("mouseReleased", x, y);
}

#[test]
fn space_released_in_a_text_field_still_unkeys() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1280, 900, "dark");
    let space = |kind: &str| {
        page.call(
            "Input.dispatchKeyEvent",
            serde_json::json!({"type": kind, "key": " ", "code": "Space", "windowsVirtualKeyCode": 32}),
        );
    };
    space("keyDown");
    wait_state(addr, "PTT on from Space", |s| s["ptt"] == true);
    // the operator clicks into the CW text field while holding Space, then lets go there
    page.wait_for("window.rigweb.ptt.phase === 'live'", Duration::from_secs(5));
    page.eval("(() => { const i = document.querySelector('[data-cmd=send_cw] input'); i.scrollIntoView({block: 'center'}); i.focus(); return document.activeElement === i; })()");
    space("keyUp");
    wait_state(
        addr,
        "PTT off after Space was let go in a text field",
        |s| s["ptt"] == false,
    );
    page.wait_for("window.rigweb.ptt.phase === 'idle'", Duration::from_secs(5));
    // typing a space there afterwards is just typing
    space("keyDown");
    space("keyUp");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(state(addr)["ptt"], false);
    page.assert_no_console_errors();
    srv.shutdown();
}
