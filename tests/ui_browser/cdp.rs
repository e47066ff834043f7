//! Headless Chromium driven over the DevTools protocol (CDP) on a loopback WebSocket:
//! one browser per test process, a fresh tab per test. Chromium is started with the
//! flags of a machine without internet (no QUIC, no background networking, no component
//! updates or sync) and a fresh profile, as a child that dies with the test process.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded};
use parking_lot::Mutex;
use serde_json::{Value, json};
use tungstenite::{Message, WebSocket};

/// Where Chromium is looked for (Debian's package first).
const CHROMIUM: &[&str] = &[
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
];

/// The flags of every run: headless, no sandbox (containers), no GPU, nothing that
/// reaches out to the internet, audio without a gesture, a fake microphone.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--autoplay-policy=no-user-gesture-required",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--host-resolver-rules=MAP rigweb.test 127.0.0.1",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
];

/// The Chromium binary, or None when it is not installed.
pub fn chromium_path() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("RIGWEB_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    CHROMIUM.iter().map(PathBuf::from).find(|p| p.exists())
}

/// Where screenshots and other artifacts of the browser tests go.
pub fn artifacts_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let dir = target.join("ui-artifacts");
    std::fs::create_dir_all(&dir).expect("artifacts dir");
    dir
}

type Pending = Arc<Mutex<HashMap<u64, Sender<Value>>>>;
type Events = Arc<Mutex<HashMap<String, Vec<Value>>>>;

/// The DevTools connection: one WebSocket, a reader thread routing answers to their
/// callers and events to their sessions.
pub struct Browser {
    ws: Arc<Mutex<WebSocket<TcpStream>>>,
    next_id: AtomicU64,
    pending: Pending,
    events: Events,
    pid: u32,
}

impl Browser {
    /// The browser shared by the tests of this process (started on first use).
    pub fn shared() -> &'static Browser {
        static SHARED: OnceLock<Browser> = OnceLock::new();
        SHARED.get_or_init(Browser::launch)
    }

    fn launch() -> Browser {
        let exe = chromium_path().unwrap_or_else(|| {
            panic!("Chromium is not installed: `apt-get install -y chromium` (.ci/run does this)")
        });
        let profile = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("chromium-profile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).expect("profile dir");
        // started from a thread that lives as long as the process: PR_SET_PDEATHSIG fires
        // when the spawning thread ends, and so the browser dies with the test process
        let (tx, rx) = bounded::<(u32, Box<dyn std::io::Read + Send>)>(1);
        let exe2 = exe.clone();
        let profile2 = profile.clone();
        std::thread::Builder::new()
            .name("chromium-keeper".into())
            .spawn(move || {
                let mut cmd = Command::new(&exe2);
                cmd.args(FLAGS)
                    .arg(format!("--user-data-dir={}", profile2.display()))
                    .arg("about:blank")
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped());
                // SAFETY: prctl is async-signal-safe; it only sets this child's death signal.
                unsafe {
                    use std::os::unix::process::CommandExt;
                    cmd.pre_exec(|| {
                        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                        Ok(())
                    });
                }
                let mut child = cmd.spawn().expect("chromium starts");
                let stderr = child.stderr.take().expect("stderr");
                tx.send((child.id(), Box::new(stderr))).expect("hand over");
                let _ = child.wait();
                // keep this thread (and with it the death signal) until the process ends
                loop {
                    std::thread::park();
                }
            })
            .expect("keeper thread");
        let (pid, stderr) = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("chromium spawned");
        let (url_tx, url_rx) = bounded::<String>(1);
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if !sent && let Some(i) = line.find("ws://") {
                    let _ = url_tx.send(line[i..].trim().to_string());
                    sent = true;
                }
            }
        });
        let url = url_rx
            .recv_timeout(Duration::from_secs(60))
            .expect("Chromium announces its DevTools address");
        let host = url
            .trim_start_matches("ws://")
            .split('/')
            .next()
            .expect("host:port")
            .to_string();
        let stream = TcpStream::connect(&host).expect("DevTools port");
        stream.set_nodelay(true).ok();
        let (ws, _) = tungstenite::client(url.as_str(), stream).expect("DevTools WebSocket");
        ws.get_ref()
            .set_read_timeout(Some(Duration::from_millis(5)))
            .expect("timeout");
        let ws = Arc::new(Mutex::new(ws));
        let pending: Pending = Arc::default();
        let events: Events = Arc::default();
        let (w, p, e) = (ws.clone(), pending.clone(), events.clone());
        std::thread::Builder::new()
            .name("cdp-reader".into())
            .spawn(move || reader(&w, &p, &e))
            .expect("reader thread");
        Browser {
            ws,
            next_id: AtomicU64::new(1),
            pending,
            events,
            pid,
        }
    }

    /// Sends a command (to a session, or to the browser) and waits for its result.
    pub fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx): (Sender<Value>, Receiver<Value>) = bounded(1);
        self.pending.lock().insert(id, tx);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.ws
            .lock()
            .send(Message::Text(msg.to_string().into()))
            .map_err(|e| format!("{method}: send: {e}"))?;
        let answer = rx
            .recv_timeout(Duration::from_secs(60))
            .map_err(|_| format!("{method}: no answer in 60 s"))?;
        if let Some(err) = answer.get("error") {
            return Err(format!("{method}: {err}"));
        }
        Ok(answer["result"].clone())
    }

    /// Opens a tab of `width` x `height` CSS pixels and attaches to it.
    pub fn new_page(&'static self, width: u32, height: u32) -> Page {
        let t = self
            .call(
                None,
                "Target.createTarget",
                json!({"url": "about:blank", "width": width, "height": height, "newWindow": true}),
            )
            .expect("new tab");
        let target = t["targetId"].as_str().expect("targetId").to_string();
        let a = self
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target, "flatten": true}),
            )
            .expect("attach");
        let session = a["sessionId"].as_str().expect("sessionId").to_string();
        let page = Page {
            browser: self,
            session,
            target,
        };
        for domain in [
            "Page.enable",
            "Runtime.enable",
            "Log.enable",
            "Network.enable",
            "Performance.enable",
        ] {
            page.call(domain, json!({}));
        }
        page.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        );
        page
    }

    /// The browser process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }
}

fn reader(ws: &Arc<Mutex<WebSocket<TcpStream>>>, pending: &Pending, events: &Events) {
    loop {
        let msg = {
            let mut g = ws.lock();
            g.read()
        };
        match msg {
            Ok(Message::Text(t)) => {
                let Ok(v) = serde_json::from_str::<Value>(t.as_str()) else {
                    continue;
                };
                if let Some(id) = v.get("id").and_then(Value::as_u64) {
                    if let Some(tx) = pending.lock().remove(&id) {
                        let _ = tx.send(v);
                    }
                } else if let Some(s) = v.get("sessionId").and_then(Value::as_str) {
                    events.lock().entry(s.to_string()).or_default().push(v);
                }
            }
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(_) => return,
        }
    }
}

/// One tab.
pub struct Page {
    browser: &'static Browser,
    session: String,
    target: String,
}

impl Drop for Page {
    fn drop(&mut self) {
        let _ = self
            .browser
            .call(None, "Target.closeTarget", json!({"targetId": self.target}));
        self.browser.events.lock().remove(&self.session);
    }
}

impl Page {
    /// A CDP command in this tab; panics on failure.
    pub fn call(&self, method: &str, params: Value) -> Value {
        self.browser
            .call(Some(&self.session), method, params)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Emulates a phone: `width` x `height`, touch, mobile viewport.
    pub fn emulate_phone(&self, width: u32, height: u32) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 2, "mobile": true}),
        );
        self.call(
            "Emulation.setTouchEmulationEnabled",
            json!({"enabled": true, "maxTouchPoints": 5}),
        );
    }

    /// Light or dark `prefers-color-scheme`.
    pub fn color_scheme(&self, scheme: &str) {
        self.call(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}),
        );
    }

    /// Loads `url` and waits until the document has loaded.
    pub fn navigate(&self, url: &str) {
        self.call("Page.navigate", json!({"url": url}));
        self.wait_for(
            "document.readyState === 'complete'",
            Duration::from_secs(30),
        );
    }

    /// Evaluates `expr` (awaiting promises) and returns its value.
    pub fn eval(&self, expr: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true, "userGesture": true}),
        );
        if let Some(ex) = r.get("exceptionDetails") {
            panic!("evaluating {expr}: {ex}");
        }
        r["result"]["value"].clone()
    }

    /// What the page says of its connection and feeds (for failure messages).
    pub fn diagnostics(&self) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": "(() => { try { const r = window.rigweb, f = r.parts.feeds; return { link: r.link, feeds: r.feeds, subscribed: f.subscribed, visible: f.visible, scopeCh: f.scopeCh.state, metersCh: f.metersCh.state, control: r.parts.control.channel.state, scope: r.scope, audio: r.audio, audioContext: r.parts.audio.ctx ? { state: r.parts.audio.ctx.state, time: r.parts.audio.ctx.currentTime } : null }; } catch (e) { return String(e); } })()", "returnByValue": true}),
        );
        r["result"]["value"].clone()
    }

    /// Polls `expr` until it is truthy; returns its value. Panics after `timeout`.
    pub fn wait_for(&self, expr: &str, timeout: Duration) -> Value {
        let end = Instant::now() + timeout;
        loop {
            let r = self.call(
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
            );
            let v = r["result"]["value"].clone();
            let truthy = match &v {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
                Value::String(s) => !s.is_empty(),
                _ => true,
            };
            if truthy && r.get("exceptionDetails").is_none() {
                return v;
            }
            if Instant::now() > end {
                panic!(
                    "waited {timeout:?} for `{expr}`; last value {v}, page: {}, errors: {:?}",
                    self.diagnostics(),
                    self.console_errors()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The centre of the first element matching `selector`, in CSS pixels.
    pub fn center_of(&self, selector: &str) -> (f64, f64) {
        let v = self.eval(&format!(
            "(() => {{ const e = document.querySelector({sel}); e.scrollIntoView({{block: 'nearest', inline: 'nearest'}}); const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()",
            sel = json!(selector)
        ));
        (v[0].as_f64().expect("x"), v[1].as_f64().expect("y"))
    }

    /// A point inside an element: `fx`, `fy` are fractions of its width and height.
    pub fn point_in(&self, selector: &str, fx: f64, fy: f64) -> (f64, f64) {
        let v = self.eval(&format!(
            "(() => {{ const e = document.querySelector({sel}); e.scrollIntoView({{block: 'nearest', inline: 'nearest'}}); const r = e.getBoundingClientRect(); return [r.left + r.width * {fx}, r.top + r.height * {fy}]; }})()",
            sel = json!(selector)
        ));
        (v[0].as_f64().expect("x"), v[1].as_f64().expect("y"))
    }

    /// A mouse button event.
    pub fn mouse(&self, kind: &str, x: f64, y: f64) {
        self.call(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": if kind == "mouseReleased" { 0 } else { 1 }, "clickCount": 1}),
        );
    }

    /// A left click at (x, y).
    pub fn click_at(&self, x: f64, y: f64) {
        self.call(
            "Input.dispatchMouseEvent",
            json!({"type": "mouseMoved", "x": x, "y": y}),
        );
        self.mouse("mousePressed", x, y);
        self.mouse("mouseReleased", x, y);
    }

    /// Clicks the centre of an element.
    pub fn click(&self, selector: &str) {
        let (x, y) = self.center_of(selector);
        self.click_at(x, y);
    }

    /// A key press (keyDown + keyUp) of a named key, e.g. "ArrowRight".
    pub fn key(&self, key: &str, code: &str, key_code: u32) {
        let text = match key {
            "Enter" => "\r",
            k if k.chars().count() == 1 => k,
            _ => "",
        };
        let mut down = json!({"type": if text.is_empty() { "rawKeyDown" } else { "keyDown" }, "key": key, "code": code, "windowsVirtualKeyCode": key_code});
        if !text.is_empty() {
            down["text"] = json!(text);
        }
        self.call("Input.dispatchKeyEvent", down);
        self.call(
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": key_code}),
        );
    }

    /// Types text into the focused element.
    pub fn type_text(&self, text: &str) {
        self.call("Input.insertText", json!({"text": text}));
    }

    /// Saves a PNG screenshot of the viewport under the artifacts directory.
    pub fn screenshot(&self, name: &str) -> PathBuf {
        let v = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64_decode(v["data"].as_str().expect("png data"));
        let path = artifacts_dir().join(name);
        std::fs::write(&path, png).expect("write screenshot");
        path
    }

    /// Saves a PNG screenshot of the viewport at `path` (its directory is created).
    pub fn screenshot_at(&self, path: &Path) {
        let v = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64_decode(v["data"].as_str().expect("png data"));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("screenshot dir");
        }
        std::fs::write(path, png).expect("write screenshot");
    }

    /// Resizes the viewport: a desktop window, or a phone (touch, mobile viewport).
    pub fn resize(&self, width: u32, height: u32, phone: bool) {
        if phone {
            self.emulate_phone(width, height);
        } else {
            self.call(
                "Emulation.setTouchEmulationEnabled",
                json!({"enabled": false}),
            );
            self.call(
                "Emulation.setDeviceMetricsOverride",
                json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
            );
        }
    }

    /// The DevTools performance metrics (`TaskDuration`, `ScriptDuration`, ...).
    pub fn metrics(&self) -> HashMap<String, f64> {
        let v = self.call("Performance.getMetrics", json!({}));
        v["metrics"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|m| Some((m["name"].as_str()?.to_string(), m["value"].as_f64()?)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every error the page reported so far: uncaught exceptions, `console.error`, and
    /// the browser's own error log entries (failed loads), as `source: text (url)`.
    pub fn console_errors(&self) -> Vec<String> {
        let events = self.browser.events.lock();
        let Some(list) = events.get(&self.session) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for e in list {
            let p = &e["params"];
            match e["method"].as_str() {
                Some("Runtime.exceptionThrown") => out.push(format!(
                    "exception: {}",
                    p["exceptionDetails"]["exception"]["description"]
                        .as_str()
                        .unwrap_or_else(|| p["exceptionDetails"]["text"].as_str().unwrap_or("?"))
                )),
                Some("Runtime.consoleAPICalled")
                    if p["type"] == "error" || p["type"] == "assert" =>
                {
                    let args: Vec<String> = p["args"]
                        .as_array()
                        .map(|a| a.iter().map(|x| x["value"].to_string()).collect())
                        .unwrap_or_default();
                    out.push(format!("console.error: {}", args.join(" ")));
                }
                Some("Log.entryAdded") if p["entry"]["level"] == "error" => out.push(format!(
                    "{}: {} ({})",
                    p["entry"]["source"].as_str().unwrap_or("?"),
                    p["entry"]["text"].as_str().unwrap_or("?"),
                    p["entry"]["url"].as_str().unwrap_or("")
                )),
                _ => {}
            }
        }
        out
    }

    /// Fails the test when the page logged errors (favicon included).
    pub fn assert_no_console_errors(&self) {
        let errors = self.console_errors();
        assert!(errors.is_empty(), "console errors: {errors:?}");
    }

    /// URLs the page requested (from the Network domain).
    pub fn requested_urls(&self) -> Vec<String> {
        let events = self.browser.events.lock();
        events
            .get(&self.session)
            .map(|l| {
                l.iter()
                    .filter(|e| e["method"] == "Network.requestWillBeSent")
                    .filter_map(|e| e["params"]["request"]["url"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Standard base64 (the screenshots' encoding).
pub fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        })
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes() {
        let Some(v) = val(c) else { continue };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}
