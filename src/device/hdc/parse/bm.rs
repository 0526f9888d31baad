//! `bm dump -a` and `bm dump -n <bundle>`.
use super::ParseError;
use crate::device::model::PackageInfo;

pub fn parse_bundle_list(text: &str) -> Result<Vec<String>, ParseError> {
    todo!("parsers helper: {text}")
}

pub fn parse_bundle_info(text: &str) -> Result<PackageInfo, ParseError> {
    todo!("parsers helper: {text}")
}
