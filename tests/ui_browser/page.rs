//! The page as a whole: loading without errors, the waterfall, layouts from a phone to a
//! wide screen, a plain-HTTP page from another host, which overlays are asked for (the
//! overlays themselves: `overlays.rs`).

use super::*;

/// The routes of the optional overlay services.
const OVERLAY_ROUTES: &[&str] = &["/api/v1/band-plan/", "/api/v1/eibi/", "/api/v1/dx/"];

/// Runs in the page before its scripts: `GET /api/v1/info` answers with
/// `window.__services` as its `services`, and `/api/v1/dx/spots` with one spot (this
/// server has no DX cluster), as a server running that service would.
const FAKE_SERVICES: &str = r#"
window.__services = { dxSpots: false, bandPlan: false, eibi: false, bridge: false };
window.__dxAsked = 0;
const realFetch = window.fetch.bind(window);
window.fetch = async (input, init) => {
  const url = String(input);
  if (url.startsWith('/api/v1/dx/spots')) {
    window.__dxAsked++;
    return new Response(JSON.stringify({ spots: [{ freq: 14074000, call: 'JA1XYZ', spotter: 'K1ABC', comment: 'FT8' }] }), { status: 200 });
  }
  const r = await realFetch(input, init);
  if (url === '/api/v1/info' && r.status === 200) {
    const body = await r.json();
    body.services = window.__services;
    return new Response(JSON.stringify(body), { status: 200 });
  }
  return r;
};
"#;

#[test]
fn the_page_loads_without_errors_and_the_waterfall_fills_with_varied_data() {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1440, 900, "dark");
    // a few seconds of sweeps: the waterfall keeps every row, in many colours
    page.wait_for("window.rigweb.scope.rows > 60", Duration::from_secs(20));
    let wf = page.eval("window.rigweb.waterfall()");
    assert!(wf["rows"].as_u64().unwrap() > 60, "waterfall rows: {wf}");
    assert!(
        wf["colours"].as_u64().unwrap() > 12,
        "the waterfall shows varied data: {wf}"
    );
    // the spectrum and the waterfall canvases are drawn (not blank)
    let drawn = page.eval(
        "(() => { const c = document.getElementById('waterfall'); const d = c.getContext('2d').getImageData(0, 0, c.width, 40).data; \
         let lit = 0; for (let i = 0; i < d.length; i += 4) if (d[i] + d[i+1] + d[i+2] > 60) lit++; return lit; })()",
    );
    assert!(
        drawn.as_u64().unwrap() > 200,
        "lit waterfall pixels on screen: {drawn}"
    );
    // the controls built for this radio: modes, filters, bands, MAIN and SUB
    assert_eq!(
        page.eval("document.querySelectorAll('#modes button').length"),
        10
    );
    assert_eq!(page.eval("document.querySelectorAll('.vfo').length"), 2);
    assert!(
        page.eval("document.querySelectorAll('#bands button').length")
            .as_u64()
            .unwrap()
            >= 10
    );
    // the page announced its icon inline and asked for no favicon.ico
    assert!(
        !page.requested_urls().iter().any(|u| u.contains("favicon")),
        "no favicon request: {:?}",
        page.requested_urls()
    );
    page.wait_for(
        "document.querySelector('#vfos .smeter-read').textContent.startsWith('S')",
        Duration::from_secs(5),
    );
    // a fuller waterfall for the picture
    page.wait_for("window.rigweb.scope.rows > 240", Duration::from_secs(30));
    let shot = page.screenshot("desktop.png");
    let errors = page.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");
    assert!(shot.exists());
    srv.shutdown();
}

#[test]
fn a_phone_viewport_has_no_horizontal_scroll_and_large_controls() {
    let _t = turn();
    let srv = start(None);
    let page = Browser::shared().new_page(390, 844);
    page.emulate_phone(390, 844);
    page.color_scheme("light");
    page.navigate(&url(srv.addr()));
    page.wait_for(
        "window.rigweb && window.rigweb.link === 'online'",
        Duration::from_secs(20),
    );
    page.wait_for("window.rigweb.scope.rows > 20", Duration::from_secs(20));
    let dims = page.eval(
        "[document.documentElement.scrollWidth, window.innerWidth, document.body.scrollWidth]",
    );
    let (sw, iw, bw) = (
        dims[0].as_u64().unwrap(),
        dims[1].as_u64().unwrap(),
        dims[2].as_u64().unwrap(),
    );
    assert_eq!(iw, 390);
    assert!(sw <= iw && bw <= iw, "no horizontal scrolling: {dims}");
    // nothing sticks out to the right
    let wide = page.eval(
        "[...document.querySelectorAll('body *')].filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right > window.innerWidth + 1 && !e.closest('dialog, .scope-bar'); }).map((e) => e.id || e.className).slice(0, 5)",
    );
    assert_eq!(wide, serde_json::json!([]), "elements past the right edge");
    // touch targets: every button and select on the page is at least 40 px high (the
    // small buttons of the scope bar and the controls too)
    let small = page.eval(
        "[...document.querySelectorAll('button, select')].filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height < 40 && !e.closest('dialog'); }).map((e) => `${e.id || e.className || e.tagName} ${e.textContent.trim().slice(0, 12)} ${Math.round(e.getBoundingClientRect().height)}`).slice(0, 8)",
    );
    assert_eq!(small, serde_json::json!([]), "touch targets under 40 px");
    // the PTT dock stays at the bottom, large
    let ptt = page.eval("(() => { const r = document.getElementById('ptt').getBoundingClientRect(); return [r.height, r.bottom]; })()");
    assert!(ptt[0].as_f64().unwrap() >= 56.0, "a large PTT: {ptt}");
    assert!(ptt[1].as_f64().unwrap() <= 844.0, "PTT on screen: {ptt}");
    // touch tuning: dragging the waterfall pans
    let before = state(srv.addr())["main"]["freqHz"].as_f64().unwrap();
    let (x, y) = page.point_in("#waterfall", 0.6, 0.5);
    let touch = |kind: &str, x: f64| {
        page.call(
            "Input.dispatchTouchEvent",
            serde_json::json!({"type": kind, "touchPoints": if kind == "touchEnd" { serde_json::json!([]) } else { serde_json::json!([{"x": x, "y": y}]) }}),
        );
    };
    touch("touchStart", x);
    for i in 1..=8 {
        touch("touchMove", x - f64::from(i) * 12.0);
    }
    touch("touchEnd", x - 96.0);
    wait_state(srv.addr(), "a higher frequency after dragging left", |s| {
        s["main"]["freqHz"]
            .as_f64()
            .is_some_and(|f| f > before + 1000.0)
    });
    std::thread::sleep(Duration::from_millis(800));
    page.screenshot("phone.png");
    // a double tap on PTT latches transmit, with the countdown to the server's timeout;
    // the next tap releases
    let (px, py) = page.center_of("#ptt");
    let tap = |x: f64, y: f64| {
        page.call(
            "Input.dispatchTouchEvent",
            serde_json::json!({"type": "touchStart", "touchPoints": [{"x": x, "y": y}]}),
        );
        page.call(
            "Input.dispatchTouchEvent",
            serde_json::json!({"type": "touchEnd", "touchPoints": []}),
        );
    };
    tap(px, py);
    tap(px, py);
    page.wait_for("window.rigweb.ptt.latched === true", Duration::from_secs(5));
    wait_state(srv.addr(), "PTT latched on", |s| s["ptt"] == true);
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(
        state(srv.addr())["ptt"],
        true,
        "still on the air after the taps"
    );
    page.wait_for(
        "document.getElementById('ptt-sub').textContent.includes('left')",
        Duration::from_secs(5),
    );
    page.screenshot("phone-latched.png");
    tap(px, py);
    wait_state(srv.addr(), "PTT released by a tap", |s| s["ptt"] == false);
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn a_tablet_and_a_wide_screen_lay_out_without_horizontal_scroll() {
    let _t = turn();
    let srv = start(None);
    for (w, h, scheme, name) in [
        (1024, 768, "light", "tablet.png"),
        (1920, 1080, "dark", "wide.png"),
    ] {
        let page = open(srv.addr(), w, h, scheme);
        page.wait_for("window.rigweb.scope.rows > 120", Duration::from_secs(20));
        let dims = page.eval("[document.documentElement.scrollWidth, window.innerWidth]");
        assert!(dims[0].as_u64() <= dims[1].as_u64(), "{w}x{h}: {dims}");
        // the scope is the main element: most of the width on a desktop
        let share = page.eval(
            "document.getElementById('scope').getBoundingClientRect().width / window.innerWidth",
        );
        assert!(
            share.as_f64().unwrap() > 0.6,
            "{w}x{h}: scope width share {share}"
        );
        page.screenshot(name);
    }
    srv.shutdown();
}

#[test]
fn a_plain_http_page_from_another_host_explains_why_tx_needs_https() {
    let _t = turn();
    // rigweb.test resolves to 127.0.0.1 (the browser's resolver rule): not a secure
    // context; over plain HTTP it is a name the server answers to only when told so
    // (the Origin policy against DNS rebinding)
    let mut cfg = serve_config("ic7610", None);
    cfg.allowed_origins = rigweb::web::origin::OriginPolicy::default()
        .with_hosts(&["rigweb.test".into()])
        .unwrap();
    let srv = start_server(cfg, Tuning::default());
    let page = Browser::shared().new_page(1280, 900);
    page.navigate(&format!("http://rigweb.test:{}/", srv.addr().port()));
    page.wait_for(
        "window.rigweb && window.rigweb.link === 'online'",
        Duration::from_secs(20),
    );
    page.wait_for("window.rigweb.scope.rows > 5", Duration::from_secs(20));
    let support = page.eval("window.rigweb.audio.support");
    assert_eq!(support["secure"], false, "{support}");
    assert_eq!(support["worklet"], false);
    let note = page.eval("document.getElementById('tx-note').textContent");
    assert!(
        note.as_str().unwrap().contains("HTTPS"),
        "one sentence on why and how: {note}"
    );
    let secure_note = page.eval("document.getElementById('audio-secure').hidden");
    assert_eq!(secure_note, false);
    // RX still plays there: PCM16 through the main-thread ring (no worklet, no WebCodecs)
    page.eval(&feed_tone("pcm16"));
    page.wait_for("window.rigweb.audio.peak > 0.1", Duration::from_secs(10));
    assert_eq!(page.eval("window.rigweb.audio.codec"), "pcm16");
    page.eval("document.getElementById('tx-note').scrollIntoView({block: 'center'})");
    page.screenshot("plain-http.png");
    srv.shutdown();
}

#[test]
fn only_advertised_services_are_fetched_and_they_are_read_again_after_a_reconnect() {
    let _t = turn();
    let srv = start(None);
    let page = Browser::shared().new_page(1280, 800);
    page.call(
        "Page.addScriptToEvaluateOnNewDocument",
        serde_json::json!({ "source": FAKE_SERVICES }),
    );
    page.navigate(&url(srv.addr()));
    page.wait_for(
        "window.rigweb && window.rigweb.link === 'online' && window.rigweb.scope.rows > 5",
        Duration::from_secs(20),
    );
    assert_eq!(page.eval("window.__dxAsked"), 0);
    assert_eq!(
        page.eval("window.rigweb.parts.scope.overlayGroup.hidden"),
        true
    );
    // the server (restarted, say) now runs a DX cluster: the page learns it when it
    // reconnects, not only at boot
    page.eval("window.__services = { dxSpots: true, bandPlan: false, eibi: false, bridge: false }; window.rigweb.parts.control.channel.ws.close(); true");
    page.wait_for(
        "!window.rigweb.parts.scope.overlayGroup.hidden && !!document.querySelector('#scope-bar button[data-overlay=dx]')",
        Duration::from_secs(20),
    );
    assert_eq!(
        page.eval("window.rigweb.parts.overlays.data.dx[0].call"),
        "JA1XYZ"
    );
    assert_eq!(
        page.eval("document.querySelectorAll('[data-overlay]').length"),
        1,
        "only the advertised overlay"
    );
    let asked: Vec<String> = page
        .requested_urls()
        .into_iter()
        .filter(|u| OVERLAY_ROUTES.iter().any(|r| u.contains(r)))
        .collect();
    assert!(asked.is_empty(), "unadvertised routes requested: {asked:?}");
    // the service goes away again after another reconnect: its toggle goes too
    page.eval("window.__services = { dxSpots: false }; window.rigweb.parts.control.channel.ws.close(); true");
    page.wait_for(
        "window.rigweb.parts.scope.overlayGroup.hidden && !document.querySelector('[data-overlay]')",
        Duration::from_secs(20),
    );
    page.assert_no_console_errors();
    srv.shutdown();
}
