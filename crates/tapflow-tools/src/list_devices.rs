//! `list_devices`: the devices the hdc server knows, with basic information for connected ones.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::{Call, DeviceRoute};
use crate::envelope::ToolError;
use crate::policy::{Hints, Policy};
use crate::registry::{Digest, Routing, Tool};
use tapflow_device::model::{DeviceInfo, TargetState};

pub struct ListDevices;

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Params {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DeviceEntry {
    /// Serial or connect key (`ip:port` for network devices).
    pub device_id: String,
    /// `USB`, `TCP`, … when the server says.
    pub connection: Option<String>,
    /// `Connected`, `Ready`, `Offline`, `Unauthorized`, `Unknown`.
    pub state: TargetState,
    /// Device name column of `hdc list targets -v`.
    pub name: Option<String>,
    /// Model, versions and screen of a connected device; null when not connected or unreadable.
    pub info: Option<DeviceInfo>,
    /// Why `info` is null for a connected device.
    pub info_error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub devices: Vec<DeviceEntry>,
    pub count: usize,
}

impl Tool for ListDevices {
    const CORE: bool = true;
    const NAME: &'static str = "list_devices";
    const TITLE: &'static str = "List devices";
    const DESCRIPTION: &'static str = "List the connected HarmonyOS devices (serial, state, model, API level, screen size). Use it first when several may be connected, then pass `device_id` to the other tools; `hdc_server` lists a remote hdc server's devices.";
    const POLICY: Policy = Policy::READ;
    const HINTS: Hints = Hints::READ;
    const ROUTING: Routing = Routing::ServerOnly;
    const DIGEST: Option<Digest> = Some(Digest::List {
        field: "devices",
        keep: &[],
    });
    type Params = Params;
    type Output = Output;

    fn run(_p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let server = call.route.hdc_server.clone();
        let targets = call.ctx.provider.targets(server.as_deref())?;
        let devices: Vec<DeviceEntry> = targets
            .into_iter()
            .map(|t| {
                let connected = matches!(t.state, TargetState::Connected | TargetState::Ready);
                let (info, info_error) = if connected {
                    let route = DeviceRoute {
                        device_id: Some(t.serial.clone()),
                        hdc_server: server.clone(),
                    };
                    match call.ctx.provider.info(&route) {
                        Ok(i) => (Some(i), None),
                        Err(e) => (None, Some(format!("{}: {e}", e.code()))),
                    }
                } else {
                    (None, None)
                };
                DeviceEntry {
                    device_id: t.serial,
                    connection: t.connection,
                    state: t.state,
                    name: t.name,
                    info,
                    info_error,
                }
            })
            .collect();
        Ok(Output {
            count: devices.len(),
            devices,
        })
    }
}
