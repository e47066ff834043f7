//! Issue 19 on the radios that are not an IC-7610: A/B radios (split's TX VFO, the A/B
//! selector, an unknown VFO drawn as unknown), the IC-9700 without a SUB S-meter, and the
//! scope toolbar following the receiver the scope shows.

use super::*;

/// The digits a VFO card shows, as one string ("14074000", "--------").
fn digits(page: &Page, key: &str) -> String {
    page.eval(&format!(
        "[...document.querySelectorAll(\".vfo[data-key='{key}'] .freq .d\")].map((d) => d.textContent).join('')"
    ))
    .as_str()
    .unwrap_or_default()
    .to_string()
}

#[test]
fn an_unknown_vfo_is_a_greyed_dash_and_split_shows_the_tx_vfo_with_an_a_b_selector() {
    let _t = turn();
    // the IC-7100 cannot read the unselected VFO: after a client sets A, B is unknown
    let srv = start_server(serve_config("ic7100", None), Tuning::default());
    let addr = srv.addr();
    let page = open(addr, 1440, 900, "dark");
    let mut ws = common::web::Ws::control(addr);
    let r = ws.cmd(
        "a",
        "set_freq",
        serde_json::json!({"vfo": "A", "freq": 14_074_000}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let s = wait_state(addr, "VFO A selected", |s| s["active"] == "A");
    assert_eq!(
        s["main"]["vfoB"]["freqHz"],
        Value::Null,
        "B is unknown: {s}"
    );
    page.wait_for(
        "document.querySelectorAll('.vfo').length === 2",
        Duration::from_secs(5),
    );
    let b = digits(&page, "B");
    assert!(b.chars().all(|c| c == '-'), "B is drawn as dashes: {b:?}");
    assert_eq!(
        page.eval(
            "document.querySelector(\".vfo[data-key='B'] .freq\").classList.contains('unknown')"
        ),
        true,
        "greyed"
    );
    assert_eq!(
        page.eval(
            "document.querySelector(\".vfo[data-key='B'] .freq\").getAttribute('aria-valuetext')"
        ),
        "unknown"
    );
    let a = digits(&page, "A");
    assert!(a.trim_start_matches('0').starts_with("14074"), "{a}");
    // the A/B selector: B becomes the VFO the page tunes
    page.wait_for(
        "document.querySelectorAll('.ab-select [role=radio]').length === 2 && !document.querySelector('.ab-select').hidden",
        Duration::from_secs(5),
    );
    page.click(".ab-select [data-key='B']");
    page.wait_for(
        "window.rigweb.target === 'B' && document.querySelector(\".ab-select [data-key='B']\").getAttribute('aria-checked') === 'true'",
        Duration::from_secs(5),
    );
    page.key("f", "KeyF", 70);
    page.wait_for(
        "document.activeElement && document.activeElement.classList.contains('freq-entry')",
        Duration::from_secs(5),
    );
    page.type_text("7.0305");
    page.key("Enter", "Enter", 13);
    wait_state(addr, "B on 7.0305 MHz", |s| {
        s["main"]["vfoB"]["freqHz"] == 7_030_500
    });
    page.wait_for(
        "[...document.querySelectorAll(\".vfo[data-key='B'] .freq .d\")].map((d) => d.textContent).join('').endsWith('7030500')",
        Duration::from_secs(5),
    );
    // split: the VFO that transmits says so before anyone keys
    let r = ws.cmd("s", "set_split", serde_json::json!({"on": true}));
    assert_eq!(r["ok"], true, "{r}");
    wait_state(addr, "split on", |s| s["split"] == true);
    let active = state(addr)["active"].as_str().unwrap().to_string();
    let tx = if active == "A" { "B" } else { "A" };
    page.wait_for(
        &format!(
            "document.querySelector(\".vfo[data-key='{tx}']\").textContent.includes('TX VFO') && !document.querySelector(\".vfo[data-key='{active}']\").textContent.includes('TX VFO')"
        ),
        Duration::from_secs(5),
    );
    page.screenshot("ic7100-split.png");
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn the_ic9700_shows_no_sub_s_meter_it_does_not_have() {
    let _t = turn();
    let srv = start_server(serve_config("ic9700", None), Tuning::default());
    let page = open(srv.addr(), 1440, 900, "dark");
    page.wait_for(
        "document.querySelectorAll('.vfo').length === 2",
        Duration::from_secs(5),
    );
    assert_eq!(
        page.eval("document.querySelector(\".vfo[data-key='sub'] .vfo-foot\").hidden"),
        true,
        "no SUB S-meter on an IC-9700"
    );
    assert_eq!(
        page.eval("document.querySelector(\".vfo[data-key='main'] .vfo-foot\").hidden"),
        false
    );
    page.wait_for(
        "document.querySelector(\".vfo[data-key='main'] .smeter-read\").textContent.startsWith('S')",
        Duration::from_secs(10),
    );
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn the_scope_toolbar_shows_the_settings_of_the_receiver_on_screen() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1440, 900, "dark");
    let span = "document.querySelector('#scope-bar [data-cmd=set_scope] select').value";
    page.wait_for(&format!("{span} === '25000'"), Duration::from_secs(5));
    page.click("#scope-bar button[title=\"Show SUB's scope\"]");
    page.wait_for(
        "window.rigweb.scope.receiver === 1",
        Duration::from_secs(10),
    );
    page.eval("(() => { const s = document.querySelector('#scope-bar [data-cmd=set_scope] select'); s.value = '5000'; s.dispatchEvent(new Event('change')); return true; })()");
    page.wait_for(
        "window.rigweb.scope.receiver === 1 && window.rigweb.scope.range.endHz - window.rigweb.scope.range.startHz <= 10001",
        Duration::from_secs(10),
    );
    // the state describes MAIN's scope (the one the radio reports): it stays at ±25 kHz
    assert_eq!(state(addr)["scope"]["spanHz"], 25000);
    // straight back to MAIN: its span is shown, not the one just set for SUB
    page.click("#scope-bar button[title=\"Show MAIN's scope\"]");
    page.wait_for(
        "window.rigweb.scope.receiver === 0",
        Duration::from_secs(10),
    );
    page.wait_for(&format!("{span} === '25000'"), Duration::from_secs(5));
    // and it stays so after the hold of the change has passed
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(page.eval(span), "25000");
    page.assert_no_console_errors();
    srv.shutdown();
}
