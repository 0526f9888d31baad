//! `drag`: press, move and release from one coordinate to another (uitest `drag`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::Call;
use crate::coords::four;
use crate::envelope::ToolError;
use crate::gesture::{default_speed, dispatch};
use crate::policy::{Hints, Policy};
use crate::registry::Tool;
use tapflow_device::UiAction;
use tapflow_device::model::{Gesture, Point};

pub struct Drag;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Start x (physical pixels).
    pub from_x: Option<i32>,
    /// Start y.
    pub from_y: Option<i32>,
    /// End x.
    pub to_x: Option<i32>,
    /// End y.
    pub to_y: Option<i32>,
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
    pub speed: u32,
    pub dispatched: bool,
}

/// All four coordinates, none negative (device-free).
fn points(p: &Params) -> Result<(Point, Point), ToolError> {
    four(p.from_x, p.from_y, p.to_x, p.to_y)?.ok_or_else(|| {
        ToolError::new(
            tapflow_core::codes::MISSING_PARAMS,
            "drag needs from_x, from_y, to_x and to_y",
        )
    })
}

impl Tool for Drag {
    const NAME: &'static str = "drag";
    const TITLE: &'static str = "Drag";
    const DESCRIPTION: &'static str = "Drag from one coordinate to another (press, move at `speed`, release), e.g. to move a slider or reorder items. Use `swipe` to scroll or fling, `long_press` for a hold without moving.";
    const POLICY: Policy = Policy::UI_ACTION;
    const HINTS: Hints = Hints::ACTION;
    const VERIFY: bool = true;
    const REQUIRED: &'static [&'static str] = &["from_x", "from_y", "to_x", "to_y"];
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        points(p).map(drop)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let (from, to) = points(&p)?;
        let drag = Gesture::Drag {
            from,
            to,
            speed: p.speed,
        };
        dispatch(call, &UiAction::Gesture(drag))?;
        Ok(Output {
            from_x: from.x,
            from_y: from.y,
            to_x: to.x,
            to_y: to.y,
            speed: p.speed,
            dispatched: true,
        })
    }
}
