//! The OpenTafl Engine Protocol (OTEP), both ways.
//!
//! [`Engine`] is the engine side (`brandubh engine`): it reads the host's
//! commands line by line and answers on its output, which carries nothing
//! but protocol. [`OtepPlayer`] is the host side: a [`Player`] that runs any
//! OTEP engine as a child process (`otep:CMD` player specs), checks every
//! move it sends, and forfeits the game when the engine crashes, hangs past
//! its clock or answers nonsense.
//!
//! Where OpenTafl's protocol text and its code differ we follow the code:
//! `clock` carries milliseconds (a `*` marks a side in overtime), and
//! `opponent-move` may carry several moves joined by `|`.

mod engine;
mod host;
mod wire;

pub use engine::{Engine, Flow};
pub use host::{OtepPlayer, SpawnError, CLOCK_GRACE, HELLO_TIMEOUT, NO_CLOCK_TIMEOUT};
