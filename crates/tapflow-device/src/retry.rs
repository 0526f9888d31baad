//! The resend budget shared by the hdc and adb backends (see [`TransientRetry`]).

use std::time::Duration;

/// The retry budget for an answer that proves the command never reached the device: hdc's
/// `[Fail][E000004]:The communication channel is being established.` (`Please wait for several
/// seconds and try again.`), which hdc gives before it forwards anything, and adb's `error:
/// closed` for a stream the device refused to open (`CLSE` in answer to `OPEN`: the service
/// never started). The same command is sent again: up to `retries` more times, pausing
/// `backoff` before the first retry and twice as long before each next one, never past the
/// command's own deadline. Every attempt is one more device round trip in `cost`. No other
/// failure is retried: a command whose fate is unknown is never sent twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransientRetry {
    pub retries: u32,
    pub backoff: Duration,
}

impl TransientRetry {
    /// The default: 4 retries after 0.2, 0.4, 0.8 and 1.6 s (3 s in all, the "several seconds"
    /// hdc asks for).
    pub const DEFAULT: TransientRetry = TransientRetry {
        retries: 4,
        backoff: Duration::from_millis(200),
    };

    /// The pause before retry number `n` (1-based).
    pub fn pause_before(&self, n: u32) -> Duration {
        self.backoff
            .saturating_mul(1u32.checked_shl(n.saturating_sub(1)).unwrap_or(u32::MAX))
    }
}

impl Default for TransientRetry {
    fn default() -> Self {
        Self::DEFAULT
    }
}
