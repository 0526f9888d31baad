//! Groups of coordinate parameters that are given all together or not at all: a gesture's
//! from/to pair (`swipe`, `drag`) and a screenshot region. Each tool keeps its own code for a
//! partial group.

use serde_json::json;

use crate::envelope::ToolError;
use tapflow_device::model::Point;

/// `Ok(None)` when no value is given, `Ok(Some(values))` when all are, else `Err` with the
/// names of the missing ones.
pub(crate) fn all_or_none<const N: usize>(
    named: [(&str, Option<i32>); N],
) -> Result<Option<[i32; N]>, Vec<&str>> {
    let missing: Vec<&str> = named
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| *n)
        .collect();
    match missing.len() {
        0 => Ok(Some(named.map(|(_, v)| v.unwrap_or_default()))),
        n if n == N => Ok(None),
        _ => Err(missing),
    }
}

/// All four coordinates or none (`MISSING_PARAMS` names the missing ones); negative ones are
/// `INVALID_PARAM`.
pub(crate) fn four(
    from_x: Option<i32>,
    from_y: Option<i32>,
    to_x: Option<i32>,
    to_y: Option<i32>,
) -> Result<Option<(Point, Point)>, ToolError> {
    let named = [
        ("from_x", from_x),
        ("from_y", from_y),
        ("to_x", to_x),
        ("to_y", to_y),
    ];
    let given = all_or_none(named).map_err(|missing| {
        let at = named
            .iter()
            .find(|(_, v)| v.is_some())
            .map_or("from_x", |(n, _)| n);
        ToolError::new(
            tapflow_core::codes::MISSING_PARAMS,
            format!(
                "coordinate mode needs from_x, from_y, to_x and to_y; missing {}",
                missing.join(", ")
            ),
        )
        .with_details(json!({ "missing": missing }))
        .at(at)
    })?;
    let Some([fx, fy, tx, ty]) = given else {
        return Ok(None);
    };
    if let Some((n, _)) = named.iter().find(|(_, v)| v.is_some_and(|v| v < 0)) {
        return Err(ToolError::invalid_param(
            n,
            "coordinates are physical pixels and cannot be negative",
        ));
    }
    Ok(Some((Point::new(fx, fy), Point::new(tx, ty))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_all_or_none() {
        assert_eq!(all_or_none([("a", None), ("b", None)]), Ok(None));
        assert_eq!(
            all_or_none([("a", Some(1)), ("b", Some(-2))]),
            Ok(Some([1, -2]))
        );
        assert_eq!(all_or_none([("a", Some(1)), ("b", None)]), Err(vec!["b"]));
    }
}
