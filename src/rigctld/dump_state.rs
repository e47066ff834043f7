//! `\dump_state`: what a NET rigctl client (Hamlib's `netrigctl` backend) learns of the
//! radio when it opens it, generated from the profile and the command table. Protocol 1:
//! the fixed lines netrigctl 4.5 parses in order, then `key=value` lines until `done`.
//! Every line stays short (the client reads lines of at most ~95 characters).

use std::fmt::Write;

use super::hamlib::{self, PTT_RIG, TARGETABLE, VFO_OPS};
use super::levels::{self, AGC_LEVELS};
use crate::profile::{Feature, Profile};

/// The rig model the server reports: `RIG_MODEL_NETRIGCTL`.
pub const RIG_MODEL: u32 = 2;
/// Longest RIT offset, Hz (the `set_rit` row's range).
const MAX_RIT_HZ: u32 = 9999;

/// The `\dump_state` text for `profile`.
pub fn dump_state(profile: &Profile) -> String {
    let mut s = String::new();
    let modes = hamlib::mode_mask(profile);
    let vfos = hamlib::vfo_mask(profile.vfo.scheme);
    let _ = writeln!(s, "1"); // protocol version
    let _ = writeln!(s, "{RIG_MODEL}");
    let _ = writeln!(s, "0"); // ITU region (deprecated)
    let range = |s: &mut String, low_mw: i64, high_mw: i64| {
        for r in &profile.freq_ranges {
            let _ = writeln!(
                s,
                "{}.000000 {}.000000 {modes:#x} {low_mw} {high_mw} {vfos:#x} 0x1",
                r.start_hz, r.end_hz
            );
        }
        let _ = writeln!(s, "0 0 0 0 0 0 0");
    };
    range(&mut s, -1, -1);
    if profile.has_feature(Feature::Tx) {
        let p = &profile.power;
        range(
            &mut s,
            i64::from(p.min_watts) * 1000,
            i64::from(p.max_watts) * 1000,
        );
    } else {
        let _ = writeln!(s, "0 0 0 0 0 0 0");
    }
    // tuning steps: 1 Hz in every mode
    let _ = writeln!(s, "{modes:#x} 1");
    let _ = writeln!(s, "0 0");
    // filters: each mode's widths in the profile's order (FIL1, FIL2, FIL3)
    for m in hamlib::MODES
        .iter()
        .filter(|m| hamlib::profile_has(profile, m))
    {
        for w in profile.filter_widths(m.mode).unwrap_or_default() {
            let _ = writeln!(s, "{:#x} {w}", 1u64 << m.bit);
        }
    }
    let _ = writeln!(s, "0 0");
    let rit = if profile.has_feature(Feature::Rit) {
        MAX_RIT_HZ
    } else {
        0
    };
    let _ = writeln!(s, "{rit}"); // max RIT
    let _ = writeln!(s, "0"); // max XIT
    let _ = writeln!(s, "0"); // max IF shift
    let _ = writeln!(s, "0"); // announces
    let _ = writeln!(
        s,
        "{}",
        db_list(profile.preamp.values.iter().map(|v| v * 10))
    );
    let _ = writeln!(s, "{}", db_list(profile.attenuator.values.iter().copied()));
    let funcs = levels::func_mask(profile);
    let (get_levels, set_levels) = levels::level_masks(profile);
    let _ = writeln!(s, "{funcs:#x}"); // has_get_func
    let _ = writeln!(s, "{funcs:#x}"); // has_set_func
    let _ = writeln!(s, "{get_levels:#x}");
    let _ = writeln!(s, "{set_levels:#x}");
    let _ = writeln!(s, "0x0"); // has_get_parm
    let _ = writeln!(s, "0x0"); // has_set_parm
    let _ = writeln!(s, "vfo_ops={VFO_OPS:#x}");
    let ptt = if profile.has_feature(Feature::Tx) {
        PTT_RIG
    } else {
        0
    };
    let _ = writeln!(s, "ptt_type={ptt:#x}");
    let _ = writeln!(s, "targetable_vfo={TARGETABLE:#x}");
    for key in [
        "has_set_vfo",
        "has_get_vfo",
        "has_set_freq",
        "has_get_freq",
        "has_power2mW",
        "has_mW2power",
    ] {
        let _ = writeln!(s, "{key}=1");
    }
    let _ = writeln!(s, "has_set_conf=0");
    let _ = writeln!(s, "has_get_conf=0");
    let _ = writeln!(s, "timeout=0");
    let _ = writeln!(s, "rig_model={RIG_MODEL}");
    let _ = writeln!(
        s,
        "rigctld_version=rigweb {} ({})",
        env!("CARGO_PKG_VERSION"),
        profile.model()
    );
    if profile.has_feature(Feature::Agc) {
        let _ = writeln!(s, "agc_levels={AGC_LEVELS}");
    }
    let _ = writeln!(s, "ctcss_list=");
    let _ = writeln!(s, "dcs_list=");
    let _ = writeln!(s, "done");
    s
}

/// Entries of a dB list a client keeps (Hamlib's `HAMLIB_MAXDBLSTSIZ` is 8, the end
/// marker included).
const MAX_DB_LIST: usize = 7;

/// A dB list line (`10 20`), `0` when empty (the list's end marker); at most
/// [`MAX_DB_LIST`] entries.
fn db_list(values: impl Iterator<Item = u8>) -> String {
    let list: Vec<String> = values
        .filter(|v| *v > 0)
        .take(MAX_DB_LIST)
        .map(|v| v.to_string())
        .collect();
    if list.is_empty() {
        "0".into()
    } else {
        list.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ProfileRegistry;

    fn lines(id: &str) -> Vec<String> {
        let p = ProfileRegistry::embedded().get(id).unwrap();
        dump_state(&p).lines().map(str::to_string).collect()
    }

    #[test]
    fn the_fixed_part_parses_as_netrigctl_reads_it() {
        for id in ["ic7610", "ic705", "ic9700", "ic7100"] {
            let l = lines(id);
            assert_eq!(&l[..3], &["1", "2", "0"], "{id}");
            let mut i = 3;
            // RX and TX ranges: seven fields each, ending with seven zeros
            for _ in 0..2 {
                while l[i] != "0 0 0 0 0 0 0" {
                    assert_eq!(l[i].split(' ').count(), 7, "{id}: {}", l[i]);
                    i += 1;
                }
                i += 1;
            }
            // tuning steps and filters: two fields, ending with "0 0"
            for _ in 0..2 {
                while l[i] != "0 0" {
                    let f: Vec<&str> = l[i].split(' ').collect();
                    assert_eq!(f.len(), 2, "{id}: {}", l[i]);
                    assert!(f[0].starts_with("0x"));
                    i += 1;
                }
                i += 1;
            }
            // max_rit .. announces, preamp, att, then six masks
            for n in &l[i..i + 4] {
                n.parse::<u32>().unwrap();
            }
            i += 6;
            for n in &l[i..i + 6] {
                assert!(n.starts_with("0x"), "{id}: {n}");
                u64::from_str_radix(&n[2..], 16).unwrap();
            }
            i += 6;
            assert!(
                l[i..]
                    .iter()
                    .take_while(|x| *x != "done")
                    .all(|x| x.contains('='))
            );
            assert_eq!(l.last().unwrap(), "done");
            assert!(l.iter().all(|x| x.len() < 95), "{id}: short lines");
        }
    }

    #[test]
    fn what_clients_need_is_advertised() {
        let l = lines("ic7610");
        assert!(l.contains(&"ptt_type=0x1".to_string()), "CAT PTT");
        assert!(l.contains(&"targetable_vfo=0x0".to_string()));
        assert!(
            l.contains(&"3 6 9 12 15 18 21".to_string()),
            "attenuator steps, as many as a client keeps"
        );
        assert!(l.contains(&"10 20".to_string()), "preamp steps");
        assert!(l.contains(&"agc_levels=2=FAST 5=MEDIUM 3=SLOW".to_string()));
        // MAIN|SUB VFOs on the IC-7610, 2..100 W
        assert!(
            l.iter().any(|x| x.ends_with(" 2000 100000 0x6000000 0x1")),
            "{l:?}"
        );
        let ic705 = lines("ic705");
        assert!(
            ic705.iter().any(|x| x.ends_with(" 0 10000 0x3 0x1")),
            "VFO A|B, 10 W"
        );
        assert!(ic705.contains(&"20".to_string()), "one attenuator step");
    }
}
