//! The operating mode a frequency or a spot implies: what the UI switches to when an
//! operator clicks a spot or a segment (a [`Mode`], named as the profiles name it).

use crate::wire::civ::Mode;

/// The sideband voice uses at `hz` by convention: LSB below 10 MHz, except on 60 m
/// (USB by regulation), USB above.
pub fn voice_sideband(hz: u64) -> Mode {
    if hz < 10_000_000 && !(5_250_000..=5_450_000).contains(&hz) {
        Mode::Lsb
    } else {
        Mode::Usb
    }
}

/// The mode a spot's comment names (`CW 22 WPM`, `FT8 -12 dB`, `SSB`), if any. Words are
/// compared whole, so a call sign or a locator is never taken for a mode.
pub fn mode_from_comment(comment: &str, hz: u64) -> Option<Mode> {
    comment
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find_map(|word| mode_word(word, hz))
}

fn mode_word(word: &str, hz: u64) -> Option<Mode> {
    const DATA: &[&str] = &[
        "FT8", "FT4", "JT65", "JT9", "JS8", "WSPR", "FST4", "PSK", "PSK31", "PSK63", "BPSK31",
        "MSK144", "Q65", "OLIVIA", "DIGI",
    ];
    let w = word.to_ascii_uppercase();
    match w.as_str() {
        "CW" => Some(Mode::Cw),
        "RTTY" => Some(Mode::Rtty),
        "USB" => Some(Mode::Usb),
        "LSB" => Some(Mode::Lsb),
        "SSB" => Some(voice_sideband(hz)),
        "AM" => Some(Mode::Am),
        "FM" => Some(Mode::Fm),
        _ if DATA.contains(&w.as_str()) => Some(Mode::Usb),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_name_modes_by_whole_words() {
        assert_eq!(
            mode_from_comment("CW    20 dB  22 WPM  CQ", 7_018_200),
            Some(Mode::Cw)
        );
        assert_eq!(
            mode_from_comment("FT8 -12dB from JN58", 14_074_000),
            Some(Mode::Usb)
        );
        assert_eq!(mode_from_comment("ssb 59", 3_700_000), Some(Mode::Lsb));
        assert_eq!(mode_from_comment("SSB", 5_357_000), Some(Mode::Usb));
        assert_eq!(mode_from_comment("up 5 tnx qso", 14_200_000), None);
        // AM inside a word (a locator, "JAM") is not a mode
        assert_eq!(mode_from_comment("JAM session FN31am", 7_100_000), None);
        assert_eq!(mode_from_comment("", 7_100_000), None);
        assert_eq!(voice_sideband(14_200_000), Mode::Usb);
        assert_eq!(voice_sideband(7_100_000), Mode::Lsb);
    }
}
