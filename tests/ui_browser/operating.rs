//! Issue 19's operating controls and smaller items: RIT (and XIT where the catalogue has
//! it) in 10 Hz steps with a clear, the CW box with a local sidetone, one start-up read,
//! RX audio that never clips, the scope's Ref value and dB scale.

use super::*;

#[test]
fn rit_moves_in_10_hz_steps_by_wheel_and_keys_and_clears_to_zero() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1440, 900, "dark");
    let offsets = page.eval("document.querySelectorAll('[data-cmd=set_rit] .offset').length");
    assert_eq!(
        offsets, 1,
        "RIT's offset is a stepping value, not a ±9999 Hz slider"
    );
    let xit = page.eval("window.rigweb.catalogue.includes('set_xit')") == true;
    if xit {
        assert_eq!(
            page.eval("document.querySelectorAll('[data-cmd=set_xit] .offset').length"),
            1
        );
    }
    page.eval(
        "document.querySelector('[data-cmd=set_rit] .offset').scrollIntoView({ block: 'center' })",
    );
    let (x, y) = page.center_of("[data-cmd=set_rit] .offset");
    // three notches of the wheel up: +30 Hz
    for _ in 0..3 {
        page.call(
            "Input.dispatchMouseEvent",
            serde_json::json!({"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": -100}),
        );
        std::thread::sleep(Duration::from_millis(60));
    }
    wait_state(addr, "RIT +30 Hz", |s| s["ritOffsetHz"] == 30);
    // the keys: ↑ once more, ↓ twice: +20 Hz; the page's own ↑↓ (band) stay out of it
    let band = state(addr)["main"]["freqHz"].clone();
    page.eval("document.querySelector('[data-cmd=set_rit] .offset').focus()");
    page.key("ArrowUp", "ArrowUp", 38);
    page.key("ArrowDown", "ArrowDown", 40);
    page.key("ArrowDown", "ArrowDown", 40);
    wait_state(addr, "RIT +20 Hz", |s| s["ritOffsetHz"] == 20);
    assert_eq!(state(addr)["main"]["freqHz"], band, "no band change");
    page.wait_for(
        "document.querySelector('[data-cmd=set_rit] .offset').textContent === '+20 Hz'",
        Duration::from_secs(5),
    );
    // Clear sends offset 0
    page.click("[data-cmd=set_rit] button[aria-label='Clear RIT']");
    wait_state(addr, "RIT cleared", |s| s["ritOffsetHz"] == 0);
    page.wait_for(
        "document.querySelector('[data-cmd=set_rit] .offset').textContent === '0 Hz'",
        Duration::from_secs(5),
    );
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn cw_text_is_sent_and_heard_in_the_browser_at_the_keyers_speed() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1440, 900, "dark");
    page.click("#modes button[data-mode='CW']");
    wait_state(addr, "CW", |s| s["main"]["mode"] == "CW");
    let wpm = state(addr)["cwSpeed"].as_u64().unwrap_or(20);
    page.eval("document.getElementById('card-cw').scrollIntoView()");
    page.click("#sidetone");
    assert_eq!(
        page.eval("document.getElementById('sidetone').getAttribute('aria-pressed')"),
        "true"
    );
    page.click("[data-cmd=send_cw] input");
    page.type_text("cq test");
    page.key("Enter", "Enter", 13);
    page.wait_for("window.rigweb.sidetone.playing", Duration::from_secs(10));
    let last = page.eval("window.rigweb.sidetone.last");
    assert_eq!(last["text"], "CQ TEST");
    assert_eq!(last["wpm"].as_u64(), Some(wpm), "{last}");
    // CQ TEST at w wpm: C(-.-.)=11, Q(--.-)=13, T=3, E=1, S=5, T=3 dots, gaps 3+7+3+3+3 dots: 55
    let dot = 1200.0 / wpm as f64;
    let total = last["totalMs"].as_f64().unwrap();
    assert!(
        (total - 55.0 * dot).abs() < 1.0,
        "{total} vs {}",
        55.0 * dot
    );
    // Stop stops the radio's keyer and the sidetone
    page.click("[data-cmd=stop_cw]");
    page.wait_for("!window.rigweb.sidetone.playing", Duration::from_secs(5));
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn the_page_reads_the_server_once_at_start_up() {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1440, 900, "dark");
    std::thread::sleep(Duration::from_millis(1500));
    let urls = page.requested_urls();
    for route in [
        "/api/v1/info",
        "/api/v1/capabilities",
        "/api/v1/commands",
        "/api/v1/state",
    ] {
        let n = urls.iter().filter(|u| u.ends_with(route)).count();
        assert_eq!(n, 1, "{route} read {n} times: {urls:?}");
    }
    srv.shutdown();
}

/// Decoded RX audio a little past full scale (as Opus decodes a hot receiver's audio,
/// peaks of 1.03 were seen), handed to the audio engine every 20 ms.
const HOT_AUDIO: &str = r#"
(async () => {
  const a = await TAKE_RX('pcm16');
  let n = 0;
  window.__hot = setInterval(() => {
    // until the test stops it (a loaded machine may start the page's audio late)
    if (n++ > 3000) { clearInterval(window.__hot); return; }
    const f = new Float32Array(960);
    for (let i = 0; i < 960; i++) f[i] = 1.03 * Math.sin(2 * Math.PI * 440 * (n * 960 + i) / 48000);
    a.pushSamples([f]);
  }, 20);
  return true;
})()
"#;

#[test]
fn rx_audio_past_full_scale_plays_clipped_at_full_scale() {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1440, 900, "dark");
    page.eval(&HOT_AUDIO.replace("TAKE_RX", TAKE_RX));
    page.wait_for("window.rigweb.audio.peak > 0.5", Duration::from_secs(15));
    let mut max = 0.0f64;
    for _ in 0..30 {
        max = max.max(
            page.eval("window.rigweb.audio.peak")
                .as_f64()
                .unwrap_or(0.0),
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(max > 0.95, "the tone plays: {max}");
    assert!(max <= 1.0, "peak {max}: clipped in the speaker");
    page.eval("clearInterval(window.__hot)");
    srv.shutdown();
}

#[test]
fn the_scope_ref_shows_its_db_value_and_the_spectrum_a_db_scale() {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1440, 900, "dark");
    page.wait_for(
        "(document.querySelector('#scope-bar [data-cmd=set_scope] .val') || {}).textContent === '0 dB'",
        Duration::from_secs(5),
    );
    // the spectrum's amplitude labels: text drawn at the left edge of the trace
    let labelled = page.eval(
        "(() => { const c = document.getElementById('spectrum'); const d = c.getContext('2d').getImageData(0, 0, 30, c.height - 20).data; let lit = 0; for (let i = 0; i < d.length; i += 4) if (d[i] > 120 && d[i + 1] > 120) lit++; return lit; })()",
    );
    assert!(
        labelled.as_u64().unwrap() > 20,
        "dB labels drawn: {labelled}"
    );
    srv.shutdown();
}
