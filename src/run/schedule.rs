//! Which device runs which flow, and when. Every device is checked on its own thread and starts
//! its flows as soon as its own check passed: a slow or failing device never holds back the
//! others (`docs/run.md`, "Devices and flows").
//!
//! The assignment is deterministic, a function of the plan and of which devices passed their
//! check, never of timing:
//! - **split** (default): by expected duration ([`super::balance`]): longest expected first,
//!   each to the device with the least expected work so far; each device runs its share
//!   longest first. (With equal expectations this is round robin, as `tapflow plan` shows it.)
//!   The flows of a device that fails its check are dealt, in flow order, round robin over the
//!   devices that passed (in device order), once every device has been checked; each of those
//!   devices runs its share after its own flows. With no device passing, they are `not_run`.
//! - **each device**: every flow on every device; a device that fails its check has its flows
//!   `not_run` (the others run them anyway).
//!
//! Also owns when a device that passed its check stops taking flows ([`Health`]): at once after
//! a flow failed with a code that says the device (or the hdc server, or hdc) is gone
//! ([`LOST_DEVICE_CODES`]); after any other infrastructure failure
//! ([`super::result::INFRA_CODES`]) the device is checked again before its next flow, and a
//! failed check means the same. Its remaining flows are then `not_run`, with the reason.
//! Result slots are numbered as before: per flow, one per device it is assigned to.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

pub use super::balance::Expected;
use super::balance::assign;
use super::cancel::CancelToken;
use super::result::{DeviceResult, INFRA_CODES, StepError};
use tapflow_core::plan::FlowPlan;

/// Codes after which a device's remaining flows are not run: the device (or the hdc server, or
/// hdc itself) is gone, and every later command would fail the same way.
pub const LOST_DEVICE_CODES: &[tapflow_core::codes::Code] = &[
    tapflow_core::codes::DEVICE_DISCONNECTED,
    tapflow_core::codes::DEVICE_NOT_FOUND,
    tapflow_core::codes::HDC_SERVER_UNREACHABLE,
    tapflow_core::codes::HDC_NOT_FOUND,
];

/// How often a device waiting for the other checks looks at the cancellation token.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// One flow run: its slot in the result and the flow.
#[derive(Debug)]
pub struct Job<'p> {
    pub slot: usize,
    pub flow: &'p FlowPlan,
}

/// A flow run of the initial assignment and its device.
#[derive(Debug)]
pub struct Assigned<'p> {
    pub slot: usize,
    pub device: usize,
    pub flow: &'p FlowPlan,
}

/// A job that will not run, why, and the device it was assigned to.
#[derive(Debug)]
pub struct Dropped<'p> {
    pub job: Job<'p>,
    pub device: usize,
    pub reason: String,
}

/// The shared schedule of one run; device threads call [`Schedule::checked`] once, then
/// [`Schedule::next`] until it returns `None`.
pub struct Schedule<'p> {
    each_device: bool,
    slots: usize,
    state: Mutex<State<'p>>,
    changed: Condvar,
}

struct State<'p> {
    /// Check verdicts, once known.
    passed: Vec<Option<bool>>,
    /// What each device still has to run: its own flows, then its share of orphans.
    queues: Vec<VecDeque<Job<'p>>>,
    /// Flows of devices that failed their check, waiting to be dealt (split mode).
    orphans: Vec<Dropped<'p>>,
    /// Devices whose thread no longer takes work (failed check, or left on interruption).
    closed: Vec<bool>,
}

impl State<'_> {
    fn all_checked(&self) -> bool {
        self.passed.iter().all(Option::is_some)
    }
}

impl<'p> Schedule<'p> {
    /// The initial assignment of `flows` to `devices` devices; `expected` holds each flow's
    /// expected duration (any unit; only the order matters), for the split.
    pub fn new(
        flows: &[&'p FlowPlan],
        expected: &[f64],
        devices: usize,
        each_device: bool,
    ) -> Self {
        let mut queues: Vec<VecDeque<Job<'p>>> = (0..devices).map(|_| VecDeque::new()).collect();
        let mut slots = 0;
        if devices > 0 && each_device {
            for flow in flows {
                for q in queues.iter_mut() {
                    q.push_back(Job { slot: slots, flow });
                    slots += 1;
                }
            }
        } else if devices > 0 {
            // One slot per flow, in plan order; each device's queue in the order the
            // balance chose (longest expected first).
            for (d, share) in assign(expected, devices).into_iter().enumerate() {
                for i in share {
                    queues[d].push_back(Job {
                        slot: i,
                        flow: flows[i],
                    });
                }
            }
            slots = flows.len();
        }
        Schedule {
            each_device,
            slots,
            state: Mutex::new(State {
                passed: vec![None; devices],
                queues,
                orphans: Vec::new(),
                closed: vec![false; devices],
            }),
            changed: Condvar::new(),
        }
    }

    /// How many flow runs the assignment holds (the result's first slots).
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The initial assignment in slot order: each flow run with the device it was given
    /// (before any check; a failed check moves flows, keeping their slots).
    pub fn jobs(&self) -> Vec<Assigned<'p>> {
        let st = self.lock();
        let mut out: Vec<Assigned<'p>> = st
            .queues
            .iter()
            .enumerate()
            .flat_map(|(device, q)| {
                q.iter().map(move |j| Assigned {
                    slot: j.slot,
                    device,
                    flow: j.flow,
                })
            })
            .collect();
        out.sort_by_key(|a| a.slot);
        out
    }

    /// Records the check of `device`: `Err(reason)` when it failed. Returns the jobs decided
    /// not to run by this verdict: the failed device's own (each-device mode), and, once this
    /// was the last check, the orphans no device can take.
    pub fn checked(&self, device: usize, verdict: Result<(), String>) -> Vec<Dropped<'p>> {
        let mut st = self.lock();
        st.passed[device] = Some(verdict.is_ok());
        let mut dropped = Vec::new();
        if let Err(reason) = verdict {
            st.closed[device] = true;
            let own: Vec<Job<'p>> = st.queues[device].drain(..).collect();
            for job in own {
                let d = Dropped {
                    job,
                    device,
                    reason: reason.clone(),
                };
                if self.each_device {
                    dropped.push(d);
                } else {
                    st.orphans.push(d);
                }
            }
        }
        if st.all_checked() {
            dropped.extend(self.deal(&mut st));
        }
        drop(st);
        self.changed.notify_all();
        dropped
    }

    /// Deals the orphans round robin over the devices that passed and still take work, in
    /// device order; returns those nobody can take.
    fn deal(&self, st: &mut State<'p>) -> Vec<Dropped<'p>> {
        let orphans = std::mem::take(&mut st.orphans);
        let takers: Vec<usize> = (0..st.passed.len())
            .filter(|&d| st.passed[d] == Some(true) && !st.closed[d])
            .collect();
        if takers.is_empty() {
            let anyone_passed = st.passed.contains(&Some(true));
            return orphans
                .into_iter()
                .map(|mut o| {
                    if anyone_passed {
                        // The devices that passed left on interruption.
                        o.reason = "the run was interrupted before this flow started".into();
                    }
                    o
                })
                .collect();
        }
        for (k, o) in orphans.into_iter().enumerate() {
            st.queues[takers[k % takers.len()]].push_back(o.job);
        }
        Vec::new()
    }

    /// The next flow for `device` (which passed its check): its own flows first, then, once
    /// every device has been checked, its share of the flows of devices that failed theirs.
    /// `None` when nothing is left, or when the run is cancelled while waiting for the other
    /// checks (the device then takes no more work).
    pub fn next(&self, device: usize, cancel: &CancelToken) -> Option<Job<'p>> {
        let mut st = self.lock();
        loop {
            if let Some(job) = st.queues[device].pop_front() {
                return Some(job);
            }
            if st.all_checked() {
                st.closed[device] = true;
                return None;
            }
            if cancel.is_cancelled() {
                st.closed[device] = true;
                return None;
            }
            st = self
                .changed
                .wait_timeout(st, CANCEL_POLL)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<'p>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Whether a device that passed its check can still run flows.
#[derive(Debug, Default)]
pub struct Health {
    lost: Option<String>,
    recheck: bool,
}

impl Health {
    /// Before a flow: why it must not run, if the device is gone. After an infrastructure
    /// failure the device is first checked again with `check` (not when the run is cancelled:
    /// nothing more will run anyway).
    pub fn gone(
        &mut self,
        serial: &str,
        cancel: &CancelToken,
        check: impl FnOnce() -> DeviceResult,
    ) -> Option<&str> {
        if self.recheck && self.lost.is_none() && !cancel.is_cancelled() {
            self.recheck = false;
            let again = check();
            if !again.ready {
                let why = again
                    .error
                    .map_or_else(String::new, |e| format!(" ({}: {})", e.code, e.message));
                self.lost = Some(format!(
                    "device {serial} failed its check again after an earlier flow failed on the infrastructure{why}"
                ));
            }
        }
        self.lost.as_deref()
    }

    /// After a flow: what its error says about the device.
    pub fn after(&mut self, serial: &str, error: Option<&StepError>) {
        let Some(e) = error else { return };
        if LOST_DEVICE_CODES.contains(&e.code) {
            self.lost.get_or_insert_with(|| {
                format!(
                    "device {serial} was lost during an earlier flow ({}: {})",
                    e.code, e.message
                )
            });
        } else if INFRA_CODES.contains(&e.code) {
            self.recheck = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flows(n: usize) -> Vec<FlowPlan> {
        (0..n)
            .map(|i| FlowPlan::new(format!("f{i}"), String::new(), String::new()))
            .collect()
    }

    fn ids(s: &Schedule<'_>, device: usize) -> Vec<String> {
        let never = CancelToken::new();
        std::iter::from_fn(|| s.next(device, &never))
            .map(|j| format!("{}@{}", j.flow.id, j.slot))
            .collect()
    }

    #[test]
    fn split_is_round_robin_and_failed_devices_flows_are_dealt_to_those_that_passed() {
        let fs = flows(7);
        let refs: Vec<&FlowPlan> = fs.iter().collect();
        let s = Schedule::new(&refs, &vec![1.0; refs.len()], 3, false);
        assert_eq!(s.slots(), 7);
        assert!(s.checked(0, Ok(())).is_empty());
        assert!(s.checked(2, Ok(())).is_empty());
        // Device 1 had f1 and f4: dealt to devices 0 and 2, in that order.
        assert!(
            s.checked(1, Err("device B failed its check".into()))
                .is_empty()
        );
        assert_eq!(ids(&s, 0), ["f0@0", "f3@3", "f6@6", "f1@1"]);
        assert_eq!(ids(&s, 2), ["f2@2", "f5@5", "f4@4"]);
    }

    #[test]
    fn with_no_device_passing_the_flows_are_dropped_with_the_reason() {
        let fs = flows(3);
        let refs: Vec<&FlowPlan> = fs.iter().collect();
        let s = Schedule::new(&refs, &vec![1.0; refs.len()], 2, false);
        assert!(s.checked(1, Err("B is locked".into())).is_empty());
        let dropped = s.checked(0, Err("A is gone".into()));
        let got: Vec<(String, usize, String)> = dropped
            .into_iter()
            .map(|d| (d.job.flow.id.clone(), d.device, d.reason))
            .collect();
        assert_eq!(
            got,
            [
                ("f1".to_string(), 1, "B is locked".to_string()),
                ("f0".into(), 0, "A is gone".into()),
                ("f2".into(), 0, "A is gone".into()),
            ]
        );
    }

    #[test]
    fn each_device_drops_a_failed_devices_own_flows_at_once() {
        let fs = flows(2);
        let refs: Vec<&FlowPlan> = fs.iter().collect();
        let s = Schedule::new(&refs, &vec![1.0; refs.len()], 2, true);
        assert_eq!(s.slots(), 4);
        let dropped = s.checked(1, Err("no".into()));
        let slots: Vec<usize> = dropped.iter().map(|d| d.job.slot).collect();
        assert_eq!(slots, [1, 3]);
        assert!(s.checked(0, Ok(())).is_empty());
        assert_eq!(ids(&s, 0), ["f0@0", "f1@2"]);
    }

    #[test]
    fn a_device_starts_before_the_others_are_checked() {
        let fs = flows(4);
        let refs: Vec<&FlowPlan> = fs.iter().collect();
        let s = Schedule::new(&refs, &vec![1.0; refs.len()], 2, false);
        s.checked(0, Ok(()));
        let never = CancelToken::new();
        // Device 1 is still being checked: device 0 gets its own flows right away.
        assert_eq!(s.next(0, &never).unwrap().flow.id, "f0");
        assert_eq!(s.next(0, &never).unwrap().flow.id, "f2");
        // Then it waits for device 1's verdict, which hands it f1 and f3.
        std::thread::scope(|t| {
            let h = t.spawn(|| ids(&s, 0));
            s.checked(1, Err("slow and then gone".into()));
            assert_eq!(h.join().unwrap(), ["f1@1", "f3@3"]);
        });
    }

    fn error(code: tapflow_core::codes::Code) -> StepError {
        StepError {
            code,
            message: "m".into(),
            details: serde_json::Value::Null,
            location: None,
        }
    }

    fn device(ready: bool) -> DeviceResult {
        DeviceResult {
            serial: "S".into(),
            platform: "harmonyos".into(),
            model: None,
            name: None,
            api_level: None,
            software_version: None,
            ready,
            error: (!ready).then(|| error(tapflow_core::codes::HDC_SERVER_UNREACHABLE)),
        }
    }

    #[test]
    fn a_lost_device_stops_and_other_infrastructure_failures_are_checked_again() {
        let never = CancelToken::new();
        let unused = || -> DeviceResult { panic!("no check expected") };
        let mut h = Health::default();
        h.after("S", None);
        h.after("S", Some(&error(tapflow_core::codes::ELEMENT_NOT_FOUND)));
        assert_eq!(h.gone("S", &never, unused), None);
        // An infrastructure failure: checked again, still usable.
        h.after("S", Some(&error(tapflow_core::codes::HDC_FAILED)));
        assert_eq!(h.gone("S", &never, || device(true)), None);
        assert_eq!(h.gone("S", &never, unused), None, "checked once");
        // Again, and this time the check fails: gone, with the check's reason.
        h.after("S", Some(&error(tapflow_core::codes::HDC_TIMEOUT)));
        let why = h.gone("S", &never, || device(false)).unwrap().to_string();
        assert!(why.contains("HDC_SERVER_UNREACHABLE"), "{why}");
        assert_eq!(h.gone("S", &never, unused), Some(why.as_str()));

        let mut h = Health::default();
        h.after("S", Some(&error(tapflow_core::codes::DEVICE_DISCONNECTED)));
        assert!(h.gone("S", &never, unused).unwrap().contains("was lost"));
    }

    #[test]
    fn an_interrupted_wait_leaves_and_its_share_is_dropped() {
        let fs = flows(2);
        let refs: Vec<&FlowPlan> = fs.iter().collect();
        let s = Schedule::new(&refs, &vec![1.0; refs.len()], 2, false);
        s.checked(0, Ok(()));
        let cancel = CancelToken::new();
        assert_eq!(s.next(0, &cancel).unwrap().flow.id, "f0");
        cancel.cancel();
        assert!(s.next(0, &cancel).is_none());
        let dropped = s.checked(1, Err("failed".into()));
        assert_eq!(dropped.len(), 1);
        assert_eq!(
            dropped[0].reason,
            "the run was interrupted before this flow started"
        );
    }
}
