//! `lan_packet`: `Packet::parse` (the LAN datagram dispatcher) on arbitrary bytes,
//! for all three ports and both origins.
//!
//! Checks, besides "no panic": datagrams shorter than the header fail with
//! `Truncated`; an accepted packet equals what its own Repr parser returns for the
//! same bytes and reports the header's seq; `emit()` of it parses back to the same
//! packet on the same port/origin; the origin only matters for 0x90-byte datagrams
//! on the control port; header-only, ping and retransmit datagrams parse the same
//! on every port.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigweb::wire::lan::{CONNINFO_LEN, HEADER_LEN, PING_LEN, Port, ptype};
use rigweb_fuzz::{PORTS, check_packet};

fuzz_target!(|data: &[u8]| {
    let results: Vec<_> = PORTS
        .iter()
        .map(|&(port, origin)| check_packet(data, port, origin))
        .collect();

    // PORTS is ordered (port, Radio), (port, Client) for each port.
    for (i, pair) in results.chunks(2).enumerate() {
        let port = PORTS[2 * i].0;
        if !(port == Port::Control && data.len() == CONNINFO_LEN) {
            assert_eq!(pair[0], pair[1], "origin changed the result on {port:?}");
        }
    }

    let port_independent = data.len() >= HEADER_LEN
        && (data.len() == HEADER_LEN
            || u16::from_le_bytes([data[4], data[5]]) == ptype::RETRANSMIT
            || (data.len() == PING_LEN && u16::from_le_bytes([data[4], data[5]]) == ptype::PING));
    if port_independent {
        for r in &results[1..] {
            assert_eq!(r, &results[0], "port changed a port-independent result");
        }
    }
});
