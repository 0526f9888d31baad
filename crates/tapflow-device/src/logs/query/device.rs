//! The device source of a query: the filter pushed down to the device, the realtime buffer and
//! sampling window, and the fallback to historical logs.

use super::{Analysis, QueryEnv, analyze};
use crate::logs::error::LogsError;
use crate::logs::params::{QueryMode, ValidatedQuery};
use crate::logs::scan::SourceText;
use crate::logs::source::{CaptureError, DeviceLogFilter, LogCapture};

/// The filter pushed to the device. Pushing down is only done when it cannot change the
/// answer: with `context_lines` the neighbours of every level and process are needed, and
/// `package_name` attribution needs the lines of every process.
pub fn device_filter(q: &ValidatedQuery) -> DeviceLogFilter {
    if q.context_lines > 0 || q.package_name.is_some() {
        return DeviceLogFilter::default();
    }
    DeviceLogFilter {
        min_level: q.level,
        tags: q.tag.iter().cloned().collect(),
        domain: q.domain.map(|d| format!("0x{:x}", d.domain)),
        pids: q.pid.into_iter().collect(),
    }
}

fn capture_error(e: CaptureError, attempted: &[String]) -> LogsError {
    LogsError::new(e.code, e.message)
        .with_details(serde_json::json!({ "source_attempted": attempted }))
}

/// The realtime source: the buffer snapshot plus, for `realtime_wait_ms`, the lines logged
/// after it. A failed sampling window does not discard the buffer already read.
fn sample_realtime(
    q: &ValidatedQuery,
    env: &QueryEnv,
    source: &dyn LogCapture,
    filter: &DeviceLogFilter,
    buffer: String,
    notes: &mut Vec<String>,
) -> (Vec<SourceText>, Analysis) {
    let as_source = |text: String| {
        vec![SourceText {
            label: "device_realtime".into(),
            text,
        }]
    };
    let mut texts = as_source(buffer);
    if q.realtime_wait.is_zero() {
        let a = analyze(q, &texts, &env.now);
        return (texts, a);
    }
    // Markers mode: when the buffer already holds every marker, waiting adds nothing.
    if q.mode == QueryMode::Markers {
        let first = analyze(q, &texts, &env.now);
        if first
            .markers
            .as_ref()
            .is_some_and(|m| m.iter().all(|s| s.matched))
        {
            return (texts, first);
        }
    }
    match source.wait_realtime(q.realtime_wait, filter) {
        Ok(more) if !more.is_empty() => {
            let text = &mut texts[0].text;
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&more);
        }
        Ok(_) => {}
        Err(e) => notes.push(format!(
            "realtime sampling failed ({e}); only the buffer snapshot was queried"
        )),
    }
    let a = analyze(q, &texts, &env.now);
    (texts, a)
}

/// Device source: realtime first (buffer snapshot plus the sampling window), then, with
/// `fallback_to_historical`, the persisted logs when realtime failed or matched nothing.
pub(super) fn device_query(
    q: &ValidatedQuery,
    env: &QueryEnv,
    source: &dyn LogCapture,
    filter: &DeviceLogFilter,
    attempted: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Result<(String, Vec<SourceText>, Analysis), LogsError> {
    attempted.push("device_realtime".into());
    let realtime = source
        .capture(filter)
        .map(|buffer| sample_realtime(q, env, source, filter, buffer, notes));
    let fallback_wanted = match &realtime {
        Err(_) => q.fallback_to_historical,
        Ok((_, a)) => q.fallback_to_historical && a.items.is_empty(),
    };
    if !fallback_wanted {
        return match realtime {
            Ok((texts, a)) => Ok(("device_realtime".into(), texts, a)),
            Err(e) => Err(capture_error(e, attempted)),
        };
    }
    attempted.push("device_historical".into());
    match source.historical(filter) {
        Ok(text) => {
            if let Err(e) = &realtime {
                notes.push(format!(
                    "realtime capture failed ({e}); historical logs were used"
                ));
            }
            let texts = vec![SourceText {
                label: "device_historical".into(),
                text,
            }];
            let a = analyze(q, &texts, &env.now);
            Ok(("device_historical".into(), texts, a))
        }
        Err(he) => match realtime {
            Ok((texts, a)) => {
                notes.push(format!(
                    "historical logs were not available ({he}); the realtime result is shown"
                ));
                Ok(("device_realtime".into(), texts, a))
            }
            Err(re) => Err(LogsError::new(
                re.code,
                format!(
                    "realtime capture failed: {}; historical logs failed: {}",
                    re.message, he.message
                ),
            )
            .with_details(
                serde_json::json!({ "source_attempted": attempted, "historical_code": he.code }),
            )),
        },
    }
}
