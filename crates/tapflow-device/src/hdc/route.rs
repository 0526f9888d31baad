//! Device routing: which `-t <target>` / `-s <server>` flags precede the hdc sub-command.
//!
//! The rules are the tool contract's "Shared Device Routing" (binding):
//! no `hdc_server` and no `device_id` → no flags (hdc's local default); `hdc_server` only → the
//! endpoint is the target (`-t <ip:port>`, wireless debugging); `device_id` only →
//! `-t <device_id>`; both → `-t <device_id> -s <hdc_server>`. A default server (the value of
//! `HARMONYOS_HDC_SERVER`, read by the CLI and passed in) stands in for an omitted `hdc_server`.
//! hdc only honours these flags before the sub-command, so [`HdcRoute::argv`] always prefixes.

/// The routing flags for one device.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct HdcRoute {
    /// `-t <connect key>`: serial, or `ip:port` for a TCP/wireless device.
    pub target: Option<String>,
    /// `-s <[ip:]port>`: the hdc server to talk to.
    pub server: Option<String>,
}

impl HdcRoute {
    /// Applies the contract's rules to the optional tool parameters. Blank strings count as
    /// omitted (an agent sending `"device_id": ""` means "no device chosen").
    pub fn resolve(
        device_id: Option<&str>,
        hdc_server: Option<&str>,
        default_server: Option<&str>,
    ) -> Self {
        let clean = |s: Option<&str>| {
            s.map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let device_id = clean(device_id);
        let server = clean(hdc_server).or_else(|| clean(default_server));
        match (device_id, server) {
            (None, None) => Self::default(),
            (None, Some(server)) => Self {
                target: Some(server),
                server: None,
            },
            (Some(id), None) => Self {
                target: Some(id),
                server: None,
            },
            (Some(id), Some(server)) => Self {
                target: Some(id),
                server: Some(server),
            },
        }
    }

    /// A route that addresses `serial` on the default server.
    pub fn target(serial: impl Into<String>) -> Self {
        Self {
            target: Some(serial.into()),
            server: None,
        }
    }

    /// The global flags, in the order hdc expects them (`-t` then `-s`).
    pub fn flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        if let Some(t) = &self.target {
            flags.push("-t".to_string());
            flags.push(t.clone());
        }
        if let Some(s) = &self.server {
            flags.push("-s".to_string());
            flags.push(s.clone());
        }
        flags
    }

    /// The full argv for a sub-command: routing flags first, then `sub`.
    pub fn argv<S: AsRef<str>>(&self, sub: &[S]) -> Vec<String> {
        let mut argv = self.flags();
        argv.extend(sub.iter().map(|s| s.as_ref().to_string()));
        argv
    }

    /// The flags that select only the server (for `list targets`, which addresses no device).
    pub fn server_only(&self) -> HdcRoute {
        HdcRoute {
            target: None,
            server: self.server.clone(),
        }
    }

    /// How messages name the addressed device.
    pub fn label(&self) -> String {
        match (&self.target, &self.server) {
            (Some(t), Some(s)) => format!("{t} (via hdc server {s})"),
            (Some(t), None) => t.clone(),
            (None, _) => "(default device)".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(d: Option<&str>, s: Option<&str>, def: Option<&str>) -> Vec<String> {
        HdcRoute::resolve(d, s, def).flags()
    }

    #[test]
    fn nothing_given_means_no_flags() {
        assert!(flags(None, None, None).is_empty());
        assert_eq!(HdcRoute::resolve(None, None, None), HdcRoute::default());
    }

    #[test]
    fn server_only_is_the_target() {
        assert_eq!(
            flags(None, Some("192.168.43.34:35215"), None),
            ["-t", "192.168.43.34:35215"]
        );
    }

    #[test]
    fn device_only_is_the_target() {
        assert_eq!(
            flags(Some("3QC0124C11000711"), None, None),
            ["-t", "3QC0124C11000711"]
        );
    }

    #[test]
    fn device_and_server_give_target_then_server() {
        assert_eq!(
            flags(Some("3QC0124C11000711"), Some("192.168.43.34:35215"), None),
            ["-t", "3QC0124C11000711", "-s", "192.168.43.34:35215"]
        );
    }

    #[test]
    fn default_server_fills_an_omitted_server() {
        let def = Some("10.0.0.2:5555");
        assert_eq!(flags(None, None, def), ["-t", "10.0.0.2:5555"]);
        assert_eq!(
            flags(Some("SERIAL"), None, def),
            ["-t", "SERIAL", "-s", "10.0.0.2:5555"]
        );
    }

    #[test]
    fn explicit_server_wins_over_default() {
        let def = Some("10.0.0.2:5555");
        assert_eq!(flags(None, Some("1.2.3.4:9"), def), ["-t", "1.2.3.4:9"]);
        assert_eq!(
            flags(Some("SERIAL"), Some("1.2.3.4:9"), def),
            ["-t", "SERIAL", "-s", "1.2.3.4:9"]
        );
    }

    #[test]
    fn blank_values_count_as_omitted() {
        assert!(flags(Some(""), Some("  "), None).is_empty());
        assert_eq!(flags(Some(" "), None, Some("h:1")), ["-t", "h:1"]);
    }

    #[test]
    fn flags_precede_the_sub_command() {
        let r = HdcRoute::resolve(Some("SER"), Some("h:8710"), None);
        assert_eq!(
            r.argv(&["shell", "ls"]),
            ["-t", "SER", "-s", "h:8710", "shell", "ls"]
        );
        assert_eq!(
            HdcRoute::default().argv(&["list", "targets"]),
            ["list", "targets"]
        );
        assert_eq!(r.server_only().flags(), ["-s", "h:8710"]);
    }

    #[test]
    fn labels_name_the_device() {
        assert_eq!(HdcRoute::default().label(), "(default device)");
        assert_eq!(HdcRoute::target("A").label(), "A");
        assert_eq!(
            HdcRoute::resolve(Some("A"), Some("h:1"), None).label(),
            "A (via hdc server h:1)"
        );
    }
}
