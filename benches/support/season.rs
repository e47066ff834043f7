//! A generated EiBi season file of realistic size and shape for the benchmarks: ~10,500
//! rows (~575 KB), ISO-8859-1, CRLF, the real header; frequencies spread over long,
//! medium and short wave as in a real season, a few thousand distinct station names with
//! Latin-1 letters, the usual day codes, 4 % of the rows past midnight.

#![allow(dead_code)]

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// (band edges in kHz, rows): where the rows of a season lie.
const SPREAD: &[((u32, u32), u32)] = &[
    ((153, 279), 120),
    ((531, 1602), 2500),
    ((2300, 2495), 60),
    ((3200, 3400), 120),
    ((3900, 4000), 90),
    ((4750, 5060), 220),
    ((5900, 6200), 1050),
    ((7200, 7600), 950),
    ((9400, 9900), 1450),
    ((11600, 12100), 1150),
    ((13570, 13870), 330),
    ((15100, 15800), 850),
    ((17480, 17900), 520),
    ((18900, 19020), 60),
    ((21450, 21850), 330),
    ((25670, 26100), 40),
    ((3000, 30000), 660),
];

const DAYS: &[&str] = &[
    "Mo-Fr", "SaSu", "Sa", "Su", "Mo-Sa", "We-Mo", "Tu,Fr", "156", "1234", "1.Sa", "2.Su", "8Jun",
    "irr", "alt", "Tests", "Ram", "MoWeFr", "TuTh", "Fr", "Mo", "Su-Th", "Th-Mo",
];
const ITU: &[&str] = &[
    "USA", "CHN", "D", "F", "G", "I", "E", "ROU", "RUS", "IND", "J", "KOR", "KRE", "TUR", "ARS",
    "EGY", "NIG", "B", "ARG", "CUB", "AUS", "NZL", "CAN", "VTN", "THA", "INS", "PHL", "PAK", "IRN",
    "UAE", "OMA", "KWT", "ETH", "MDG", "RRW", "SWZ", "ZMB", "MLI", "ASC", "GUF", "HOL", "BEL",
    "AUT", "SUI", "CZE", "POL", "HNG", "BUL", "GRC", "ALB", "SRB", "HRV", "SVK", "FIN", "S", "NOR",
    "DNK", "ISL", "IRL", "POR", "MRC", "ALG", "TUN", "LBY", "SDN", "KEN", "TZA", "UGA", "MOZ",
    "AFS", "NMB", "BOT", "ANG", "CME", "GAB", "CTI", "GHA", "BFA",
];
const LANG: &[&str] = &[
    "E", "A", "C", "F", "S", "R", "D", "P", "I", "J", "K", "M", "HI", "BE", "UR", "TU", "FA", "SW",
    "HA", "AM", "VN", "IN", "TH", "BM", "KH", "RO", "PL", "CZ", "HU", "BG", "G", "AL", "SR", "HR",
    "SK", "FI", "NO", "DA", "NL", "-CW", "-TS", "-MX", "A,F", "E,F", "F,A", "E,S",
];
const TARGET: &[&str] = &[
    "Eu", "NAm", "SAm", "CAm", "Af", "NAf", "WAf", "EAf", "SAf", "ME", "As", "SAs", "SEA", "EAs",
    "Oc", "Pac", "FE", "CIS", "WEu", "EEu", "SEu", "NEu", "ENA", "WNA", "Car", "Bal", "CAs", "Chn",
    "Ind", "Jpn", "Kor", "Aus", "Glo",
];
const WORDS: &[&str] = &[
    "Radio",
    "Rádio",
    "Voice of",
    "Voz de",
    "Stimme",
    "La Voix de",
    "Sender",
    "Radiodifusión",
    "Rádió",
    "Ràdio",
    "Radyo",
    "Rundfunk",
    "Emisora",
    "Onda",
    "Hlas",
    "Glas",
];
const PLACES: &[&str] = &[
    "España",
    "Moçambique",
    "Türkiye",
    "Côte d'Ivoire",
    "São Tomé",
    "Åland",
    "Österreich",
    "Nürnberg",
    "Zürich",
    "Québec",
    "Curaçao",
    "Bogotá",
    "Perú",
    "México",
    "Asunción",
    "Bélgica",
    "Málaga",
    "Genève",
    "Göteborg",
    "Ñuñoa",
    "Ísland",
    "Færøerne",
    "Kraków",
    "Berlin",
    "Tokyo",
    "Beijing",
    "Cairo",
    "Lagos",
    "Delhi",
    "Manila",
    "Havana",
    "Sydney",
    "Nairobi",
    "Tirana",
    "Bucuresti",
    "Riyadh",
    "Tehran",
    "Hanoi",
    "Seoul",
    "Pyongyang",
];

/// `rows` rows of a season, as the EiBi site serves them (ISO-8859-1 bytes).
pub fn season_file(rows: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x5EED_E1B1);
    let names: Vec<String> = (0..2400)
        .map(|i| {
            let w = rng.pick(WORDS);
            let p = rng.pick(PLACES);
            match i % 4 {
                0 => format!("{w} {p}"),
                1 => format!("{w} {p} {}", i % 97),
                2 => format!("{p} Int."),
                _ => format!("{w} {p} Service {}", i % 13),
            }
        })
        .collect();
    let total: u32 = SPREAD.iter().map(|(_, n)| n).sum();
    let mut text = String::from(
        "kHz:75;Time(UTC):93;Days:59;ITU:49;Station:201;Lng:49;Target:62;Remarks:135;P:35;Start:60;Stop:60;\r\n",
    );
    for i in 0..rows {
        // the band of this row, in proportion to SPREAD
        let mut k = rng.below(u64::from(total)) as u32;
        let ((lo, hi), _) = *SPREAD
            .iter()
            .find(|(_, n)| {
                let hit = k < *n;
                k = k.saturating_sub(*n);
                hit
            })
            .unwrap_or(&SPREAD[0]);
        let step = if lo >= 531 && hi <= 1602 { 9 } else { 5 };
        let mut khz = lo + (rng.below(u64::from((hi - lo) / step)) as u32) * step;
        let frac = if rng.below(40) == 0 { ".5" } else { "" };
        if hi < 530 {
            khz = lo + rng.below(u64::from(hi - lo)) as u32;
        }
        let start = rng.below(96) as u32 * 15;
        let (s, e) = match rng.below(100) {
            0..=9 => (0, 1440),
            10..=13 => (start.max(1260), (start.max(1260) + 180) % 1440),
            _ => (start, (start + 15 * (1 + rng.below(12) as u32)).min(1440)),
        };
        let days = if rng.below(10) < 6 {
            ""
        } else {
            rng.pick(DAYS)
        };
        let name = &names[rng.below(names.len() as u64) as usize];
        let p = ["1", "1", "1", "1", "2", "3", "0", "8"][rng.below(8) as usize];
        let (from, to) = match rng.below(30) {
            0 => ("2903", "2510"),
            1 => ("1104[0426]", ""),
            2 => ("", "0106"),
            _ => ("", ""),
        };
        let remarks = ["", "", "a", "b", "Bod", "Tac", "Iss", "Nau", "Kig", "Mdc"][i % 10];
        text.push_str(&format!(
            "{khz}{frac};{:02}{:02}-{:02}{:02};{days};{};{name};{};{};{remarks};{p};{from};{to}\r\n",
            s / 60,
            s % 60,
            e / 60,
            e % 60,
            rng.pick(ITU),
            rng.pick(LANG),
            rng.pick(TARGET),
        ));
    }
    // ISO-8859-1: every character of the text is below U+0100
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect()
}
