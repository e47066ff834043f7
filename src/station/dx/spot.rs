//! One cluster line to a spot, by tokens, not columns (nodes differ in padding):
//!
//! ```text
//! DX de K1ABC:     14025.0  JA1XYZ       CW 599 up 2                    1234Z
//! DX de DL8LAS-    14025.0  DL1ABC       ...                            1234Z JO62   (7+ chars: no colon)
//! DX de JI1HFJ-#:1294068.2  JA1ABC       CW    20 dB  22 WPM  CQ        1234Z        (RBN, glued)
//! DX de W3LPL:      7018.20 K5ZD         ...                            1234Z MD     (AR-Cluster: state)
//! ```
//!
//! Everything else (WWV/WCY, talk, announcements, prompts, `CC11^` lines) is not a spot.
//! Bytes that are not UTF-8 are read as Latin-1. Never panics, never indexes past the
//! line.

use std::borrow::Cow;

/// A spot as the line gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpotLine {
    /// Who spotted (with its suffix: `-#` skimmer, `-@`, `-2-#`).
    pub spotter: String,
    /// Frequency, Hz.
    pub freq_hz: u64,
    /// The spotted station, upper case.
    pub call: String,
    /// The comment, control characters removed, at most [`MAX_COMMENT`] characters.
    pub comment: String,
    /// `HHMMZ`, or empty when the line has no time.
    pub time_utc: String,
    /// The spotter's locator when the node appends one.
    pub locator: Option<String>,
}

/// The longest comment kept, in characters.
pub const MAX_COMMENT: usize = 128;
/// The longest call sign (spotter or spotted) taken for one.
const MAX_CALL: usize = 20;
/// Spots below this (Hz) are not taken (the lowest amateur band is 135.7 kHz).
const MIN_HZ: u64 = 10_000;
/// Nor above (the highest amateur allocation is 250 GHz).
const MAX_HZ: u64 = 300_000_000_000;

/// The text of a line: UTF-8 when it is, else Latin-1.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// Parses a `DX de` line; None for anything else.
pub fn parse_spot(line: &str) -> Option<SpotLine> {
    let s = line.trim_start_matches(|c: char| c.is_whitespace() || c.is_control());
    let head = s.get(..5)?;
    if !head.eq_ignore_ascii_case("DX de") {
        return None;
    }
    let rest = s.get(5..)?.trim_start();
    let spotter_end = rest
        .find(|c: char| c == ':' || c.is_whitespace())
        .unwrap_or(rest.len());
    let spotter = &rest[..spotter_end];
    if !is_call(spotter, true) {
        return None;
    }
    let rest = rest[spotter_end..]
        .strip_prefix(':')
        .unwrap_or(&rest[spotter_end..]);
    let rest = rest.trim_start();
    let (freq, rest) = split_token(rest);
    let freq_hz = parse_khz(freq)?;
    let (call, rest) = split_token(rest.trim_start());
    if !is_call(call, false) {
        return None;
    }
    let (comment, time_utc, locator) = split_tail(rest);
    Some(SpotLine {
        spotter: spotter.to_string(),
        freq_hz,
        call: call.to_ascii_uppercase(),
        comment: clean(comment),
        time_utc: time_utc.map(str::to_string).unwrap_or_default(),
        locator: locator.map(str::to_string),
    })
}

/// The first whitespace-delimited token and what follows it.
fn split_token(s: &str) -> (&str, &str) {
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// A call sign: letters, digits and `/`, with a digit or letter; spotters may carry the
/// node suffixes `-N`, `-#`, `-@`.
fn is_call(s: &str, spotter: bool) -> bool {
    !s.is_empty()
        && s.len() <= MAX_CALL
        && s.bytes().any(|b| b.is_ascii_alphanumeric())
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric() || b == b'/' || (spotter && matches!(b, b'-' | b'#' | b'@'))
        })
}

/// `14025.0`, `7018.20`, `1294068.2` (kHz) to Hz.
fn parse_khz(s: &str) -> Option<u64> {
    crate::station::khz::to_hz(s, 9).filter(|hz| (MIN_HZ..=MAX_HZ).contains(hz))
}

/// Comment, time (`HHMMZ`) and locator: the time is one of the last three tokens, and
/// after it may come a locator or (AR-Cluster) the spotter's state.
fn split_tail(rest: &str) -> (&str, Option<&str>, Option<&str>) {
    let tokens: Vec<(usize, &str)> = rest
        .split_whitespace()
        .map(|t| (t.as_ptr() as usize - rest.as_ptr() as usize, t))
        .collect();
    let first = tokens.len().saturating_sub(3);
    let Some(k) = (first..tokens.len()).rev().find(|&k| is_time(tokens[k].1)) else {
        return (rest.trim(), None, None);
    };
    let (at, time) = tokens[k];
    let locator = tokens[k + 1..]
        .iter()
        .map(|(_, t)| *t)
        .find(|t| is_locator(t));
    (rest[..at].trim(), Some(time), locator)
}

fn is_time(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 5
        && b[4] == b'Z'
        && b[..4].iter().all(u8::is_ascii_digit)
        && (b[0] - b'0') * 10 + (b[1] - b'0') < 24
        && b[2] < b'6'
}

/// A Maidenhead locator of 4 or 6 characters (`JO62`, `FN31pr`).
fn is_locator(t: &str) -> bool {
    let b = t.as_bytes();
    (b.len() == 4 || b.len() == 6)
        && b[0].to_ascii_uppercase().is_ascii_uppercase()
        && (b'A'..=b'R').contains(&b[0].to_ascii_uppercase())
        && (b'A'..=b'R').contains(&b[1].to_ascii_uppercase())
        && b[2].is_ascii_digit()
        && b[3].is_ascii_digit()
        && b[4..]
            .iter()
            .all(|c| (b'A'..=b'X').contains(&c.to_ascii_uppercase()))
}

/// Control characters out, runs of spaces kept as the node wrote them, length capped.
fn clean(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .take(MAX_COMMENT)
        .collect::<String>()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spot(line: &str) -> SpotLine {
        parse_spot(line).unwrap_or_else(|| panic!("not parsed: {line:?}"))
    }

    #[test]
    fn dxspider_lines_as_its_sprintf_writes_them() {
        let s = spot("DX de K1ABC:     14025.0  JA1XYZ       CW 599 up 2                    1234Z");
        assert_eq!(s.spotter, "K1ABC");
        assert_eq!(s.freq_hz, 14_025_000);
        assert_eq!(s.call, "JA1XYZ");
        assert_eq!(s.comment, "CW 599 up 2");
        assert_eq!(s.time_utc, "1234Z");
        assert_eq!(s.locator, None);
        // a spotter of 7 characters loses its colon; a locator may follow the time
        let s = spot(
            "DX de DL8LAS-    14025.0  dl1abc       tnx qso                        0912Z JO62",
        );
        assert_eq!((s.spotter.as_str(), s.call.as_str()), ("DL8LAS-", "DL1ABC"));
        assert_eq!(s.locator.as_deref(), Some("JO62"));
        assert_eq!(s.time_utc, "0912Z");
    }

    #[test]
    fn rbn_lines_with_two_decimals_and_a_glued_frequency() {
        let s = spot("DX de JI1HFJ-#:1294068.2  JA1ABC       CW    20 dB  22 WPM  CQ      2359Z");
        assert_eq!(s.spotter, "JI1HFJ-#");
        assert_eq!(s.freq_hz, 1_294_068_200);
        assert_eq!(s.comment, "CW    20 dB  22 WPM  CQ");
        let s = spot("DX de W3LPL-2-#:  7018.20  K5ZD  CW 12 dB 28 WPM CQ 0001Z");
        assert_eq!((s.spotter.as_str(), s.freq_hz), ("W3LPL-2-#", 7_018_200));
    }

    #[test]
    fn ar_cluster_appends_the_state_and_latin1_comments_decode() {
        let s =
            spot("DX de W3LPL:      3525.0  K5ZD         loud in MD                     2101Z MD");
        assert_eq!(
            (s.comment.as_str(), s.time_utc.as_str()),
            ("loud in MD", "2101Z")
        );
        assert_eq!(s.locator, None, "a state is not a locator");
        let bytes = b"DX de DL1ABC:    7010.0  OH2XX        gr\xfc\xdfe aus K\xf6ln   1200Z";
        let s = spot(&decode(bytes));
        assert_eq!(s.comment, "grüße aus Köln");
    }

    #[test]
    fn lines_without_time_or_with_odd_spacing_still_parse() {
        let s = spot("DX de G4ABC: 50313.0 EA8XYZ");
        assert_eq!(
            (s.freq_hz, s.comment.as_str(), s.time_utc.as_str()),
            (50_313_000, "", "")
        );
        let s = spot("  dx de G4ABC:   144174 EA8XYZ FT8 \x07 1200Z");
        assert_eq!((s.freq_hz, s.comment.as_str()), (144_174_000, "FT8"));
    }

    #[test]
    fn everything_that_is_not_a_spot_is_ignored() {
        for line in [
            "WWV de W0MU <18>:   SFI=123, A=5, K=1, No Storms -> No Storms",
            "WCY de DK0WCY-1 <12> : K=2 expK=0 A=7 R=45 SFI=131 SA=qui GMF=qui Au=no",
            "To ALL de G4ABC: contest this weekend",
            "G0XYZ de GB7DJK 21-Mar-2024 1530Z dxspider >",
            "CC11^14025.0^JA1XYZ^21-Mar-2024^1234Z^CW^K1ABC^5^^^",
            "login: ",
            "DX de",
            "DX de :",
            "DX de K1ABC: abc JA1XYZ comment 1234Z",
            "DX de K1ABC: 14025.0.1 JA1XYZ",
            "DX de K1ABC: 1.0 JA1XYZ",
            "DX de K1ABC: 99999999999.0 JA1XYZ",
            "DX de K1ABC: 14025.0",
            "DX de K1ABC: 14025.0 <b>x</b> 1234Z",
            "DX de ::: 14025.0 JA1XYZ",
            "",
            "DX dé K1ABC: 14025.0 JA1XYZ",
        ] {
            assert_eq!(parse_spot(line), None, "{line:?}");
        }
    }

    #[test]
    fn comments_are_capped_and_times_checked() {
        let long = format!("DX de K1ABC: 14025.0 JA1XYZ {} 1234Z", "x".repeat(500));
        assert_eq!(spot(&long).comment.chars().count(), MAX_COMMENT);
        let s = spot("DX de K1ABC: 14025.0 JA1XYZ call at 2460Z");
        assert_eq!(
            (s.time_utc.as_str(), s.comment.as_str()),
            ("", "call at 2460Z")
        );
    }
}
