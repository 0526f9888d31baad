//! tapflow-tools: the tool engine: one file per tool, the registry, the response envelope, argument decoding,
//! error codes and policies. The flow runner, the MCP server and the CLI all run tools through
//! [`Engine::call`]; there is no second implementation of any step.
//!
//! May use: `tapflow-device` (devices only through the `Device` trait, reached via a
//! [`DeviceProvider`]; `ui`, `logs`, `hostfs`) and `tapflow-core`. It must not read the
//! environment (the CLI builds the [`ToolConfig`]); the runner, MCP server and CLI sit above it,
//! in the `tapflow` crate. [`RegistryCatalog`] is the planner's view of the registry.

pub mod adb_provider;
pub mod app_ops;
pub mod build_app;
pub mod build_app_tool;
pub mod config;
pub mod context;
pub mod coords;
pub mod decode;
pub mod envelope;
pub mod flow_hooks;
pub mod platforms_provider;
pub mod policy;
pub mod presets;
pub mod provider;
pub mod reference;
pub mod registry;
pub mod registry_catalog;
pub mod target;

pub mod clear_app_data;
pub mod click;
pub mod drag;
pub mod find_elements;
pub mod gesture;
pub mod get_ui_tree;
pub mod hdc_provider;
pub mod input_text;
pub mod install_app;
pub mod list_devices;
pub mod list_windows;
pub mod logs_query;
pub mod long_press;
pub mod press_key;
pub mod query_package;
pub mod run_app;
pub mod screenshot;
pub mod scroll_until_visible;
pub mod search;
pub mod stop_app;
pub mod swipe;
pub mod uninstall_app;
pub mod wait_for_element;
pub mod wait_for_stable;

pub use config::ToolConfig;
pub use context::{Call, DeviceProvider, DeviceRoute, NoBackend, ToolContext};
pub use envelope::{Envelope, ToolError};
pub use flow_hooks::{FlowDef, FlowHooks};
pub use policy::{Hints, Policy, Risk};
pub use provider::CachingProvider;
pub use registry::{Checked, Digest, Engine, Routing, Tool, ToolDef};
pub use registry_catalog::RegistryCatalog;

/// Every tool built into this module, in the order `tools/list` shows them.
pub fn builtin() -> Vec<ToolDef> {
    vec![
        ToolDef::of::<list_devices::ListDevices>(),
        ToolDef::of::<query_package::QueryPackage>(),
        ToolDef::of::<logs_query::LogsQuery>(),
        ToolDef::of::<build_app_tool::BuildApp>(),
        ToolDef::of::<install_app::InstallApp>(),
        ToolDef::of::<run_app::RunApp>(),
        ToolDef::of::<uninstall_app::UninstallApp>(),
        ToolDef::of::<stop_app::StopApp>(),
        ToolDef::of::<clear_app_data::ClearAppData>(),
        ToolDef::of::<click::Click>(),
        ToolDef::of::<long_press::LongPress>(),
        ToolDef::of::<swipe::Swipe>(),
        ToolDef::of::<drag::Drag>(),
        ToolDef::of::<input_text::InputText>(),
        ToolDef::of::<press_key::PressKey>(),
        ToolDef::of::<find_elements::FindElements>(),
        ToolDef::of::<screenshot::Screenshot>(),
        ToolDef::of::<get_ui_tree::GetUiTree>(),
        ToolDef::of::<list_windows::ListWindows>(),
        ToolDef::of::<wait_for_element::WaitForElement>(),
        ToolDef::of::<scroll_until_visible::ScrollUntilVisible>(),
        ToolDef::of::<wait_for_stable::WaitForStable>(),
    ]
}
