//! Terminal output of `tapflow run`: progress (bars, a spinner per device and the live step
//! log on a terminal; plain lines otherwise) and the summary printed at the end. Every line
//! goes through the run's [`Masker`] right before it is printed, then is made inert
//! ([`crate::report::github::inert`]): a line break in device text (a typed text, a title, an
//! error message quoting the screen) is shown as `\n`, so no device text starts a line that
//! CI would read as a workflow command; bidirectional controls are written out
//! ([`crate::cli::term::visible`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use crate::report::github::inert;
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

/// One logical line as printed: masked, then inert (its own line breaks escaped), with
/// bidirectional controls written out.
pub fn shown(line: &str, masker: &Masker) -> String {
    crate::cli::term::visible(&inert(&masker.text(line))).into_owned()
}

/// The lines printed for an event that matters (non-terminal output: CI logs), each masked and
/// inert, joined by line breaks.
pub fn event_line(e: &RunEvent, masker: &Masker) -> Option<String> {
    let lines = unmasked_lines(e)?;
    Some(
        lines
            .iter()
            .map(|l| shown(l, masker))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

fn unmasked_lines(e: &RunEvent) -> Option<Vec<String>> {
    if let RunEvent::StepFinished {
        device,
        step_id,
        title,
        status,
        duration_ms,
        error,
        location,
        ..
    } = e
    {
        let mut lines = vec![format!(
            "[{device}]   {} {step_id} {title} ({})",
            mark(*status),
            secs(*duration_ms)
        )];
        if let Some(e) = error {
            lines.push(format!(
                "[{device}]        {location}: {}: {}",
                e.code, e.message
            ));
            if let Some(help) = e.help() {
                lines.push(format!("[{device}]        help: {help}"));
            }
        }
        return Some(lines);
    }
    unmasked_line(e).map(|l| vec![l])
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
        RunEvent::StepFinished { .. }
        | RunEvent::RunFinished { .. }
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
                self.device(device)
                    .set_message(shown(&format!("{step_id} {title}"), &self.masker));
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
    let mut out = String::new();
    for line in summary(r, dir) {
        out.push_str(&shown(&line, masker));
        out.push('\n');
    }
    print!("{out}");
    let path = dir.join("result.json");
    if !path.is_file() {
        eprintln!(
            "tapflow run: could not write {} (is the report directory writable?)",
            shown(&path.display().to_string(), masker)
        );
    }
}

/// The summary's logical lines (each printed masked and inert).
fn summary(r: &RunResult, dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    macro_rules! println {
        () => { out.push(String::new()); };
        ($($t:tt)*) => { out.push(format!($($t)*)); };
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
