//! hdc-level failures, recognised from text (hdc exits 0 on failure).

/// What went wrong at the hdc level, before any device tool ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HdcFailure {
    /// `[Fail]No any connected target`, `[Fail][E001005] Device not found or connected`, `[Empty]`.
    NoDevice(String),
    /// `[Fail]ExecuteCommand need connect-key? …`: several devices, none chosen.
    NeedConnectKey(String),
    /// `[E000002]:The device unauthorized.` / `Unauthorized`.
    Unauthorized(String),
    /// USB/TCP link broke (`[Fail][E001003] USB communication abnormal…`, connection reset/closed).
    Disconnected(String),
    /// Any other `[Fail]…` / `[Exxxxxx]…` line.
    Other(String),
}

/// Looks at cleaned output (see [`super::clean_output`]) for an hdc-level failure.
pub fn detect_hdc_failure(text: &str) -> Option<HdcFailure> {
    todo!("parsers helper: {text}")
}
