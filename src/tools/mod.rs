//! (being written)
pub mod build_app;
