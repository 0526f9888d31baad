//! `query_package`: installed packages, a bundle's abilities, its main ability, or its permissions.
//!
//! Main-ability resolution (shared with `run_app`): bm's main element of the entry module, then
//! launcher abilities (home skill), then visible page abilities, then any page ability.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::app_ops::{bundle_to_send, given_bundle};
use crate::context::Call;
use crate::decode::FieldCodes;
use crate::envelope::ToolError;
use crate::policy::{Hints, Policy};
use crate::registry::{Digest, Tool};
use tapflow_device::model::{AbilityInfo, ModuleInfo, PackageInfo};

pub struct QueryPackage;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InfoType {
    #[default]
    List,
    Abilities,
    MainAbility,
    Permissions,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Bundle to inspect; required for abilities, main_ability and permissions; not allowed with list.
    pub bundle_name: Option<String>,
    /// Case-insensitive substring filter on bundle names (list only).
    pub keyword: Option<String>,
    /// What to query (default `list`). `basic` is not supported.
    #[serde(default)]
    pub info_type: InfoType,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct AbilityEntry {
    pub name: String,
    pub module: String,
    /// `page`, `service`, … when bm says.
    pub kind: Option<String>,
    pub visible: Option<bool>,
    pub is_launcher: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Candidate {
    pub ability_name: String,
    pub module_name: Option<String>,
    /// `main_element`, `launcher`, `visible_page` or `page`.
    pub reason: String,
}

/// The result; which fields are present depends on `info_type`.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct Output {
    pub info_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packages: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abilities: Option<Vec<AbilityEntry>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modules: Option<Vec<ModuleInfo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub main_ability: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ability_count: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ability_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<Candidate>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recommended: Option<Candidate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_permissions: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_count: Option<usize>,
}

/// Launch candidates in preference order (duplicates removed).
pub fn main_ability_candidates(info: &PackageInfo) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    let mut push = |name: &str, module: Option<&str>, reason: &str| {
        // bm may give the main element fully qualified or short; keep bm's spelling.
        if name.is_empty() || out.iter().any(|c| c.ability_name == name) {
            return;
        }
        out.push(Candidate {
            ability_name: name.to_string(),
            module_name: module.map(str::to_string),
            reason: reason.to_string(),
        });
    };
    let module_of = |name: &str| {
        info.abilities
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.module.as_str())
    };
    if let Some(main) = &info.main_ability {
        let module = info
            .main_module
            .as_deref()
            .or_else(|| module_of(main))
            .or(info.entry_module.as_deref());
        push(main, module, "main_element");
    }
    for a in info.abilities.iter().filter(|a| a.is_launcher) {
        push(&a.name, Some(&a.module), "launcher");
    }
    let is_page = |a: &&AbilityInfo| {
        a.kind
            .as_deref()
            .is_some_and(|k| k.eq_ignore_ascii_case("page"))
    };
    for a in info
        .abilities
        .iter()
        .filter(is_page)
        .filter(|a| a.visible == Some(true))
    {
        push(&a.name, Some(&a.module), "visible_page");
    }
    for a in info.abilities.iter().filter(is_page) {
        push(&a.name, Some(&a.module), "page");
    }
    out
}

/// bm's package info, failures reported as the device said them (unknown bundle included).
pub fn package_info(call: &mut Call<'_>, bundle: &str) -> Result<PackageInfo, ToolError> {
    let device = call.device()?;
    device.package_info(bundle).map_err(|e| {
        let code = e.code();
        ToolError::from(e).with_details(json!({ "bundle_name": bundle, "cause_code": code }))
    })
}

/// The contract's rules on `info_type` (device-free): `list` takes no bundle_name
/// (`PARAM_CONFLICT`) and the others need one (`MISSING_BUNDLE_NAME`), spelled as a bundle
/// name (`INVALID_BUNDLE_NAME`); `keyword` filters lists only (`PARAM_CONFLICT`). Returns the
/// bundle, if any.
fn bundle(p: &Params) -> Result<Option<String>, ToolError> {
    let given = given_bundle(p.bundle_name.clone());
    if p.info_type == InfoType::List {
        if given.is_some() {
            return Err(ToolError::new(
                tapflow_core::codes::PARAM_CONFLICT,
                "info_type=list cannot be combined with bundle_name; use abilities, main_ability or permissions",
            )
            .at("bundle_name"));
        }
        return Ok(None);
    }
    if p.keyword.is_some() {
        return Err(ToolError::new(
            tapflow_core::codes::PARAM_CONFLICT,
            "keyword is used only with info_type=list",
        )
        .at("keyword"));
    }
    if given.is_none() {
        return Err(ToolError::new(
            tapflow_core::codes::MISSING_BUNDLE_NAME,
            "bundle_name is required for abilities, main_ability and permissions",
        )
        .at("info_type"));
    }
    bundle_to_send(given.as_deref()).map(Some)
}

impl Tool for QueryPackage {
    const NAME: &'static str = "query_package";
    const TITLE: &'static str = "Query packages";
    const DESCRIPTION: &'static str = "Query installed packages (`info_type` `list`, filtered by `keyword`), or one bundle's `abilities`, `main_ability` or requested `permissions`. Use it to find a bundle name or the ability to launch; use `run_app` to start the app (it resolves the main ability itself).";
    const POLICY: Policy = Policy::READ;
    const HINTS: Hints = Hints::READ;
    const CODES: FieldCodes = FieldCodes {
        value: &[("info_type", tapflow_core::codes::INVALID_INFO_TYPE)],
        wrong_type: &[("info_type", tapflow_core::codes::INVALID_INFO_TYPE)],
    };
    const DIGEST: Option<Digest> = Some(Digest::List {
        field: "packages",
        keep: &[],
    });
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        bundle(p).map(drop)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let bundle = bundle(&p)?;
        match p.info_type {
            InfoType::List => {
                let mut packages = call.device()?.packages()?;
                if let Some(k) = p
                    .keyword
                    .as_deref()
                    .map(str::trim)
                    .filter(|k| !k.is_empty())
                {
                    let k = k.to_lowercase();
                    packages.retain(|b| b.to_lowercase().contains(&k));
                }
                Ok(Output {
                    info_type: "list".into(),
                    count: Some(packages.len()),
                    packages: Some(packages),
                    ..Default::default()
                })
            }
            other => {
                let Some(bundle) = bundle else {
                    unreachable!("`bundle` requires it for every info_type but list");
                };
                let info = package_info(call, &bundle)?;
                let mut out = Output {
                    bundle_name: Some(bundle.clone()),
                    ..Default::default()
                };
                if other == InfoType::Abilities {
                    out.info_type = "abilities".into();
                    out.ability_count = Some(info.abilities.len());
                    out.main_ability = info.main_ability.clone();
                    out.modules = Some(info.modules.clone());
                    out.abilities = Some(
                        info.abilities
                            .iter()
                            .map(|a| AbilityEntry {
                                name: a.name.clone(),
                                module: a.module.clone(),
                                kind: a.kind.clone(),
                                visible: a.visible,
                                is_launcher: a.is_launcher,
                            })
                            .collect(),
                    );
                } else if other == InfoType::MainAbility {
                    out.info_type = "main_ability".into();
                    let candidates = main_ability_candidates(&info);
                    let Some(best) = candidates.first().cloned() else {
                        return Err(ToolError::new(
                            tapflow_core::codes::ABILITY_RESOLUTION_FAILED,
                            format!("{bundle} declares no main, launcher or page ability"),
                        ));
                    };
                    out.ability_name = Some(best.ability_name.clone());
                    out.module_name = best.module_name.clone();
                    out.recommended = Some(best);
                    out.candidates = Some(candidates);
                } else {
                    out.info_type = "permissions".into();
                    out.permission_count = Some(info.permissions.len());
                    out.requested_permissions = Some(info.permissions.clone());
                }
                Ok(out)
            }
        }
    }
}
