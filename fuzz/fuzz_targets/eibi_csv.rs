//! `eibi_csv`: an EiBi season file from the network (`station::eibi::csv`) and the
//! questions the routes ask of what it yields (`station::eibi::dataset`).
//!
//! Input: the first 8 bytes are the instant asked about (seconds since 1970, capped) and
//! query values; the rest is the file.
//!
//! Checks: no panic; a file without the `kHz` header or without readable rows is
//! refused; rows are sorted by frequency, times within a day; every text is free of
//! control characters; stations pages never exceed `per_page` nor `total`; segments
//! lie within the range asked for and are at most the limit; identify ranks on-air
//! candidates first and then by distance, within the tolerance; the band counts add
//! up to at most the rows.
#![no_main]

use std::time::{Duration, UNIX_EPOCH};

use libfuzzer_sys::fuzz_target;
use rigweb::station::eibi::csv::parse;
use rigweb::station::eibi::dataset::StationQuery;
use rigweb::util::time::utc_parts;
use rigweb_fuzz::common::Bytes;

fuzz_target!(|data: &[u8]| {
    let mut input = Bytes::new(data);
    let secs = u64::from(input.u32());
    let a = u64::from(input.u16()) * 1000;
    let b = u64::from(input.u16()) * 1000;
    let file = input.take(usize::MAX);
    let Ok(d) = parse(file) else {
        return;
    };
    let first = file
        .split(|&c| c == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .expect("a schedule has lines");
    assert!(first.starts_with(b"kHz"), "the header");
    assert!(!d.is_empty());
    let t = utc_parts(UNIX_EPOCH + Duration::from_secs(secs));
    for w in d.entries().windows(2) {
        assert!(w[0].freq_hz <= w[1].freq_hz, "sorted");
    }
    for e in d.entries() {
        assert!(e.start < 1440 && e.end <= 1440);
        for s in [
            e.station,
            e.itu,
            e.language,
            e.target,
            e.remarks,
            e.days_text,
        ] {
            assert!(!d.text(s).chars().any(char::is_control));
        }
        let _ = d.on_air(e, &t);
    }
    let (lo, hi) = (a.min(b), a.max(b));
    let q = StationQuery {
        q: Some(String::from_utf8_lossy(&file[..file.len().min(3)]).into_owned()),
        freq_min: Some(lo),
        freq_max: Some(hi),
        language: Some("E".into()),
        target: None,
        on_air: Some(secs % 2 == 0),
    };
    let per_page = 1 + (secs % 7) as usize;
    let (total, items) = d.stations(&q, 1 + (secs % 3) as usize, per_page, &t);
    assert!(items.len() <= per_page && items.len() <= total);
    let (segs, _) = d.segments(lo, hi, secs % 2 == 1, &t, 50);
    assert!(segs.len() <= 50);
    for s in &segs {
        let (st, en) = (s["start"].as_u64().unwrap(), s["end"].as_u64().unwrap());
        assert!(
            lo <= st && st <= en && en <= hi,
            "{st}..{en} outside {lo}..{hi}"
        );
    }
    let found = d.identify(a, b % 100_000, &t, 10);
    assert!(found.len() <= 10);
    for w in found.windows(2) {
        let key = |v: &serde_json::Value| {
            (
                !v["on_air"].as_bool().unwrap(),
                v["distance"].as_u64().unwrap(),
            )
        };
        assert!(key(&w[0]) <= key(&w[1]), "ranked");
    }
    for f in &found {
        assert!(f["distance"].as_u64().unwrap() <= b % 100_000);
    }
    let bands: u64 = d
        .bands(&t)
        .iter()
        .map(|b| b["total"].as_u64().unwrap())
        .sum();
    assert!(bands as usize <= d.len());
});
