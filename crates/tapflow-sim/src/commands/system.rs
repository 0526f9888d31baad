//! HarmonyOS system builtins: `param get`, `pidof`, `power-shell`.

use crate::shell::{CmdResult, DeviceCtx};

/// `param get <key>` over the phone profile.
pub fn param(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    match args {
        [sub, key] if sub == "get" => {
            let phone = ctx.phone();
            let p = phone.profile();
            let value = match key.as_str() {
                "const.product.model" => Some(p.model.clone()),
                "const.product.name" => Some(p.name.clone()),
                "const.product.brand" | "const.product.manufacturer" => Some(p.brand.clone()),
                "const.product.software.version" => Some(p.software_version.clone()),
                "const.ohos.apiversion" => Some(p.api_level.to_string()),
                // `OpenHarmony-<major>.<minor>.<patch>.<build>`, as devices answer it; the
                // release is the one of the API level, the build number the simulator's.
                "const.ohos.fullname" => Some(ohos_fullname(p.api_level)),
                // The device class, `phone` on a phone (an app's configuration logs it:
                // `tests/fixtures/harmonyos/jscrash_with_hilog_emulator6_illegal_prop.txt`).
                "const.build.characteristics" => Some(p.device_type.clone()),
                "const.product.cpu.abilist" => Some(p.cpu_abi.clone()),
                "const.product.devicetype" => Some(p.device_type.clone()),
                "ro.serialno" | "ohos.boot.sn" => Some(p.serial.clone()),
                _ => None,
            };
            match value {
                Some(v) => CmdResult::ok(format!("{v}\n")),
                None => CmdResult::fail_out(
                    format!("Get parameter \"{key}\" fail! errNum is:106!\n"),
                    1,
                ),
            }
        }
        _ => CmdResult::fail_out(
            "Command list:\n    param ls [-r] [name]    --display system parameter\n    param get [name]        --get system parameter\n(the simulated device supports `param get <name>` only)\n",
            1,
        ),
    }
}

/// The OpenHarmony release of an API level (12 is 5.0.0, 13 is 5.0.1, 14 is 5.0.2, 15 is
/// 5.1.0), with the simulator's build number.
fn ohos_fullname(api: u32) -> String {
    let release = match api {
        ..=12 => "5.0.0",
        13 => "5.0.1",
        14 => "5.0.2",
        15 => "5.1.0",
        _ => "6.0.0",
    };
    format!("OpenHarmony-{release}.60")
}

/// `pidof <name>`: pids of running app processes, space separated.
pub fn pidof(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let phone = ctx.phone();
    let pids: Vec<String> = args
        .iter()
        .filter_map(|b| phone.pid_of(b))
        .map(|p| p.to_string())
        .collect();
    if pids.is_empty() {
        CmdResult::fail_out(Vec::new(), 1)
    } else {
        CmdResult::ok(format!("{}\n", pids.join(" ")))
    }
}

/// `power-shell wakeup|suspend`: turns the screen on or off (a Power key press when needed).
pub fn power_shell(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let want_awake = match args {
        [a] if a == "wakeup" => true,
        [a] if a == "suspend" => false,
        _ => {
            return CmdResult::fail_out(
                "usage: power-shell <command> [<options>]\n(the simulated device supports wakeup and suspend)\n",
                1,
            );
        }
    };
    let mut phone = ctx.phone();
    if phone.power_awake() != want_awake {
        phone.key_event(
            &[crate::phone::KeyPress::Power],
            std::time::SystemTime::now(),
        );
    }
    CmdResult::ok(if want_awake {
        "WakeupDevice is called\n"
    } else {
        "SuspendDevice is called\n"
    })
}
