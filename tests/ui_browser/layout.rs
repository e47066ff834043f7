//! Issue 19 on screens: PTT, Listen and the TX state in the first screen on every
//! desktop size, phones on their side scope-first with a compact strip, every scope
//! setting reachable in portrait, messages beside the side panel rather than over it.

use super::*;

/// Whether an element is wholly inside the viewport.
fn in_first_screen(page: &Page, selector: &str) -> bool {
    page.eval(&format!(
        "(() => {{ const r = document.querySelector(\"{selector}\").getBoundingClientRect(); return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }})()"
    )) == true
}

#[test]
fn ptt_listen_and_the_tx_state_are_in_the_first_screen_on_every_desktop() {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1440, 900, "dark");
    for (w, h) in [(1366, 768), (1440, 900), (1920, 1080)] {
        page.resize(w, h, false);
        std::thread::sleep(Duration::from_millis(300));
        for sel in ["#ptt", "#listen", "#tx-state"] {
            assert!(
                in_first_screen(&page, sel),
                "{w}x{h}: {sel} needs scrolling"
            );
        }
        assert_eq!(page.eval("document.querySelector('.side').scrollTop"), 0);
    }
    page.screenshot("ptt-1920.png");
    srv.shutdown();
}

#[test]
fn a_phone_on_its_side_is_scope_first_with_a_compact_strip() {
    let _t = turn();
    let srv = start(None);
    let page = Browser::shared().new_page(844, 390);
    page.emulate_phone(844, 390);
    page.navigate(&url(srv.addr()));
    page.wait_for(
        "window.rigweb && window.rigweb.link === 'online' && window.rigweb.scope.rows > 3",
        Duration::from_secs(20),
    );
    std::thread::sleep(Duration::from_millis(300));
    let m = page.eval(
        "(() => { const r = (s) => document.querySelector(s).getBoundingClientRect(); const sc = r('#scope'), v = r('.vfo.primary'); \
         return { scopeH: Math.min(innerHeight, sc.bottom) - Math.max(0, sc.top), scopeW: sc.width, vfoH: v.height, vfoBottom: v.bottom, page: document.documentElement.scrollHeight }; })()",
    );
    let scope_h = m["scopeH"].as_f64().unwrap();
    assert!(
        scope_h >= 390.0 * 0.45,
        "the scope is most of the screen: {m}"
    );
    assert!(m["scopeW"].as_f64().unwrap() >= 844.0 * 0.6, "{m}");
    assert!(
        m["vfoH"].as_f64().unwrap() <= 60.0,
        "a compact VFO strip: {m}"
    );
    assert!(
        m["page"].as_f64().unwrap() <= 391.0,
        "one screen, no scrolling: {m}"
    );
    for sel in ["#ptt", ".vfo.primary", "#scope"] {
        assert!(in_first_screen(&page, sel), "{sel} in the first screen");
    }
    // the mode is in the strip (the VFO's mode badge)
    assert!(
        page.eval(
            "document.querySelector('.vfo.primary .badge.hot').getBoundingClientRect().width > 0"
        ) == true,
        "the mode shows in the strip"
    );
    page.screenshot("phone-landscape.png");
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn in_portrait_every_scope_setting_is_reachable_without_a_sideways_bar() {
    let _t = turn();
    let srv = start(None);
    let page = Browser::shared().new_page(390, 844);
    page.emulate_phone(390, 844);
    page.navigate(&url(srv.addr()));
    page.wait_for(
        "window.rigweb && window.rigweb.link === 'online' && window.rigweb.scope.rows > 3",
        Duration::from_secs(20),
    );
    let bar = page.eval(
        "(() => { const b = document.getElementById('scope-bar'); const out = [...b.querySelectorAll('select, input, button')].filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.right > innerWidth + 1 || r.left < -1); }).map((e) => e.getAttribute('aria-label') || e.textContent); \
         return { scroll: b.scrollWidth > b.clientWidth + 1, outside: out, span: !!b.querySelector('[data-cmd=set_scope] select') }; })()",
    );
    assert_eq!(bar["span"], true, "{bar}");
    assert_eq!(bar["scroll"], false, "no sideways scrolling bar: {bar}");
    assert_eq!(bar["outside"], serde_json::json!([]), "{bar}");
    // the scope and PTT are still in the first screen
    assert!(in_first_screen(&page, "#ptt"));
    let scope_h = page.eval("(() => { const r = document.getElementById('scope').getBoundingClientRect(); return Math.min(innerHeight, r.bottom) - Math.max(0, r.top); })()");
    assert!(scope_h.as_f64().unwrap() > 200.0, "{scope_h}");
    page.eval("document.getElementById('scope-bar').scrollIntoView()");
    page.screenshot("phone-portrait-scope-bar.png");
    srv.shutdown();
}

#[test]
fn messages_do_not_cover_the_side_panel_and_the_help_says_how_to_type_a_frequency() {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1440, 900, "dark");
    // a refused command shows a message
    page.eval("window.rigweb.parts.control.cmd('set_freq', { freq: 1 }).catch(() => {}); true");
    page.eval("(() => { for (let i = 0; i < 4; i++) document.getElementById('theme-btn').click(); return true; })()");
    page.wait_for(
        "document.querySelectorAll('#toasts .toast').length >= 3",
        Duration::from_secs(5),
    );
    let overlap = page.eval(
        "(() => { const s = document.querySelector('.side').getBoundingClientRect(); return [...document.querySelectorAll('#toasts .toast')].some((t) => t.getBoundingClientRect().right > s.left); })()",
    );
    assert_eq!(overlap, false, "toasts stay left of the side panel");
    let help = page.eval("document.getElementById('help-dlg').textContent");
    assert!(
        help.as_str()
            .unwrap()
            .contains("Double-click the frequency"),
        "{help}"
    );
    assert!(!help.as_str().unwrap().contains("Click the frequency"));
    srv.shutdown();
}
