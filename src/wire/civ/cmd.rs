//! Named CI-V command and sub-command bytes (spec §4.5, §5.1), the one vocabulary of
//! the client (`radio/`) and the simulated radio (`sim/rig/`), as Hamlib's `icom_defs.h`
//! names them for its backends. Nothing outside `wire/civ` spells a command byte in hex.

/// Transceive broadcast of the operating frequency; also "set frequency, no reply".
pub const FREQ_NO_REPLY: u8 = 0x00;
/// Transceive broadcast of the operating mode; also "set mode, no reply".
pub const MODE_NO_REPLY: u8 = 0x01;
/// Read the band edges.
pub const BAND_EDGE: u8 = 0x02;
/// Read the operating (selected) frequency.
pub const READ_FREQ: u8 = 0x03;
/// Read the operating mode and filter.
pub const READ_MODE: u8 = 0x04;
/// Set the operating frequency.
pub const SET_FREQ: u8 = 0x05;
/// Set the operating mode (and filter).
pub const SET_MODE: u8 = 0x06;
/// VFO / receiver selection, swap, equalize, dual watch ([`vfo`]); a bare `07` selects
/// VFO mode.
pub const VFO: u8 = 0x07;
/// Memory: a bare `08` selects memory mode, `08 <channel×2>` selects the memory channel
/// (2-byte big-endian BCD, `00 01` = channel 1).
pub const MEMORY_SELECT: u8 = 0x08;
/// Memory write: the selected VFO into the selected memory channel.
pub const MEMORY_WRITE: u8 = 0x09;
/// Memory to VFO: the selected memory channel into the selected VFO.
pub const MEMORY_TO_VFO: u8 = 0x0A;
/// Scan.
pub const SCAN: u8 = 0x0E;
/// Split off/on; read.
pub const SPLIT: u8 = 0x0F;
/// Tuning step.
pub const TUNING_STEP: u8 = 0x10;
/// Attenuator (one BCD byte, dB).
pub const ATTENUATOR: u8 = 0x11;
/// Antenna select (a set only: polling it toggles antennas).
pub const ANTENNA: u8 = 0x12;
/// Levels, 2-byte BCD 0000..0255 ([`level`]).
pub const LEVEL: u8 = 0x14;
/// Meters, read only ([`meter`]).
pub const METER: u8 = 0x15;
/// Functions and switches ([`function`]).
pub const FUNCTION: u8 = 0x16;
/// Send CW characters (ASCII), or `FF` to stop sending.
pub const SEND_CW: u8 = 0x17;
/// Power off / on; a bare read reports the power state.
pub const POWER: u8 = 0x18;
/// Transceiver id (`19 00`).
pub const ID: u8 = 0x19;
/// Extended settings: band stack, filter width, menu items, DATA mode ([`ext`]).
pub const EXT: u8 = 0x1A;
/// Repeater tone / TSQL frequency.
pub const TONE: u8 = 0x1B;
/// Transmit control: PTT, tuner, XFC, TX monitor ([`tx`]).
pub const TX: u8 = 0x1C;
/// TX band edges.
pub const TX_BAND_EDGE: u8 = 0x1E;
/// RIT / ∆TX ([`rit`]).
pub const RIT: u8 = 0x21;
/// Frequency of the selected (`00`) or unselected (`01`) receiver / VFO.
pub const SEL_FREQ: u8 = 0x25;
/// Mode, DATA mode and filter of the selected (`00`) or unselected (`01`) receiver / VFO.
pub const SEL_MODE: u8 = 0x26;
/// Spectrum scope ([`scope`]).
pub const SCOPE: u8 = 0x27;
/// Receiver prefix (command 29): `29 <rx> <cmd> [<sub>] [<data>]`.
pub const RECEIVER_PREFIX: u8 = 0x29;

/// Data bytes of [`VFO`] (`07`): the first data byte is the operation.
pub mod vfo {
    /// Select VFO A.
    pub const SELECT_A: u8 = 0x00;
    /// Select VFO B.
    pub const SELECT_B: u8 = 0x01;
    /// VFO A = B.
    pub const EQUALIZE_AB: u8 = 0xA0;
    /// Swap A and B (single receiver) or MAIN and SUB (IC-7610, IC-9700).
    pub const SWAP: u8 = 0xB0;
    /// MAIN = SUB.
    pub const EQUALIZE_MAIN_SUB: u8 = 0xB1;
    /// Dual watch off.
    pub const DUAL_WATCH_OFF: u8 = 0xC0;
    /// Dual watch on.
    pub const DUAL_WATCH_ON: u8 = 0xC1;
    /// Read dual watch: `07 C2 <00|01>`.
    pub const DUAL_WATCH: u8 = 0xC2;
    /// Select the MAIN receiver.
    pub const SELECT_MAIN: u8 = 0xD0;
    /// Select the SUB receiver.
    pub const SELECT_SUB: u8 = 0xD1;
    /// Read the selected receiver: `07 D2 <00 MAIN|01 SUB>`.
    pub const SELECTED: u8 = 0xD2;
}

/// Sub-commands of [`LEVEL`] (`14`).
pub mod level {
    /// AF gain.
    pub const AF: u8 = 0x01;
    /// RF gain.
    pub const RF_GAIN: u8 = 0x02;
    /// Squelch.
    pub const SQUELCH: u8 = 0x03;
    /// Audio peak filter level.
    pub const APF: u8 = 0x05;
    /// Noise reduction level.
    pub const NR: u8 = 0x06;
    /// Twin PBT inner.
    pub const PBT_INNER: u8 = 0x07;
    /// Twin PBT outer.
    pub const PBT_OUTER: u8 = 0x08;
    /// CW pitch.
    pub const CW_PITCH: u8 = 0x09;
    /// RF output power.
    pub const RF_POWER: u8 = 0x0A;
    /// Microphone gain.
    pub const MIC_GAIN: u8 = 0x0B;
    /// CW key speed.
    pub const KEY_SPEED: u8 = 0x0C;
    /// Manual notch position.
    pub const NOTCH: u8 = 0x0D;
    /// Speech compressor level.
    pub const COMP: u8 = 0x0E;
    /// Break-in delay.
    pub const BREAK_IN_DELAY: u8 = 0x0F;
    /// Noise blanker level.
    pub const NB: u8 = 0x12;
    /// DIGI-SEL shift.
    pub const DIGI_SEL_SHIFT: u8 = 0x13;
    /// Drive gain.
    pub const DRIVE: u8 = 0x14;
    /// Monitor gain.
    pub const MONITOR: u8 = 0x15;
    /// VOX gain.
    pub const VOX: u8 = 0x16;
    /// Anti-VOX gain.
    pub const ANTI_VOX: u8 = 0x17;
}

/// Sub-commands of [`METER`] (`15`).
pub mod meter {
    /// S-meter squelch open (1 byte).
    pub const SQUELCH_OPEN: u8 = 0x01;
    /// S-meter.
    pub const S_METER: u8 = 0x02;
    /// Various squelch (1 byte).
    pub const VARIOUS_SQUELCH: u8 = 0x05;
    /// ADC overflow (1 byte).
    pub const OVERFLOW: u8 = 0x07;
    /// Output power (Po).
    pub const PO: u8 = 0x11;
    /// SWR.
    pub const SWR: u8 = 0x12;
    /// ALC.
    pub const ALC: u8 = 0x13;
    /// Speech compression.
    pub const COMP: u8 = 0x14;
    /// PA drain voltage.
    pub const VD: u8 = 0x15;
    /// PA drain current.
    pub const ID: u8 = 0x16;
}

/// Sub-commands of [`FUNCTION`] (`16`).
pub mod function {
    /// Preamp (0 off, 1, 2).
    pub const PREAMP: u8 = 0x02;
    /// AGC (1 fast, 2 mid, 3 slow).
    pub const AGC: u8 = 0x12;
    /// Noise blanker.
    pub const NB: u8 = 0x22;
    /// Audio peak filter.
    pub const APF: u8 = 0x32;
    /// Noise reduction.
    pub const NR: u8 = 0x40;
    /// Auto notch.
    pub const AUTO_NOTCH: u8 = 0x41;
    /// Repeater tone.
    pub const REPEATER_TONE: u8 = 0x42;
    /// Tone squelch.
    pub const TSQL: u8 = 0x43;
    /// Speech compressor.
    pub const COMP: u8 = 0x44;
    /// Monitor.
    pub const MONITOR: u8 = 0x45;
    /// VOX.
    pub const VOX: u8 = 0x46;
    /// CW break-in (0 off, 1 semi, 2 full).
    pub const BREAK_IN: u8 = 0x47;
    /// Manual notch.
    pub const MANUAL_NOTCH: u8 = 0x48;
    /// DIGI-SEL.
    pub const DIGI_SEL: u8 = 0x4E;
    /// Twin peak filter.
    pub const TWIN_PEAK: u8 = 0x4F;
    /// Dial lock.
    pub const DIAL_LOCK: u8 = 0x50;
    /// RX antenna.
    pub const RX_ANTENNA: u8 = 0x53;
    /// DSP filter type.
    pub const DSP_FILTER_TYPE: u8 = 0x56;
    /// Manual notch width.
    pub const NOTCH_WIDTH: u8 = 0x57;
    /// SSB TX bandwidth.
    pub const SSB_TX_BANDWIDTH: u8 = 0x58;
    /// IP+.
    pub const IP_PLUS: u8 = 0x65;
}

/// Sub-commands of [`EXT`] (`1A`).
pub mod ext {
    /// Band stacking register: `1A 01 <band> <register> [...]`.
    pub const BAND_STACK: u8 = 0x01;
    /// IF filter width (one BCD index byte).
    pub const FILTER_WIDTH: u8 = 0x03;
    /// AGC time constant.
    pub const AGC_TIME: u8 = 0x04;
    /// Menu item: `1A 05 <hi> <lo> [value]`.
    pub const MENU: u8 = 0x05;
    /// DATA mode: `1A 06 <data> [<filter>]`.
    pub const DATA_MODE: u8 = 0x06;
    /// Memory content: `1A 00 <channel×2> [<content>]` (`FF` for an empty channel).
    pub const MEMORY_CONTENT: u8 = 0x00;
    /// AF mute of a receiver (IC-7610: a command-29 route).
    pub const AF_MUTE: u8 = 0x09;
    /// Band-stack register "latest" (the first of three).
    pub const BSR_LATEST: u8 = 0x01;
}

/// Sub-commands of [`TONE`] (`1B`): 3 BCD bytes follow (`00 88 05` = 88.5 Hz).
pub mod tone {
    /// Repeater tone frequency.
    pub const REPEATER: u8 = 0x00;
    /// Tone-squelch (TSQL) frequency.
    pub const TSQL: u8 = 0x01;
}

/// Sub-commands of [`TX`] (`1C`).
pub mod tx {
    /// PTT: `1C 00 <00 RX|01 TX>`.
    pub const PTT: u8 = 0x00;
    /// Antenna tuner: 00 off, 01 on, 02 tune.
    pub const TUNER: u8 = 0x01;
    /// XFC.
    pub const XFC: u8 = 0x02;
    /// TX frequency monitor.
    pub const TX_MONITOR: u8 = 0x03;
}

/// Sub-commands of [`RIT`] (`21`).
pub mod rit {
    /// RIT offset: 2 LE-BCD bytes (4 digits, Hz) + sign (00 +, 01 −).
    pub const OFFSET: u8 = 0x00;
    /// RIT off/on.
    pub const ON: u8 = 0x01;
    /// ∆TX off/on.
    pub const DELTA_TX: u8 = 0x02;
}

/// Sub-commands of [`SCOPE`] (`27`).
pub mod scope {
    /// Wave data (radio to controller, unsolicited).
    pub const WAVE: u8 = 0x00;
    /// Scope display off/on.
    pub const DISPLAY: u8 = 0x10;
    /// Wave-data output to CI-V off/on.
    pub const OUTPUT: u8 = 0x11;
    /// Scope shows MAIN / SUB.
    pub const RECEIVER: u8 = 0x12;
    /// Single / dual scope.
    pub const DUAL: u8 = 0x13;
    /// Mode: 00 center, 01 fixed, 02 scroll-C, 03 scroll-F.
    pub const MODE: u8 = 0x14;
    /// Half-span (5-byte BCD).
    pub const SPAN: u8 = 0x15;
    /// Fixed-edge number 1..4.
    pub const EDGE: u8 = 0x16;
    /// Hold off/on.
    pub const HOLD: u8 = 0x17;
    /// Reference level −30.0..+10.0 dB.
    pub const REF_LEVEL: u8 = 0x19;
    /// Sweep speed: 00 fast, 01 mid, 02 slow.
    pub const SPEED: u8 = 0x1A;
    /// Scope during TX.
    pub const DURING_TX: u8 = 0x1B;
    /// Center type.
    pub const CENTER_TYPE: u8 = 0x1C;
    /// VBW.
    pub const VBW: u8 = 0x1D;
    /// Fixed-edge frequencies.
    pub const FIXED_EDGES: u8 = 0x1E;
    /// RBW.
    pub const RBW: u8 = 0x1F;
}

/// Data bytes of [`POWER`] (`18`).
pub mod power {
    /// Switch off (to standby).
    pub const OFF: u8 = 0x00;
    /// Switch on (wakes a radio in standby).
    pub const ON: u8 = 0x01;
}

/// First data byte of [`SEL_FREQ`] (`25`) and [`SEL_MODE`] (`26`): which receiver / VFO.
pub mod sel {
    /// The selected receiver / VFO.
    pub const SELECTED: u8 = 0x00;
    /// The unselected receiver / VFO.
    pub const UNSELECTED: u8 = 0x01;
}

/// Sub-commands of [`ANTENNA`] (`12`): the antenna; the optional data byte is the RX
/// antenna (00 off, 01 on).
pub mod antenna {
    /// ANT1.
    pub const ANT1: u8 = 0x00;
    /// ANT2.
    pub const ANT2: u8 = 0x01;
}

/// Sub-command of [`ID`] (`19`): read the transceiver id.
pub const ID_READ: u8 = 0x00;

/// The byte that stops CW sending (`17 FF`).
pub const CW_STOP: u8 = 0xFF;
