//! Per-device lanes: calls on one device run one at a time, in the order they arrived; calls on
//! different devices run in parallel. A call takes a numbered ticket when it arrives (so arrival
//! order is fixed before any waiting), waits for its number, and passes the turn on when its
//! ticket is dropped: after the device work ended, or — for a call that gave up while queued
//! (its deadline, or the client cancelled) — as soon as its turn comes.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

#[derive(Default)]
struct State {
    /// The next ticket number to hand out.
    next: u64,
    /// The ticket whose turn it is.
    serving: u64,
    /// Tickets whose holder left before its turn.
    abandoned: BTreeSet<u64>,
}

#[derive(Default)]
struct Lane {
    state: Mutex<State>,
    turn: Notify,
}

impl Lane {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Moves the turn past `seq` (and past every abandoned ticket after it).
    fn pass_turn(&self, st: &mut State, seq: u64) {
        st.serving = seq + 1;
        while st.abandoned.remove(&st.serving) {
            st.serving += 1;
        }
        self.turn.notify_waiters();
    }
}

/// Every device's lane, created on first use.
#[derive(Default)]
pub struct Lanes {
    lanes: Mutex<HashMap<String, Arc<Lane>>>,
}

impl Lanes {
    /// Takes the next ticket of `key`'s lane (the call's place in the arrival order).
    pub fn arrive(&self, key: &str) -> Ticket {
        let lane = self
            .lanes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(key.to_string())
            .or_default()
            .clone();
        let (seq, ahead) = {
            let mut st = lane.lock();
            let seq = st.next;
            st.next += 1;
            (seq, seq - st.serving)
        };
        Ticket {
            lane,
            key: key.to_string(),
            seq,
            ahead,
            holding: false,
        }
    }
}

/// A call's place in a device lane.
pub struct Ticket {
    lane: Arc<Lane>,
    key: String,
    seq: u64,
    ahead: u64,
    holding: bool,
}

impl Ticket {
    /// Waits for this ticket's turn (cancel-safe: dropping the future leaves the ticket queued,
    /// and dropping the ticket gives the turn up).
    pub async fn turn(&mut self) {
        loop {
            let notified = self.lane.turn.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.lane.lock().serving == self.seq {
                self.holding = true;
                return;
            }
            notified.await;
        }
    }

    /// The lane (device) this ticket is for.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The call's number in its lane (0, 1, 2, … in arrival order).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Calls that were ahead of this one when it arrived.
    pub fn ahead(&self) -> u64 {
        self.ahead
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut st = self.lane.lock();
        if self.holding || st.serving == self.seq {
            self.lane.pass_turn(&mut st, self.seq);
        } else {
            st.abandoned.insert(self.seq);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn one_lane_serves_in_arrival_order_and_lanes_are_independent() {
        let lanes = Arc::new(Lanes::default());
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tickets: Vec<Ticket> = (0..20).map(|_| lanes.arrive("dev-a")).collect();
        assert_eq!(tickets[5].seq(), 5);
        assert_eq!(tickets[5].ahead(), 5);
        // Another device is never held up by dev-a's queue.
        let mut other = lanes.arrive("dev-b");
        tokio::time::timeout(Duration::from_secs(10), other.turn())
            .await
            .expect("dev-b has its own lane");
        // Waiters start in reverse order; they must still run in ticket order.
        let mut handles = Vec::new();
        while let Some(mut t) = tickets.pop() {
            let order = order.clone();
            handles.push(tokio::spawn(async move {
                t.turn().await;
                order.lock().unwrap().push(t.seq());
                tokio::task::yield_now().await;
                drop(t);
            }));
        }
        for h in handles {
            tokio::time::timeout(Duration::from_secs(10), h)
                .await
                .expect("hang guard")
                .unwrap();
        }
        assert_eq!(*order.lock().unwrap(), (0..20).collect::<Vec<u64>>());
    }

    #[tokio::test]
    async fn an_abandoned_ticket_passes_its_turn_on() {
        let lanes = Lanes::default();
        let mut first = lanes.arrive("d");
        let second = lanes.arrive("d");
        let mut third = lanes.arrive("d");
        first.turn().await;
        drop(second); // gave up while queued
        drop(first);
        tokio::time::timeout(Duration::from_secs(10), third.turn())
            .await
            .expect("the abandoned ticket must not block the lane");
        assert_eq!(third.seq(), 2);
        drop(third);
        let mut fourth = lanes.arrive("d");
        assert_eq!(fourth.ahead(), 0);
        tokio::time::timeout(Duration::from_secs(10), fourth.turn())
            .await
            .unwrap();
    }
}
