//! N simulated Android devices, each on its own loopback port: what `tapflow sim start
//! --platform android` and the tests run. Devices are independent (own phone, faults from the
//! shared seed and their index, own listener).

use std::io;
use std::sync::Arc;

use super::adbd::{DEFAULT_FEATURES, DeviceServer};
use super::device::AndroidDevice;
use super::profile::AndroidProfile;
use crate::faults::FaultSpec;
use crate::latency::Latency;

#[derive(Debug, Clone)]
pub struct FarmOptions {
    pub devices: usize,
    pub seed: u64,
    pub latency: Latency,
    pub faults: FaultSpec,
    /// The features each device advertises (default [`DEFAULT_FEATURES`]; an empty list makes
    /// a protocol-v1 device: `shell:` without exit status, push install, `STAT`/`LIST`).
    pub features: Vec<String>,
    /// First port to listen on (then +2 per device, skipping the emulator range 5555–5585);
    /// `None`: any free ports.
    pub base_port: Option<u16>,
}

impl Default for FarmOptions {
    fn default() -> Self {
        Self {
            devices: 1,
            seed: 0,
            latency: Latency::Realistic,
            faults: FaultSpec::none(),
            features: DEFAULT_FEATURES.iter().map(|s| s.to_string()).collect(),
            base_port: None,
        }
    }
}

pub struct AndroidFarm {
    devices: Vec<(Arc<AndroidDevice>, DeviceServer)>,
}

/// `ro.serialno` shaped like a Pixel's (`28171FDH2000C1`), deterministic from the seed.
fn serialno(seed: u64, index: usize) -> String {
    let x = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(index as u64 * 0x1234_5677);
    format!("2{:07}FDH{:04X}", x % 10_000_000, (x >> 32) % 0x10000)
}

impl AndroidFarm {
    pub fn start(opts: &FarmOptions) -> io::Result<Self> {
        let mut devices = Vec::with_capacity(opts.devices);
        let mut next_port = opts.base_port;
        for i in 0..opts.devices {
            let profile = AndroidProfile::default_for(&serialno(opts.seed, i), i);
            let device = Arc::new(AndroidDevice::new(
                profile,
                i,
                opts.seed,
                opts.faults.clone(),
                opts.latency,
            ));
            let port = match next_port {
                Some(mut p) => {
                    if (5554..=5585).contains(&p) {
                        p = 5586;
                    }
                    next_port = Some(p + 2);
                    p
                }
                None => 0,
            };
            let server = DeviceServer::start(device.clone(), opts.features.clone(), port)?;
            devices.push((device, server));
        }
        Ok(Self { devices })
    }

    /// Every device's `127.0.0.1:PORT`, in order.
    pub fn addresses(&self) -> Vec<String> {
        self.devices.iter().map(|(_, s)| s.address()).collect()
    }

    pub fn len(&self) -> usize {
        self.devices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }

    pub fn device(&self, i: usize) -> &Arc<AndroidDevice> {
        &self.devices[i].0
    }

    pub fn server(&self, i: usize) -> &DeviceServer {
        &self.devices[i].1
    }

    /// The device listening at `address` (`127.0.0.1:PORT`).
    pub fn by_address(&self, address: &str) -> Option<&Arc<AndroidDevice>> {
        self.devices
            .iter()
            .find(|(_, s)| s.address() == address)
            .map(|(d, _)| d)
    }

    pub fn stop(mut self) {
        for (_, s) in &mut self.devices {
            s.stop();
        }
    }
}
