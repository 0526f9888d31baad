//! Plain value types exchanged with the engine: key presses, dump options, window and mission rows.

/// A key given to `uitest uiInput keyEvent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPress {
    Back,
    Home,
    Power,
    /// A raw HarmonyOS key code (e.g. 2054 Enter, 2055 Backspace, 2072 Ctrl).
    Code(u32),
}

/// HarmonyOS key codes the phone understands.
pub mod keycode {
    pub const HOME: u32 = 1;
    pub const BACK: u32 = 2;
    pub const POWER: u32 = 18;
    pub const A: u32 = 2017;
    pub const V: u32 = 2038;
    pub const C: u32 = 2019;
    pub const ENTER: u32 = 2054;
    pub const DEL: u32 = 2055;
    pub const FORWARD_DEL: u32 = 2071;
    pub const CTRL_LEFT: u32 = 2072;
    pub const CTRL_RIGHT: u32 = 2073;
    pub const MOVE_HOME: u32 = 2081;
    pub const MOVE_END: u32 = 2082;
    pub const DPAD_LEFT: u32 = 2014;
    pub const DPAD_RIGHT: u32 = 2015;
}

/// Options of `uitest dumpLayout`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LayoutOptions {
    /// `-b bundle`: only that bundle's window.
    pub bundle: Option<String>,
    /// `-w windowId`: only that window.
    pub window_id: Option<i64>,
    /// `-i`: an array with one tree per window (invisible nodes kept).
    pub per_window: bool,
    /// `-a`: per-node `extraAttrs`.
    pub extra_attrs: bool,
    /// `-e uniqueId`: adds the `uniqueId` attribute.
    pub unique_id: bool,
}

/// One row of `hidumper -s WindowManagerService -a '-a'`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowRow {
    pub name: String,
    pub display_id: i64,
    pub pid: i64,
    pub window_id: i64,
    pub window_type: i64,
    pub mode: i64,
    pub flag: i64,
    pub z_order: i64,
    pub orientation: i64,
    /// x, y, w, h
    pub rect: (i32, i32, i32, i32),
    pub visible: bool,
}

/// One mission of `aa dump -l`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissionRow {
    pub id: i64,
    pub bundle: String,
    pub module: String,
    pub ability: String,
    pub foreground: bool,
}
