//! `aa dump -l` mission lists.
use crate::device::model::Mission;

pub fn parse_missions(text: &str) -> Vec<Mission> {
    todo!("parsers helper: {text}")
}
