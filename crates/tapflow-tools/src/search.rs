//! Search criteria as the element tools take them (`text`, `element_type`, `element_id`,
//! `match_mode`, `index`, scope): building [`SearchArgs`] from a tool's parameters and the
//! "at least one criterion" rule, each tool keeping its own code for a call that gives none.

use crate::envelope::ToolError;
use crate::target::SearchArgs;
use tapflow_device::ui::selector::TextMatch;

/// Criteria of the tap tools (click, long_press): scoped by bundle only, `text` named `text`.
pub(crate) fn search_args(
    text: Option<String>,
    element_type: Option<String>,
    element_id: Option<String>,
    bundle_name: Option<String>,
    match_mode: Option<TextMatch>,
    index: Option<usize>,
    refine: tapflow_device::ui::refine::Refine,
) -> SearchArgs {
    SearchArgs {
        text_param: None,
        text,
        element_type,
        element_id,
        bundle_name,
        window_id: None,
        match_mode,
        index,
        refine,
    }
}

/// At least one of text / element_type / element_id, else `code` (`MISSING_SEARCH_CRITERIA`,
/// or `INVALID_WAIT_TARGET` for wait_for_element).
pub(crate) fn require_criteria(
    args: &SearchArgs,
    code: tapflow_core::codes::Code,
) -> Result<(), ToolError> {
    if args.has_criteria() {
        return Ok(());
    }
    Err(ToolError::new(
        code,
        "give at least one of text, element_type, element_id",
    ))
}
