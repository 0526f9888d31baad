//! `screenshot`: the full screen or a region, written to a host file.
//!
//! Default file: `<screenshots dir>/screenshot_<device>_<UTC time>_<8 hex>.png` (the directory
//! is created). The image format follows the file extension (`.png`, `.jpg`/`.jpeg`); a name
//! without an extension gets `.png` (the result's `local_path` is the file written), any other
//! extension is `INVALID_PARAM`. The file goes through the host-path policy (`hostfs`): it must
//! lie under an allowed root, also once links are resolved, must not be a symbolic link, and is
//! created without following links, then renamed into place (`PATH_NOT_ALLOWED` otherwise, with
//! `details.reason`). A region needs all four bounds (`PARAM_CONFLICT` otherwise, or with
//! `display_id`, which applies to full screenshots only).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::context::Call;
use crate::coords::all_or_none;
use crate::envelope::ToolError;
use crate::flow_hooks::{FlowHooks, StepFile};
use crate::policy::{Hints, Policy};
use crate::presets;
use crate::registry::Tool;
use tapflow_device::hostfs::{HostPathError, Overwrite, PathErrorKind};
use tapflow_device::model::{Bounds, ImageFormat, ScreenshotRequest};

pub struct Screenshot;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Output file on the host (default: generated under the screenshots directory).
    pub local_path: Option<String>,
    /// Display to capture (default 0); full screenshots only.
    #[schemars(range(min = 0))]
    pub display_id: Option<u32>,
    /// Region left (with top, right, bottom).
    pub left: Option<i32>,
    /// Region top.
    pub top: Option<i32>,
    /// Region right (exclusive).
    pub right: Option<i32>,
    /// Region bottom (exclusive).
    pub bottom: Option<i32>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub local_path: String,
    pub file_size: u64,
    pub width: u32,
    pub height: u32,
    /// `png` or `jpeg`.
    pub format: ImageFormat,
    /// The region, for region screenshots.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Bounds>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_id: Option<u32>,
}

fn shot_error(msg: String) -> ToolError {
    ToolError::new(tapflow_core::codes::SCREENSHOT_ERROR, msg)
}

/// The region, when all four bounds are given (device-free): `PARAM_CONFLICT` for some of
/// them or for a region with `display_id`, `INVALID_PARAM` for an empty or negative one.
fn region(p: &Params) -> Result<Option<Bounds>, ToolError> {
    let parts = [
        ("left", p.left),
        ("top", p.top),
        ("right", p.right),
        ("bottom", p.bottom),
    ];
    let region = match all_or_none(parts) {
        Ok(None) => None,
        Ok(Some([left, top, right, bottom])) => {
            let b = Bounds::new(left, top, right, bottom);
            if b.left < 0 || b.top < 0 || b.is_empty() {
                return Err(ToolError::invalid_param(
                    "right",
                    format!(
                        "region {b} is empty or negative (need 0 <= left < right, 0 <= top < bottom)"
                    ),
                ));
            }
            Some(b)
        }
        Err(missing) => {
            let given = parts
                .iter()
                .find(|(_, v)| v.is_some())
                .map_or("left", |(n, _)| n);
            return Err(ToolError::new(
                tapflow_core::codes::PARAM_CONFLICT,
                format!(
                    "a region needs left, top, right and bottom together; missing {}",
                    missing.join(", ")
                ),
            )
            .with_details(json!({ "missing": missing }))
            .at(given));
        }
    };
    if region.is_some() && p.display_id.is_some() {
        return Err(ToolError::new(
            tapflow_core::codes::PARAM_CONFLICT,
            "display_id applies to full screenshots only",
        )
        .at("display_id"));
    }
    Ok(region)
}

/// The `local_path` the call gives, if any (blank counts as not given).
fn given_path(p: &Params) -> Option<&str> {
    p.local_path
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The file to write and its format (device-free): `.png`, `.jpg` or `.jpeg` (any case); a name
/// without an extension gets `.png`; anything else is `INVALID_PARAM`.
fn image_file(given: &str) -> Result<(String, ImageFormat), ToolError> {
    let refuse = |why: &str| {
        ToolError::invalid_param(
            "local_path",
            format!("{}: {why}", crate::decode::clip(given)),
        )
    };
    if given.ends_with(['/', '\\']) {
        return Err(refuse(
            "names a directory; give a file name such as shot.png",
        ));
    }
    let ext = std::path::Path::new(given)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        None => Ok((format!("{given}.png"), ImageFormat::Png)),
        Some("png") => Ok((given.to_string(), ImageFormat::Png)),
        Some("jpg") | Some("jpeg") => Ok((given.to_string(), ImageFormat::Jpeg)),
        Some(_) => Err(refuse(
            "must end with .png, .jpg or .jpeg (or have no extension, for .png)",
        )),
    }
}

/// A refused `local_path` is `PATH_NOT_ALLOWED` (outside the output roots, a link, in a linked
/// directory that leads out, trusted configuration); a path that cannot be a file is
/// `INVALID_PARAM`; a write that failed is the contract's `SCREENSHOT_ERROR`.
/// `details.reason` says which rule applied.
fn path_error(e: HostPathError) -> ToolError {
    let code = match e.kind {
        PathErrorKind::NotAllowed
        | PathErrorKind::Symlink
        | PathErrorKind::Runnable
        | PathErrorKind::TrustedConfig => tapflow_core::codes::PATH_NOT_ALLOWED,
        PathErrorKind::Invalid | PathErrorKind::WrongType => tapflow_core::codes::INVALID_PARAM,
        _ => tapflow_core::codes::SCREENSHOT_ERROR,
    };
    let mut details = e.details();
    details["param"] = "local_path".into();
    ToolError::new(code, e.message).with_details(details)
}

impl Tool for Screenshot {
    const CORE: bool = true;
    const NAME: &'static str = "screenshot";
    const TITLE: &'static str = "Screenshot";
    const DESCRIPTION: &'static str = "Save a full-screen or region screenshot as a PNG or JPEG file on the host (`local_path`, default a new file in the screenshots directory). Evidence for humans. Use `find_elements` to reason about the screen.";
    const POLICY: Policy = presets::READ_TO_HOST_FILE;
    const HINTS: Hints = presets::IDEMPOTENT;
    const FLOW: FlowHooks<Params> = FlowHooks {
        shorthand: Some("local_path"),
        known_as: &[("takeScreenshot", "")],
        // A relative path lands in the run's artifacts and is listed as the step's evidence.
        step_file: Some(StepFile {
            param: "local_path",
            evidence: "screenshot",
        }),
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        region(p)?;
        if let Some(name) = given_path(p) {
            image_file(name)?;
        }
        Ok(())
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let region = region(&p)?;
        let (given, format) = match given_path(&p) {
            Some(given) => image_file(given)?,
            None => {
                let serial: String = call
                    .device_id()?
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect();
                let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
                let tag = &uuid::Uuid::new_v4().simple().to_string()[..8];
                let name = format!("screenshot_{serial}_{stamp}_{tag}.png");
                (
                    call.config()
                        .screenshots_dir
                        .join(name)
                        .display()
                        .to_string(),
                    ImageFormat::Png,
                )
            }
        };
        // Checked (and missing directories created) before the device is touched; the file is
        // then created without following links (see `hostfs`).
        let target = call
            .config()
            .paths
            .prepare_write(&given)
            .map_err(path_error)?;
        let device = call.device()?;
        let shot = device
            .screenshot(&ScreenshotRequest {
                format,
                display_id: if region.is_some() {
                    None
                } else {
                    Some(p.display_id.unwrap_or(0))
                },
                region,
            })
            .map_err(|e| ToolError::from_device_op(e, tapflow_core::codes::SCREENSHOT_ERROR))?;
        if shot.bytes.is_empty() {
            return Err(shot_error("the device returned an empty image".into()));
        }
        let path = target
            .write(&shot.bytes, Overwrite::Replace)
            .map_err(path_error)?;
        Ok(Output {
            local_path: path.display().to_string(),
            file_size: shot.bytes.len() as u64,
            width: shot.width,
            height: shot.height,
            format: shot.format,
            bounds: region,
            display_id: if region.is_some() {
                None
            } else {
                Some(p.display_id.unwrap_or(0))
            },
        })
    }
}
