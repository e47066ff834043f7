//! RX audio: the decode -> worklet pipeline, the audio channel, the stream channels.

use super::*;

#[test]
fn rx_audio_plays_through_the_worklet() {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1280, 900, "dark");
    page.click("#listen");
    page.wait_for("window.rigweb.audio.frames > 50", Duration::from_secs(15));
    // the worklet's ring filled to its target and the output is not silence
    page.wait_for("window.rigweb.audio.avgMs > 60", Duration::from_secs(10));
    page.wait_for("window.rigweb.audio.peak > 0.001", Duration::from_secs(10));
    let a = page.eval("window.rigweb.audio");
    assert_eq!(
        a["codec"], "opus",
        "WebCodecs decodes Opus on a secure page: {a}"
    );
    let latency = a["latencyMs"].as_f64().unwrap();
    assert!(
        (50.0..400.0).contains(&latency),
        "latency readout {latency} ms"
    );
    page.wait_for(
        "!document.getElementById('audio-pill').hidden",
        Duration::from_secs(5),
    );
    page.assert_no_console_errors();
    srv.shutdown();
}

fn rx_pipeline_plays(codec: &str) {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1280, 900, "dark");
    let n = page.eval(&feed_tone(codec));
    assert!(n.as_u64().unwrap() >= 140, "frames made: {n}");
    // the worklet's ring fills to its target, the output is the tone (not silence), and
    // the page shows a latency figure
    page.wait_for("window.rigweb.audio.frames > 40", Duration::from_secs(10));
    page.wait_for("window.rigweb.audio.avgMs > 60", Duration::from_secs(10));
    page.wait_for("window.rigweb.audio.peak > 0.1", Duration::from_secs(10));
    let a = page.eval("window.rigweb.audio");
    assert_eq!(a["codec"], codec, "{a}");
    let latency = a["latencyMs"].as_f64().unwrap();
    // the ring's target is 100 ms; right after it filled the readout may be a little
    // below it
    assert!(
        (40.0..400.0).contains(&latency),
        "latency {latency} ms: {a}"
    );
    page.wait_for(
        "document.getElementById('audio-pill').textContent.startsWith('RX ')",
        Duration::from_secs(5),
    );
    let errors: Vec<String> = page
        .console_errors()
        .into_iter()
        .filter(|e| e.starts_with("exception"))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    srv.shutdown();
}

#[test]
fn a_replaced_rx_node_falls_silent_and_only_the_one_playing_reports() {
    // the page sets RX up again when the server answers another audio_start (a codec
    // fallback, a reconnect): the node it replaces must not go on reporting its empty
    // ring, or the level, latency and peak readouts flip to zero now and then
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1280, 900, "dark");
    page.eval(&feed_tone("pcm16"));
    page.eval(
        "(() => { const a = window.rigweb.parts.audio; a.setupRx({ direction: 'rx', codec: 'pcm16', sample_rate: 48000, channels: 1 }); const report = a.onWorkletStats.bind(a); a.onWorkletStats = (s) => { (window.__peaks = window.__peaks || []).push(s.peak); report(s); }; return true; })()",
    );
    page.wait_for("window.rigweb.audio.peak > 0.1", Duration::from_secs(15));
    page.eval("window.__peaks = []");
    std::thread::sleep(Duration::from_millis(1500));
    let peaks = page.eval("window.__peaks");
    let peaks: Vec<f64> = peaks
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_f64().unwrap())
        .collect();
    assert!(peaks.len() >= 10, "reports in 1.5 s: {peaks:?}");
    // the two replaced nodes made two reports in three silent; a loaded machine may
    // let the ring run dry once or twice
    let silent = peaks.iter().filter(|p| **p < 0.1).count();
    assert!(
        silent * 5 < peaks.len(),
        "the reports are the tone playing: {peaks:?}"
    );
    srv.shutdown();
}

#[test]
fn the_rx_audio_pipeline_plays_opus_through_webcodecs_and_the_worklet() {
    rx_pipeline_plays("opus");
}

#[test]
fn the_rx_audio_pipeline_plays_pcm16_through_the_worklet() {
    rx_pipeline_plays("pcm16");
}

#[test]
fn listen_says_what_the_server_offers() {
    let _t = turn();
    let srv = start(None);
    let addr = srv.addr();
    // does this server have the audio channel? (101 to an upgrade, or 501 before it)
    let has_audio = common::web::Ws::connect(addr, "/api/v1/audio", &[]).is_ok();
    let page = open(addr, 1280, 900, "dark");
    assert_eq!(
        page.eval("window.rigweb.audio.support.worklet"),
        true,
        "127.0.0.1 is a secure context"
    );
    page.click("#listen");
    let expect = if has_audio {
        "Listening: Opus via WebCodecs"
    } else {
        "no audio channel"
    };
    page.wait_for(
        &format!("document.getElementById('audio-status').textContent.includes({expect:?})"),
        Duration::from_secs(10),
    );
    assert_eq!(
        page.eval("document.getElementById('listen').getAttribute('aria-pressed')"),
        "true"
    );
    // Listen again stops
    page.click("#listen");
    page.wait_for(
        "window.rigweb.audio.listening === false",
        Duration::from_secs(5),
    );
    srv.shutdown();
}

#[test]
fn the_stream_channels_are_used_when_the_server_has_them() {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1280, 800, "dark");
    page.wait_for(
        "window.rigweb.feeds.scope === 'channel' && window.rigweb.feeds.meters === 'channel'",
        Duration::from_secs(10),
    );
    page.eval("window.__seen = new Set(); setInterval(() => window.__seen.add(window.rigweb.meters.smeter), 100)");
    page.wait_for("window.__seen.size >= 4", Duration::from_secs(15));
    // the control socket carries no scope stream then
    let s = state(srv.addr());
    assert_eq!(s["wsClients"]["scope"], 1, "{s}");
    assert_eq!(s["wsClients"]["meters"], 1, "{s}");
    page.assert_no_console_errors();
    srv.shutdown();
}

/// Makes every Opus decoder of the page fail on its first packet (closing itself and
/// reporting an error, as a real decoder does on corrupt data).
const FAILING_OPUS_DECODER: &str = r#"(() => {
  const Real = window.AudioDecoder;
  window.__decoders = 0;
  window.AudioDecoder = class extends Real {
    constructor(init) { super(init); this.__error = init.error; window.__decoders++; }
    decode() {
      if (this.state === 'closed') return;
      this.close();
      const report = this.__error;
      setTimeout(() => report(new DOMException('injected decoder failure', 'EncodingError')), 0);
    }
  };
  return true;
})()"#;

#[test]
fn a_failing_opus_decoder_falls_back_to_pcm16_and_keeps_playing() {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1280, 900, "dark");
    page.eval(FAILING_OPUS_DECODER);
    page.click("#listen");
    // Opus first; the decoder fails; the page asks the server for PCM16 on the same socket
    page.wait_for("window.__decoders === 1", Duration::from_secs(10));
    page.wait_for(
        "window.rigweb.audio.codec === 'pcm16'",
        Duration::from_secs(10),
    );
    let frames = page.eval("window.rigweb.audio.frames").as_u64().unwrap();
    page.wait_for(
        &format!("window.rigweb.audio.frames > {} && window.rigweb.audio.avgMs > 60 && window.rigweb.audio.peak > 0.001", frames + 50),
        Duration::from_secs(15),
    );
    let status = page.eval("document.getElementById('audio-status').textContent");
    assert!(
        status.as_str().unwrap().contains("PCM16"),
        "the page says it plays PCM16: {status}"
    );
    assert_eq!(page.eval("window.__decoders"), 1, "no second Opus decoder");
    // listening again stays on PCM16
    page.click("#listen");
    page.wait_for(
        "window.rigweb.audio.listening === false",
        Duration::from_secs(5),
    );
    page.click("#listen");
    page.wait_for(
        "window.rigweb.audio.listening && window.rigweb.audio.codec === 'pcm16' && document.getElementById('audio-status').textContent.includes('Listening: PCM16')",
        Duration::from_secs(10),
    );
    assert_eq!(page.eval("window.__decoders"), 1);
    page.assert_no_console_errors();
    srv.shutdown();
}
