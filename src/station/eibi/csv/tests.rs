//! Season files as the EiBi site writes them, and what is not one.

use super::*;

const HEADER: &[u8] = b"kHz:75;Time(UTC):93;Days:59;ITU:49;Station:201;Lng:49;Target:62;Remarks:135;P:35;Start:60;Stop:60;\r\n";

fn file(rows: &[&[u8]]) -> Vec<u8> {
    let mut f = HEADER.to_vec();
    for r in rows {
        f.extend_from_slice(r);
        f.extend_from_slice(b"\r\n");
    }
    f
}

#[test]
fn rows_in_the_real_format_with_latin1_names_are_read() {
    let d = parse(&file(&[
        b"6070;0000-2400;;CAN;CFRX Toronto;E;ENA;;1;;",
        b"153;0400-2200;;ROU;R Rom\xe2nia Actualit\xe3\xfei;RO;EEu;Bod;1;;",
        b"9420.5;1800-1900;Mo-Fr;GRC;Voice of Greece;G;Eu;a;0;1104[0426];",
        b"15745;2330-0030;We-Mo;ARS;BSKSA;A,F;NAf;;1;2903;2510",
    ]))
    .unwrap();
    assert_eq!(d.len(), 4);
    assert_eq!(d.skipped(), 0);
    let e = &d.entries()[0];
    assert_eq!(e.freq_hz, 153_000, "sorted by frequency");
    assert_eq!(d.text(e.station), "R România Actualitãþi");
    let greece = d.entries().iter().find(|e| e.freq_hz == 9_420_500).unwrap();
    assert_eq!(greece.persistence, Some(0), "persistence 0 exists");
    assert_eq!(greece.valid_from, Some((11, 4)));
    assert_eq!(d.text(greece.start_text), "1104[0426]");
    assert_eq!(greece.days, DayRule::Weekdays(0b1_1111));
    let saudi = d.entries().last().unwrap();
    assert_eq!((saudi.start, saudi.end), (1410, 30));
    assert_eq!(d.text(saudi.language), "A,F");
}

#[test]
fn odd_rows_are_skipped_and_counted() {
    let d = parse(&file(&[
        b"6070;0000-2400;;CAN;CFRX;E;ENA;;1;;",
        b";0000-2400;;CAN;no frequency;E;ENA;;1;;",
        b"abc;0000-2400;;CAN;bad frequency;E;ENA;;1;;",
        b"6080;2500-2600;;CAN;bad time;E;ENA;;1;;",
        b"6090;0000-2400;;CAN",
        b"6100;0000-2400;;CAN;extra fields;E;ENA;;1;;;;;;;",
        b"99999999;0000-2400;;CAN;too high;E;ENA;;1;;",
        b"",
        b"   ",
        b"6110;0000-2400;;CAN;no persistence;E;ENA",
    ]))
    .unwrap();
    assert_eq!(d.len(), 3);
    assert_eq!(d.skipped(), 5);
    assert!(
        d.entries()
            .iter()
            .any(|e| d.text(e.station) == "extra fields")
    );
    assert!(d.entries().iter().any(|e| e.persistence.is_none()));
}

#[test]
fn a_truncated_file_keeps_the_whole_rows() {
    let full = file(&[
        b"6070;0000-2400;;CAN;CFRX;E;ENA;;1;;",
        b"6080;0000-2400;;CAN;Second;E;ENA;;1;;",
    ]);
    let cut = &full[..full.len() - 20];
    let d = parse(cut).unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(d.skipped(), 1);
}

#[test]
fn files_that_are_not_schedules_are_refused_with_a_reason() {
    assert!(parse(b"").unwrap_err().0.contains("empty"));
    assert!(
        parse(b"<html><body>404</body></html>")
            .unwrap_err()
            .0
            .contains("kHz")
    );
    assert!(parse(HEADER).unwrap_err().0.contains("no readable rows"));
    assert!(
        parse(&file(&[b"x;y;z"]))
            .unwrap_err()
            .0
            .contains("1 skipped")
    );
}

#[test]
fn repeated_texts_are_stored_once() {
    let rows: Vec<Vec<u8>> = (0..1000)
        .map(|i| {
            format!(
                "{};0000-2400;;CAN;Station {};E;ENA;;1;;",
                5900 + i % 300,
                i % 10
            )
            .into_bytes()
        })
        .collect();
    let refs: Vec<&[u8]> = rows.iter().map(Vec::as_slice).collect();
    let d = parse(&file(&refs)).unwrap();
    assert_eq!(d.len(), 1000);
    // 10 names, CAN, E, ENA, the empty string, 1 day code: a handful of strings
    assert!(d.strings_len() < 20, "{}", d.strings_len());
}
