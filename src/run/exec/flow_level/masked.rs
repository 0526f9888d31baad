//! Password fields in flows. A bare `input_text` call succeeds on its own when the mask has the
//! typed length (`crates/tapflow-tools/src/input_text`); a flow also accepts a retyped step's
//! masked result, which comes back as `TEXT_NOT_READABLE` with what the field showed.
//!
//! A password field never shows its value: a HarmonyOS dump carries it as a `TextInput` whose
//! `text` is empty until typed into (the HapTest login demo in the fixtures: `hint: 密码`,
//! `text: ""`, no password attribute), and the simulator, like the ArkUI password field,
//! shows one `•` per character. What can be verified is the masked length: when the field
//! shows exactly as many mask characters as were typed, the step passes with `verified:
//! false` (nothing was read back) and `masked_length` / `length_verified: true`; so
//! `expect: {verified: true}` still fails, honestly. A different length (dropped or extra
//! characters) stays a failure.

use tapflow_tools::envelope::Envelope;
use tapflow_tools::flow_hooks::Typing;

use crate::run::worker::CallOutcome;

/// A typing call into a field that hides its value, whose masked length matches what was
/// typed: a passing outcome with `verified: false` ([`Typing::masked`] gives the result as
/// observed). Anything else is returned as it was.
pub(super) fn accept(tool: &str, typing: &Typing, outcome: CallOutcome) -> CallOutcome {
    let CallOutcome::Done(env) = &outcome else {
        return outcome;
    };
    let Some(m) = env.structured.error.as_ref().and_then(typing.masked) else {
        return outcome;
    };
    if m.shown != m.typed {
        return outcome;
    }
    let duration = env.structured.meta.duration_ms;
    CallOutcome::Done(Box::new(Envelope::new(tool, Ok(m.result), duration)))
}
