//! The platform-neutral device model: UI nodes (every uitest attribute kept verbatim), bounds,
//! windows, element handles, device and package information, screenshots and log queries.
//!
//! Backends translate their platform's output into these types; everything above `device`
//! (ui, tools, run, report) sees only these. No I/O happens here.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A rectangle in physical display pixels, as uitest writes it: `[left,top][right,bottom]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct Bounds {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

impl Bounds {
    pub const fn new(left: i32, top: i32, right: i32, bottom: i32) -> Self {
        Self {
            left,
            top,
            right,
            bottom,
        }
    }

    /// Parses uitest's `"[l,t][r,b]"` (whitespace tolerated). `None` when malformed.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let s = s.strip_prefix('[')?.strip_suffix(']')?;
        let (a, b) = s.split_once("][")?;
        let (l, t) = a.split_once(',')?;
        let (r, bo) = b.split_once(',')?;
        Some(Self {
            left: l.trim().parse().ok()?,
            top: t.trim().parse().ok()?,
            right: r.trim().parse().ok()?,
            bottom: bo.trim().parse().ok()?,
        })
    }

    pub fn width(&self) -> i32 {
        self.right - self.left
    }

    pub fn height(&self) -> i32 {
        self.bottom - self.top
    }

    /// The point drivers tap: the integer centre.
    pub fn center(&self) -> Point {
        Point {
            x: (self.left + self.right) / 2,
            y: (self.top + self.bottom) / 2,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.width() <= 0 || self.height() <= 0
    }

    pub fn contains(&self, p: Point) -> bool {
        p.x >= self.left && p.x < self.right && p.y >= self.top && p.y < self.bottom
    }

    pub fn intersects(&self, other: &Bounds) -> bool {
        self.left < other.right
            && other.left < self.right
            && self.top < other.bottom
            && other.top < self.bottom
    }
}

impl fmt::Display for Bounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{},{}][{},{}]",
            self.left, self.top, self.right, self.bottom
        )
    }
}

/// A point in physical display pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

impl Point {
    pub const fn new(x: i32, y: i32) -> Self {
        Self { x, y }
    }
}

/// One node of a layout dump, exactly as uitest writes it: `{"attributes":{…},"children":[…]}`.
///
/// Attributes are kept verbatim and in their original order (all values are strings on
/// HarmonyOS), so a dump re-serialised from this type is structurally identical to the input.
/// Typed accessors below read the common ones.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct UiNode {
    pub attributes: IndexMap<String, String>,
    #[serde(default)]
    pub children: Vec<UiNode>,
}

impl UiNode {
    /// The attribute's value, `""` when absent (uitest's own convention for unset attributes).
    pub fn attr(&self, name: &str) -> &str {
        self.attributes.get(name).map(String::as_str).unwrap_or("")
    }

    pub fn bounds(&self) -> Option<Bounds> {
        Bounds::parse(self.attr("bounds"))
    }

    pub fn text(&self) -> &str {
        self.attr("text")
    }

    /// The component type: uitest's `type` (`Button`), on Android the view `class`
    /// (`android.widget.Button`).
    pub fn node_type(&self) -> &str {
        let t = self.attr("type");
        if t.is_empty() { self.attr("class") } else { t }
    }

    /// The element's id: the ArkUI `.id()` (falls back to `key`, which older builds fill
    /// instead); on Android the entry name of the `resource-id` (`com.x:id/username` →
    /// `username`).
    pub fn id(&self) -> &str {
        let id = self.attr("id");
        if !id.is_empty() {
            return id;
        }
        let key = self.attr("key");
        if !key.is_empty() {
            return key;
        }
        let rid = self.attr("resource-id");
        match rid.split_once(":id/") {
            Some((_, entry)) => entry,
            None => rid,
        }
    }

    pub fn flag(&self, name: &str) -> bool {
        self.attr(name) == "true"
    }

    /// The window this node belongs to (`hostWindowId`), when the dump says.
    pub fn window_id(&self) -> Option<i64> {
        self.attr("hostWindowId").parse().ok()
    }

    /// Depth-first, pre-order traversal (reading order of the dump).
    pub fn walk(&self) -> impl Iterator<Item = &UiNode> {
        let mut stack = vec![self];
        std::iter::from_fn(move || {
            let node = stack.pop()?;
            stack.extend(node.children.iter().rev());
            Some(node)
        })
    }

    pub fn node_count(&self) -> usize {
        self.walk().count()
    }
}

/// What a layout dump may be restricted to (`uitest dumpLayout -b` / `-w`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpScope {
    pub bundle: Option<String>,
    pub window_id: Option<i64>,
}

/// One row of the window manager's window table (`hidumper -s WindowManagerService -a '-a'`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WindowInfo {
    pub name: String,
    pub display_id: i64,
    pub pid: i64,
    pub window_id: i64,
    #[serde(rename = "type")]
    pub window_type: i64,
    pub mode: i64,
    pub flag: i64,
    pub z_order: i64,
    pub orientation: i64,
    /// `[x y w h]` as the table prints it.
    pub rect: Rect,
    /// Listed above the separator: shown on screen (foreground/visible section).
    pub visible: bool,
    /// Resolved from the pid where the backend could (`/proc/<pid>/cmdline`), else `None`.
    pub bundle_name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

impl Rect {
    pub fn to_bounds(self) -> Bounds {
        Bounds::new(self.x, self.y, self.x + self.w, self.y + self.h)
    }
}

/// A window table as a whole: rows plus the trailer facts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct WindowTable {
    pub windows: Vec<WindowInfo>,
    pub focus_window: Option<i64>,
    pub total: Option<usize>,
}

/// A reusable reference to one UI element, as `find_elements` returns it.
///
/// `compid` is `"<window_id>:<accessibilityId>"` (uitest's `hashcode`). `lookup_hint` holds the
/// criteria that found it so a stale handle can be looked up again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ElementHandle {
    pub window_id: i64,
    pub id: String,
    pub compid: String,
    #[serde(rename = "type")]
    pub element_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lookup_hint: Option<LookupHint>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct LookupHint {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    // How `text` was compared when the handle was minted (`exact`, `contains`, `regex`), so a
    // stale handle is refreshed the same way. Absent (older handles): exact, then contains.
    // (A plain comment: a model passes handles back as it got them, and this text would sit in
    // every schema that takes one.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_mode: Option<String>,
}

/// Connection state as `hdc list targets -v` prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum TargetState {
    Connected,
    Ready,
    Offline,
    Unauthorized,
    Unknown,
}

/// One line of `hdc list targets [-v]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Target {
    pub serial: String,
    /// `USB`, `TCP`, `UART`, `BT`, `UNKNOWN`; `None` from the plain listing.
    pub connection: Option<String>,
    pub state: TargetState,
    /// Device name column (`localhost` for the emulator); `None` from the plain listing.
    pub name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScreenSize {
    pub width: u32,
    pub height: u32,
}

/// What a device says about itself (`param get …`, RenderService screen size).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct DeviceInfo {
    pub serial: String,
    #[schemars(with = "String")]
    pub platform: crate::Platform,
    pub model: Option<String>,
    pub name: Option<String>,
    pub brand: Option<String>,
    pub software_version: Option<String>,
    pub api_level: Option<u32>,
    pub cpu_abi: Option<String>,
    pub device_type: Option<String>,
    pub screen: Option<ScreenSize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct AbilityInfo {
    pub name: String,
    pub module: String,
    pub bundle: String,
    /// `page`, `service`, … (bm's `type`), lower-cased; `None` when not given.
    pub kind: Option<String>,
    pub visible: Option<bool>,
    /// Has the launcher skill (`entity.system.home` + a home action).
    pub is_launcher: bool,
    pub actions: Vec<String>,
    pub entities: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ModuleInfo {
    pub name: String,
    /// `entry`, `feature`, `shared`, … as far as bm says.
    pub module_type: Option<String>,
    pub main_ability: Option<String>,
}

/// `bm dump -n <bundle>` reduced to what tools need.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct PackageInfo {
    pub bundle_name: String,
    pub version_name: Option<String>,
    pub version_code: Option<u64>,
    pub debug: Option<bool>,
    pub entry_module: Option<String>,
    /// `(ability, module)` bm names as the main element, when it does.
    pub main_ability: Option<String>,
    pub main_module: Option<String>,
    pub modules: Vec<ModuleInfo>,
    pub abilities: Vec<AbilityInfo>,
    pub permissions: Vec<String>,
}

/// One mission of `aa dump -l`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Mission {
    pub mission_id: i64,
    pub bundle: String,
    pub module: Option<String>,
    pub ability: String,
    /// `FOREGROUND`, `BACKGROUND`, … as printed.
    pub state: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TapKind {
    Single,
    Double,
    Long,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Left,
    Right,
    Up,
    Down,
}

/// A pointer gesture, in physical pixels. `speed` is px/s (uitest: 200..40000, default 600).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Gesture {
    Swipe {
        from: Point,
        to: Point,
        speed: u32,
    },
    Drag {
        from: Point,
        to: Point,
        speed: u32,
    },
    Fling {
        from: Point,
        to: Point,
        speed: u32,
        step: Option<u32>,
    },
    DirectionalFling {
        direction: Direction,
        speed: u32,
        step: Option<u32>,
    },
}

/// Where typed text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextTarget {
    /// `uitest uiInput inputText x y text`: taps first, then types.
    At(Point),
    /// `uitest uiInput text text`: the focused field (newer uitest).
    Focused,
}

/// A key event: one of the named system keys, or up to three key codes pressed together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyInput {
    Back,
    Home,
    Power,
    Codes(Vec<u32>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ImageFormat {
    /// `snapshot_display -f x.jpeg`
    Jpeg,
    /// `uitest screenCap -p x.png`
    Png,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenshotRequest {
    pub format: ImageFormat,
    pub display_id: Option<u32>,
    /// Cropped on the host after capture.
    pub region: Option<Bounds>,
}

/// A captured image: encoded bytes plus what they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screenshot {
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
    pub bytes: Vec<u8>,
}

/// Filters passed to the device's log reader (`hilog -x …`). Empty means everything.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogQuery {
    /// Minimum level: one of `D I W E F`.
    pub level: Option<char>,
    pub tags: Vec<String>,
    /// e.g. `0x3200` or `0xD003900`.
    pub domain: Option<String>,
    pub pids: Vec<u32>,
    /// `-e <regex>`
    pub regex: Option<String>,
    /// `-t app|core|init|kmsg`
    pub log_type: Option<String>,
    /// `-z N`: only the last N lines.
    pub tail: Option<u32>,
    /// Only lines at or after this device-local time, as logcat's `-T 'MM-DD HH:MM:SS.mmm'`
    /// takes it (adb). hilog has no such option: the hdc backend leaves it to the caller's
    /// time window (`logs_query` filters every line by time on the host anyway).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CrashKind {
    Cppcrash,
    Jscrash,
    Appfreeze,
    Sysfreeze,
    Other,
}

/// A file in the faultlogger directory, named `<kind>-<process>-<uid>-<timestamp>.log`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CrashEntry {
    pub file_name: String,
    pub kind: CrashKind,
    pub process: String,
    pub uid: Option<u32>,
    /// As in the name: local `YYYYMMDDHHMMSSmmm` or epoch milliseconds, depending on the OS version.
    pub timestamp: String,
}

/// Power state as the power manager reports it (`Current State: AWAKE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PowerState {
    pub state: String,
    pub awake: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_round_trip_and_center() {
        let b = Bounds::parse("[0,72][1260,200]").unwrap();
        assert_eq!(b, Bounds::new(0, 72, 1260, 200));
        assert_eq!(b.to_string(), "[0,72][1260,200]");
        assert_eq!(b.center(), Point::new(630, 136));
        assert!(Bounds::parse("[0,72][1260]").is_none());
        assert!(Bounds::parse("").is_none());
    }

    #[test]
    fn node_accessors_follow_uitest_conventions() {
        let json = r#"{"attributes":{"id":"","key":"btn","text":"Login","hostWindowId":"155","bounds":"[1,2][3,4]"},"children":[{"attributes":{"text":"x"},"children":[]}]}"#;
        let n: UiNode = serde_json::from_str(json).unwrap();
        assert_eq!(n.id(), "btn");
        assert_eq!(n.window_id(), Some(155));
        assert_eq!(n.attr("missing"), "");
        assert_eq!(n.node_count(), 2);
        assert_eq!(serde_json::to_string(&n).unwrap(), json);
    }
}
