//! `GET /metrics`: the server's figures in the Prometheus text format, read at scrape
//! time from the counters the parts keep (`metrics.rs` has the format and the figures
//! nobody else keeps). Behind the bearer token when authentication is on.

use std::time::Instant;

use tiny_http::{Response, StatusCode};

use super::context::AppCtx;
use super::response::{Reply, make_header};
use super::ws::registry::WsRoute;
use crate::lan::link::LinkState;
use crate::lan::session::recovery::{LanPort, Recovery};
use crate::metrics::{MetricKind, MetricsText};

/// The link states a gauge is kept for (one is 1, the others 0).
const LINK_STATES: [&str; 5] = [
    "disconnected",
    "connecting",
    "connected",
    "reconnecting",
    "failed",
];

/// The page.
pub fn render(app: &AppCtx) -> String {
    use MetricKind::{Counter, Gauge};
    let mut m = MetricsText::default();
    m.single(
        "rigweb_uptime_seconds",
        Gauge,
        "Seconds since the server started.",
        app.started.elapsed().as_secs_f64(),
    );

    m.family(
        "rigweb_ws_clients",
        Gauge,
        "WebSocket clients connected, per channel.",
    );
    for route in WsRoute::ALL {
        m.sample(
            "rigweb_ws_clients",
            &[("channel", route.name())],
            app.ws.count(route) as f64,
        );
    }

    let streams = &app.stream_stats;
    m.family(
        "rigweb_stream_frames_sent_total",
        Counter,
        "Stream frames written to clients' sockets, per stream.",
    );
    for (name, h) in [
        ("scope", &streams.scope),
        ("audio", &streams.audio),
        ("meters", &streams.meters),
    ] {
        m.sample(
            "rigweb_stream_frames_sent_total",
            &[("stream", name)],
            h.count() as f64,
        );
    }

    m.family(
        "rigweb_stream_frames_dropped_total",
        Counter,
        "Stream frames dropped for clients that were behind (newest wins), per stream.",
    );
    for (name, n) in [
        ("scope", &streams.scope_dropped),
        ("audio", &streams.audio_dropped),
        ("meters", &streams.meters_dropped),
    ] {
        m.sample(
            "rigweb_stream_frames_dropped_total",
            &[("stream", name)],
            n.load(std::sync::atomic::Ordering::Relaxed) as f64,
        );
    }

    let exec = app.radio.executor_stats();
    m.family(
        "rigweb_commands_total",
        Counter,
        "CI-V requests to the radio by result (polls included).",
    );
    for (result, n) in [
        ("ok", exec.ok),
        ("nak", exec.naks),
        ("timeout", exec.timeouts),
    ] {
        m.sample("rigweb_commands_total", &[("result", result)], n as f64);
    }
    m.single(
        "rigweb_civ_retransmits_total",
        Counter,
        "CI-V requests sent again after a timeout.",
        exec.retries as f64,
    );

    let link = app.radio.link_status();
    let now = link.state.as_str();
    m.family(
        "rigweb_radio_link_state",
        Gauge,
        "The radio link's state (1 for the current one).",
    );
    for state in LINK_STATES {
        m.sample(
            "rigweb_radio_link_state",
            &[("state", state)],
            f64::from(u8::from(state == now)),
        );
    }
    m.single(
        "rigweb_radio_link_up",
        Gauge,
        "1 while commands can reach the radio.",
        f64::from(u8::from(link.state == LinkState::Ready)),
    );
    m.single(
        "rigweb_radio_connects_total",
        Counter,
        "Successful connections to the radio.",
        link.connects as f64,
    );
    m.single(
        "rigweb_radio_datagrams_malformed_total",
        Counter,
        "Datagrams from the radio dropped as malformed or foreign.",
        link.malformed as f64,
    );
    type Count = fn(&Recovery) -> u64;
    let recovery: [(&str, &str, Count); 3] = [
        (
            "rigweb_radio_packets_resent_total",
            "Packets sent to the radio again because it asked (it missed them), per LAN port.",
            |r| r.resent,
        ),
        (
            "rigweb_radio_retransmit_requests_total",
            "Retransmit requests sent for the radio's packets that did not arrive, per LAN port.",
            |r| r.requests_sent,
        ),
        (
            "rigweb_radio_packets_lost_total",
            "The radio's packets given up after the last retransmit request, per LAN port.",
            |r| r.abandoned,
        ),
    ];
    for (name, help, count) in recovery {
        m.family(name, Counter, help);
        for port in LanPort::ALL {
            m.sample(
                name,
                &[("port", port.as_str())],
                count(&link.recovery[port.index()]) as f64,
            );
        }
    }

    m.single(
        "rigweb_tx_seconds_total",
        Counter,
        "Seconds the radio has transmitted (from its own PTT reports).",
        app.metrics.tx.total(Instant::now()).as_secs_f64(),
    );

    let dsp = app.radio.dsp_stats();
    m.family(
        "rigweb_opus_frames_total",
        Counter,
        "Opus frames encoded, by channel count.",
    );
    for (ch, n) in [("1", dsp.opus_frames[0]), ("2", dsp.opus_frames[1])] {
        m.sample("rigweb_opus_frames_total", &[("channels", ch)], n as f64);
    }
    m.single(
        "rigweb_opus_encoders",
        Gauge,
        "Opus encoders running.",
        dsp.encoders as f64,
    );
    m.finish()
}

/// The reply to `GET /metrics`.
pub fn reply(app: &AppCtx) -> Reply {
    Response::from_data(render(app).into_bytes())
        .with_status_code(StatusCode(200))
        .with_header(make_header(
            "Content-Type",
            "text/plain; version=0.0.4; charset=utf-8",
        ))
        .with_header(make_header("Cache-Control", "no-store"))
}
