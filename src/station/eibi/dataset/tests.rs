//! Queries over a small schedule at chosen instants.

use super::*;
use crate::station::eibi::csv::parse;
use crate::util::time::{parse_iso8601, utc_parts};

fn at(iso: &str) -> UtcParts {
    utc_parts(parse_iso8601(iso).unwrap())
}

fn fixture() -> Dataset {
    let text = "kHz:75;Time(UTC):93;Days:59;ITU:49;Station:201;Lng:49;Target:62;Remarks:135;P:35;Start:60;Stop:60;\r\n\
        6070;0000-2400;;CAN;CFRX Toronto;E;ENA;;1;;\r\n\
        6075;0600-0800;Mo-Fr;D;DW Weekdays;D;Eu;;1;;\r\n\
        6080;2300-0100;Sa;HOL;Saturday Night;NL;Eu;;1;;\r\n\
        6085;1000-1100;;G;Season Start;E;Eu;;1;0106;\r\n\
        6090;1000-1100;;G;Winter Span;E;Eu;;1;2510;2903\r\n\
        9420;1800-1900;;GRC;Voice of Greece;G;Eu;a;1;;\r\n\
        9425;1800-1900;;GRC;Another Greek;G,E;Eu;a;1;;\r\n\
        11995;0000-2400;irr;F;Irregular;F;Af;;1;;\r\n";
    parse(text.as_bytes()).unwrap()
}

fn names(list: &[Value]) -> Vec<&str> {
    list.iter()
        .map(|v| v["station"].as_str().unwrap())
        .collect()
}

#[test]
fn on_air_follows_time_days_midnight_and_dates() {
    let d = fixture();
    let e = |name: &str| {
        d.entries()
            .iter()
            .find(|e| d.text(e.station) == name)
            .unwrap()
            .clone()
    };
    // Saturday 7 June 2025
    let sat_2330 = at("2025-06-07T23:30:00Z");
    let sun_0030 = at("2025-06-08T00:30:00Z");
    let sun_2330 = at("2025-06-08T23:30:00Z");
    assert!(d.on_air(&e("Saturday Night"), &sat_2330));
    assert!(
        d.on_air(&e("Saturday Night"), &sun_0030),
        "past midnight: Saturday's show"
    );
    assert!(!d.on_air(&e("Saturday Night"), &sun_2330));
    assert!(d.on_air(&e("DW Weekdays"), &at("2025-06-09T07:00:00Z")));
    assert!(
        !d.on_air(&e("DW Weekdays"), &at("2025-06-08T07:00:00Z")),
        "Sunday"
    );
    assert!(
        !d.on_air(&e("DW Weekdays"), &at("2025-06-09T08:00:00Z")),
        "the end is exclusive"
    );
    assert!(d.on_air(&e("CFRX Toronto"), &at("2025-06-09T23:59:00Z")));
    assert!(
        !d.on_air(&e("Season Start"), &at("2025-05-31T10:30:00Z")),
        "before 1 June"
    );
    assert!(d.on_air(&e("Season Start"), &at("2025-06-01T10:30:00Z")));
    // a winter span over New Year
    assert!(d.on_air(&e("Winter Span"), &at("2026-01-10T10:30:00Z")));
    assert!(d.on_air(&e("Winter Span"), &at("2025-10-25T10:30:00Z")));
    assert!(!d.on_air(&e("Winter Span"), &at("2025-10-24T10:30:00Z")));
    assert!(!d.on_air(&e("Winter Span"), &at("2026-03-30T10:30:00Z")));
    assert!(d.on_air(&e("Irregular"), &sun_0030));
}

#[test]
fn stations_filter_and_page() {
    let d = fixture();
    let t = at("2025-06-09T18:30:00Z");
    let all = StationQuery::default();
    let (total, items) = d.stations(&all, 1, 3, &t);
    assert_eq!(total, 8);
    assert_eq!(items.len(), 3);
    let (_, page3) = d.stations(&all, 3, 3, &t);
    assert_eq!(names(&page3), ["Another Greek", "Irregular"]);
    let (total, beyond) = d.stations(&all, 9, 3, &t);
    assert_eq!((total, beyond.len()), (8, 0));
    let q = |f: fn(&mut StationQuery)| {
        let mut q = StationQuery::default();
        f(&mut q);
        let (_, items) = d.stations(&q, 1, 100, &t);
        names(&items)
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(q(|q| q.q = Some("greek".into())), ["Another Greek"]);
    assert_eq!(
        q(|q| q.q = Some("GRC".into())),
        ["Voice of Greece", "Another Greek"]
    );
    assert_eq!(
        q(|q| q.language = Some("e".into())).len(),
        4,
        "E, and E of G,E"
    );
    assert_eq!(q(|q| q.target = Some("af".into())), ["Irregular"]);
    assert_eq!(
        q(|q| {
            q.freq_min = Some(6_080_000);
            q.freq_max = Some(9_420_000);
        })
        .len(),
        4
    );
    let on = q(|q| q.on_air = Some(true));
    assert_eq!(
        on,
        [
            "CFRX Toronto",
            "Voice of Greece",
            "Another Greek",
            "Irregular"
        ]
    );
    assert_eq!(q(|q| q.on_air = Some(false)).len(), 4);
    let v = &d.stations(&all, 1, 1, &t).1[0];
    for k in [
        "freq",
        "time",
        "days",
        "itu",
        "station",
        "language",
        "target",
        "remarks",
        "persistence",
        "band",
        "on_air",
    ] {
        assert!(v.get(k).is_some(), "{k} in {v}");
    }
    assert_eq!(v["band"], "49m");
    assert_eq!(v["time"], "0000-2400");
}

#[test]
fn identify_ranks_on_air_first_then_distance() {
    let d = fixture();
    let t = at("2025-06-09T18:30:00Z");
    let found = d.identify(9_424_000, 5_000, &t, 10);
    assert_eq!(names(&found), ["Another Greek", "Voice of Greece"]);
    assert_eq!(found[0]["distance"], 1_000);
    // 6075 is off the air now: after the one on the air, although nearer
    let found = d.identify(6_074_000, 5_000, &t, 10);
    assert_eq!(names(&found), ["CFRX Toronto", "DW Weekdays"]);
    assert!(d.identify(20_000_000, 5_000, &t, 10).is_empty());
    assert_eq!(d.identify(6_074_000, 5_000, &t, 1).len(), 1);
}

#[test]
fn segments_are_clipped_and_bands_counted() {
    let d = fixture();
    let t = at("2025-06-09T18:30:00Z");
    let (segs, more) = d.segments(6_000_000, 6_200_000, true, &t, 100);
    assert!(!more);
    assert_eq!(segs.len(), 1, "only CFRX is on the air in 49 m");
    assert_eq!(
        (segs[0]["start"].as_u64(), segs[0]["end"].as_u64()),
        (Some(6_067_500), Some(6_072_500))
    );
    let (segs, _) = d.segments(6_071_000, 6_074_000, false, &t, 100);
    assert_eq!(segs.len(), 2, "6070 and 6075 both reach in");
    assert_eq!(segs[0]["start"], 6_071_000, "clipped");
    let (segs, more) = d.segments(0, 30_000_000, false, &t, 3);
    assert_eq!((segs.len(), more), (3, true));
    let bands = d.bands(&t);
    let b49 = bands.iter().find(|b| b["name"] == "49m").unwrap();
    assert_eq!(
        (b49["total"].as_u64(), b49["on_air"].as_u64()),
        (Some(5), Some(1))
    );
    assert_eq!(bands.len(), BANDS.len());
}
