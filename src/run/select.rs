//! Which flows a run executes: `--shard I/N` (a deterministic slice for CI matrices: every
//! flow in exactly one shard) and tag filters.

use std::fmt;
use std::str::FromStr;

use tapflow_core::plan::FlowPlan;

/// `I/N`, 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub total: usize,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("`{s}` is not a shard: write I/N with 1 <= I <= N, e.g. 2/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let total: usize = n.trim().parse().map_err(|_| bad())?;
        if total == 0 || index == 0 || index > total {
            return Err(bad());
        }
        Ok(Shard { index, total })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.total)
    }
}

impl Shard {
    /// Whether the flow of `file` belongs to this shard. Flows are ordered by file path and
    /// dealt round robin, so shards differ in size by at most one and the split depends only
    /// on the set of files, not on the order they were given in.
    pub fn selects(&self, position_in_sorted: usize) -> bool {
        position_in_sorted % self.total == self.index - 1
    }
}

/// Positions of the flows when sorted by (file, id): the order shards are dealt in.
pub fn sorted_positions(flows: &[FlowPlan]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..flows.len()).collect();
    order.sort_by(|&a, &b| {
        (flows[a].file.as_str(), flows[a].id.as_str())
            .cmp(&(flows[b].file.as_str(), flows[b].id.as_str()))
    });
    let mut pos = vec![0; flows.len()];
    for (p, i) in order.into_iter().enumerate() {
        pos[i] = p;
    }
    pos
}

/// Tag filters: a flow runs when it has one of `include` (if any is given) and none of
/// `exclude`. Tags compare case-insensitively.
#[derive(Clone, Debug, Default)]
pub struct TagFilter {
    pub include: Vec<String>,
    pub exclude: Vec<String>,
}

impl TagFilter {
    /// `None` when the flow runs, else why not.
    pub fn rejects(&self, tags: &[String]) -> Option<String> {
        let has = |t: &String| tags.iter().any(|x| x.eq_ignore_ascii_case(t));
        if let Some(t) = self.exclude.iter().find(|t| has(t)) {
            return Some(format!("excluded by tag `{t}`"));
        }
        if !self.include.is_empty() && !self.include.iter().any(has) {
            return Some(format!(
                "has none of the included tags ({})",
                self.include.join(", ")
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_shards() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, total: 4 }));
        assert!("0/4".parse::<Shard>().is_err());
        assert!("5/4".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
        assert!("1/0".parse::<Shard>().is_err());
    }

    #[test]
    fn tags() {
        let f = TagFilter {
            include: vec!["smoke".into()],
            exclude: vec!["slow".into()],
        };
        assert!(f.rejects(&["Smoke".into()]).is_none());
        assert!(f.rejects(&["smoke".into(), "slow".into()]).is_some());
        assert!(f.rejects(&["other".into()]).is_some());
        assert!(TagFilter::default().rejects(&[]).is_none());
    }
}
