//! The simulated HarmonyOS device (being written).

pub mod phone;
