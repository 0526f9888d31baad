//! One hdc round trip: routing flags + sub-command → transport (under a deadline) → counted in
//! the cost → classified. Everything the backend sends goes through [`Runner`], so argv
//! assembly, cost accounting and error mapping exist exactly once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::device::error::DeviceResult;
use crate::device::hdc::classify::{Op, Scan, classify};
use crate::device::hdc::quote::{ShellCommand, display_argv};
use crate::device::hdc::route::HdcRoute;
use crate::device::transport::{CostCounter, Transport};

#[derive(Clone)]
pub struct Runner {
    transport: Arc<dyn Transport>,
    cost: CostCounter,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("program", &self.transport.program())
            .field("cost", &self.cost.snapshot())
            .finish()
    }
}

impl Runner {
    pub fn new(transport: Arc<dyn Transport>, cost: CostCounter) -> Self {
        Self { transport, cost }
    }

    pub fn cost(&self) -> &CostCounter {
        &self.cost
    }

    pub fn transport(&self) -> &Arc<dyn Transport> {
        &self.transport
    }

    /// Runs `hdc <route flags> <sub…>` and returns the cleaned text, or the typed error.
    pub fn run(
        &self,
        route: &HdcRoute,
        sub: &[String],
        timeout: Duration,
        op: &Op,
        scan: Scan,
    ) -> DeviceResult<String> {
        let argv = route.argv(sub);
        self.cost.round_trip();
        let started = Instant::now();
        let result = self.transport.run(&argv, timeout);
        tracing::debug!(
            target: "tapflow::hdc",
            argv = ?argv,
            elapsed_ms = started.elapsed().as_millis() as u64,
            ok = result.is_ok(),
            "hdc round trip"
        );
        let command = display_argv(&self.transport.program(), &argv);
        classify(result, &command, route, op, scan)
    }

    /// Runs `hdc <route flags> shell "<command>"`: the device command is one argv element.
    pub fn shell(
        &self,
        route: &HdcRoute,
        command: &ShellCommand,
        timeout: Duration,
        op: &Op,
        scan: Scan,
    ) -> DeviceResult<String> {
        self.run(
            route,
            &["shell".to_string(), command.to_string()],
            timeout,
            op,
            scan,
        )
    }
}
