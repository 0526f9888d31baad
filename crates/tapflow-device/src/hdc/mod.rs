//! The hdc backend: HarmonyOS devices driven through the `hdc` command line.
//!
//! Owns: routing flags ([`route`]), shell quoting and command building ([`quote`],
//! [`commands`], [`sections`]), classification of hdc's answers into typed errors
//! ([`classify`]), the round-trip runner with cost accounting ([`runner`]), the
//! [`crate::Device`] implementation ([`HdcDevice`]) and the entry point ([`HdcClient`]).
//! Output parsers live in [`parse`]. Everything goes through a
//! [`crate::Transport`], so the real `hdc` and the simulator see identical argv.
//! Must not use anything above `device`, nor read the environment (configuration comes in
//! through [`HdcConfig`]).

mod act_observe;
mod app_launch;
pub mod classify;
pub mod client;
pub mod commands;
pub mod config;
pub mod device;
mod info;
pub mod leftovers;
pub mod parse;
pub mod quote;
pub mod route;
pub mod runner;
pub mod screenshot;
pub mod sections;
mod ui_dump;
pub mod validate;
mod window_list;

pub use client::HdcClient;
pub use config::{HdcConfig, TransientRetry};
pub use device::HdcDevice;
pub use route::HdcRoute;
