//! The radio: what is pure sits in its own folders, the threads around it in `shell/`.
//!
//! * [`table`]: the command vocabulary — commands, their answers and errors, one row per
//!   command, the settings table and its values and codecs (depends on nothing else
//!   here).
//! * [`state`]: the typed state, how frames from the radio change it, the events its
//!   changes make, and what a command's validity depends on in it.
//! * [`engine`]: the sans-IO command engine (CI-V requests, procedures, timers, the scope
//!   sweep assembler, whether web TX audio may flow), fed `(input, now)`, and the pure
//!   policies of the pumps (scope output, meter rounds).
//! * [`dispatch`]: the sans-IO per-client queues and rate limits in front of the engine.
//! * [`shell`]: the executor (run on the link's CI-V thread), the pumps, the state store,
//!   the TX audio gate and the service that starts them.
//!
//! The folders form no loop (`.ci/folder_loops.py`). The re-exports below name the
//! modules the rest of the server uses where it finds them (`radio::service`,
//! `radio::command`, ...), whichever folder holds them.

pub mod dispatch;
pub mod engine;
pub mod shell;
pub mod state;
pub mod table;

pub use engine::{request, scope, tx_audio};
pub use shell::{
    audio_dsp, audio_pump, audio_rx, executor, meter_pump, scope_pump, service, state_store,
};
pub use state::{apply, events};
pub use table::{answer, command, error};
