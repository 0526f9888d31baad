//! `swipe`: a swipe by direction (across the middle of the screen) or by explicit coordinates.
//!
//! Direction names the way the finger moves: `up` goes from 75% to 25% of the screen height
//! on the vertical centre line (revealing content below), `left` from 75% to 25% of the width.
//! The screen is the device's reported screen size (one round trip on hdc), else the union of
//! the visible windows.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::Call;
use crate::coords::four;
use crate::decode::FieldCodes;
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::gesture::{default_speed, dispatch};
use crate::policy::{Hints, Policy};
use crate::registry::Tool;
use tapflow_device::UiAction;
use tapflow_device::model::{Bounds, Direction, Gesture, Point};

pub struct Swipe;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Coordinate mode: start x.
    pub from_x: Option<i32>,
    /// Coordinate mode: start y.
    pub from_y: Option<i32>,
    /// Coordinate mode: end x.
    pub to_x: Option<i32>,
    /// Coordinate mode: end y.
    pub to_y: Option<i32>,
    /// Direction mode: the way the finger moves.
    pub direction: Option<Direction>,
    /// Speed in px/s (uitest accepts 200..40000).
    #[serde(default = "default_speed")]
    #[schemars(default = "default_speed", range(min = 200, max = 40000))]
    pub speed: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub from_x: i32,
    pub from_y: i32,
    pub to_x: i32,
    pub to_y: i32,
    pub direction: Option<Direction>,
    pub speed: u32,
    pub dispatched: bool,
}

/// The screen: the device's reported screen size (one round trip on hdc), else the union of
/// the visible windows.
pub(crate) fn screen_area(call: &mut Call<'_>) -> Result<Bounds, ToolError> {
    let device = call.device()?;
    if let Some(s) = device.info()?.screen
        && s.width > 0
        && s.height > 0
    {
        return Ok(Bounds::new(0, 0, s.width as i32, s.height as i32));
    }
    let table = device.windows()?;
    let mut area: Option<Bounds> = None;
    for w in table
        .windows
        .iter()
        .filter(|w| w.visible && w.rect.w > 0 && w.rect.h > 0)
    {
        let b = w.rect.to_bounds();
        area = Some(match area {
            None => b,
            Some(a) => Bounds::new(
                a.left.min(b.left),
                a.top.min(b.top),
                a.right.max(b.right),
                a.bottom.max(b.bottom),
            ),
        });
    }
    area.ok_or_else(|| {
        ToolError::new(
            tapflow_core::codes::SCREEN_SIZE_UNKNOWN,
            "the device reports no screen size and no visible window",
        )
    })
}

/// Start and end of a swipe in `direction` across `area`.
pub fn direction_points(area: Bounds, direction: Direction) -> (Point, Point) {
    let c = area.center();
    let (w, h) = (area.width(), area.height());
    let at = |fx: i32, fy: i32| Point::new(area.left + w * fx / 100, area.top + h * fy / 100);
    match direction {
        Direction::Up => (Point::new(c.x, at(0, 75).y), Point::new(c.x, at(0, 25).y)),
        Direction::Down => (Point::new(c.x, at(0, 25).y), Point::new(c.x, at(0, 75).y)),
        Direction::Left => (Point::new(at(75, 0).x, c.y), Point::new(at(25, 0).x, c.y)),
        Direction::Right => (Point::new(at(25, 0).x, c.y), Point::new(at(75, 0).x, c.y)),
    }
}

enum Mode {
    Direction(Direction),
    Points(Point, Point),
}

/// Direction or all four coordinates, not both (device-free).
fn mode(p: &Params) -> Result<Mode, ToolError> {
    let coords = four(p.from_x, p.from_y, p.to_x, p.to_y);
    match (p.direction, coords) {
        (Some(_), Err(_)) | (Some(_), Ok(Some(_))) => Err(ToolError::new(
            tapflow_core::codes::PARAM_CONFLICT,
            "direction cannot be combined with explicit coordinates",
        )
        .at("direction")),
        (Some(d), Ok(None)) => Ok(Mode::Direction(d)),
        (None, Ok(Some((from, to)))) => Ok(Mode::Points(from, to)),
        (None, Err(e)) => Err(e),
        (None, Ok(None)) => Err(ToolError::new(
            tapflow_core::codes::MISSING_PARAMS,
            "give a direction or from_x, from_y, to_x and to_y",
        )),
    }
}

impl Tool for Swipe {
    const CORE: bool = true;
    const NAME: &'static str = "swipe";
    const TITLE: &'static str = "Swipe";
    const DESCRIPTION: &'static str = "Swipe by direction (the way the finger moves) or from/to coordinates, e.g. to scroll or change pages. Use `find_elements` after it to look for a target.";
    const POLICY: Policy = Policy::UI_ACTION;
    const HINTS: Hints = Hints::ACTION;
    const VERIFY: bool = true;
    const CODES: FieldCodes = FieldCodes {
        value: &[("direction", tapflow_core::codes::INVALID_DIRECTION)],
        wrong_type: &[],
    };
    const FLOW: FlowHooks<Params> = FlowHooks {
        shorthand: Some("direction"),
        known_as: &[("scroll", "")],
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        mode(p).map(drop)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let (from, to) = match mode(&p)? {
            Mode::Direction(d) => direction_points(screen_area(call)?, d),
            Mode::Points(from, to) => (from, to),
        };
        let swipe = Gesture::Swipe {
            from,
            to,
            speed: p.speed,
        };
        dispatch(call, &UiAction::Gesture(swipe))?;
        Ok(Output {
            from_x: from.x,
            from_y: from.y,
            to_x: to.x,
            to_y: to.y,
            direction: p.direction,
            speed: p.speed,
            dispatched: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_cross_the_middle_of_the_area() {
        let a = Bounds::new(0, 0, 1000, 2000);
        assert_eq!(
            direction_points(a, Direction::Up),
            (Point::new(500, 1500), Point::new(500, 500))
        );
        assert_eq!(
            direction_points(a, Direction::Left),
            (Point::new(750, 1000), Point::new(250, 1000))
        );
    }
}
