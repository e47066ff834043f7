//! An HTTP/1.1 server on 127.0.0.1 serving EiBi season files the way a web server does,
//! and the ways one fails: `/sked-*.csv` (ETag and Last-Modified, 304 to a matching
//! conditional GET), `/missing.csv` (404), `/slow.csv` (trickles), `/stall.csv` (stops
//! half way), `/truncated.csv` (closes before its Content-Length), `/cut.csv` (no
//! length, ends mid-row), `/redirect.csv` (302 to the season file), `/page.html` (not a
//! schedule). Every request is recorded with its headers.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::Mutex;

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The path.
    pub path: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
}

impl Seen {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

struct State {
    body: Vec<u8>,
    etag: String,
    seen: Vec<Seen>,
}

/// See the module docs.
pub struct FileServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

const LAST_MODIFIED: &str = "Sun, 01 Jun 2025 10:00:00 GMT";

impl FileServer {
    /// Serves `body` as the season file, version tag `v1`.
    pub fn start(body: Vec<u8>) -> FileServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State {
            body,
            etag: "\"v1\"".into(),
            seen: Vec::new(),
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let (st, sp) = (state.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut conns = Vec::new();
            while !sp.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((s, _)) => {
                        let (st, sp) = (st.clone(), sp.clone());
                        conns.push(std::thread::spawn(move || serve(s, &st, &sp)));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
            for c in conns {
                let _ = c.join();
            }
        });
        FileServer {
            addr,
            state,
            stop,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Replaces the file (a revision within the season: a new ETag).
    pub fn revise(&self, body: Vec<u8>, etag: &str) {
        let mut s = self.state.lock();
        s.body = body;
        s.etag = etag.into();
    }

    /// The requests so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().seen.clone()
    }
}

impl Drop for FileServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(stream: TcpStream, state: &Mutex<State>, stop: &AtomicBool) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let seen = Seen {
            path: path.clone(),
            headers,
        };
        let (body, etag) = {
            let mut s = state.lock();
            s.seen.push(seen.clone());
            (s.body.clone(), s.etag.clone())
        };
        let head = |status: &str, extra: &str, len: Option<usize>| {
            let len = len
                .map(|n| format!("Content-Length: {n}\r\n"))
                .unwrap_or_default();
            format!("HTTP/1.1 {status}\r\n{len}{extra}\r\n")
        };
        let keep = match path.as_str() {
            p if p.starts_with("/sked-") => {
                if seen.header("if-none-match") == Some(etag.as_str()) {
                    let h = head("304 Not Modified", &format!("ETag: {etag}\r\n"), None);
                    out.write_all(h.as_bytes()).is_ok()
                } else {
                    let extra = format!(
                        "ETag: {etag}\r\nLast-Modified: {LAST_MODIFIED}\r\nContent-Type: text/csv; charset=iso-8859-1\r\n"
                    );
                    out.write_all(head("200 OK", &extra, Some(body.len())).as_bytes())
                        .is_ok()
                        && out.write_all(&body).is_ok()
                }
            }
            "/redirect.csv" => out
                .write_all(head("302 Found", "Location: /sked-a25.csv\r\n", Some(0)).as_bytes())
                .is_ok(),
            "/slow.csv" => {
                let _ = out.write_all(head("200 OK", "", Some(body.len())).as_bytes());
                for chunk in body.chunks(body.len().div_ceil(20)) {
                    if out.write_all(chunk).is_err() || stop.load(Ordering::SeqCst) {
                        return;
                    }
                    let _ = out.flush();
                    std::thread::sleep(Duration::from_millis(100));
                }
                true
            }
            "/stall.csv" => {
                let _ = out.write_all(head("200 OK", "", Some(body.len())).as_bytes());
                let _ = out.write_all(&body[..body.len() / 2]);
                for _ in 0..100 {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                return;
            }
            "/truncated.csv" => {
                let _ = out.write_all(head("200 OK", "", Some(body.len())).as_bytes());
                let _ = out.write_all(&body[..body.len() / 2]);
                return;
            }
            "/cut.csv" => {
                let _ = out.write_all(head("200 OK", "Connection: close\r\n", None).as_bytes());
                let _ = out.write_all(&body[..body.len() / 2 + 7]);
                return;
            }
            "/page.html" => {
                let page = b"<html><body>Not here</body></html>";
                out.write_all(
                    head("200 OK", "Content-Type: text/html\r\n", Some(page.len())).as_bytes(),
                )
                .is_ok()
                    && out.write_all(page).is_ok()
            }
            _ => {
                let msg = b"not found";
                out.write_all(head("404 Not Found", "", Some(msg.len())).as_bytes())
                    .is_ok()
                    && out.write_all(msg).is_ok()
            }
        };
        if !keep {
            return;
        }
    }
}

/// The header line of every season file.
pub const HEADER: &str = "kHz:75;Time(UTC):93;Days:59;ITU:49;Station:201;Lng:49;Target:62;Remarks:135;P:35;Start:60;Stop:60;";

/// A season file in the real format (ISO-8859-1, CRLF): these rows after the header.
pub fn season_file(rows: &[&[u8]]) -> Vec<u8> {
    let mut f = HEADER.as_bytes().to_vec();
    f.extend_from_slice(b"\r\n");
    for r in rows {
        f.extend_from_slice(r);
        f.extend_from_slice(b"\r\n");
    }
    f
}

/// A small season: every day code form, Latin-1 names, a row past midnight, odd rows.
pub fn fixture() -> Vec<u8> {
    season_file(&[
        b"153;0400-2200;;ROU;R Rom\xe2nia Actualit\xe3\xfei;RO;EEu;Bod;1;;",
        b"6070;0000-2400;;CAN;CFRX Toronto;E;ENA;;1;;",
        b"6075;0600-0800;Mo-Fr;D;Deutsche Welle;D;Eu;;1;;",
        b"6080;2300-0100;We-Mo;HOL;Nachtradio;NL;Eu;;0;;",
        b"6085;1000-1100;SaSu;E;Radio Exterior de Espa\xf1a;S;Eu;;1;1104[0426];",
        b"6090;1200-1300;Tu,Fr;F;Radio Fran\xe7aise;F;Af;;1;;",
        b"6095;1300-1400;156;I;RAI Italia;I;Eu;;1;;",
        b"6100;1400-1500;1.Sa;G;BBC Test;E;Eu;;1;;",
        b"6105;1500-1600;8Jun;ARS;Hajj Special;A,F;ME;;1;;",
        b"6110;1600-1700;irr;VTN;Voice of Vietnam;VN;SEA;;1;;",
        b"9420;0000-2400;;GRC;Voice of Greece;G;Eu;a;1;;",
        b";0000-2400;;XXX;odd row without a frequency;E;Eu;;1;;",
        b"9999;25:00;;XXX;odd row with a bad time;E;Eu;;1;;",
        b"11995;0000-2400;Tests;F;Test Transmissions;F;Af;;1;;",
    ])
}
