//! What the simulated hdc server answers for one invocation ([`SimOutput`]): what the simulator
//! ([`crate::simulator`]) and the file transfers ([`crate::transfer`]) return.

/// What one hdc invocation printed. Real hdc exits 0 even on failure; so does the simulator.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimOutput {
    pub stdout: Vec<u8>,
    pub exit: i32,
}

impl SimOutput {
    pub(crate) fn text(s: impl Into<String>) -> Self {
        Self {
            stdout: s.into().into_bytes(),
            exit: 0,
        }
    }

    /// stdout as text (lossy).
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}
