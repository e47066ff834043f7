//! Issue 19: the page says what it does not know. A host name the server refuses is
//! explained (with the server's own reason) instead of retried for ever; with the server
//! or the radio gone nothing looks live; a voice mode without a microphone asks before
//! it keys.

use super::*;
use common::web::post_json;

#[test]
fn a_refused_host_name_shows_the_servers_reason_and_stops_retrying() {
    let _t = turn();
    // rigweb.test resolves to 127.0.0.1 but is no name this server was told it has
    let srv = start(None);
    let page = Browser::shared().new_page(1440, 900);
    page.navigate(&format!("http://rigweb.test:{}/", srv.addr().port()));
    page.wait_for(
        "window.rigweb && window.rigweb.link === 'refused'",
        Duration::from_secs(20),
    );
    let banner = page.eval("document.getElementById('banner').textContent");
    let text = banner.as_str().unwrap();
    assert!(
        text.contains("--allowed-host rigweb.test"),
        "the server's reason: {text}"
    );
    assert_eq!(page.eval("document.getElementById('banner').hidden"), false);
    // nothing looks live: no green radio pill, no PTT
    assert!(
        !page
            .eval("document.getElementById('radio-pill').className")
            .as_str()
            .unwrap()
            .contains("ok"),
        "the radio pill is not green"
    );
    assert_eq!(
        page.eval("document.getElementById('link-pill').textContent"),
        "refused"
    );
    // no blind retries: the socket stays closed
    let sockets = || {
        page.requested_urls()
            .iter()
            .filter(|u| u.starts_with("ws://") && u.contains("/api/v1/ws"))
            .count()
    };
    let before = sockets();
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(sockets(), before, "no new attempts after the refusal");
    assert_eq!(
        page.eval("window.rigweb.parts.control.channel.wanted"),
        false
    );
    page.screenshot("refused-host.png");
    srv.shutdown();
}

#[test]
fn with_the_server_down_or_the_radio_lost_nothing_looks_live() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1440, 900, "dark");
    let smeter = "document.querySelector(\".vfo[data-key='main'] .smeter-read\").textContent";
    page.wait_for(
        &format!("{smeter}.startsWith('S')"),
        Duration::from_secs(10),
    );
    page.wait_for(
        "document.getElementById('radio-pill').classList.contains('ok')",
        Duration::from_secs(5),
    );
    // the radio lost (disconnected on purpose here): the pill says so, the meters stop
    let r = post_json(addr, "/api/v1/radio/disconnect", &serde_json::json!({}));
    assert!(r.status < 300, "{}", r.status);
    page.wait_for(
        &format!(
            "!document.getElementById('radio-pill').classList.contains('ok') && {smeter} === '—'"
        ),
        Duration::from_secs(10),
    );
    assert_eq!(page.eval("document.body.classList.contains('stale')"), true);
    let r = post_json(addr, "/api/v1/radio/connect", &serde_json::json!({}));
    assert!(r.status < 300, "{}", r.status);
    page.wait_for(
        &format!("document.getElementById('radio-pill').classList.contains('ok') && {smeter}.startsWith('S')"),
        Duration::from_secs(20),
    );
    // listening, then the server goes away: pill, meters and the audio latency are not live
    page.eval("window.rigweb.parts.audio.listen().then(() => true)");
    page.wait_for(
        "!document.getElementById('audio-pill').hidden",
        Duration::from_secs(10),
    );
    srv.shutdown();
    page.wait_for("window.rigweb.link === 'offline'", Duration::from_secs(10));
    page.wait_for(
        &format!(
            "document.getElementById('radio-pill').classList.contains('stale') && {smeter} === '—' && document.getElementById('audio-pill').textContent === 'RX audio —'"
        ),
        Duration::from_secs(10),
    );
    assert_eq!(
        page.eval("document.getElementById('tx-state').textContent"),
        "Transmit state unknown"
    );
    page.screenshot("server-down.png");
}

#[test]
fn a_voice_mode_without_a_microphone_asks_before_keying_while_cw_keys_at_once() {
    let _t = turn();
    // a plain-HTTP page by a host name: no microphone in this browser
    let mut cfg = serve_config("ic7610", None);
    cfg.allowed_origins = rigweb::web::origin::OriginPolicy::default()
        .with_hosts(&["rigweb.test".into()])
        .unwrap();
    let srv = start_server(cfg, Tuning::default());
    let addr = srv.addr();
    let page = Browser::shared().new_page(1440, 900);
    page.navigate(&format!("http://rigweb.test:{}/", addr.port()));
    page.wait_for(
        "window.rigweb && window.rigweb.link === 'online' && window.rigweb.scope.rows > 3",
        Duration::from_secs(20),
    );
    page.click("#modes button[data-mode='USB']");
    wait_state(addr, "USB", |s| s["main"]["mode"] == "USB");
    // said before keying, on the button itself
    page.wait_for(
        "document.getElementById('ptt-sub').textContent.includes('no microphone') && document.getElementById('ptt').classList.contains('nomic')",
        Duration::from_secs(5),
    );
    let (x, y) = page.center_of("#ptt");
    page.mouse("mousePressed", x, y);
    page.wait_for(
        "document.getElementById('silent-dlg').open",
        Duration::from_secs(5),
    );
    page.mouse("mouseReleased", x, y);
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(
        state(addr)["ptt"],
        false,
        "not keyed without the confirmation"
    );
    // confirmed: the next press keys
    page.click("#silent-ok");
    page.wait_for(
        "!document.getElementById('silent-dlg').open",
        Duration::from_secs(5),
    );
    page.mouse("mousePressed", x, y);
    wait_state(addr, "keyed after the confirmation", |s| s["ptt"] == true);
    page.mouse("mouseReleased", x, y);
    wait_state(addr, "unkeyed", |s| s["ptt"] == false);
    // CW keys at once, as before
    page.click("#modes button[data-mode='CW']");
    wait_state(addr, "CW", |s| s["main"]["mode"] == "CW");
    page.wait_for(
        "document.getElementById('ptt-sub').textContent === 'hold to talk'",
        Duration::from_secs(5),
    );
    page.mouse("mousePressed", x, y);
    wait_state(addr, "CW keyed at once", |s| s["ptt"] == true);
    page.mouse("mouseReleased", x, y);
    wait_state(addr, "unkeyed", |s| s["ptt"] == false);
    srv.shutdown();
}
