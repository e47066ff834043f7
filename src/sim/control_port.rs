//! The control port of the simulated radio: login with the credential check, the token
//! kinds, capabilities and radio conninfo, and stream requests with the GUID echo
//! check, held sessions and the codec rules.

use std::time::Instant;

use super::client::{AudioGrant, SessionEnd};
use super::protocol::{Outbox, SAMPLE_RATES, SimProtocol};
use crate::wire::lan::{
    self, CapabilitiesRepr, LoginRepr, LoginResponseRepr, RadioCapability, RadioConnInfoRepr,
    StatusRepr, StreamRequestRepr, TokenRepr, codec, credentials, token_kind,
};

impl SimProtocol {
    pub(super) fn login(&mut self, i: usize, l: LoginRepr, now: Instant, out: &mut Outbox) {
        let ok = credentials::matches(&l.username, &self.cfg.user)
            && credentials::matches(&l.password, &self.cfg.password);
        let token = self.rng.nonzero_u32();
        let conn_type = self
            .cfg
            .profile
            .radio
            .lan_server
            .clone()
            .unwrap_or_else(|| "FTTH".into());
        let c = &mut self.clients[i];
        // a new login supersedes a logout of the same round
        c.ending = None;
        if ok {
            self.stats.logins_ok += 1;
            c.logged_in = true;
            c.token = token;
            c.tok_request = l.tok_request;
            c.computer_name = l.computer_name.clone();
            log::info!(
                "simulator: {} logged in from {}",
                l.computer_name,
                c.ctrl_addr
            );
        } else {
            self.stats.logins_rejected += 1;
            c.logged_in = false;
            log::info!(
                "simulator: login from {} refused (bad credentials)",
                c.ctrl_addr
            );
        }
        let resp = LoginResponseRepr {
            seq: 0,
            sent_id: 0,
            rcvd_id: 0,
            inner_seq: l.inner_seq,
            tok_request: l.tok_request,
            token: if ok { token } else { 0 },
            auth_start_id: 0,
            error: if ok {
                0
            } else {
                lan::LOGIN_ERROR_BAD_CREDENTIALS
            },
            connection_type: conn_type,
        };
        self.send_ctrl(i, now, out, resp);
    }

    /// Handles a token request.
    pub(super) fn token(&mut self, i: usize, t: TokenRepr, now: Instant, out: &mut Outbox) {
        if !self.clients[i].logged_in {
            log::debug!("simulator: token packet before login ignored");
            return;
        }
        let valid = t.token == self.clients[i].token;
        match t.request_type {
            token_kind::ACK => {
                self.send_capabilities(i, now, out);
                self.send_radio_conninfo(i, now, out);
            }
            token_kind::RENEW => {
                let response = if valid { 0 } else { lan::ERROR_REJECTED };
                self.token_reply(i, &t, response, now, out);
            }
            token_kind::REMOVE => {
                self.token_reply(i, &t, 0, now, out);
                // the streams close at the end of this round (SessionEnd)
                let c = &mut self.clients[i];
                c.ending = c.ending.max(Some(SessionEnd::LoggedOut));
            }
            token_kind::STOP_STREAMS => {
                self.token_reply(i, &t, 0, now, out);
                self.close_streams(i, now);
                self.send_radio_conninfo(i, now, out);
            }
            other => log::debug!("simulator: token request type {other:#04x} ignored"),
        }
    }

    fn token_reply(
        &mut self,
        i: usize,
        t: &TokenRepr,
        response: u32,
        now: Instant,
        out: &mut Outbox,
    ) {
        let mut reply = t.clone();
        reply.request_reply = 0x02;
        reply.response = response;
        self.send_ctrl(i, now, out, reply);
    }

    fn send_capabilities(&mut self, i: usize, now: Instant, out: &mut Outbox) {
        let p = &self.cfg.profile;
        let c = &self.clients[i];
        let caps = CapabilitiesRepr {
            seq: 0,
            sent_id: 0,
            rcvd_id: 0,
            inner_seq: 0,
            tok_request: c.tok_request,
            token: c.token,
            radios: vec![RadioCapability {
                guid: self.guid,
                name: p.model().to_string(),
                audio_name: "ICOM_VAUDIO".into(),
                conn_type: p.radio.conn_type,
                civ_addr: p.radio.civ_addr,
                rx_caps: 0x8B01,
                tx_caps: 0x8B01,
                enable: [1, 1, 1],
                baud: 115_200,
                capf: 0x5001,
                capg: 0x0190,
            }],
        };
        self.send_ctrl(i, now, out, caps);
    }

    fn send_radio_conninfo(&mut self, i: usize, now: Instant, out: &mut Outbox) {
        let holder = self.clients.iter().find(|c| c.grant.is_some());
        let (busy, name, ip) = match holder {
            Some(h) => (1, h.computer_name.clone(), h.ipv4()),
            None => (0, String::new(), 0),
        };
        let c = &self.clients[i];
        let info = RadioConnInfoRepr {
            seq: 0,
            sent_id: 0,
            rcvd_id: 0,
            inner_seq: 0,
            tok_request: c.tok_request,
            token: c.token,
            guid: self.guid,
            radio_name: self.cfg.profile.model().to_string(),
            busy,
            computer_name: name,
            user_ip: ip,
        };
        self.send_ctrl(i, now, out, info);
    }

    pub(super) fn stream_request(
        &mut self,
        i: usize,
        r: StreamRequestRepr,
        now: Instant,
        out: &mut Outbox,
    ) {
        let c = &self.clients[i];
        if !c.logged_in || r.token != c.token {
            log::debug!("simulator: stream request without a valid login ignored");
            return;
        }
        let other_holds = self
            .clients
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && o.grant.is_some());
        let cooling = self.cooldown_until.is_some_and(|t| now < t);
        let single_rx = self.cfg.profile.radio.receivers == 1;
        let (error, civ_port) = if r.guid != self.guid {
            self.stats.guid_mismatches += 1;
            self.stats.streams_held += 1;
            log::info!("simulator: stream request with a wrong GUID echo: answering CI-V port 0");
            (0, 0)
        } else if other_holds || cooling {
            self.stats.streams_held += 1;
            log::info!(
                "simulator: session still held (busy or cooling down): answering CI-V port 0"
            );
            (0, 0)
        } else if !acceptable_audio(&r, single_rx) {
            self.stats.streams_rejected += 1;
            log::info!(
                "simulator: stream request rejected (rx codec {:#04x}, tx codec {:#04x}, rates {}/{} Hz)",
                r.rx_codec,
                r.tx_codec,
                r.rx_sample_rate,
                r.tx_sample_rate
            );
            (lan::ERROR_REJECTED, 0)
        } else {
            self.stats.streams_granted += 1;
            let c = &mut self.clients[i];
            c.grant = Some(AudioGrant {
                rx_codec: r.rx_codec,
                tx_codec: r.tx_codec,
                rx_rate: r.rx_sample_rate,
                tx_rate: r.tx_sample_rate,
                rx_enable: r.rx_enable,
            });
            (0, self.addrs.civ.port())
        };
        let granted = civ_port != 0;
        let status = StatusRepr {
            seq: 0,
            sent_id: 0,
            rcvd_id: 0,
            inner_seq: r.inner_seq,
            tok_request: r.tok_request,
            token: r.token,
            guid: r.guid,
            error,
            disconnected: false,
            civ_port,
            audio_port: if granted { self.addrs.audio.port() } else { 0 },
        };
        self.send_ctrl(i, now, out, status);
        // the radio's conninfo follows every stream request, granted or not (spec §2.8):
        // a client that lost the first one (and echoed a zero GUID) learns the GUID here
        // and its retry succeeds
        self.send_radio_conninfo(i, now, out);
    }
}

/// Whether the radio can serve the audio a stream request asks for: a direction left
/// disabled may name any codec; an enabled one needs a rate the radio advertises, TX in
/// mono (the IC-7610 rejects stereo TX), and RX in mono on a single-receiver radio.
fn acceptable_audio(r: &StreamRequestRepr, single_rx: bool) -> bool {
    let rx_ok = !r.rx_enable
        || (SAMPLE_RATES.contains(&r.rx_sample_rate)
            && crate::wire::lan::audio_codec::block_bytes(r.rx_codec, r.rx_sample_rate).is_some()
            && !(single_rx && codec::channels(r.rx_codec) == Some(2)));
    let tx_ok = !r.tx_enable
        || (SAMPLE_RATES.contains(&r.tx_sample_rate) && codec::channels(r.tx_codec) == Some(1));
    rx_ok && tx_ok
}
