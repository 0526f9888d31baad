//! Business markers: the keywords `markers` mode looks for.
//!
//! A keyword matches a log record when its text (prefix included) contains the keyword,
//! ignoring case. A keyword written `re:<pattern>` is a regular expression instead (Rust `regex`
//! syntax, case-sensitive unless the pattern says `(?i)`). Without `marker_keywords`, the
//! built-in [`DEFAULT_MARKERS`] are used: app lifecycle and page-load lines every ArkTS app
//! produces, so "did the app start and show a page" can be answered with no configuration.

use regex::Regex;

use super::error::LogsError;

/// Built-in markers (see module doc). `is about to exit` marks an app's death by JS error.
pub const DEFAULT_MARKERS: &[&str] = &[
    "onCreate",
    "onWindowStageCreate",
    "onForeground",
    "onBackground",
    "onDestroy",
    "LoadPage Success",
    "is about to exit",
];

/// Most keywords accepted in one query (each is scanned over every line).
pub const MAX_MARKERS: usize = 50;

/// One compiled keyword.
#[derive(Debug, Clone)]
pub struct Marker {
    /// As the user wrote it.
    pub keyword: String,
    matcher: Matcher,
}

#[derive(Debug, Clone)]
enum Matcher {
    Substring(String),
    Regex(Regex),
}

impl Marker {
    pub fn compile(keyword: &str) -> Result<Marker, LogsError> {
        if keyword.trim().is_empty() {
            return Err(LogsError::invalid_param(
                "marker_keywords",
                "marker keywords must not be empty",
            ));
        }
        let matcher = match keyword.strip_prefix("re:") {
            Some(pattern) => Matcher::Regex(Regex::new(pattern).map_err(|e| {
                LogsError::invalid_param(
                    "marker_keywords",
                    format!("invalid regular expression {pattern:?}: {e}"),
                )
            })?),
            None => Matcher::Substring(keyword.to_lowercase()),
        };
        Ok(Marker {
            keyword: keyword.to_string(),
            matcher,
        })
    }

    /// `lowered` is `text.to_lowercase()`, computed once per record by the caller.
    pub fn matches(&self, text: &str, lowered: &str) -> bool {
        match &self.matcher {
            Matcher::Substring(k) => lowered.contains(k.as_str()),
            Matcher::Regex(re) => re.is_match(text),
        }
    }
}

/// Compiles the user's keywords, or the defaults when none are given.
pub fn compile_markers(keywords: Option<&[String]>) -> Result<Vec<Marker>, LogsError> {
    match keywords {
        None => DEFAULT_MARKERS.iter().map(|k| Marker::compile(k)).collect(),
        Some([]) => Err(LogsError::invalid_param(
            "marker_keywords",
            "marker_keywords is empty; omit it to use the built-in markers",
        )),
        Some(list) if list.len() > MAX_MARKERS => Err(LogsError::invalid_param(
            "marker_keywords",
            format!("at most {MAX_MARKERS} marker keywords, got {}", list.len()),
        )),
        Some(list) => list.iter().map(|k| Marker::compile(k)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(m: &Marker, text: &str) -> bool {
        m.matches(text, &text.to_lowercase())
    }

    #[test]
    fn substring_is_case_insensitive_and_regex_is_not() {
        let m = Marker::compile("SaveResult").unwrap();
        assert!(hit(&m, "I A00000/biz: saveresult ok"));
        assert!(!hit(&m, "save result"));
        let r = Marker::compile(r"re:errorcode is = \d+").unwrap();
        assert!(hit(&r, "errorcode is = 0"));
        assert!(!hit(&r, "ErrorCode is = 0"));
    }

    #[test]
    fn bad_keywords_are_invalid_params() {
        assert_eq!(Marker::compile("  ").unwrap_err().code, "INVALID_PARAM");
        assert_eq!(Marker::compile("re:(").unwrap_err().code, "INVALID_PARAM");
        assert_eq!(
            compile_markers(Some(&[])).unwrap_err().code,
            "INVALID_PARAM"
        );
        let many: Vec<String> = (0..51).map(|i| format!("k{i}")).collect();
        assert_eq!(
            compile_markers(Some(&many)).unwrap_err().code,
            "INVALID_PARAM"
        );
    }

    #[test]
    fn defaults_when_none() {
        let d = compile_markers(None).unwrap();
        assert_eq!(d.len(), DEFAULT_MARKERS.len());
        assert!(
            d.iter()
                .any(|m| hit(m, "I C03925/AceRouter: [(1:1:scope)] LoadPage Success"))
        );
    }
}
