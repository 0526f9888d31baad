//! The secrets the process's log lines are masked with. The log subscriber is installed before
//! any flow is compiled, and one process may run several plans (the MCP server's `run_flow`
//! calls, one after the other or side by side), so secrets are **registered** here by every
//! run as it starts ([`crate::run::run`]) and kept for the life of the process: a value one run
//! typed can still show in a line logged after that run (a later dump of the same screen).
//!
//! The subscriber's writer (`cli::log_gate`) masks every formatted line with [`masker`], which
//! knows every secret registered so far.

use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock, RwLock};

use super::Masker;

#[derive(Default)]
struct Registry {
    secrets: Mutex<BTreeSet<String>>,
    masker: RwLock<Masker>,
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::default)
}

/// Adds `secrets` (empty ones are ignored) to those every later log line is masked with. The
/// masker is rebuilt only when one of them is new.
pub fn register<S: AsRef<str>>(secrets: impl IntoIterator<Item = S>) {
    let r = registry();
    let mut known = r.secrets.lock().unwrap_or_else(|p| p.into_inner());
    let before = known.len();
    known.extend(
        secrets
            .into_iter()
            .map(|s| s.as_ref().to_string())
            .filter(|s| !s.is_empty()),
    );
    if known.len() != before {
        let masker = Masker::new(known.iter());
        // Swapped under the set's lock: two runs registering at once cannot leave the older set.
        *r.masker.write().unwrap_or_else(|p| p.into_inner()) = masker;
    }
}

/// The masker of every secret registered so far (cheap: a shared automaton).
pub fn masker() -> Masker {
    registry()
        .masker
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_accumulate() {
        register(["gate-first-secret", ""]);
        register(["gate-second-secret"]);
        let m = masker();
        assert_eq!(
            m.text("gate-first-secret gate-second-secret"),
            "****** ******"
        );
        register(["gate-first-secret"]);
        assert_eq!(masker().text("gate-first-secret"), "******");
    }
}
