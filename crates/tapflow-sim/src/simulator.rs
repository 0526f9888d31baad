//! The in-process simulator: N simulated phones behind one hdc server, answering hdc client
//! argv exactly as real hdc prints it (failures as `[Fail]…` with exit status 0).
//!
//! [`Simulator::handle`] is the whole contract: argv (program name excluded) and the host
//! working directory in, stdout bytes and exit status out. Device selection, connect errors,
//! transient faults and disconnection happen here; device-side commands run in
//! [`crate::shell`]. Simulated device time is slept after the device has been released.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::commands::HarmonyOs;
use super::faults::{FaultSpec, FaultState};
use super::hdc_argv::{self, HdcCommand};
use super::latency::{Cost, Latency};
use super::output::SimOutput;
use super::phone::{Phone, PhoneProfile};
use super::shell::{self, DeviceCtx, Sink};

/// The address the simulated hdc server listens on (hdc's default).
pub const DEFAULT_SERVER: &str = "127.0.0.1:8710";
/// The hdc version the simulated client reports.
/// The hdc version the simulated client reports: 3.1.0e, the SDK version whose client and server
/// print the coded failures the simulator uses (`[E001005]`, `[E000004]`, `[E006001]`, added in
/// 3.1.0d).
pub const HDC_VERSION: &str = "Ver: 3.1.0e";
/// The connect key of the emulator-like device.
pub const EMULATOR_KEY: &str = "127.0.0.1:5555";

/// How the simulator is set up.
#[derive(Debug, Clone, PartialEq)]
pub struct SimOptions {
    pub devices: usize,
    pub seed: u64,
    pub latency: Latency,
    pub faults: FaultSpec,
    /// Where the executable mode keeps its socket and `bin/hdc` (informational in-process).
    pub state_dir: Option<PathBuf>,
    /// Make the last device an emulator reachable over TCP as `127.0.0.1:5555`.
    pub emulator: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            devices: 1,
            seed: 0,
            latency: Latency::Realistic,
            faults: FaultSpec::none(),
            state_dir: None,
            emulator: false,
        }
    }
}

/// The answer took longer than the caller's deadline (the simulated process was killed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut(pub Duration);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Conn {
    Usb,
    Tcp,
}

struct SimDevice {
    serial: String,
    conn: Conn,
    phone: Mutex<Phone>,
    faults: Mutex<FaultState>,
    boot: Instant,
}

/// N simulated devices behind one simulated hdc server.
pub struct Simulator {
    opts: SimOptions,
    devices: Vec<SimDevice>,
}

/// hdc's answer while the channel to the daemon is (re)established: the classic transient failure.
/// Byte for byte what the hdc server sends (`src/host/server_for_client.cpp`,
/// `FindAliveSessionFromDaemonMap`): the `\r\n` inside is part of its message on every host.
const FAIL_TRANSIENT: &str = "[Fail][E000004]:The communication channel is being established.\r\nPlease wait for several seconds and try again.\n";
const FAIL_NOT_FOUND: &str = "[Fail][E001005] Device not found or connected\n";
const FAIL_NEED_KEY: &str =
    "[Fail]ExecuteCommand need connect-key? please confirm a device by help info\n";
const FAIL_NO_TARGET: &str = "[Fail]No any connected target\n";
const FAIL_SERVER: &str = "[Fail]Connect server failed\n";

/// Serials shaped like real USB connect keys (`FMR0223C13000649`), deterministic from the seed.
pub fn generate_serials(seed: u64, n: usize) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5E41_A15E_5E41_A15E);
    let mut out: Vec<String> = Vec::with_capacity(n);
    while out.len() < n {
        let letter = |rng: &mut ChaCha8Rng| (b'A' + rng.random_range(0..26u8)) as char;
        let mut s = String::new();
        for _ in 0..3 {
            s.push(letter(&mut rng));
        }
        s.push_str(&format!("{:04}", rng.random_range(0..10_000u32)));
        s.push(letter(&mut rng));
        s.push_str(&format!("{:08}", rng.random_range(0..100_000_000u32)));
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

impl Simulator {
    pub fn new(opts: SimOptions) -> Self {
        let mut serials = generate_serials(opts.seed, opts.devices);
        let mut conns = vec![Conn::Usb; opts.devices];
        if opts.emulator && opts.devices > 0 {
            let last = opts.devices - 1;
            serials[last] = EMULATOR_KEY.to_string();
            conns[last] = Conn::Tcp;
        }
        let devices = serials
            .into_iter()
            .zip(conns)
            .enumerate()
            .map(|(i, (serial, conn))| SimDevice {
                phone: Mutex::new(Phone::new(PhoneProfile::default_for(&serial, i))),
                faults: Mutex::new(FaultState::new(opts.faults.clone(), opts.seed, i)),
                serial,
                conn,
                boot: Instant::now(),
            })
            .collect();
        Self { opts, devices }
    }

    pub fn options(&self) -> &SimOptions {
        &self.opts
    }

    /// Every device's connect key, connected or not, in order.
    pub fn serials(&self) -> Vec<String> {
        self.devices.iter().map(|d| d.serial.clone()).collect()
    }

    /// Connect keys of the devices still connected.
    pub fn connected(&self) -> Vec<String> {
        self.devices
            .iter()
            .filter(|d| !lock(&d.faults).is_disconnected())
            .map(|d| d.serial.clone())
            .collect()
    }

    /// Direct access to a phone (tests, demos, recorded layouts). Bypasses faults and latency.
    pub fn phone(&self, serial: &str) -> Option<MutexGuard<'_, Phone>> {
        self.devices
            .iter()
            .find(|d| d.serial == serial)
            .map(|d| lock(&d.phone))
    }

    /// Runs one hdc invocation to completion. A streaming command (`hdc hilog`, `hdc shell
    /// hilog` without `-x`) returns what was in the buffer, as a client killed right away sees.
    pub fn handle(&self, argv: &[String], cwd: &Path) -> SimOutput {
        // Without a deadline there is no timeout.
        self.execute(argv, cwd, None, None).unwrap_or_default()
    }

    /// Like [`Simulator::handle`], but a streaming command keeps writing to `sink` until it
    /// returns false. Output not yet given to the sink is returned.
    pub fn handle_streaming(&self, argv: &[String], cwd: &Path, sink: Sink<'_>) -> SimOutput {
        self.execute(argv, cwd, Some(sink), None)
            .unwrap_or_default()
    }

    /// Runs with a deadline: device time beyond it, or a stream still running at it, is a
    /// timeout (the caller would have killed the process).
    pub fn handle_with_timeout(
        &self,
        argv: &[String],
        cwd: &Path,
        timeout: Duration,
    ) -> Result<SimOutput, TimedOut> {
        let start = Instant::now();
        let deadline = start + timeout;
        let mut streamed = Vec::new();
        let mut sink = |b: &[u8]| {
            streamed.extend_from_slice(b);
            Instant::now() < deadline
        };
        let res = self.execute(argv, cwd, Some(&mut sink), Some(deadline))?;
        if Instant::now() >= deadline {
            return Err(TimedOut(start.elapsed()));
        }
        let mut out = res;
        if !streamed.is_empty() {
            streamed.extend_from_slice(&out.stdout);
            out.stdout = streamed;
        }
        Ok(out)
    }

    fn execute(
        &self,
        argv: &[String],
        cwd: &Path,
        sink: Option<Sink<'_>>,
        deadline: Option<Instant>,
    ) -> Result<SimOutput, TimedOut> {
        let started = Instant::now();
        let inv = hdc_argv::parse(argv);
        let mut spent = self.opts.latency.cost(Cost::HdcLocal);
        if let Some(server) = &inv.server
            && !server_matches(server)
        {
            return self.finish(SimOutput::text(FAIL_SERVER), spent, started, deadline);
        }
        let out = match &inv.command {
            HdcCommand::Help => SimOutput::text(help_text()),
            HdcCommand::Version => SimOutput::text(format!("{HDC_VERSION}\n")),
            HdcCommand::CheckServer => SimOutput::text(format!(
                "Client version: {HDC_VERSION}, server version: {HDC_VERSION}\n"
            )),
            HdcCommand::ListTargets { verbose } => SimOutput::text(self.list_targets(*verbose)),
            HdcCommand::StartServer => SimOutput::text(""),
            HdcCommand::KillServer => SimOutput::text("Kill server finish\n"),
            HdcCommand::Wait => {
                if self.connected().is_empty() {
                    SimOutput::text(FAIL_NO_TARGET)
                } else {
                    SimOutput::text("")
                }
            }
            HdcCommand::Rejected(t) => SimOutput::text(format!("{t}\n")),
            cmd => {
                let dev = match self.select(inv.target.as_deref()) {
                    Ok(d) => d,
                    Err(msg) => return self.finish(SimOutput::text(msg), spent, started, deadline),
                };
                {
                    let mut f = lock(&dev.faults);
                    if !f.admit_command() {
                        drop(f);
                        return self.finish(
                            SimOutput::text(FAIL_NOT_FOUND),
                            spent,
                            started,
                            deadline,
                        );
                    }
                    if f.transient_fail() {
                        drop(f);
                        return self.finish(
                            SimOutput::text(FAIL_TRANSIENT),
                            spent,
                            started,
                            deadline,
                        );
                    }
                }
                let mut ctx = DeviceCtx::new(
                    &dev.phone,
                    &dev.faults,
                    self.opts.latency,
                    dev.boot,
                    &HarmonyOs,
                );
                if let Some(s) = sink {
                    ctx.sink = Some(s);
                }
                let out = self.device_command(&mut ctx, cmd, cwd);
                spent += ctx.spent;
                out
            }
        };
        self.finish(out, spent, started, deadline)
    }

    /// Sleeps the simulated device time (bounded by the deadline).
    fn finish(
        &self,
        out: SimOutput,
        spent: Duration,
        started: Instant,
        deadline: Option<Instant>,
    ) -> Result<SimOutput, TimedOut> {
        let wake = started + spent;
        match deadline {
            Some(d) if wake > d => {
                sleep_until(d);
                Err(TimedOut(started.elapsed()))
            }
            _ => {
                sleep_until(wake);
                Ok(out)
            }
        }
    }

    fn select(&self, key: Option<&str>) -> Result<&SimDevice, String> {
        match key {
            Some(k) => self
                .devices
                .iter()
                .find(|d| d.serial == k && !lock(&d.faults).is_disconnected())
                .ok_or_else(|| FAIL_NOT_FOUND.to_string()),
            None => {
                let live: Vec<&SimDevice> = self
                    .devices
                    .iter()
                    .filter(|d| !lock(&d.faults).is_disconnected())
                    .collect();
                match live.as_slice() {
                    [] => Err(FAIL_NO_TARGET.to_string()),
                    [one] => Ok(one),
                    _ => Err(FAIL_NEED_KEY.to_string()),
                }
            }
        }
    }

    fn list_targets(&self, verbose: bool) -> String {
        let mut s = String::new();
        for d in &self.devices {
            let connected = !lock(&d.faults).is_disconnected();
            if verbose {
                let (conn, name) = match d.conn {
                    Conn::Usb => ("USB", "unknown..."),
                    Conn::Tcp => ("TCP", "localhost"),
                };
                let state = if connected { "Connected" } else { "Offline" };
                s.push_str(&format!("{}\t\t{conn}\t{state}\t{name}\n", d.serial));
            } else if connected {
                s.push_str(&d.serial);
                s.push('\n');
            }
        }
        if s.is_empty() {
            s.push_str("[Empty]\n");
        }
        s
    }

    fn device_command(&self, ctx: &mut DeviceCtx<'_>, cmd: &HdcCommand, cwd: &Path) -> SimOutput {
        match cmd {
            HdcCommand::Shell(script) if !script.trim().is_empty() => {
                ctx.spend(Cost::ShellRoundTrip);
                let status = shell::run_script(ctx, script);
                let _ = status; // hdc discards the remote exit status
                SimOutput {
                    stdout: std::mem::take(&mut ctx.out),
                    exit: 0,
                }
            }
            HdcCommand::Shell(_) | HdcCommand::InteractiveShell => SimOutput::text(
                "[Fail]the simulated device has no interactive shell: pass the command after `shell`\n",
            ),
            HdcCommand::Hilog => {
                ctx.spend(Cost::ShellRoundTrip);
                let argv = vec!["hilog".to_string()];
                super::commands::hilog::stream(ctx, &argv);
                SimOutput {
                    stdout: std::mem::take(&mut ctx.out),
                    exit: 0,
                }
            }
            HdcCommand::FileSend { local, remote } => {
                super::transfer::send(ctx, cwd, local, remote)
            }
            HdcCommand::FileRecv { remote, local } => {
                super::transfer::recv(ctx, cwd, remote, local)
            }
            HdcCommand::Install { replace, packages } => {
                super::transfer::install(ctx, cwd, *replace, packages)
            }
            HdcCommand::Uninstall { bundle, .. } => super::transfer::uninstall(ctx, bundle),
            _ => SimOutput::text("[Fail]Unknown command...\n"),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Spends simulated device time; a call cancelled meanwhile stops spending it at once (its
/// transport discards the answer: [`tapflow_device::abort`]).
fn sleep_until(t: Instant) {
    tapflow_device::abort::sleep_until(t);
}

/// `-s` accepts `PORT`, `HOST:PORT`; only the simulator's own address answers.
fn server_matches(addr: &str) -> bool {
    let (host, port) = match addr.rsplit_once(':') {
        Some((h, p)) => (h, p),
        None => ("127.0.0.1", addr),
    };
    let host_ok = matches!(host, "127.0.0.1" | "localhost" | "" | "::1" | "[::1]");
    host_ok && port == DEFAULT_SERVER.rsplit(':').next().unwrap_or("8710")
}

fn help_text() -> String {
    format!(
        "\n                         OpenHarmony device connector(HDC) ...\n\n\
---------------------------------global commands:----------------------------------\n\
 -h/help [verbose]                     - Print hdc help, 'verbose' for more other cmds\n\
 -v/version                            - Print hdc version\n\
 -t connectkey                         - Use device with given connect key\n\
 -s [ip:]port                          - Set hdc server listen config\n\n\
---------------------------------component commands:-------------------------------\n\
session commands(on server):\n\
 list targets [-v]                     - List all devices status, -v for detail\n\
service commands(on daemon):\n\
 file send [option] local remote       - Send file to device\n\
 file recv [option] remote local       - Recv file from device\n\
 install [-r|-s] src(.hap)             - Send package(s) to device and install them\n\
 uninstall [-k] [-s] package           - Remove application package from device\n\
 hilog [-h]                            - Show device log, -h for detail\n\
 shell [COMMAND...]                    - Run shell command (interactive shell if no command)\n\n\
(tapflow simulated hdc, {HDC_VERSION})\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serials_look_real_and_are_deterministic() {
        let a = generate_serials(7, 3);
        assert_eq!(a, generate_serials(7, 3));
        assert_ne!(a, generate_serials(8, 3));
        let re = regex::Regex::new(r"^[A-Z]{3}\d{4}[A-Z]\d{8}$").unwrap();
        assert!(a.iter().all(|s| re.is_match(s)), "{a:?}");
    }

    #[test]
    fn server_addresses() {
        assert!(server_matches("127.0.0.1:8710"));
        assert!(server_matches("8710"));
        assert!(server_matches("localhost:8710"));
        assert!(!server_matches("127.0.0.1:8711"));
        assert!(!server_matches("10.0.0.2:8710"));
    }
}
