//! Simulated device time per command.
//!
//! A real `hdc shell` round trip costs tens of milliseconds, a `uitest dumpLayout` hundreds; the
//! simulator reproduces that so that cost-aware code (one dump per observation, chained shell
//! commands) is measured honestly. The defaults are documented in `docs/sim.md`. Tests use
//! [`Latency::None`], under which every command answers at once, designed waits included (a
//! swipe's distance / velocity, uitest's focus wait, `sleep`); only injected faults
//! (`slow-dump`, `slow-chars`) still cost time, because a test asked for them. The simulator sleeps for this time *after* releasing the device, so a
//! slow device never blocks another one.

use std::str::FromStr;
use std::time::Duration;

/// uitest's own wait between the tap and the typing of `uiInput inputText x y TEXT` (the focus
/// settles): device time by design, part of the latency table in `docs/sim.md`.
pub const INPUT_TEXT_FOCUS_WAIT: Duration = Duration::from_millis(500);

/// The latency model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Latency {
    /// Realistic per-command costs (see [`Latency::cost`]).
    #[default]
    Realistic,
    /// Answer immediately (tests).
    None,
}

impl FromStr for Latency {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "realistic" => Ok(Latency::Realistic),
            "none" => Ok(Latency::None),
            other => Err(format!(
                "unknown latency `{other}` (expected realistic or none)"
            )),
        }
    }
}

/// What kind of work a command does on the device, for its cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cost {
    /// Host-only hdc commands (`list targets`, `version`).
    HdcLocal,
    /// Base cost of one `hdc shell` round trip (process spawn, USB, `sh -c`).
    ShellRoundTrip,
    /// A cheap device builtin (`echo`, `cat`, `ls`, `rm`, `param get`, `pidof`).
    Builtin,
    DumpLayout,
    Screenshot,
    /// One `uitest uiInput` gesture or key event (uitest process start dominates).
    UiInput,
    /// Typing: per character when typed key by key.
    KeyStroke,
    AbilityStart,
    ForceStop,
    BundleDump,
    Hidumper,
    Hilog,
    Install,
    Uninstall,
    /// A file transfer of this many bytes.
    Transfer(u64),
    /// Time a command waits on the device by design: a swipe's distance / velocity, uitest's
    /// 500 ms focus wait before typing, `sleep N`.
    Wait(Duration),
    /// Android `uiautomator dump`: a JVM start, a UiAutomation connection and `waitForIdle`'s
    /// one second of required idle time on a fresh connection.
    UiautomatorDump,
    /// One Android `input` command (`tap`, `swipe`, `keyevent`, `text`: a JVM start).
    AndroidInput,
    /// Android `pm` / `cmd package` / `dumpsys package` (a JVM start and a binder call).
    PackageManager,
}

impl Latency {
    /// Device time spent by one unit of `cost`.
    pub fn cost(self, cost: Cost) -> Duration {
        if self == Latency::None {
            return Duration::ZERO;
        }
        let ms = match cost {
            Cost::Wait(d) => return d,
            Cost::HdcLocal => 5,
            Cost::ShellRoundTrip => 30,
            Cost::Builtin => 2,
            Cost::DumpLayout => 250,
            Cost::Screenshot => 200,
            Cost::UiInput => 90,
            Cost::KeyStroke => 8,
            Cost::AbilityStart => 350,
            Cost::ForceStop => 120,
            Cost::BundleDump => 60,
            Cost::Hidumper => 80,
            Cost::Hilog => 40,
            Cost::Install => 800,
            Cost::Uninstall => 300,
            // 20 ms setup + ~30 MB/s over USB.
            Cost::Transfer(bytes) => 20 + bytes / 30_000,
            Cost::UiautomatorDump => 1_500,
            Cost::AndroidInput => 150,
            Cost::PackageManager => 250,
        };
        Duration::from_millis(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_is_free_and_realistic_is_ordered() {
        assert_eq!(Latency::None.cost(Cost::Install), Duration::ZERO);
        let r = Latency::Realistic;
        assert!(r.cost(Cost::DumpLayout) > r.cost(Cost::ShellRoundTrip));
        assert_eq!(
            r.cost(Cost::Transfer(3_000_000)),
            Duration::from_millis(120)
        );
        assert_eq!("none".parse::<Latency>(), Ok(Latency::None));
        // `none` also skips designed waits (a swipe's duration, `sleep`).
        let wait = Cost::Wait(Duration::from_secs(7));
        assert_eq!(Latency::None.cost(wait), Duration::ZERO);
        assert_eq!(r.cost(wait), Duration::from_secs(7));
        assert!("fast".parse::<Latency>().is_err());
    }
}
