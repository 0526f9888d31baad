//! `--sim N --platform android`: N simulated Android devices in-process (listening on loopback
//! ports), attached to a private adb server on a free port (`adb -P PORT`, so the user's own
//! server is untouched), and reached through the real adb backend over the real `adb`
//! executable. The session owns all of it: dropping it stops the private server and the
//! devices. The server is tapflow's own child ([`super::adb_server`]): it also ends when
//! tapflow is killed, and no client of the session can start another one.

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::adb_server::PrivateAdbServer;
use super::platform::adb_config;
use tapflow_device::adb::AdbClient;
use tapflow_sim::android::{AndroidFarm, FarmOptions};
use tapflow_sim::{FaultSpec, Latency};
use tapflow_tools::DeviceProvider;
use tapflow_tools::adb_provider::AdbProvider;
use tapflow_tools::provider::CachingProvider;

pub struct AndroidSimSession {
    farm: Option<AndroidFarm>,
    client: AdbClient,
    server: PrivateAdbServer,
    serials: Vec<String>,
}

/// A free loopback port outside adb's emulator range, for the private server.
fn free_port() -> Result<u16, String> {
    for _ in 0..20 {
        let l = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
        let p = l.local_addr().map_err(|e| e.to_string())?.port();
        if !(5554..=5585).contains(&p) && p != 5037 {
            return Ok(p);
        }
    }
    Err("no free port outside adb's ranges".into())
}

impl AndroidSimSession {
    pub fn start(
        n: usize,
        faults: Option<&str>,
        seed: u64,
        latency: Latency,
        adb: Option<PathBuf>,
    ) -> Result<Self, String> {
        if n == 0 {
            return Err("--sim needs at least one device".into());
        }
        let faults = match faults {
            Some(spec) => FaultSpec::parse(spec).map_err(|e| format!("--sim-faults: {e}"))?,
            None => FaultSpec::none(),
        };
        let farm = AndroidFarm::start(&FarmOptions {
            devices: n,
            seed,
            latency,
            faults,
            ..Default::default()
        })
        .map_err(|e| format!("cannot start the simulated Android devices: {e}"))?;
        let mut config = adb_config(adb);
        let server = PrivateAdbServer::start(&config.program, free_port()?)?;
        config.server_port = Some(server.port());
        // Never `localhost`: a client then cannot start a server of its own (module doc).
        config.server_host = Some("127.0.0.1".to_string());
        if latency == Latency::None {
            // No simulated time at all: the pause before resending a refused stream (which
            // gives a real device time to recover) has nothing to wait for.
            config.refused_retry.backoff = Duration::ZERO;
        }
        let client = AdbClient::with_process(config);
        let mut session = Self {
            farm: Some(farm),
            client,
            server,
            serials: Vec::new(),
        };
        let addresses = session
            .farm
            .as_ref()
            .map(AndroidFarm::addresses)
            .unwrap_or_default();
        for addr in addresses {
            session.client.adb_connect(&addr).map_err(|e| {
                format!("cannot attach the simulated device {addr} to a private adb server: {e}")
            })?;
            session.serials.push(addr);
        }
        Ok(session)
    }

    /// The devices' adb serials (`127.0.0.1:PORT`).
    pub fn serials(&self) -> Vec<String> {
        self.serials.clone()
    }

    /// A provider over the private server (devices resolved once per route).
    pub fn provider(&self) -> Arc<dyn DeviceProvider> {
        let inner: Arc<dyn DeviceProvider> = Arc::new(AdbProvider(self.client.clone()));
        Arc::new(CachingProvider::new(inner, Duration::from_secs(3600)))
    }
}

impl AndroidSimSession {
    /// The private adb server's process id.
    pub fn server_pid(&self) -> i32 {
        self.server.pid()
    }
}

impl Drop for AndroidSimSession {
    fn drop(&mut self) {
        let client = &self.client;
        self.server.stop(|| {
            let _ = client.kill_server();
        });
        if let Some(f) = self.farm.take() {
            f.stop();
        }
    }
}
