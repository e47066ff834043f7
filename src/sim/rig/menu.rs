//! Menu items (`1A 05 <hi> <lo> [<value…>]`): the CI-V transceive item switches
//! transceive; the clock items read and set the radio's clock (date 4 BCD bytes
//! `yyyy mm dd`, time 2 bytes `hh mm`, UTC offset 3 bytes `hh mm <sign>`); any other
//! item is stored as written and reads `00` (one byte) until written.

use super::SimRig;
use super::clock::{self, DateTime};
use super::codec::{Reply, bcd, flag, to_bcd};
use crate::wire::civ::cmd::{self, ext};

/// The simulated wall clock at the start when none is configured: 2025-01-01 00:00 UTC.
const DEFAULT_CLOCK_START: u64 = 1_735_689_600;

/// The clock's menu items of one model, each `[hi, lo]` of `1A 05 <hi> <lo>`.
struct ClockItems {
    model: &'static str,
    date: [u8; 2],
    time: [u8; 2],
    utc_offset: [u8; 2],
}

/// The clock's menu items per model. Not in the profile schema; from the Icom CI-V
/// references (as collected by IcomClockOmniRig). The IC-705's date and time are
/// `01 65` / `01 66` (what a real IC-705 answers, issue 15.9); its UTC offset `01 70`
/// follows its Time Set menu (date, time, GPS time correct, NTP function, NTP server,
/// UTC offset), as the IC-9700's `01 84` and the IC-7610's `01 62` follow theirs.
const CLOCK_ITEMS: &[ClockItems] = &[
    ClockItems {
        model: "IC-7610",
        date: [0x01, 0x58],
        time: [0x01, 0x59],
        utc_offset: [0x01, 0x62],
    },
    ClockItems {
        model: "IC-9700",
        date: [0x01, 0x79],
        time: [0x01, 0x80],
        utc_offset: [0x01, 0x84],
    },
    ClockItems {
        model: "IC-705",
        date: [0x01, 0x65],
        time: [0x01, 0x66],
        utc_offset: [0x01, 0x70],
    },
    ClockItems {
        model: "IC-7100",
        date: [0x01, 0x20],
        time: [0x01, 0x21],
        utc_offset: [0x01, 0x23],
    },
];

/// A menu item with a meaning of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MenuItem {
    /// CI-V transceive on/off (the profile's item).
    Transceive,
    /// Date, `yyyy mm dd` (4 BCD bytes).
    Date,
    /// Time of day, `hh mm` (2 BCD bytes).
    Time,
    /// UTC offset, `hh mm <00 + | 01 −>`.
    UtcOffset,
    /// Anything else: stored as written.
    Plain,
}

impl SimRig {
    /// What `1A 05 <hi> <lo>` is on this model.
    fn menu_item(&self, hi: u8, lo: u8) -> MenuItem {
        if self.profile.radio.transceive_menu.as_slice() == [cmd::EXT, ext::MENU, hi, lo] {
            return MenuItem::Transceive;
        }
        let model = self.profile.model();
        let item = [hi, lo];
        match CLOCK_ITEMS.iter().find(|c| c.model == model) {
            Some(c) if c.date == item => MenuItem::Date,
            Some(c) if c.time == item => MenuItem::Time,
            Some(c) if c.utc_offset == item => MenuItem::UtcOffset,
            _ => MenuItem::Plain,
        }
    }

    /// The radio's clock now, seconds since the epoch (UTC).
    fn wall_clock(&self) -> i64 {
        let start = self.cfg.clock_start_unix_s.unwrap_or(DEFAULT_CLOCK_START);
        i64::try_from(start)
            .unwrap_or(0)
            .saturating_add(i64::try_from(self.now.as_secs()).unwrap_or(0))
            .saturating_add(self.state.clock_offset_s)
    }

    /// Sets the radio's clock to `t`.
    fn set_wall_clock(&mut self, t: &DateTime) {
        let delta = clock::to_unix(t) - self.wall_clock();
        self.state.clock_offset_s = self.state.clock_offset_s.saturating_add(delta);
    }

    /// `1A 05 <hi> <lo> [<value…>]`.
    pub(super) fn cmd_menu(&mut self, rest: &[u8]) -> Reply {
        let (hi, lo, value) = match rest {
            [hi, lo, value @ ..] => (*hi, *lo, value),
            _ => return Reply::Nak,
        };
        if bcd(hi).is_none() || bcd(lo).is_none() || value.len() > 32 {
            return Reply::Nak;
        }
        let item = self.menu_item(hi, lo);
        if value.is_empty() {
            let v = self.read_menu(item, hi, lo);
            return Reply::data(cmd::EXT, &[&[ext::MENU, hi, lo], &v]);
        }
        let ok = match item {
            MenuItem::Transceive => match flag(value) {
                Some(on) => {
                    self.state.transceive = on;
                    true
                }
                None => false,
            },
            MenuItem::Date => self.write_date(value),
            MenuItem::Time => self.write_time(value),
            MenuItem::UtcOffset => utc_offset_ok(value),
            MenuItem::Plain => true,
        };
        if ok && !matches!(item, MenuItem::Date | MenuItem::Time) {
            self.state.menu.insert((hi, lo), value.to_vec());
        }
        Reply::ack_if(ok)
    }

    /// The value of a menu item.
    fn read_menu(&self, item: MenuItem, hi: u8, lo: u8) -> Vec<u8> {
        let now = clock::from_unix(self.wall_clock());
        match item {
            MenuItem::Transceive => vec![u8::from(self.state.transceive)],
            MenuItem::Date => {
                let y = now.year.clamp(0, 9_999) as u32;
                vec![
                    to_bcd((y / 100) as u8),
                    to_bcd((y % 100) as u8),
                    to_bcd(now.month as u8),
                    to_bcd(now.day as u8),
                ]
            }
            MenuItem::Time => vec![to_bcd(now.hour as u8), to_bcd(now.minute as u8)],
            MenuItem::UtcOffset => self
                .state
                .menu
                .get(&(hi, lo))
                .cloned()
                .unwrap_or_else(|| vec![0x00, 0x00, 0x00]),
            MenuItem::Plain => self
                .state
                .menu
                .get(&(hi, lo))
                .cloned()
                .unwrap_or_else(|| vec![0x00]),
        }
    }

    /// Date `yyyy mm dd` (years 2000..2099): the time of day is kept.
    fn write_date(&mut self, value: &[u8]) -> bool {
        let [c, y, m, d] = value else {
            return false;
        };
        let (Some(c), Some(y), Some(m), Some(d)) = (bcd(*c), bcd(*y), bcd(*m), bcd(*d)) else {
            return false;
        };
        let year = i64::from(c) * 100 + i64::from(y);
        if !(2000..=2099).contains(&year) || !clock::valid_date(year, m.into(), d.into()) {
            return false;
        }
        let mut t = clock::from_unix(self.wall_clock());
        (t.year, t.month, t.day) = (year, m.into(), d.into());
        self.set_wall_clock(&t);
        true
    }

    /// Time `hh mm`: the seconds start again at 0, the date is kept.
    fn write_time(&mut self, value: &[u8]) -> bool {
        let [h, m] = value else {
            return false;
        };
        let (Some(h), Some(m)) = (bcd(*h), bcd(*m)) else {
            return false;
        };
        if h > 23 || m > 59 {
            return false;
        }
        let mut t = clock::from_unix(self.wall_clock());
        (t.hour, t.minute, t.second) = (h.into(), m.into(), 0);
        self.set_wall_clock(&t);
        true
    }
}

/// A UTC offset `hh mm <sign>`: up to 14:00, sign 00 or 01.
fn utc_offset_ok(value: &[u8]) -> bool {
    match value {
        [h, m, sign] => matches!(
            (bcd(*h), bcd(*m), *sign),
            (Some(h), Some(m), 0 | 1) if h <= 14 && m <= 59
        ),
        _ => false,
    }
}
