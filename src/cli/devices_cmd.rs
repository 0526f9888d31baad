//! `tapflow devices [--json]`: the connected devices with what they say about themselves
//! (serial, state, connection, model, API level, screen size, platform): HarmonyOS devices
//! through the hdc backend and Android devices through the adb backend, in one listing.
//!
//! One `hdc list targets -v` and one `adb devices -l`, then one `info` (one round trip) per
//! usable device. A device that is listed but cannot be asked (offline, unauthorised, an error
//! while asking) is still shown, with the reason, so the listing is never silently shorter than
//! what hdc and adb see. A missing `hdc` or `adb` executable leaves its platform out with a
//! note on stderr; both missing (or a server failing) is exit 4.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::exit;
use tapflow_device::adb::AdbClient;
use tapflow_device::adb::parse::devices::AdbTarget;
use tapflow_device::hdc::{HdcClient, HdcConfig, HdcRoute};
use tapflow_device::{Device, DeviceError, ScreenSize, Target, TargetState};

/// Arguments of `tapflow devices`.
#[derive(Debug, Args)]
pub struct DevicesArgs {
    /// Print JSON (an array, one object per device) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// hdc server `[host:]port` (default: hdc's local server).
    #[arg(long, value_name = "HOST:PORT", env = "HARMONYOS_HDC_SERVER")]
    pub hdc_server: Option<String>,
    /// List N simulated devices (in-process; no phone needed).
    #[arg(long, value_name = "N", hide = cfg!(not(feature = "sim")))]
    pub sim: Option<usize>,
    /// Only this device (a serial or connect key, as `run --device` takes it); exit 4 when no
    /// platform lists it.
    #[arg(long, short = 'd', value_name = "SERIAL")]
    pub device: Option<String>,
}

/// One listed device, as printed.
#[derive(Debug, Serialize)]
pub struct DeviceRow {
    pub serial: String,
    /// `harmonyos` or `android`.
    pub platform: super::platform::Platform,
    /// `Connected`, `Offline`, `Unauthorized`, … as hdc lists it.
    pub state: String,
    /// `USB`, `TCP`, … (`None` when hdc did not say).
    pub connection: Option<String>,
    pub model: Option<String>,
    pub name: Option<String>,
    pub api_level: Option<u32>,
    pub screen: Option<ScreenSize>,
    /// Why the device could not be asked, with the error code.
    pub error: Option<RowError>,
}

#[derive(Debug, Serialize)]
pub struct RowError {
    pub code: tapflow_core::codes::Code,
    pub message: String,
}

impl From<&DeviceError> for RowError {
    fn from(e: &DeviceError) -> Self {
        RowError {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

/// The hdc backend's configuration from the global `--hdc` flag and this command's server.
pub fn hdc_config(program: Option<PathBuf>, server: Option<String>) -> HdcConfig {
    let mut config = HdcConfig::default();
    if let Some(p) = program {
        config.program = p;
    }
    config.default_server = server.filter(|s| !s.trim().is_empty());
    config
}

/// Lists the devices and asks each usable one for its info.
pub fn collect(client: &HdcClient) -> Result<Vec<DeviceRow>, DeviceError> {
    // The listing goes to the configured server (`-s`), where the devices are then addressed
    // as `-t SERIAL -s SERVER`; without one, to hdc's local server.
    let server = HdcRoute {
        target: None,
        server: client.config().default_server.clone(),
    };
    let targets = client.list_targets_via(&server)?;
    Ok(targets.iter().map(|t| row(client, t)).collect())
}

fn row(client: &HdcClient, t: &Target) -> DeviceRow {
    let mut row = DeviceRow {
        serial: t.serial.clone(),
        platform: super::platform::Platform::Harmonyos,
        state: format!("{:?}", t.state),
        connection: t.connection.clone(),
        model: None,
        name: None,
        api_level: None,
        screen: None,
        error: None,
    };
    if !matches!(t.state, TargetState::Connected | TargetState::Ready) {
        return row;
    }
    let device = client.device(t.serial.clone(), client.route(Some(&t.serial), None));
    match device.info() {
        Ok(info) => {
            row.model = info.model;
            row.name = info.name;
            row.api_level = info.api_level;
            row.screen = info.screen;
        }
        Err(e) => row.error = Some((&e).into()),
    }
    row
}

/// Lists the Android devices and asks each usable one for its info.
pub fn collect_android(client: &AdbClient) -> Result<Vec<DeviceRow>, DeviceError> {
    Ok(client
        .list_devices()?
        .iter()
        .map(|t| android_row(client, t))
        .collect())
}

fn android_row(client: &AdbClient, t: &AdbTarget) -> DeviceRow {
    let mut row = DeviceRow {
        serial: t.serial.clone(),
        platform: super::platform::Platform::Android,
        state: t.state.clone(),
        connection: t.to_target().connection,
        model: t.model.clone(),
        name: t.product.clone(),
        api_level: None,
        screen: None,
        error: None,
    };
    if t.state != "device" {
        return row;
    }
    match client.device(t.serial.clone()).info() {
        Ok(info) => {
            row.model = info.model;
            row.api_level = info.api_level;
            row.screen = info.screen;
        }
        Err(e) => row.error = Some((&e).into()),
    }
    row
}

fn table(rows: &[DeviceRow]) -> String {
    let dash = || "-".to_string();
    let mut lines = vec![[
        "SERIAL".to_string(),
        "STATE".into(),
        "CONN".into(),
        "MODEL".into(),
        "API".into(),
        "SCREEN".into(),
        "PLATFORM".into(),
        "NAME".into(),
    ]];
    for r in rows {
        lines.push([
            r.serial.clone(),
            r.state.clone(),
            r.connection.clone().unwrap_or_else(dash),
            r.model.clone().unwrap_or_else(dash),
            r.api_level.map(|a| a.to_string()).unwrap_or_else(dash),
            r.screen
                .map(|s| format!("{}x{}", s.width, s.height))
                .unwrap_or_else(dash),
            r.platform.to_string(),
            match &r.error {
                Some(e) => format!("({}: {})", e.code, e.message),
                None => r.name.clone().unwrap_or_else(dash),
            },
        ]);
    }
    // Device text (model, name, the device's words in an error) never starts a line.
    for cell in lines.iter_mut().flatten() {
        if let std::borrow::Cow::Owned(c) = crate::report::github::inert(cell) {
            *cell = c;
        }
    }
    let widths: Vec<usize> = (0..8)
        .map(|c| {
            lines
                .iter()
                .map(|l| l[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for l in &lines {
        let cells: Vec<String> = l
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, w))| {
                if i == 7 {
                    cell.clone()
                } else {
                    format!("{cell:<w$}")
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

pub fn run(args: DevicesArgs, program: Option<PathBuf>, adb: Option<PathBuf>) -> i32 {
    let listings = match args.sim {
        #[cfg(not(feature = "sim"))]
        Some(_) => return super::sim_feature::without_sim("tapflow devices", "--sim"),
        #[cfg(feature = "sim")]
        Some(0) => {
            eprintln!("tapflow devices: --sim needs at least one device");
            return exit::USAGE;
        }
        // The simulated phones only (no adb server is started for them).
        #[cfg(feature = "sim")]
        Some(n) => vec![collect(&crate::sim_provider::sim_client(
            std::sync::Arc::new(tapflow_sim::Simulator::new(tapflow_sim::SimOptions {
                devices: n,
                latency: tapflow_sim::Latency::None,
                ..tapflow_sim::SimOptions::default()
            })),
            &crate::cli::setup::cwd(),
        ))],
        None => {
            let client = HdcClient::with_process(hdc_config(program, args.hdc_server));
            let adb = AdbClient::with_process(super::platform::adb_config(adb));
            vec![collect(&client), collect_android(&adb)]
        }
    };
    let platforms = listings.len();
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for listed in listings {
        match listed {
            Ok(r) => rows.extend(r),
            Err(e) => failures.push(e),
        }
    }
    let missing = |e: &DeviceError| {
        matches!(
            e,
            DeviceError::HdcNotFound { .. } | DeviceError::AdbNotFound { .. }
        )
    };
    // A platform whose tool is not installed is left out, with a note; a server failing, or
    // no platform answering at all, is an infrastructure error.
    if failures.len() == platforms || failures.iter().any(|e| !missing(e)) {
        for e in &failures {
            eprintln!("tapflow devices: [{}] {e}", e.code());
        }
        return exit::INFRA;
    }
    for e in &failures {
        eprintln!("tapflow devices: note: [{}] {e}", e.code());
    }
    if let Some(wanted) = &args.device {
        let listed: Vec<String> = rows.iter().map(|r| r.serial.clone()).collect();
        rows.retain(|r| &r.serial == wanted);
        if rows.is_empty() {
            eprintln!(
                "tapflow devices: [{}] device {wanted} is not listed (listed: {}); see `tapflow devices`",
                tapflow_core::codes::DEVICE_NOT_FOUND,
                if listed.is_empty() {
                    "none".to_string()
                } else {
                    listed.join(", ")
                }
            );
            return exit::INFRA;
        }
    }
    if args.json {
        match serde_json::to_string_pretty(&rows) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("tapflow devices: {e}");
                return exit::FAILURE;
            }
        }
    } else if rows.is_empty() {
        println!("no devices (neither hdc nor adb lists any)");
    } else {
        print!("{}", table(&rows));
    }
    exit::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_and_shows_errors() {
        let rows = vec![
            DeviceRow {
                serial: "FMR0223C13000649".into(),
                platform: crate::cli::platform::Platform::Harmonyos,
                state: "Connected".into(),
                connection: Some("USB".into()),
                model: Some("ALN-AL00".into()),
                name: Some("HUAWEI Mate 60 Pro".into()),
                api_level: Some(12),
                screen: Some(ScreenSize {
                    width: 1260,
                    height: 2720,
                }),
                error: None,
            },
            DeviceRow {
                serial: "127.0.0.1:5555".into(),
                platform: crate::cli::platform::Platform::Harmonyos,
                state: "Offline".into(),
                connection: Some("TCP".into()),
                model: None,
                name: None,
                api_level: None,
                screen: None,
                error: None,
            },
        ];
        let t = table(&rows);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("SERIAL            STATE"), "{t}");
        assert!(
            lines[1].contains("ALN-AL00  12   1260x2720  harmonyos  HUAWEI Mate 60 Pro"),
            "{t}"
        );
        assert!(
            lines[2].starts_with("127.0.0.1:5555    Offline    TCP"),
            "{t}"
        );
    }

    /// A device's own words (a name with a line break) never start a line of the table.
    #[test]
    fn device_text_never_starts_a_line() {
        let rows = vec![DeviceRow {
            serial: "emulator-5554".into(),
            platform: crate::cli::platform::Platform::Android,
            state: "device".into(),
            connection: None,
            model: Some("m\n::warning::forged".into()),
            name: Some("n\r##[stop-commands]t".into()),
            api_level: None,
            screen: None,
            error: None,
        }];
        let t = table(&rows);
        assert_eq!(t.lines().count(), 2, "{t}");
        assert!(t.contains(r"m\n::warning::forged"), "{t}");
        assert!(!t.contains("##["), "{t}");
    }

    #[test]
    fn blank_server_is_no_server() {
        let c = hdc_config(Some("/x/hdc".into()), Some(" ".into()));
        assert_eq!(c.program, PathBuf::from("/x/hdc"));
        assert_eq!(c.default_server, None);
        assert_eq!(
            hdc_config(None, Some("127.0.0.1:8710".into())).default_server,
            Some("127.0.0.1:8710".into())
        );
    }
}
