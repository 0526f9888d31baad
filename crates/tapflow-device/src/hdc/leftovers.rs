//! Device files waiting to be deleted, per device, shared by a client and every device handle
//! it creates: a screenshot's capture is received with `hdc file recv` (binary cannot cross
//! `hdc shell`), and instead of a third round trip just to delete it, the delete rides in
//! front of the next shell command sent to that device (`rm -f P 2>/dev/null; <command>`),
//! usually the next capture. So at most the captures of one step are on the device at a time,
//! and one is left behind only when a capture was the last command a process sent there.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::hdc::quote::ShellCommand;

/// Paths to delete, by device serial.
#[derive(Debug, Clone, Default)]
pub struct Leftovers {
    paths: Arc<Mutex<HashMap<String, Vec<String>>>>,
}

impl Leftovers {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<String>>> {
        // A poisoned map only means a panic elsewhere mid-push; the paths are still valid.
        self.paths.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Remembers `path` on `serial` for deletion by the next command.
    pub fn add(&self, serial: &str, path: String) {
        self.lock()
            .entry(serial.to_string())
            .or_default()
            .push(path);
    }

    /// Takes what `serial` has pending (the caller sends the deletes, or gives them back).
    pub fn take(&self, serial: &str) -> Vec<String> {
        self.lock().remove(serial).unwrap_or_default()
    }

    /// Gives back paths whose delete may not have reached the device.
    pub fn restore(&self, serial: &str, paths: Vec<String>) {
        if !paths.is_empty() {
            self.lock()
                .entry(serial.to_string())
                .or_default()
                .extend(paths);
        }
    }

    /// Paths pending for `serial` (tests and diagnostics).
    pub fn pending(&self, serial: &str) -> Vec<String> {
        self.lock().get(serial).cloned().unwrap_or_default()
    }
}

/// `rm -f P… 2>/dev/null; <cmd>`: the delete prints nothing, whatever it finds, so the
/// command's own answer is unchanged.
pub fn prefixed(paths: &[String], cmd: &ShellCommand) -> ShellCommand {
    let mut rm = ShellCommand::new("rm").word("-f");
    for p in paths {
        rm = rm.arg(p);
    }
    rm.word("2>/dev/null").then(cmd.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deletes_ride_in_front_of_the_next_command_silently() {
        let l = Leftovers::default();
        l.add("A", "/data/local/tmp/tapflow_1.png".into());
        assert!(l.take("B").is_empty(), "per device");
        let paths = l.take("A");
        assert!(l.take("A").is_empty(), "taken once");
        let cmd = prefixed(&paths, &ShellCommand::new("param").word("get").arg("x"));
        assert_eq!(
            cmd.as_str(),
            "rm -f '/data/local/tmp/tapflow_1.png' 2>/dev/null; param get 'x'"
        );
        l.restore("A", paths);
        assert_eq!(l.pending("A").len(), 1);
    }
}
