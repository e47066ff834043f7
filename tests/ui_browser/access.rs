//! Issue 19, accessibility, read from Chromium's accessibility tree (what a screen
//! reader gets, through the DevTools protocol): each VFO's frequency as one text value,
//! mode, filter, S-meter and TX state with names and values, a live region that speaks
//! on request, keyboard-only tuning, focus order along the panels, a visible focus.

use super::*;

#[test]
fn a_screen_reader_gets_the_frequency_as_text_and_named_meters_modes_and_tx_state() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1440, 900, "dark");
    page.wait_for(
        "document.querySelector(\".vfo[data-key='main'] .smeter-read\").textContent.startsWith('S')",
        Duration::from_secs(10),
    );
    let s = state(addr);
    let hz = s["main"]["freqHz"].as_u64().unwrap();
    let text = format!(
        "{}.{:03}.{:03} MHz",
        hz / 1_000_000,
        (hz / 1000) % 1000,
        hz % 1000
    );
    let nodes = page.ax_nodes();
    let find = |role: &str, name: &str| {
        nodes
            .iter()
            .find(|n| n.role == role && n.name == name)
            .unwrap_or_else(|| panic!("no {role} named {name:?} in {nodes:#?}"))
            .clone()
    };
    // one spin button per VFO, named with the frequency as one piece of text
    let f = find("spinbutton", &format!("MAIN frequency {text}"));
    assert_eq!(f.role, "spinbutton");
    assert!(
        nodes.iter().any(|n| n.role == "spinbutton"
            && n.name.starts_with("SUB frequency ")
            && n.name.ends_with(" MHz")),
        "SUB's frequency"
    );
    // no frequency read digit by digit: no run of one-digit texts (buttons named 1..4
    // are fine, a frequency has eight digits or more)
    let mut run = 0;
    let mut longest = 0;
    for n in &nodes {
        let digit = n.role == "StaticText"
            && n.name.len() == 1
            && n.name.chars().all(|c| c.is_ascii_digit());
        run = if digit {
            run + 1
        } else if n.role == "StaticText" {
            0
        } else {
            run
        };
        longest = longest.max(run);
    }
    assert!(longest < 5, "digits read one by one ({longest} in a row)");
    // the S-meter: a meter, its reading in S units as its value text (Chromium's tree
    // over the DevTools protocol gives the number; the attribute holds the words)
    let m = find("meter", "MAIN S-meter");
    assert!(m.value.parse::<u32>().is_ok(), "{m:?}");
    let words = page.eval("document.querySelector(\".vfo[data-key='main'] [role=meter]\").getAttribute('aria-valuetext')");
    assert!(words.as_str().unwrap().starts_with('S'), "{words}");
    // the mode and filter, named
    let mode = s["main"]["mode"].as_str().unwrap();
    assert!(
        nodes
            .iter()
            .any(|n| n.role == "listitem" && n.name.starts_with("Filter FIL")),
        "the filter badge is named"
    );
    assert!(
        nodes
            .iter()
            .any(|n| n.role == "listitem" && n.name == format!("Mode {mode}")),
        "the mode badge is named"
    );
    assert!(
        nodes.iter().any(|n| n.role == "button" && n.name == mode),
        "mode buttons"
    );
    // TX state: PTT says whether it is on the air, and a status line
    let ptt = nodes
        .iter()
        .find(|n| n.role == "button" && n.name.starts_with("PTT"))
        .expect("PTT button");
    assert!(ptt.name.contains("hold to talk"), "{ptt:?}");
    assert!(
        nodes
            .iter()
            .any(|n| n.role == "status" && n.name.contains("Receiving"))
            || nodes
                .iter()
                .any(|n| n.role == "StaticText" && n.name == "Receiving"),
        "TX state"
    );
    // the frequency copies as one piece of text
    page.eval("document.querySelector(\".vfo[data-key='main'] .freq\").focus()");
    let copied = page.eval(
        "(() => { const dt = new DataTransfer(); const ev = new ClipboardEvent('copy', { clipboardData: dt, bubbles: true, cancelable: true }); document.activeElement.dispatchEvent(ev); return dt.getData('text/plain'); })()",
    );
    assert_eq!(copied, text.as_str());
    page.assert_no_console_errors();
    srv.shutdown();
}

#[test]
fn the_keyboard_alone_tunes_and_a_key_speaks_frequency_mode_and_s_meter() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    let page = open(addr, 1440, 900, "dark");
    page.wait_for(
        "document.querySelector(\".vfo[data-key='main'] .smeter-read\").textContent.startsWith('S')",
        Duration::from_secs(10),
    );
    // Tab from the start: the VFO frequency comes before the scope bar and the side panel
    page.eval("document.activeElement.blur(); true");
    let mut order = Vec::new();
    let mut outlines = Vec::new();
    for _ in 0..60 {
        page.key("Tab", "Tab", 9);
        let v = page.eval(
            "(() => { const e = document.activeElement; const st = getComputedStyle(e); const zone = e.closest('.top') ? 'top' : e.closest('.vfos') ? 'vfos' : e.closest('#scope-bar') ? 'scope-bar' : e.closest('.side') ? 'side' : 'other'; \
             return { zone, outline: st.outlineStyle !== 'none' && parseFloat(st.outlineWidth) >= 1, id: e.id || e.className || e.tagName, freq: e.classList.contains('freq') }; })()",
        );
        order.push(v["zone"].as_str().unwrap().to_string());
        if v["outline"] != true {
            outlines.push(v["id"].to_string());
        }
        if v["zone"] == "side" {
            break;
        }
    }
    let first = |z: &str| order.iter().position(|x| x == z);
    assert!(first("top") < first("vfos"), "{order:?}");
    assert!(first("vfos") < first("scope-bar"), "{order:?}");
    assert!(first("scope-bar") < first("side"), "{order:?}");
    assert!(outlines.is_empty(), "focus not visible on {outlines:?}");
    // the frequency display as a spin button: ↑ tunes by the step
    page.eval("document.querySelector(\".vfo[data-key='main'] .freq\").focus()");
    let before = settled(addr)["main"]["freqHz"].as_u64().unwrap();
    page.key("ArrowUp", "ArrowUp", 38);
    wait_state(addr, "MAIN one step up", |s| {
        s["main"]["freqHz"]
            .as_u64()
            .is_some_and(|f| f > before && f - before <= 1000)
    });
    // `v` speaks frequency, mode and S-meter through the live region
    page.eval("document.activeElement.blur(); true");
    page.key("v", "KeyV", 86);
    page.wait_for(
        "document.getElementById('announce').textContent.includes('MAIN')",
        Duration::from_secs(5),
    );
    let said = page.eval("document.getElementById('announce').textContent");
    let said = said.as_str().unwrap();
    let s = state(addr);
    assert!(said.contains(s["main"]["mode"].as_str().unwrap()), "{said}");
    assert!(said.contains("MHz") && said.contains("S-meter"), "{said}");
    assert_eq!(
        page.eval("document.getElementById('announce').getAttribute('aria-live')"),
        "assertive"
    );
    page.assert_no_console_errors();
    srv.shutdown();
}
