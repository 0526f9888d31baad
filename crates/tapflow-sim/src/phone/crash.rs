//! App JS crashes: the faultlogger `jscrash-…` file (format of the real emulator captures, see
//! fixtures `jscrash_with_hilog_*`), the `AppKit` crash records in hilog, and the process's death.

use super::Phone;
use super::logs::{LogRecord, sys};
use chrono::{DateTime, Local};
use sha2::{Digest, Sha256};
use std::time::SystemTime;

/// Directory of faultlogger files.
pub const FAULTLOG_DIR: &str = "/data/log/faultlog/faultlogger";

impl Phone {
    /// The app throws `error_name: message`: hilog crash lines, a jscrash file, process gone.
    /// Returns the path of the faultlogger file (`None` when the app was not running).
    pub(super) fn crash_app(
        &mut self,
        bundle: &str,
        error_name: &str,
        message: &str,
        stack: &[String],
        now: SystemTime,
    ) -> Option<String> {
        let p = self.procs.get(bundle)?.clone();
        let app = self.apps.get(bundle)?.clone();
        let foreground = self.foreground.as_deref() == Some(bundle);
        let mut stack_lines: Vec<String> =
            stack.iter().map(|s| format!("    {}", s.trim())).collect();
        if stack_lines.is_empty() {
            stack_lines
                .push("    at anonymous entry (entry/src/main/ets/pages/Index.ets:1:1)".into());
        }
        let crash_msgs = [
            format!("{bundle} is about to exit due to RuntimeError"),
            format!("Error type:{error_name}"),
            format!("Error name:{error_name}"),
            format!("Error message:{message}"),
            "Stacktrace:".to_string(),
        ];
        for m in crash_msgs.iter().chain(stack_lines.iter()) {
            self.logs
                .push(now, p.pid, p.pid, 'E', 'C', 0x1317, "AppKit", m.clone());
        }
        let t: DateTime<Local> = now.into();
        let started: DateTime<Local> = p.started.into();
        let life = now
            .duration_since(p.started)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let mut fp = Sha256::new();
        fp.update(format!("{bundle}{error_name}{message}{}", stack_lines.join("\n")).as_bytes());
        let app_lines: Vec<String> = self
            .logs
            .records()
            .iter()
            .filter(|r| r.pid == p.pid)
            .map(LogRecord::format)
            .collect();
        let mut body = String::new();
        body.push_str(&format!("Device info:{}\n", self.profile.name));
        body.push_str(&format!("Build info:{}\n", self.profile.software_version));
        body.push_str(&format!("Fingerprint:{}\n", hex::encode(fp.finalize())));
        body.push_str(&format!(
            "Timestamp:{}\n",
            t.format("%Y-%m-%d %H:%M:%S%.3f")
        ));
        body.push_str(&format!("Module name:{bundle}\n"));
        body.push_str(&format!("Version:{}\n", app.spec.version_name));
        body.push_str(&format!("VersionCode:{}\n", app.spec.version_code));
        body.push_str(&format!(
            "PreInstalled:{}\n",
            if app.system { "Yes" } else { "No" }
        ));
        body.push_str(&format!(
            "Foreground:{}\n",
            if foreground { "Yes" } else { "No" }
        ));
        body.push_str(&format!("Pid:{}\nUid:{}\n", p.pid, p.uid));
        body.push_str(&format!("Process life time:{life}s\n"));
        body.push_str("Process Memory(kB): 132608(Rss)\n");
        body.push_str("Device Memory(kB): Total 11812340, Free 2987144, Available 5646592\n");
        body.push_str("Page switch history:\n");
        body.push_str(&format!(
            "  {} :enters foreground\n",
            started.format("%H:%M:%S%.3f")
        ));
        body.push_str(&format!(
            "Reason:{error_name}\nError name:{error_name}\nError message:{message}\nStacktrace:\n"
        ));
        for l in &stack_lines {
            body.push_str(l);
            body.push('\n');
        }
        body.push_str("\nHiLog:\n");
        for l in app_lines {
            body.push_str(&l);
            body.push('\n');
        }
        let path = format!(
            "{FAULTLOG_DIR}/jscrash-{bundle}-{}-{}.log",
            p.uid,
            t.format("%Y%m%d%H%M%S%3f")
        );
        self.fs.write(&path, body.into_bytes());
        self.logs.core(
            now,
            sys::HIVIEW,
            'I',
            0x1200,
            "Faultlogger",
            format!("write fault log to {path}"),
        );
        self.kill_app(bundle, now, "js crash");
        Some(path)
    }
}
