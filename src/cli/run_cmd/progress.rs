//! Terminal output of `tapflow run`: progress (bars, a spinner per device and the live step
//! log on a terminal; plain lines otherwise) and the summary printed at the end. Every line
//! goes through the run's [`Masker`] right before it is printed, then through
//! [`crate::cli::term::visible`] (bidirectional controls written out).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use crate::run::{self, EventSink, Masker, RunEvent, RunResult, Status};

fn secs(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

fn mark(s: Status) -> String {
    use crate::cli::term::paint;
    match s {
        Status::Passed => paint("PASS", "32"),
        Status::Failed => paint("FAIL", "1;31"),
        Status::Skipped => paint("SKIP", "33"),
        Status::NotRun => paint("NOT RUN", "33"),
        Status::Interrupted => paint("INTR", "1;33"),
        Status::Running => paint("RUN", "36"),
        Status::Invalid => paint("INVALID", "1;31"),
    }
}

/// One line per event that matters (non-terminal output: CI logs), masked, bidirectional
/// controls written out.
pub fn event_line(e: &RunEvent, masker: &Masker) -> Option<String> {
    let line = unmasked_line(e)?;
    Some(crate::cli::term::visible(&masker.text(&line)).into_owned())
}

fn unmasked_line(e: &RunEvent) -> Option<String> {
    Some(match e {
        RunEvent::RunStarted {
            run_id,
            flows,
            devices,
            ..
        } => {
            format!("run {run_id}: {flows} flow(s) on {}", devices.join(", "))
        }
        RunEvent::DeviceChecked { device } => match &device.error {
            None => format!(
                "device {}: ready ({}{})",
                device.serial,
                device.model.as_deref().unwrap_or("unknown model"),
                device
                    .api_level
                    .map_or_else(String::new, |a| format!(", API {a}"))
            ),
            Some(err) => format!(
                "device {}: NOT READY: {} ({})",
                device.serial,
                crate::cli::term::cli_wording(err.code, &err.message),
                err.code
            ),
        },
        RunEvent::FlowStarted {
            device,
            flow_id,
            name,
            ..
        } => {
            format!("[{device}] flow {flow_id} ({name})")
        }
        RunEvent::StepStarted { .. } => return None,
        RunEvent::AttemptFailed {
            device,
            step_id,
            attempt,
            error,
        } => format!(
            "[{device}]   retry {step_id} after attempt {attempt}: {}: {}",
            error.code, error.message
        ),
        RunEvent::StepFinished {
            device,
            step_id,
            title,
            status,
            duration_ms,
            error,
            location,
            ..
        } => {
            let mut s = format!(
                "[{device}]   {} {step_id} {title} ({})",
                mark(*status),
                secs(*duration_ms)
            );
            if let Some(e) = error {
                s.push_str(&format!(
                    "\n[{device}]        {location}: {}: {}",
                    e.code, e.message
                ));
                if let Some(help) = e.help() {
                    s.push_str(&format!("\n[{device}]        help: {help}"));
                }
            }
            s
        }
        RunEvent::FlowFinished { device, flow, .. } => format!(
            "[{device}] {} {} ({})",
            mark(flow.status),
            flow.id,
            secs(flow.duration_ms)
        ),
        RunEvent::FlowNotRun {
            flow_id,
            status,
            reason,
            ..
        } => {
            format!("{} {flow_id}: {reason}", mark(*status))
        }
        RunEvent::DeviceLost { device, reason } => format!("device {device} lost: {reason}"),
        RunEvent::Interrupted => "interrupted".into(),
        RunEvent::RunFinished { .. }
        | RunEvent::FlowsAssigned { .. }
        | RunEvent::StepRecorded { .. } => return None,
    })
}

/// Plain lines on stderr.
pub struct PlainProgress(pub Masker);

impl EventSink for PlainProgress {
    fn emit(&self, e: &RunEvent) {
        if let Some(l) = event_line(e, &self.0) {
            eprintln!("{l}");
        }
    }
}

/// A bar of finished flows, a spinner per device with its current step, the step log above.
pub struct BarProgress {
    multi: indicatif::MultiProgress,
    total: indicatif::ProgressBar,
    devices: Mutex<HashMap<String, indicatif::ProgressBar>>,
    masker: Masker,
}

impl BarProgress {
    pub fn new(masker: Masker) -> Self {
        let multi = indicatif::MultiProgress::new();
        let total = multi.add(indicatif::ProgressBar::new(0));
        total.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} flows {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        BarProgress {
            multi,
            total,
            devices: Mutex::new(HashMap::new()),
            masker,
        }
    }

    fn device(&self, serial: &str) -> indicatif::ProgressBar {
        let mut d = self.devices.lock().unwrap_or_else(|p| p.into_inner());
        d.entry(serial.to_string())
            .or_insert_with(|| {
                let b = self.multi.add(indicatif::ProgressBar::new_spinner());
                b.set_style(
                    indicatif::ProgressStyle::with_template("  {spinner} {prefix}: {wide_msg}")
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
                );
                b.set_prefix(serial.to_string());
                b.enable_steady_tick(Duration::from_millis(120));
                b
            })
            .clone()
    }

    pub fn finish(&self) {
        for b in self
            .devices
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
        {
            b.finish_and_clear();
        }
        self.total.finish_and_clear();
    }
}

impl EventSink for BarProgress {
    fn emit(&self, e: &RunEvent) {
        match e {
            RunEvent::RunStarted { flows, .. } => self.total.set_length(*flows as u64),
            RunEvent::StepStarted {
                device,
                step_id,
                title,
                ..
            } => {
                let line = self.masker.text(&format!("{step_id} {title}")).into_owned();
                self.device(device)
                    .set_message(crate::cli::term::visible(&line).into_owned());
            }
            RunEvent::FlowFinished { .. } => self.total.inc(1),
            RunEvent::FlowNotRun {
                status: Status::NotRun,
                ..
            } => self.total.inc(1),
            _ => {}
        }
        if let Some(l) = event_line(e, &self.masker)
            && !matches!(e, RunEvent::FlowStarted { .. })
        {
            let _ = self.multi.println(l);
        }
    }
}

/// The summary on stdout: counts, every failure with its location and evidence, the result.
pub fn print_summary(r: &RunResult, dir: &Path, masker: &Masker) {
    let out = summary(r, dir);
    print!("{}", crate::cli::term::visible(&masker.text(&out)));
    let path = dir.join("result.json");
    if !path.is_file() {
        eprintln!(
            "tapflow run: could not write {} (is the report directory writable?)",
            masker.text(&path.display().to_string())
        );
    }
}

fn summary(r: &RunResult, dir: &Path) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    // `writeln!` into a String cannot fail.
    macro_rules! println {
        ($($t:tt)*) => { let _ = writeln!(out, $($t)*); };
    }
    let t = &r.totals;
    println!();
    for d in r.devices.iter().filter(|d| !d.ready) {
        if let Some(e) = &d.error {
            println!(
                "device {}: {} ({})",
                d.serial,
                crate::cli::term::cli_wording(e.code, &e.message),
                e.code
            );
        }
    }
    for f in r.flows.iter().filter(|f| f.status == Status::Failed) {
        println!(
            "FAILED {} ({}) on {}",
            f.id,
            f.file,
            f.device.as_deref().unwrap_or("?")
        );
        if let Some(e) = &f.error {
            let at = e
                .location
                .as_ref()
                .map_or_else(String::new, |l| format!("{l}: "));
            println!("  {at}{}: {}", e.code, e.message);
            if let Some(help) = e.help() {
                println!("  help: {help}");
            }
        }
        for s in run_failed_steps(f) {
            for ev in &s.evidence {
                println!("  {}: {}", ev.kind, dir.join(&ev.path).display());
            }
        }
    }
    println!(
        "{}: {} passed, {} failed, {} skipped, {} not run{} of {} flow(s) in {}",
        match r.status {
            Status::Passed => "PASSED",
            Status::Interrupted => "INTERRUPTED",
            _ => "FAILED",
        },
        t.passed,
        t.failed,
        t.skipped,
        t.not_run,
        if t.interrupted > 0 {
            format!(", {} interrupted", t.interrupted)
        } else {
            String::new()
        },
        t.flows,
        secs(r.duration_ms)
    );
    let path = dir.join("result.json");
    if path.is_file() {
        println!("result: {}", path.display());
    }
    out
}

fn run_failed_steps(f: &run::FlowResult) -> Vec<&run::StepResult> {
    fn walk<'a>(s: &'a run::StepResult, out: &mut Vec<&'a run::StepResult>) {
        if !s.evidence.is_empty() {
            out.push(s);
        }
        s.children.iter().for_each(|c| walk(c, out));
    }
    let mut out = Vec::new();
    for s in f
        .setup
        .iter()
        .chain(&f.steps)
        .chain(&f.on_failure)
        .chain(&f.finally)
    {
        walk(s, &mut out);
    }
    out
}
