//! The matrix (issue 19, "Held by tests"): the four simulated models on four screens,
//! one browser tab reused across the cells. In each cell: PTT and the scope in the
//! first screen, no important box overlapping another, no frequency drawn as zeros, no
//! console error, and a screenshot under `target/ui-matrix/`.
//!
//! "Overlap": the important boxes — the top bar, each VFO card, the scope, PTT and
//! Listen, and (where the PTT dock is part of the page rather than floating over it) the
//! scope toolbar and the mode card — clipped to the first screen; two of them overlap
//! when they share more than 4 px². On phones in portrait the PTT dock floats over the
//! page's scrolling content by design: there the toolbar and cards (which scroll under
//! it) are left out, and the dock must not cover the VFOs or the scope.

use super::*;

/// The models of the built-in simulator.
pub const MODELS: &[&str] = &["ic7610", "ic705", "ic7100", "ic9700"];

/// The screens: width, height, phone (touch, mobile viewport).
pub const SCREENS: &[(u32, u32, bool)] = &[
    (1440, 900, false),
    (1366, 768, false),
    (390, 844, true),
    (844, 390, true),
];

/// What a cell looks like, measured in the page: `{ptt, scope, overlaps, zeros}`.
pub const CELL_CHECK: &str = r#"
(() => {
  const W = innerWidth, H = innerHeight;
  const vis = (e) => {
    const r = e.getBoundingClientRect();
    const x0 = Math.max(0, r.left), y0 = Math.max(0, r.top), x1 = Math.min(W, r.right), y1 = Math.min(H, r.bottom);
    return { x0, y0, x1, y1, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0), full: r.top >= 0 && r.left >= 0 && r.bottom <= H && r.right <= W && r.width > 0 };
  };
  const shown = (e) => e && e.offsetParent !== null || (e && getComputedStyle(e).position === 'fixed');
  const dock = document.getElementById('dock');
  const floating = getComputedStyle(dock).position === 'fixed';
  const boxes = [['top', document.querySelector('.top')]];
  document.querySelectorAll('.vfo').forEach((e, i) => boxes.push([`vfo${i}`, e]));
  boxes.push(['scope', document.getElementById('scope')], ['ptt', document.getElementById('ptt')], ['listen', document.getElementById('listen')]);
  if (!floating) boxes.push(['scope-bar', document.getElementById('scope-bar')], ['card-mode', document.getElementById('card-mode')]);
  const list = boxes.filter(([, e]) => shown(e)).map(([n, e]) => [n, vis(e)]).filter(([, v]) => v.w > 0 && v.h > 0);
  const overlaps = [];
  for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) {
    const [a, p] = list[i], [b, q] = list[j];
    // the PTT button sits inside nothing else of the list; Listen beside it
    const w = Math.min(p.x1, q.x1) - Math.max(p.x0, q.x0), h = Math.min(p.y1, q.y1) - Math.max(p.y0, q.y0);
    if (w > 0 && h > 0 && w * h > 4) overlaps.push(`${a}/${b} ${Math.round(w)}x${Math.round(h)}`);
  }
  const ptt = vis(document.getElementById('ptt'));
  const scope = vis(document.getElementById('scope'));
  const zeros = [...document.querySelectorAll('.freq')].filter((f) => /^0+$/.test([...f.querySelectorAll('.d')].map((d) => d.textContent).join('')) || /^0\.000\.000/.test(f.getAttribute('aria-valuetext') || '')).length;
  return { ptt: ptt.full, scopeH: Math.round(scope.h), scopeW: Math.round(scope.w), overlaps, zeros, scrollW: document.documentElement.scrollWidth, W };
})()
"#;

#[test]
fn every_model_on_every_screen_shows_ptt_and_scope_without_overlaps_zeros_or_errors() {
    let _t = turn();
    let dir = cdp::artifacts_dir()
        .parent()
        .expect("target dir")
        .join("ui-matrix");
    let began = Instant::now();
    let page = Browser::shared().new_page(1440, 900);
    let mut failures = Vec::new();
    // errors are counted per cell (the tab keeps every cell's log)
    let mut errors_seen = 0;
    for model in MODELS {
        let srv = start_server(serve_config(model, None), Tuning::default());
        for &(w, h, phone) in SCREENS {
            page.resize(w, h, phone);
            page.navigate(&url(srv.addr()));
            page.wait_for(
                "window.rigweb && window.rigweb.link === 'online' && window.rigweb.scope.rows > 3",
                Duration::from_secs(30),
            );
            // the layout has settled (fonts, the first state drawn)
            std::thread::sleep(Duration::from_millis(300));
            let cell = format!("{model} {w}x{h}");
            let c = page.eval(CELL_CHECK);
            page.screenshot_at(&dir.join(format!("{model}-{w}x{h}.png")));
            if c["ptt"] != true {
                failures.push(format!("{cell}: PTT not wholly in the first screen"));
            }
            let (sh, sw) = (c["scopeH"].as_f64().unwrap(), c["scopeW"].as_f64().unwrap());
            if sh < 120.0 || sw < f64::from(w) * 0.5 {
                failures.push(format!(
                    "{cell}: only {sw}x{sh} px of the scope in the first screen"
                ));
            }
            if c["overlaps"] != serde_json::json!([]) {
                failures.push(format!("{cell}: overlaps {}", c["overlaps"]));
            }
            if c["zeros"] != 0 {
                failures.push(format!("{cell}: a frequency drawn as zeros"));
            }
            if c["scrollW"].as_u64() > c["W"].as_u64() {
                failures.push(format!("{cell}: scrolls sideways ({})", c["scrollW"]));
            }
            let errors = page.console_errors();
            if errors.len() > errors_seen {
                failures.push(format!(
                    "{cell}: console errors {:?}",
                    &errors[errors_seen..]
                ));
            }
            errors_seen = errors.len();
        }
        // leave the page before its server goes: its reconnect attempts are not the next
        // cell's errors
        page.navigate("about:blank");
        srv.shutdown();
        errors_seen = page.console_errors().len();
    }
    eprintln!(
        "matrix: {} cells in {:.1} s, screenshots in {}",
        MODELS.len() * SCREENS.len(),
        began.elapsed().as_secs_f64(),
        dir.display()
    );
    assert!(
        failures.is_empty(),
        "matrix failures:\n{}",
        failures.join("\n")
    );
}
