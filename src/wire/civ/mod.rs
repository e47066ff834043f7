//! CI-V: frames (`FE FE <to> <from> <cmd> [<sub>] [<data>] FD`), BCD encodings,
//! the operating-mode table and command 29 (receiver prefix). Spec §4.

mod bcd;
pub mod cmd;
mod filter_width;
mod frame;
pub mod memory;
mod mode;
mod receiver;

pub use bcd::{
    MAX_FREQ_HZ, bcd_byte, bcd_to_freq, bcd_to_level, freq_to_bcd, from_bcd_byte, level_to_bcd,
};
pub use filter_width::{index_of_width, index_of_width_exact, width_of_index, width_range};
pub use frame::{Frame, FrameIter, MAX_FRAME_LEN, has_sub, split_frames};
pub use mode::{Mode, code as mode_codes};
pub use receiver::Receiver;

/// Frame preamble byte.
pub const PREAMBLE: u8 = 0xFE;
/// Frame terminator byte.
pub const TERMINATOR: u8 = 0xFD;
/// "OK" reply command.
pub const ACK: u8 = 0xFB;
/// "refused / invalid / unsupported" reply command.
pub const NAK: u8 = 0xFA;
/// Default controller address (this server).
pub const CONTROLLER: u8 = 0xE0;
/// Broadcast address used by transceive updates.
pub const BROADCAST: u8 = 0x00;
/// Command 29: receiver prefix (IC-7610).
pub const CMD_RECEIVER_PREFIX: u8 = cmd::RECEIVER_PREFIX;
