//! Fault injection for the simulated devices, deterministic from a seed.
//!
//! A [`FaultSpec`] is parsed from the `--faults` grammar documented in `docs/sim.md`
//! (`fail=0.1,empty-dump=0.05,truncate-dump=0.05,slow-dump=3000ms,drop-chars=0.02,
//! slow-chars=20ms,disconnect-after=40`). Each device owns a [`FaultState`] with its own
//! ChaCha RNG seeded from the simulator seed and the device index, so the same seed and the
//! same sequence of commands always inject the same faults, whatever the other devices do.

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What can go wrong, and how often. Probabilities are in `0.0..=1.0`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FaultSpec {
    /// Probability that an hdc command addressed to a device answers hdc's transient
    /// `[Fail][E000004]:The communication channel is being established.` (and does nothing).
    pub fail: f64,
    /// Probability that `uitest dumpLayout` writes an empty file.
    pub empty_dump: f64,
    /// Probability that `uitest dumpLayout` writes a truncated file.
    pub truncate_dump: f64,
    /// Extra device time spent by a dump, with the probability it happens.
    pub slow_dump: Option<(Duration, f64)>,
    /// Probability that one character typed key by key is lost.
    pub drop_chars: f64,
    /// The first this many characters typed key by key on the device are lost (then none
    /// more by this rule): a deterministic loss, for tests of what follows one.
    pub drop_first_chars: u64,
    /// Extra device time per character typed key by key.
    pub slow_chars: Duration,
    /// The device disconnects after answering this many hdc commands.
    pub disconnect_after: Option<u64>,
    /// Probability that the simulated Android device drops its TCP connection in the middle
    /// of a command (adb then reconnects by itself); HarmonyOS devices ignore it.
    pub drop_conn: f64,
}

/// A `--faults` string that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid fault spec `{item}`: {reason}")]
pub struct FaultSpecError {
    pub item: String,
    pub reason: String,
}

impl FaultSpec {
    /// No faults at all.
    pub fn none() -> Self {
        Self::default()
    }

    /// True when no fault can ever fire.
    pub fn is_none(&self) -> bool {
        *self == Self::default()
    }

    /// Parses `key=value[,key=value…]`; an empty string or `none` means no faults.
    pub fn parse(spec: &str) -> Result<Self, FaultSpecError> {
        let mut out = FaultSpec::default();
        let spec = spec.trim();
        if spec.is_empty() || spec == "none" {
            return Ok(out);
        }
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let err = |reason: &str| FaultSpecError {
                item: item.to_string(),
                reason: reason.to_string(),
            };
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| err("expected key=value"))?;
            let (key, value) = (key.trim(), value.trim());
            match key {
                "fail" => out.fail = parse_prob(value).map_err(|r| err(&r))?,
                "empty-dump" => out.empty_dump = parse_prob(value).map_err(|r| err(&r))?,
                "truncate-dump" => out.truncate_dump = parse_prob(value).map_err(|r| err(&r))?,
                "drop-chars" => out.drop_chars = parse_prob(value).map_err(|r| err(&r))?,
                "drop-conn" => out.drop_conn = parse_prob(value).map_err(|r| err(&r))?,
                "drop-first-chars" => {
                    out.drop_first_chars = value
                        .parse()
                        .map_err(|_| err("expected a whole number of characters"))?;
                }
                "slow-dump" => {
                    let (d, p) = match value.split_once('@') {
                        Some((d, p)) => (d, parse_prob(p).map_err(|r| err(&r))?),
                        None => (value, 1.0),
                    };
                    out.slow_dump = Some((parse_duration(d).map_err(|r| err(&r))?, p));
                }
                "slow-chars" => out.slow_chars = parse_duration(value).map_err(|r| err(&r))?,
                "disconnect-after" => {
                    let n: u64 = value
                        .parse()
                        .map_err(|_| err("expected a whole number of commands"))?;
                    out.disconnect_after = Some(n);
                }
                other => {
                    return Err(err(&format!(
                        "unknown fault `{other}` (known: fail, empty-dump, truncate-dump, slow-dump, drop-chars, drop-first-chars, slow-chars, disconnect-after, drop-conn)"
                    )));
                }
            }
        }
        Ok(out)
    }
}

fn parse_prob(v: &str) -> Result<f64, String> {
    let p: f64 = v
        .parse()
        .map_err(|_| format!("`{v}` is not a probability"))?;
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("probability {p} is outside 0..1"));
    }
    Ok(p)
}

/// `250ms`, `3s`, or a bare number of milliseconds.
pub fn parse_duration(v: &str) -> Result<Duration, String> {
    let (num, scale) = if let Some(n) = v.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = v.strip_suffix('s') {
        (n, 1000.0)
    } else {
        (v, 1.0)
    };
    let n: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{v}` is not a duration (e.g. 250ms, 3s)"))?;
    if !n.is_finite() || n < 0.0 {
        return Err(format!("`{v}` is not a positive duration"));
    }
    Ok(Duration::from_micros((n * scale * 1000.0) as u64))
}

/// The faults of one device: its RNG and its command count.
#[derive(Debug)]
pub struct FaultState {
    spec: FaultSpec,
    rng: ChaCha8Rng,
    commands: u64,
    disconnected: bool,
    /// Characters lost so far under `drop_first_chars`.
    dropped_first: u64,
}

/// What a dump should suffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpFault {
    None,
    Empty,
    /// Keep only this fraction (per mille) of the bytes.
    Truncate(u32),
}

impl FaultState {
    pub fn new(spec: FaultSpec, seed: u64, device_index: usize) -> Self {
        // Mix the index in so devices get independent but reproducible streams.
        let mixed = seed ^ (device_index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Self {
            spec,
            rng: ChaCha8Rng::seed_from_u64(mixed),
            commands: 0,
            disconnected: false,
            dropped_first: 0,
        }
    }

    pub fn spec(&self) -> &FaultSpec {
        &self.spec
    }

    /// Draws one number in `0..1` and compares it. Always draws, so the stream position depends
    /// only on the sequence of commands, not on the probabilities.
    fn roll(&mut self, p: f64) -> bool {
        let x: f64 = self.rng.random();
        x < p
    }

    pub fn is_disconnected(&self) -> bool {
        self.disconnected
    }

    /// Counts an hdc command addressed to this device. Returns false once the device has
    /// disconnected (this command and every later one find no device).
    pub fn admit_command(&mut self) -> bool {
        if self.disconnected {
            return false;
        }
        if let Some(n) = self.spec.disconnect_after
            && self.commands >= n
        {
            self.disconnected = true;
            return false;
        }
        self.commands += 1;
        true
    }

    /// Whether this command answers a transient `[Fail]`.
    pub fn transient_fail(&mut self) -> bool {
        let p = self.spec.fail;
        self.roll(p)
    }

    /// The fault a dump suffers, plus extra device time.
    pub fn dump_fault(&mut self) -> (DumpFault, Duration) {
        let (pe, pt) = (self.spec.empty_dump, self.spec.truncate_dump);
        let empty = self.roll(pe);
        let trunc = self.roll(pt);
        let keep: u32 = self.rng.random_range(50..950);
        let slow_dump = self.spec.slow_dump;
        let slow = match slow_dump {
            Some((d, p)) => {
                if self.roll(p) {
                    d
                } else {
                    Duration::ZERO
                }
            }
            None => {
                let _ = self.roll(0.0);
                Duration::ZERO
            }
        };
        let fault = if empty {
            DumpFault::Empty
        } else if trunc {
            DumpFault::Truncate(keep)
        } else {
            DumpFault::None
        };
        (fault, slow)
    }

    /// Whether one typed character is lost.
    pub fn drop_char(&mut self) -> bool {
        let p = self.spec.drop_chars;
        // Always rolled, so `drop-first-chars` does not shift the random stream.
        let random = self.roll(p);
        if self.dropped_first < self.spec.drop_first_chars {
            self.dropped_first += 1;
            return true;
        }
        random
    }

    /// Whether this command loses its TCP connection (Android devices).
    pub fn drop_connection(&mut self) -> bool {
        let p = self.spec.drop_conn;
        self.roll(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_example() {
        let s = FaultSpec::parse(
            "fail=0.1,empty-dump=0.05,truncate-dump=0.05,slow-dump=3000ms,drop-chars=0.02,disconnect-after=40",
        )
        .unwrap();
        assert_eq!(s.fail, 0.1);
        assert_eq!(s.slow_dump, Some((Duration::from_secs(3), 1.0)));
        assert_eq!(s.disconnect_after, Some(40));
        let s = FaultSpec::parse("slow-dump=2s@0.5, slow-chars=15ms").unwrap();
        assert_eq!(s.slow_dump, Some((Duration::from_secs(2), 0.5)));
        assert_eq!(s.slow_chars, Duration::from_millis(15));
        assert!(FaultSpec::parse("none").unwrap().is_none());
        assert!(FaultSpec::parse("").unwrap().is_none());
    }

    #[test]
    fn rejects_bad_specs() {
        for bad in [
            "fail",
            "fail=2",
            "fail=x",
            "bogus=1",
            "slow-dump=fast",
            "disconnect-after=-1",
        ] {
            assert!(FaultSpec::parse(bad).is_err(), "{bad}");
        }
        let e = FaultSpec::parse("bogus=1").unwrap_err();
        assert!(e.to_string().contains("unknown fault `bogus`"));
    }

    #[test]
    fn same_seed_same_faults_and_devices_differ() {
        let spec =
            FaultSpec::parse("fail=0.3,drop-chars=0.3,empty-dump=0.2,truncate-dump=0.2").unwrap();
        let run = |seed, idx| {
            let mut f = FaultState::new(spec.clone(), seed, idx);
            (0..200)
                .map(|i| match i % 3 {
                    0 => f.transient_fail() as u8,
                    1 => f.drop_char() as u8,
                    _ => match f.dump_fault().0 {
                        DumpFault::None => 0,
                        DumpFault::Empty => 1,
                        DumpFault::Truncate(_) => 2,
                    },
                })
                .collect::<Vec<u8>>()
        };
        assert_eq!(run(42, 0), run(42, 0));
        assert_ne!(run(42, 0), run(43, 0));
        assert_ne!(run(42, 0), run(42, 1));
        assert!(run(42, 0).contains(&1));
    }

    #[test]
    fn disconnects_after_n_commands() {
        let mut f = FaultState::new(FaultSpec::parse("disconnect-after=2").unwrap(), 1, 0);
        assert!(f.admit_command());
        assert!(f.admit_command());
        assert!(!f.admit_command());
        assert!(f.is_disconnected());
        assert!(!f.admit_command());
    }

    #[test]
    fn the_first_characters_are_lost_then_none_more() {
        let spec = FaultSpec::parse("drop-first-chars=3").unwrap();
        assert_eq!(spec.drop_first_chars, 3);
        let mut f = FaultState::new(spec, 1, 0);
        let lost: Vec<bool> = (0..6).map(|_| f.drop_char()).collect();
        assert_eq!(lost, [true, true, true, false, false, false]);
        assert!(FaultSpec::parse("drop-first-chars=x").is_err());
    }
}
