//! What one MCP session has called, in order, for `save_flow` (sessions become flows): each
//! finished `tools/call` that reached its tool, with its arguments (as the tool received them,
//! MCP-only ones taken out) and its outcome. The log lives in memory with the session and dies
//! with it; nothing of it is written anywhere except by `save_flow`, which writes secrets as
//! variables.
//!
//! Only what a flow step can be made of is kept of a result (element handles and the elements
//! they name, a password field's mask): a session that dumps large UI trees stays small. The log
//! keeps the latest [`MAX_CALLS`] calls; older ones are counted as cut off.
//!
//! `save_flow` runs as a tool of the engine, which knows no session: the call path makes the
//! session's log current on the worker thread for the call's lifetime ([`SessionLog::enter`]),
//! as it does with the call's signals, and the tool reads it with [`current`].

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use tapflow_core::codes::Code;
use tapflow_tools::Envelope;

/// Calls a session's log holds (the latest ones).
pub const MAX_CALLS: usize = 10_000;

/// One finished call.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// 1-based position in the session (`meta.session_call` of its result).
    pub seq: u64,
    /// When it finished.
    pub at: DateTime<Utc>,
    pub tool: String,
    pub args: Map<String, Value>,
    pub ok: bool,
    /// On failure, the error code.
    pub code: Option<Code>,
    /// What a step can be made of ([`KEEP_FIELDS`] of the result, or of the error's details).
    pub kept: Value,
}

/// The fields of a result (or of an error's details) a step can be made of: elements and the
/// handles they carry, and what a password field showed. The rest (trees, logs) is not kept.
const KEEP_FIELDS: &[&str] = &[
    "elements",
    "element",
    "masked",
    "masked_length",
    "observed_length",
    "expected_length",
];

fn kept(v: &Value) -> Value {
    match v.as_object() {
        Some(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| KEEP_FIELDS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        None => Value::Null,
    }
}

#[derive(Default)]
struct Inner {
    calls: VecDeque<Recorded>,
    next: u64,
}

/// One session's calls.
#[derive(Default)]
pub struct SessionLog {
    inner: Mutex<Inner>,
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<SessionLog>>> = const { RefCell::new(None) };
}

/// The log of the session whose call runs on this thread, if any (`tapflow tool` and flow
/// runs have none).
pub fn current() -> Option<Arc<SessionLog>> {
    CURRENT.with(|c| c.borrow().clone())
}

impl SessionLog {
    pub fn new() -> Arc<Self> {
        Arc::new(SessionLog::default())
    }

    /// Runs `f` with this log current on the thread ([`current`]).
    pub fn enter<R>(self: &Arc<Self>, f: impl FnOnce() -> R) -> R {
        struct Reset(Option<Arc<SessionLog>>);
        impl Drop for Reset {
            fn drop(&mut self) {
                CURRENT.with(|c| *c.borrow_mut() = self.0.take());
            }
        }
        let _reset = Reset(CURRENT.with(|c| c.borrow_mut().replace(self.clone())));
        f()
    }

    /// Appends a finished call; returns its number in the session.
    pub fn record(&self, tool: &str, args: Map<String, Value>, envelope: &Envelope) -> u64 {
        let s = &envelope.structured;
        let (code, kept) = match &s.error {
            None => (None, kept(&s.result)),
            Some(e) => (Some(e.code), kept(&e.details)),
        };
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.next += 1;
        let seq = inner.next;
        if inner.calls.len() == MAX_CALLS {
            inner.calls.pop_front();
        }
        inner.calls.push_back(Recorded {
            seq,
            at: Utc::now(),
            tool: tool.to_string(),
            args,
            ok: s.error.is_none(),
            code,
            kept,
        });
        seq
    }

    /// The calls held, oldest first, and how many earlier ones were cut off.
    pub fn snapshot(&self) -> (Vec<Recorded>, u64) {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let held: Vec<Recorded> = inner.calls.iter().cloned().collect();
        let cut = inner.next - held.len() as u64;
        (held, cut)
    }
}
