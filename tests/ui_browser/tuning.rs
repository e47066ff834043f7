//! Tuning and controls: the waterfall (click, wheel, drag), mode, filter, band, keyboard,
//! typed frequencies, level controls, meters.

use super::*;

#[test]
fn clicking_the_waterfall_retunes_the_simulator() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1280, 800, "dark");
    let before = state(addr)["main"]["freqHz"].as_u64().unwrap();
    let range = page.eval("window.rigweb.scope.range");
    let (start_hz, end_hz) = (
        range["startHz"].as_f64().unwrap(),
        range["endHz"].as_f64().unwrap(),
    );
    let (x, y) = page.point_in("#waterfall", 0.2, 0.5);
    let left = page
        .eval("document.getElementById('scope').getBoundingClientRect().left")
        .as_f64()
        .unwrap();
    let width = page
        .eval("document.getElementById('scope').getBoundingClientRect().width")
        .as_f64()
        .unwrap();
    let expected = start_hz + (x - left) / width * (end_hz - start_hz);
    page.click_at(x, y);
    let s = wait_state(addr, "a new MAIN frequency", |s| {
        s["main"]["freqHz"].as_u64() != Some(before)
    });
    let now = s["main"]["freqHz"].as_f64().unwrap();
    assert!(
        (now - expected).abs() <= 150.0,
        "tuned to {now}, the click was at {expected}"
    );
    assert_eq!(now as u64 % 100, 0, "on the 100 Hz grid of USB");
    // the display follows
    page.wait_for(
        &format!("window.rigweb.state.main.freqHz === {}", now as u64),
        Duration::from_secs(5),
    );
    // the wheel over the waterfall steps the frequency by the tuning step
    page.call(
        "Input.dispatchMouseEvent",
        serde_json::json!({"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": -100}),
    );
    wait_state(addr, "one step up", |s| {
        s["main"]["freqHz"].as_f64() == Some(now + 100.0)
    });
    // a drag pans: the picture follows the pointer, so dragging right tunes down
    let f0 = state(addr)["main"]["freqHz"].as_f64().unwrap();
    let (x1, y1) = page.point_in("#waterfall", 0.5, 0.6);
    page.mouse("mousePressed", x1, y1);
    for i in 1..=10 {
        page.call(
            "Input.dispatchMouseEvent",
            serde_json::json!({"type": "mouseMoved", "x": x1 + f64::from(i) * 10.0, "y": y1, "buttons": 1}),
        );
    }
    page.mouse("mouseReleased", x1 + 100.0, y1);
    wait_state(addr, "a pan downwards", |s| {
        s["main"]["freqHz"].as_f64().is_some_and(|f| f < f0 - 500.0)
    });
    let dragged = settled(addr);
    let expected_pan = 100.0 / width * (end_hz - start_hz);
    let moved = f0 - dragged["main"]["freqHz"].as_f64().unwrap();
    assert!(
        (moved - expected_pan).abs() < expected_pan * 0.35,
        "panned {moved} Hz for {expected_pan}"
    );
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn the_mode_buttons_and_keyboard_change_the_simulator() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1280, 800, "light");
    page.click("#modes button[data-mode='CW']");
    wait_state(addr, "CW on MAIN", |s| s["main"]["mode"] == "CW");
    page.click("#filters button[data-filter='FIL2']");
    wait_state(addr, "FIL2 on MAIN", |s| s["main"]["filter"] == 2);
    page.wait_for("document.querySelector(\"#modes button[data-mode='CW']\").getAttribute('aria-pressed') === 'true'", Duration::from_secs(5));
    // SUB is tuned after selecting it
    page.click(".vfo[data-key='sub'] .vfo-head");
    page.click("#modes button[data-mode='AM']");
    wait_state(addr, "AM on SUB", |s| s["sub"]["mode"] == "AM");
    assert_eq!(state(addr)["main"]["mode"], "CW", "MAIN untouched");
    // keyboard: → tunes the selected VFO by the step (AM: 1 kHz), ↑ changes band
    page.eval("document.activeElement && document.activeElement.blur()");
    let sub0 = state(addr)["sub"]["freqHz"].as_u64().unwrap();
    page.key("ArrowRight", "ArrowRight", 39);
    wait_state(addr, "SUB one step up", |s| {
        s["sub"]["freqHz"].as_u64() == Some((sub0 / 1000 + 1) * 1000)
    });
    // typing a frequency into the display
    page.click(".vfo[data-key='main'] .vfo-head");
    page.key("f", "KeyF", 70);
    page.wait_for(
        "document.activeElement && document.activeElement.classList.contains('freq-entry')",
        Duration::from_secs(5),
    );
    page.type_text("7074.5");
    page.key("Enter", "Enter", 13);
    wait_state(addr, "MAIN on 7.0745 MHz", |s| {
        s["main"]["freqHz"] == 7_074_500
    });
    // `?` shows the shortcuts
    page.key("?", "Slash", 191);
    page.wait_for("document.getElementById('help-dlg').open && document.querySelectorAll('#help-table tr').length > 10", Duration::from_secs(5));
    page.screenshot("help.png");
    page.key("Escape", "Escape", 27);
    page.wait_for(
        "!document.getElementById('help-dlg').open",
        Duration::from_secs(5),
    );
    // the band buttons use the band stack (20 m)
    page.click("#bands button[data-band='20m']");
    wait_state(addr, "MAIN on 20 m", |s| {
        s["main"]["freqHz"]
            .as_u64()
            .is_some_and(|f| (14_000_000..=14_350_000).contains(&f))
    });
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn a_level_control_changes_the_simulator() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1280, 900, "dark");
    // the power level (from the command catalogue, in the TX panel)
    let slider = "[data-cmd='set_power'] input[type=range]";
    page.wait_for(
        &format!("!!document.querySelector(\"{slider}\")"),
        Duration::from_secs(5),
    );
    page.eval(&format!(
        "document.querySelector(\"{slider}\").scrollIntoView({{block: 'center'}})"
    ));
    // the slider shows the radio's level (128 of 255) before anything is touched
    page.wait_for(
        &format!("document.querySelector(\"{slider}\").value === '128'"),
        Duration::from_secs(5),
    );
    let (x, y) = page.point_in(slider, 0.85, 0.5);
    page.click_at(x, y);
    let s = wait_state(addr, "the power level near 85 %", |s| {
        s["power"]
            .as_i64()
            .is_some_and(|p| (190..=235).contains(&p))
    });
    let power = s["power"].as_i64().unwrap();
    let sim = srv.sim.as_ref().unwrap();
    assert!(
        common::wait_for(Duration::from_secs(5), || {
            sim.snapshot()
                .is_some_and(|r| i64::from(common::sim_rf_power(&r)) == power)
        }),
        "the simulated radio's RF power follows"
    );
    // the attenuator (a select of the profile's values) reaches the radio too
    page.eval("(() => { const s = document.querySelector(\"[data-cmd='set_att'] select\"); s.value = '12'; s.dispatchEvent(new Event('change')); })()");
    wait_state(addr, "ATT 12 dB on MAIN", |s| s["main"]["att"] == 12);
    page.wait_for(
        "[...document.querySelectorAll('.vfo .badge')].some((b) => b.textContent === 'ATT 12 dB')",
        Duration::from_secs(5),
    );
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn a_catalogue_level_control_changes_the_simulator() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1280, 900, "dark");
    let commands = page.eval("window.rigweb.catalogue");
    assert!(
        commands
            .as_array()
            .is_some_and(|c| c.iter().any(|n| n == "set_af_gain")),
        "{commands}"
    );
    let slider = "[data-cmd='set_af_gain'] input[type=range]";
    page.eval(&format!(
        "document.querySelector(\"{slider}\").scrollIntoView({{block: 'center'}})"
    ));
    let (x, y) = page.point_in(slider, 0.75, 0.5);
    page.click_at(x, y);
    wait_state(addr, "MAIN AF gain near three quarters", |s| {
        s["main"]["afGain"]
            .as_i64()
            .is_some_and(|g| (170..=215).contains(&g))
    });
    // a toggle from the catalogue (NB) and its state field
    page.click("[data-cmd='set_nb'] button");
    wait_state(addr, "NB on", |s| s["main"]["nb"] == true);
    // each control sits in the panel the catalogue names: the monitor and VOX gains in
    // the transmitter's, and nothing is left over for "More"
    let panel = |cmd: &str| {
        page.eval(&format!(
            "document.querySelector(\"[data-cmd='{cmd}']\").closest('.controls').id"
        ))
    };
    assert_eq!(panel("set_monitor_gain"), "ctl-tx");
    assert_eq!(panel("set_vox_gain"), "ctl-tx");
    assert_eq!(panel("set_af_gain"), "ctl-rx");
    // the controls of issue 19 (IC-7610): each in its panel, the memories in theirs
    for (cmd, id) in [
        ("set_antenna", "ctl-rx"),
        ("set_digisel", "ctl-rx"),
        ("set_ip_plus", "ctl-rx"),
        ("set_xit", "ctl-vfo"),
        ("set_vox", "ctl-tx"),
        ("set_monitor", "ctl-tx"),
        ("set_apf", "ctl-cw"),
    ] {
        assert_eq!(panel(cmd), id, "{cmd}");
    }
    assert_eq!(
        page.eval("document.querySelector('#card-mem').hidden"),
        false
    );
    // a command the page has no code for (the manual notch) works from its catalogue row
    assert_eq!(panel("set_manual_notch"), "ctl-rx");
    page.eval("document.querySelector(\"[data-cmd='set_manual_notch']\").scrollIntoView({block: 'center'})");
    page.click("[data-cmd='set_manual_notch'] button");
    wait_state(addr, "manual notch on", |s| {
        s["main"]["manualNotch"] == true
    });
    assert_eq!(
        page.eval("document.querySelector('#card-other').hidden"),
        true
    );
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn the_meters_move() {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1280, 800, "dark");
    page.wait_for(
        "window.rigweb.meters.smeter !== undefined",
        Duration::from_secs(10),
    );
    let quiet = page.eval("window.rigweb.meters.smeter").as_u64().unwrap();
    // tune MAIN (USB) so that the strongest signal on screen falls into its passband: the
    // S-meter rises, and fades with the simulated band's QSB
    let peak = page.eval("window.rigweb.peakHz()").as_f64().unwrap();
    let dial = ((peak - 1500.0) / 100.0).round() * 100.0;
    page.click(".vfo[data-key='main'] .vfo-head");
    page.key("f", "KeyF", 70);
    page.wait_for(
        "document.activeElement && document.activeElement.classList.contains('freq-entry')",
        Duration::from_secs(5),
    );
    page.type_text(&format!("{}", dial as u64));
    page.key("Enter", "Enter", 13);
    wait_state(srv.addr(), "MAIN on the signal", |s| {
        s["main"]["freqHz"].as_f64() == Some(dial)
    });
    page.wait_for(
        &format!("window.rigweb.meters.smeter > {}", quiet + 10),
        Duration::from_secs(10),
    );
    page.eval("window.__seen = new Set(); window.__t = setInterval(() => window.__seen.add(window.rigweb.meters.smeter), 100)");
    page.wait_for("window.__seen.size >= 3", Duration::from_secs(15));
    let width = page.eval("parseFloat(document.querySelector('#vfos .smeter .fill').style.width)");
    assert!(
        width.as_f64().unwrap() > 0.0,
        "the S-meter bar shows a reading"
    );
    // SUB has its own S-meter
    page.wait_for(
        "window.rigweb.meters.smeter_sub !== undefined",
        Duration::from_secs(10),
    );
    let text = page.eval("document.querySelector('#vfos .smeter-read').textContent");
    assert!(text.as_str().unwrap().starts_with('S'), "S-units: {text}");
    // Vd is read while receiving
    page.wait_for(
        "document.querySelector('#tx-meters').textContent.includes(' V')",
        Duration::from_secs(10),
    );
    srv.shutdown();
}

#[test]
fn the_sub_receivers_scope_shows_and_tunes_sub() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1280, 800, "dark");
    let main0 = state(addr)["main"]["freqHz"].clone();
    // the scope bar's SUB button: frames of receiver 1, around SUB's dial
    page.click("#scope-bar button[title=\"Show SUB's scope\"]");
    page.wait_for(
        "window.rigweb.scope.receiver === 1",
        Duration::from_secs(10),
    );
    let sub = state(addr)["sub"]["freqHz"].as_f64().unwrap();
    page.wait_for(
        &format!(
            "window.rigweb.scope.range.startHz < {sub} && window.rigweb.scope.range.endHz > {sub}"
        ),
        Duration::from_secs(10),
    );
    let (x, y) = page.point_in("#waterfall", 0.3, 0.5);
    page.click_at(x, y);
    wait_state(addr, "SUB retuned from its scope", |s| {
        s["sub"]["freqHz"].as_f64() != Some(sub)
    });
    assert_eq!(state(addr)["main"]["freqHz"], main0, "MAIN untouched");
    // the scope bar's settings go to the receiver shown: SUB's span narrows, MAIN's stays
    let main_span = state(addr)["scope"]["spanHz"].clone();
    assert_eq!(main_span, 25000, "{}", state(addr));
    page.eval("(() => { const s = document.querySelector('#scope-bar [data-cmd=set_scope] select'); s.value = '5000'; s.dispatchEvent(new Event('change')); return true; })()");
    page.wait_for(
        "window.rigweb.scope.receiver === 1 && window.rigweb.scope.range.endHz - window.rigweb.scope.range.startHz <= 10001",
        Duration::from_secs(10),
    );
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        state(addr)["scope"]["spanHz"],
        main_span,
        "MAIN's scope span untouched"
    );
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn an_a_b_radio_shows_vfo_a_and_b_and_tunes_the_one_chosen() {
    let _t = turn();
    let srv = start_server(serve_config("ic705", None), Tuning::default());
    let addr = srv.addr();
    let page = open(addr, 1280, 800, "light");
    // the radio cannot say which VFO is selected: the page shows the dial as "VFO" and
    // tunes it without naming one
    assert_eq!(state(addr)["active"], serde_json::Value::Null);
    page.wait_for(
        "[...document.querySelectorAll('.vfo .vfo-name')].map((e) => e.textContent).join() === 'VFO'",
        Duration::from_secs(5),
    );
    page.click(".vfo[data-key='sel'] .vfo-head");
    page.key("f", "KeyF", 70);
    page.wait_for(
        "document.activeElement && document.activeElement.classList.contains('freq-entry')",
        Duration::from_secs(5),
    );
    page.type_text("14.0705");
    page.key("Enter", "Enter", 13);
    wait_state(addr, "the dial on 14.0705 MHz", |s| {
        s["main"]["freqHz"] == 14_070_500
    });
    assert_eq!(
        state(addr)["active"],
        serde_json::Value::Null,
        "no VFO was selected"
    );
    // once a client addresses VFO A, the selection is known and both VFOs show
    let mut ws = common::web::Ws::control(addr);
    assert_eq!(
        ws.cmd(
            "a",
            "set_freq",
            serde_json::json!({"vfo": "A", "freq": 14_074_000})
        )["ok"],
        true
    );
    wait_state(addr, "VFO A selected", |s| s["active"] == "A");
    page.wait_for(
        "document.querySelectorAll('.vfo .vfo-name').length === 2",
        Duration::from_secs(5),
    );
    let names =
        page.eval("[...document.querySelectorAll('.vfo .vfo-name')].map((e) => e.textContent)");
    let s = state(addr);
    let active = s["active"].as_str().unwrap().to_string();
    let other = if active == "A" { "B" } else { "A" };
    assert_eq!(
        names,
        serde_json::json!([format!("VFO {active}"), format!("VFO {other}")]),
        "{s}"
    );
    // one receiver: no MAIN/SUB scope buttons
    assert_eq!(page.eval("window.rigweb.parts.scope.rxGroup.hidden"), true);
    // select the other VFO and type a frequency for it
    let key = format!("vfo{other}");
    page.click(&format!(".vfo[data-key='{other}'] .vfo-head"));
    page.key("f", "KeyF", 70);
    page.wait_for(
        "document.activeElement && document.activeElement.classList.contains('freq-entry')",
        Duration::from_secs(5),
    );
    page.type_text("7.0305");
    page.key("Enter", "Enter", 13);
    wait_state(addr, "the other VFO on 7.0305 MHz", |s| {
        s["main"][&key]["freqHz"] == 7_030_500
    });
    assert_eq!(
        state(addr)["active"],
        active.as_str(),
        "the active VFO stays"
    );
    page.screenshot("ic705.png");
    page.assert_no_console_errors();
    srv.shutdown();
}
