//! Diagnostics as the compiler finds them, with memory bounded whatever the input: exact
//! duplicates are dropped on arrival (a sub-flow checked once per caller reports its problems
//! once), at most [`STORED_PER_FILE`] are kept per file, and the others are only counted, by a
//! hash of what identifies them, so that the count of omitted diagnostics stays exact.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{Hash, Hasher};

use crate::flow::{
    Diagnostic, MAX_DIAGNOSTICS_PER_FILE, Omitted, Severity, cap_per_file, sort_and_dedup,
};

/// Diagnostics kept per file before the rest are only counted. More than are listed, so the
/// listed ones are the first in file order among many more than the listing shows.
pub const STORED_PER_FILE: usize = 10 * MAX_DIAGNOSTICS_PER_FILE;

#[derive(Default)]
pub struct Sink {
    kept: Vec<Diagnostic>,
    /// Identity hashes of every diagnostic seen (kept or counted).
    seen: HashSet<u64>,
    stored: HashMap<String, usize>,
    /// Per file: errors and warnings seen after the file's store was full.
    counted: BTreeMap<String, (usize, usize)>,
}

fn identity(d: &Diagnostic) -> u64 {
    let mut h = DefaultHasher::new();
    (&d.file, d.span.start, d.span.end, &d.code, &d.message).hash(&mut h);
    h.finish()
}

impl Sink {
    pub fn push(&mut self, d: Diagnostic) {
        if !self.seen.insert(identity(&d)) {
            return;
        }
        let stored = self.stored.entry(d.file.clone()).or_default();
        if *stored < STORED_PER_FILE {
            *stored += 1;
            self.kept.push(d);
            return;
        }
        let c = self.counted.entry(d.file).or_default();
        match d.severity {
            Severity::Error => c.0 += 1,
            Severity::Warning => c.1 += 1,
        }
    }

    /// The diagnostics to list (sorted, at most [`MAX_DIAGNOSTICS_PER_FILE`] per file) and,
    /// per file, how many more there were.
    pub fn finish(self) -> (Vec<Diagnostic>, Vec<Omitted>) {
        let mut kept = self.kept;
        sort_and_dedup(&mut kept);
        let mut omitted = cap_per_file(&mut kept, MAX_DIAGNOSTICS_PER_FILE);
        for (file, (errors, warnings)) in self.counted {
            match omitted.iter_mut().find(|o| o.file == file) {
                Some(o) => {
                    o.errors += errors;
                    o.warnings += warnings;
                }
                None => omitted.push(Omitted {
                    file,
                    errors,
                    warnings,
                }),
            }
        }
        omitted.sort_by(|a, b| a.file.cmp(&b.file));
        (kept, omitted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::{SourceFile, Span};

    #[test]
    fn duplicates_are_dropped_and_the_overflow_is_counted_exactly() {
        let src = SourceFile::new("f.yaml", "x".repeat(5_000));
        let mut sink = Sink::default();
        for round in 0..2 {
            for i in 0..3_000 {
                let d = Diagnostic::error(&src, Span::new(i, i + 1), "x", "m", "l");
                sink.push(if i % 3 == 0 && round == 0 {
                    d
                } else if i % 3 == 0 {
                    d.clone()
                } else {
                    Diagnostic::warning(&src, Span::new(i, i + 1), "w", "m", "l")
                });
            }
        }
        let (listed, omitted) = sink.finish();
        assert_eq!(listed.len(), MAX_DIAGNOSTICS_PER_FILE);
        assert!(
            listed
                .windows(2)
                .all(|w| w[0].span.start <= w[1].span.start)
        );
        assert_eq!(
            omitted,
            [Omitted {
                file: "f.yaml".into(),
                errors: 1_000 - listed.iter().filter(|d| d.is_error()).count(),
                warnings: 2_000 - listed.iter().filter(|d| !d.is_error()).count(),
            }]
        );
    }
}
