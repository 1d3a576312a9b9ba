//! Android's logs: `adb logcat` lines ([`logcat`]), the crashes and ANRs in them
//! ([`crash`], [`tombstone`]), and `ps` output for naming processes ([`ps`]).

pub mod crash;
pub mod logcat;
pub mod ps;
pub mod tombstone;
