//! The package manager: `pm` and `cmd package` (AOSP `PackageManagerShellCommand`, whose
//! texts they share), `dumpsys package`, and the APK installer used by both `pm install` and
//! adb's streamed install.

use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use super::intents;
use super::services;
use crate::android::apk::{InstallFailure, parse_apk};
use crate::android::commands::am::launcher_of;
use crate::android::component::{activity_class, short_class};
use crate::android::logcat::android_uid;
use crate::latency::Cost;
use crate::phone::Phone;
use crate::phone::model::AbilityKind;
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;
use crate::shell::absolute;

/// Install flags (`-r` is the default on modern Android and accepted; `-t` allows test-only
/// packages; `-d` allows a downgrade).
#[derive(Debug, Clone, Copy, Default)]
pub struct InstallFlags {
    pub allow_test: bool,
    pub allow_downgrade: bool,
}

impl InstallFlags {
    pub fn parse<S: AsRef<str>>(args: &[S]) -> Self {
        let mut f = InstallFlags::default();
        for a in args {
            match a.as_ref() {
                "-t" => f.allow_test = true,
                "-d" => f.allow_downgrade = true,
                _ => {}
            }
        }
        f
    }
}

fn token(seed: &str) -> String {
    let h = Sha256::digest(seed.as_bytes());
    base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE, &h[..16])
}

/// `/data/app/~~<random>==/<pkg>-<random>==/base.apk`, stable per package.
pub fn code_path(package: &str) -> String {
    format!(
        "/data/app/~~{}/{package}-{}/base.apk",
        token(&format!("{package}/a")),
        token(&format!("{package}/b"))
    )
}

/// Installs APK bytes: the package name on success, the installer's refusal otherwise.
pub fn install_apk(
    phone: &mut Phone,
    bytes: &[u8],
    flags: InstallFlags,
) -> Result<String, InstallFailure> {
    let parsed = parse_apk(bytes)?;
    let pkg = parsed.spec.bundle.clone();
    if parsed.test_only && !flags.allow_test {
        return Err(InstallFailure {
            code: "INSTALL_FAILED_TEST_ONLY",
            message: "installPackageLI".into(),
        });
    }
    if let Some(old) = phone.installed_app(&pkg) {
        let (old_v, new_v) = (old.spec.version_code, parsed.spec.version_code);
        if old.system || (new_v < old_v && !flags.allow_downgrade) {
            return Err(InstallFailure {
                code: "INSTALL_FAILED_VERSION_DOWNGRADE",
                message: format!(
                    "Downgrade detected: Update version code {new_v} is older than current {old_v}"
                ),
            });
        }
    }
    // The phone refuses downgrades itself; an allowed one replaces the app first.
    if flags.allow_downgrade
        && phone
            .installed_app(&pkg)
            .is_some_and(|o| parsed.spec.version_code < o.spec.version_code)
    {
        let _ = phone.uninstall(&pkg);
    }
    phone
        .install_app(
            parsed.spec,
            &code_path(&pkg),
            bytes.to_vec(),
            SystemTime::now(),
        )
        .map_err(|e| InstallFailure {
            code: "INSTALL_FAILED_INTERNAL_ERROR",
            message: e.message,
        })?;
    Ok(pkg)
}

pub fn pm(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    package(ctx, args)
}

/// `cmd SERVICE …`: `package` is the package manager, `uimode` the UI mode manager; other
/// services the simulated device does not run.
pub fn cmd(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    match args.split_first() {
        Some((s, rest)) if s == "package" => package(ctx, rest),
        Some((s, rest)) if s == "uimode" => services::uimode(ctx, rest),
        Some((s, _)) if s == "clipboard" => {
            CmdResult::fail_err("No shell command implementation.\n", 0)
        }
        Some((s, _)) => CmdResult::fail_err(format!("cmd: Can't find service: {s}\n"), 20),
        None => CmdResult::fail_err(
            "cmd: No service specified; use -l to list all running services. Use -w to start and wait for a service.\n",
            20,
        ),
    }
}

fn package(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let Some((sub, rest)) = args.split_first() else {
        return CmdResult::fail_err(
            "Package manager (package) commands:\n  list packages, list features, has-feature, path, clear, install, uninstall, resolve-activity, query-activities, dump\n",
            1,
        );
    };
    ctx.spend(Cost::PackageManager);
    let ops: Vec<&String> = rest.iter().filter(|a| !a.starts_with('-')).collect();
    match sub.as_str() {
        "list" if rest.first().is_some_and(|a| a == "packages") => list_packages(ctx, &rest[1..]),
        "list" if rest.first().is_some_and(|a| a == "features") => intents::list_features(),
        "has-feature" => intents::has_feature(rest),
        "query-activities" => intents::query_activities(&ctx.phone(), rest),
        "path" => {
            let phone = ctx.phone();
            match ops.first().filter(|p| phone.installed_app(p).is_some()) {
                Some(p) => CmdResult::ok(format!("package:{}\n", code_path(p))),
                None => CmdResult::fail_out(Vec::new(), 1),
            }
        }
        "clear" => {
            let Some(p) = ops.first() else {
                return CmdResult::fail_err("Error: no package specified\n", 1);
            };
            match ctx.phone().clean(p, true) {
                Ok(()) => CmdResult::ok("Success\n"),
                Err(_) => CmdResult::fail_out("Failed\n", 1),
            }
        }
        "uninstall" => {
            let Some(p) = ops.first() else {
                return CmdResult::fail_err("Error: package name not specified\n", 1);
            };
            ctx.spend(Cost::Uninstall);
            let mut phone = ctx.phone();
            match phone.installed_app(p).map(|a| a.system) {
                None => CmdResult::fail_out("Failure [not installed for 0]\n".to_string(), 1),
                Some(true) => CmdResult::fail_out("Failure [DELETE_FAILED_INTERNAL_ERROR]\n", 1),
                Some(false) => match phone.uninstall(p) {
                    Ok(()) => CmdResult::ok("Success\n"),
                    Err(e) => CmdResult::fail_out(format!("Failure [{}]\n", e.message), 1),
                },
            }
        }
        "install" => {
            if rest.iter().any(|a| a == "-S") {
                return CmdResult::fail_err(
                    "Error: a streamed install (-S) reads the APK from stdin: use `adb install`\n",
                    1,
                );
            }
            let Some(path) = ops.last() else {
                return CmdResult::fail_err("Error: no package specified\n", 1);
            };
            ctx.spend(Cost::Install);
            let abs = absolute(path);
            let mut phone = ctx.phone();
            let Some(bytes) = phone.fs.read(&abs).map(<[u8]>::to_vec) else {
                return CmdResult::fail_err(
                    format!(
                        "Error: Can't open file: {path}\nException occurred while executing 'install':\njava.lang.IllegalArgumentException: Error: Can't open file: {path}\n"
                    ),
                    1,
                );
            };
            match install_apk(&mut phone, &bytes, InstallFlags::parse(rest)) {
                Ok(_) => CmdResult::ok("Success\n"),
                Err(f) => CmdResult::fail_out(format!("{f}\n"), 1),
            }
        }
        "grant" | "revoke" => CmdResult::ok(Vec::new()),
        "resolve-activity" => resolve_activity(ctx, rest),
        "dump" => match ops.first() {
            Some(p) => CmdResult::ok(dumpsys_package(&ctx.phone(), p)),
            None => CmdResult::fail_err("Error: no package specified\n", 1),
        },
        other => CmdResult::fail_err(format!("Unknown command: {other}\n"), 1),
    }
}

fn list_packages(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let has = |f: &str| args.iter().any(|a| a == f);
    let filter = args.iter().find(|a| !a.starts_with('-'));
    let phone = ctx.phone();
    let mut out = String::new();
    for a in phone.installed_apps() {
        let name = &a.spec.bundle;
        if (has("-3") && a.system) || (has("-s") && !a.system) || has("-d") {
            continue;
        }
        if filter.is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        out.push_str("package:");
        if has("-f") {
            out.push_str(&code_path(name));
            out.push('=');
        }
        out.push_str(name);
        if has("-U") {
            out.push_str(&format!(" uid:{}", android_uid(a.uid)));
        }
        out.push('\n');
    }
    CmdResult::ok(out)
}

/// `resolve-activity [--brief|--components] [-a ACTION] [-c CATEGORY] PKG`: the package's
/// launcher activity for MAIN/LAUNCHER (the only intent the simulated device resolves).
fn resolve_activity(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let brief = args.iter().any(|a| a == "--brief");
    let components = args.iter().any(|a| a == "--components");
    let mut pkg = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-a" | "-c" | "--user" | "-d" | "-t" => {
                it.next();
            }
            s if !s.starts_with('-') => pkg = Some(s.to_string()),
            _ => {}
        }
    }
    let phone = ctx.phone();
    let Some((_, class)) = pkg.as_deref().and_then(|p| launcher_of(&phone, p)) else {
        return CmdResult::ok("No activity found\n");
    };
    let pkg = pkg.unwrap_or_default();
    let component = format!("{pkg}/{}", short_class(&pkg, &class));
    if components {
        return CmdResult::ok(format!("{component}\n"));
    }
    let head = "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true";
    if brief {
        CmdResult::ok(format!("{head}\n{component}\n"))
    } else {
        CmdResult::ok(format!(
            "  ActivityInfo:\n    name={class}\n    packageName={pkg}\n    enabled=true exported=true directBootAware=false\n{head}\n"
        ))
    }
}

fn date(t: SystemTime) -> String {
    let dt: chrono::DateTime<chrono::Local> = t.into();
    dt.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// `dumpsys package PKG` (the parts tools read: the activity resolver table and the package
/// block with versions, flags, permissions and install times).
pub fn dumpsys_package(phone: &Phone, pkg: &str) -> String {
    let Some(app) = phone.installed_app(pkg) else {
        return format!("Dexopt state:\n  Unable to find package: {pkg}\n");
    };
    let s = app.spec;
    let h = |x: &str| {
        let d = Sha256::digest(x.as_bytes());
        format!("{:07x}", u32::from_be_bytes([d[0], d[1], d[2], d[3]]) >> 4)
    };
    let mut out = String::from("Activity Resolver Table:\n  Non-Data Actions:\n");
    let pages: Vec<_> = s
        .abilities
        .iter()
        .filter(|a| a.kind == AbilityKind::Page)
        .collect();
    if let Some(l) = pages.iter().find(|a| a.launcher) {
        let cls = short_class(pkg, &activity_class(pkg, &l.name));
        out.push_str(&format!(
            "      android.intent.action.MAIN:\n        {} {pkg}/{cls} filter {}\n          Action: \"android.intent.action.MAIN\"\n          Category: \"android.intent.category.LAUNCHER\"\n",
            h(&format!("{pkg}/{cls}")),
            h(&format!("{pkg}/{cls}/f"))
        ));
    }
    for a in pages.iter().filter(|a| !a.launcher && a.exported) {
        let cls = short_class(pkg, &activity_class(pkg, &a.name));
        out.push_str(&format!(
            "      {pkg}.action.OPEN:\n        {} {pkg}/{cls} filter {}\n          Action: \"{pkg}.action.OPEN\"\n",
            h(&format!("{pkg}/{cls}")),
            h(&format!("{pkg}/{cls}/f"))
        ));
    }
    let uid = android_uid(app.uid);
    let flags = if app.system {
        "SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA"
    } else {
        "DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
    };
    let installed = date(app.install_time);
    let _ = UNIX_EPOCH;
    out.push_str(&format!(
        "\nPackages:\n  Package [{pkg}] ({}):\n    userId={uid}\n    pkg=Package{{{} {pkg}}}\n    codePath={}\n    primaryCpuAbi=null\n    secondaryCpuAbi=null\n    versionCode={} minSdk=24 targetSdk=33\n    versionName={}\n    splits=[base]\n    apkSigningVersion=2\n    flags=[ {flags} ]\n    dataDir=/data/user/0/{pkg}\n    timeStamp={installed}\n    firstInstallTime={installed}\n    lastUpdateTime={installed}\n    installerPackageName=null\n    pkgFlags=[ {flags} ]\n",
        h(pkg),
        h(&format!("{pkg}/pkg")),
        code_path(pkg).trim_end_matches("/base.apk"),
        s.version_code,
        s.version_name,
    ));
    if !s.permissions.is_empty() {
        out.push_str("    requested permissions:\n");
        for p in &s.permissions {
            out.push_str(&format!("      {p}\n"));
        }
        out.push_str("    install permissions:\n");
        for p in &s.permissions {
            out.push_str(&format!("      {p}: granted=true\n"));
        }
    }
    out.push_str(
        "    User 0: ceDataInode=1 installed=true hidden=false suspended=false distractionFlags=0 stopped=false notLaunched=false enabled=0 instant=false virtual=false\n      gids=[3003]\n      runtime permissions:\n",
    );
    out
}
