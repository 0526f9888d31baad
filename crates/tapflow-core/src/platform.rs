//! The device platforms tapflow knows, by the one name every layer writes them with: a flow's
//! `when: {platform: …}`, `Device::platform`, an envelope's `meta.platform`, a run's device, the
//! command line's `--platform`.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A device platform, written in lower case (`harmonyos`, `android`, `ios`). `ios` is a name a
/// flow's condition may use (no backend drives it yet).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[schemars(description = "Platforms a condition may name.")]
pub enum Platform {
    // HarmonyOS devices, through hdc. (Plain comments: a documented variant would change the
    // flow schema's `enum` into a `oneOf`.) The default, as on the command line.
    #[default]
    Harmonyos,
    // Android devices, through adb.
    Android,
    // Named by flows only.
    Ios,
}

impl Platform {
    /// Every platform, in the flow schema's order.
    pub const ALL: [Platform; 3] = [Platform::Harmonyos, Platform::Android, Platform::Ios];

    /// The name, as flows, envelopes and results write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Platform::Harmonyos => "harmonyos",
            Platform::Android => "android",
            Platform::Ios => "ios",
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a platform.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown platform `{0}`")]
pub struct UnknownPlatform(pub String);

impl FromStr for Platform {
    type Err = UnknownPlatform;

    /// The exact name (`harmonyos`); flows' conditions lower-case theirs first.
    fn from_str(s: &str) -> Result<Platform, UnknownPlatform> {
        Platform::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownPlatform(s.to_string()))
    }
}

/// Comparisons with a platform's name (tests, and names that come from outside).
impl PartialEq<str> for Platform {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Platform {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Platform::ALL {
            assert_eq!(p.as_str().parse::<Platform>(), Ok(p));
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
            assert_eq!(p.to_string(), p.as_str());
        }
        assert_eq!(
            Platform::ALL.map(Platform::as_str),
            ["harmonyos", "android", "ios"]
        );
        assert!("HarmonyOS".parse::<Platform>().is_err());
        assert!(Platform::Android == "android");
    }
}
