//! The radio: typed state with a revision counter, the single-owner command
//! executor, scope sweep assembly, meters and audio codec conversion.

pub mod meters;
