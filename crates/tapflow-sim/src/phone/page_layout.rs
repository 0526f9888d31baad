//! Page layout: turns an app page's element specs plus the process state (variables, fields,
//! toggles, scroll offsets, focus) into laid-out [`ScreenNode`]s in absolute screen pixels.
//!
//! Deliberately simple and deterministic: containers stack children vertically (`Row` splits its
//! width equally), heights come from the spec (pixels at reference width 1260, scaled to the
//! phone's width) or the type's default, a `List` fills the remaining height and only yields the
//! items that intersect its viewport (as ArkUI's lazy lists do). Accessibility ids are counted over
//! the whole spec, hidden items included, so an element keeps its id while a list scrolls.

use super::model::{Action, ElementSpec, Size, expand};
use super::nodes::{Metrics, ScreenNode};
use super::state::AppProcess;
use tapflow_device::model::Bounds;

/// Default height (reference px) of a leaf of this type.
fn default_height(kind: &str) -> i32 {
    match kind {
        "TextInput" | "Search" => 140,
        "TextArea" => 280,
        "Button" => 130,
        "Toggle" | "Checkbox" | "Radio" => 110,
        "ListItem" | "GridItem" | "Image" => 200,
        "Divider" => 2,
        _ => 100,
    }
}

fn is_container(e: &ElementSpec) -> bool {
    !e.children.is_empty()
        || e.repeat.is_some()
        || matches!(e.kind.as_str(), "Column" | "Row" | "Stack" | "Dialog")
}

/// Number of nodes an element contributes (for stable accessibility ids of skipped items).
fn node_count(e: &ElementSpec) -> i64 {
    1 + e.children.iter().map(node_count).sum::<i64>()
        + e.repeat
            .as_ref()
            .map_or(0, |r| r.count as i64 * node_count(&r.item))
}

/// Replaces `${n}` in every string of the actions (list templates), leaving other placeholders.
fn subst_n(actions: &[Action], n: u32) -> Vec<Action> {
    fn walk(v: &mut serde_json::Value, n: &str) {
        match v {
            serde_json::Value::String(s) => *s = s.replace("${n}", n),
            serde_json::Value::Array(a) => a.iter_mut().for_each(|x| walk(x, n)),
            serde_json::Value::Object(o) => o.values_mut().for_each(|x| walk(x, n)),
            _ => {}
        }
    }
    let Ok(mut v) = serde_json::to_value(actions) else {
        return actions.to_vec();
    };
    walk(&mut v, &n.to_string());
    serde_json::from_value(v).unwrap_or_else(|_| actions.to_vec())
}

/// Lays out app pages against one process's state.
pub struct PageLayout<'a> {
    pub proc: &'a AppProcess,
    pub m: Metrics,
    /// Keep out-of-viewport items (marked invisible) for `-i` dumps.
    pub keep_invisible: bool,
    pub next_acc: i64,
}

impl PageLayout<'_> {
    fn lookup(&self, name: &str, n: Option<u32>) -> Option<String> {
        if name == "n"
            && let Some(n) = n
        {
            return Some(n.to_string());
        }
        self.proc.lookup(name)
    }

    fn expand(&self, t: &str, n: Option<u32>) -> String {
        expand(t, &|k| self.lookup(k, n))
    }

    fn is_shown(&self, e: &ElementSpec) -> bool {
        match &e.visible_if {
            None => true,
            Some(v) => self
                .proc
                .lookup(v)
                .is_some_and(|x| !x.is_empty() && x != "false"),
        }
    }

    /// Lays out `e` at (x, y) with width `w`; `bottom` is where the window's content ends.
    /// Returns the node (None when hidden) and the height consumed.
    pub fn layout(
        &mut self,
        e: &ElementSpec,
        x: i32,
        y: i32,
        w: i32,
        bottom: i32,
        n: Option<u32>,
    ) -> (Option<ScreenNode>, i32) {
        if !self.is_shown(e) {
            self.next_acc += node_count(e);
            return (None, 0);
        }
        let acc = self.next_acc;
        self.next_acc += 1;
        let m = self.m;
        // A dialog insets its content by default, as ArkUI's dialog padding does.
        let default_margin = if e.kind == "Dialog" { 48 } else { 0 };
        let margin = m.px(e.margin.unwrap_or(default_margin));
        let spacing = e.spacing.map(|v| m.px(v)).unwrap_or(0);
        let (cx, cw) = (x + margin, (w - 2 * margin).max(0));
        let id =
            e.id.as_deref()
                .map(|i| self.expand(i, n))
                .unwrap_or_default();
        let (d_click, d_check, d_scroll) = ElementSpec::flag_defaults(&e.kind);
        let mut node = ScreenNode {
            kind: e.kind.clone(),
            id: id.clone(),
            text: e
                .text
                .as_deref()
                .map(|t| self.expand(t, n))
                .unwrap_or_default(),
            hint: e
                .hint
                .as_deref()
                .map(|t| self.expand(t, n))
                .unwrap_or_default(),
            description: e.description.clone().unwrap_or_default(),
            accessibility_id: acc,
            enabled: e.flags.enabled.unwrap_or(true),
            clickable: e.flags.clickable.unwrap_or(d_click),
            long_clickable: e.flags.long_clickable.unwrap_or(false),
            scrollable: e.flags.scrollable.unwrap_or(d_scroll),
            checkable: e.flags.checkable.unwrap_or(d_check),
            password: e.flags.password,
            visible: true,
            background: e
                .background
                .clone()
                .unwrap_or_else(|| default_background(&e.kind)),
            on_tap: if n.is_some() {
                subst_n(&e.on_tap, n.unwrap_or(0))
            } else {
                e.on_tap.clone()
            },
            on_enter: e.on_enter.clone(),
            takes_focus: e.flags.focusable == Some(true) && !e.is_text_input(),
            ..Default::default()
        };
        let key = if id.is_empty() {
            format!("#{acc}")
        } else {
            id.clone()
        };
        if node.checkable {
            node.checked = match self.proc.vars.get(&key) {
                Some(v) => v == "true",
                None => e.flags.checked.unwrap_or(false),
            };
            node.toggle_key = Some(key.clone());
        }
        if e.is_text_input() {
            let f = self.proc.fields.get(&key);
            let text = f.map(|f| f.text.as_str()).unwrap_or("");
            node.text = if e.flags.password {
                mask(text)
            } else {
                text.to_string()
            };
            node.focused = self.proc.focus.as_deref() == Some(key.as_str());
            node.field_key = Some(key.clone());
        }
        let height;
        if e.kind == "List" || e.kind == "Scroll" || e.kind == "Grid" {
            height = match e.height {
                Some(Size::Px(v)) => m.px(v),
                _ => (bottom - y).max(0),
            };
            let viewport = Bounds::new(cx, y, cx + cw, y + height);
            let offset = self.proc.scroll.get(&key).copied().unwrap_or(0);
            let mut content_y = y - offset;
            let mut total = 0;
            let items: Vec<(&ElementSpec, Option<u32>)> = match &e.repeat {
                Some(r) => (1..=r.count).map(|i| (&*r.item, Some(i))).collect(),
                None => e.children.iter().map(|c| (c, n)).collect(),
            };
            // Template items all have the template's height: measure it once.
            let template_h = e.repeat.as_ref().map(|r| self.measure(&r.item, cw));
            for (item, item_n) in items {
                let ih = template_h.unwrap_or_else(|| self.measure(item, cw));
                let ib = Bounds::new(cx, content_y, cx + cw, content_y + ih);
                if ib.intersects(&viewport) || self.keep_invisible {
                    let inside = ib.intersects(&viewport);
                    let (child, _) = self.layout(item, cx, content_y, cw, content_y + ih, item_n);
                    if let Some(mut c) = child {
                        clip(&mut c, &viewport, inside);
                        node.children.push(c);
                    }
                } else {
                    self.next_acc += node_count(item);
                }
                content_y += ih + spacing;
                total += ih + spacing;
            }
            node.scroll = Some((key.clone(), (total - spacing - height).max(0)));
        } else if is_container(e) {
            let mut cy = y + if e.kind == "Dialog" { m.px(48) } else { 0 };
            if e.kind == "Row" {
                let k = e.children.len().max(1) as i32;
                let gap = if spacing > 0 { spacing } else { m.px(24) };
                let cwid = (cw - gap * (k - 1)) / k;
                let mut maxh = 0;
                for (i, c) in e.children.iter().enumerate() {
                    let (child, ch) =
                        self.layout(c, cx + i as i32 * (cwid + gap), cy, cwid, bottom, n);
                    maxh = maxh.max(ch);
                    node.children.extend(child);
                }
                cy += maxh;
            } else {
                let mut first = true;
                for c in &e.children {
                    let top = if first { cy } else { cy + spacing };
                    let (child, ch) = self.layout(c, cx, top, cw, bottom, n);
                    if child.is_some() {
                        cy = top + ch;
                        first = false;
                    }
                    node.children.extend(child);
                }
            }
            if e.kind == "Dialog" {
                cy += m.px(48);
            }
            height = match e.height {
                Some(Size::Px(v)) => m.px(v),
                Some(Size::Fill(_)) => (bottom - y).max(0),
                None => cy - y,
            };
        } else {
            height = match e.height {
                Some(Size::Px(v)) => m.px(v),
                Some(Size::Fill(_)) => (bottom - y).max(0),
                None => m.px(default_height(&e.kind)),
            };
        }
        node.bounds = Bounds::new(x, y, x + w, y + height);
        node.orig = node.bounds;
        // ArkUI focus is hierarchical: every ancestor of the focused field is in the focus chain.
        if node.children.iter().any(|c| c.focused) {
            node.focused = true;
        }
        (Some(node), height)
    }

    /// Height an element would take (list items), without consuming accessibility ids.
    pub fn measure(&self, e: &ElementSpec, w: i32) -> i32 {
        let mut probe = PageLayout {
            proc: self.proc,
            m: self.m,
            keep_invisible: false,
            next_acc: 0,
        };
        probe.layout(e, 0, 0, w, i32::MAX / 4, Some(0)).1
    }
}

/// A password field's dump text: one `•` per character (the value itself never leaves the app).
pub fn mask(text: &str) -> String {
    "•".repeat(text.chars().count())
}

fn default_background(kind: &str) -> String {
    match kind {
        "Button" => "#FF0A59F7",
        "TextInput" | "TextArea" | "Search" => "#0C000000",
        "Dialog" => "#FFFFFFFF",
        _ => "#00000000",
    }
    .to_string()
}

/// Clips a subtree's visible bounds to `viewport`; subtrees outside it are marked invisible.
pub fn clip(n: &mut ScreenNode, viewport: &Bounds, inside: bool) {
    if !inside || !n.bounds.intersects(viewport) {
        n.visible = false;
    } else {
        n.bounds = Bounds::new(
            n.bounds.left.max(viewport.left),
            n.bounds.top.max(viewport.top),
            n.bounds.right.min(viewport.right),
            n.bounds.bottom.min(viewport.bottom),
        );
    }
    for c in &mut n.children {
        clip(c, viewport, inside);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Phone, PhoneProfile};
    use super::*;
    use std::time::SystemTime;

    fn items_phone(offset: i32) -> Phone {
        let mut p = Phone::new(PhoneProfile::default_for("T", 0));
        let now = SystemTime::now();
        p.start_ability("com.tapflow.demo", "EntryAbility", None, now)
            .unwrap();
        p.show_page("com.tapflow.demo", "pages/ItemsPage", true, now);
        p.procs
            .get_mut("com.tapflow.demo")
            .unwrap()
            .scroll
            .insert("items".into(), offset);
        p
    }

    fn find<'a>(n: &'a ScreenNode, id: &str) -> Option<&'a ScreenNode> {
        if n.id == id {
            return Some(n);
        }
        n.children.iter().find_map(|c| find(c, id))
    }

    fn layout_of(p: &Phone, keep: bool) -> ScreenNode {
        let proc = p.fg_proc().unwrap();
        let page = &p.apps["com.tapflow.demo"].spec.pages["pages/ItemsPage"];
        let m = p.metrics();
        let mut lay = PageLayout {
            proc,
            m,
            keep_invisible: keep,
            next_acc: 1,
        };
        lay.layout(&page.root, 0, m.status_h, m.w, m.h, None)
            .0
            .unwrap()
    }

    #[test]
    fn list_yields_viewport_items_with_stable_ids() {
        let top = layout_of(&items_phone(0), false);
        let list = find(&top, "items").unwrap();
        let n = list.children.len();
        assert!((9..=13).contains(&n), "{n} items visible");
        assert!(find(&top, "item_40").is_none());
        let (_, max) = list.scroll.clone().unwrap();
        let scrolled = layout_of(&items_phone(200 * 39), false);
        let item = find(&scrolled, "item_40").expect("item 40 after scrolling");
        assert!(item.bounds.top >= list.bounds.top && item.bounds.bottom <= list.bounds.bottom);
        let all = layout_of(&items_phone(0), true);
        let hidden = find(&all, "item_40").expect("kept for -i");
        assert!(!hidden.visible);
        assert_eq!(
            hidden.accessibility_id, item.accessibility_id,
            "ids do not depend on scrolling"
        );
        assert_eq!(max, 60 * 200 - list.bounds.height());
    }

    #[test]
    fn visible_if_hides_until_the_variable_is_set() {
        let mut p = items_phone(0);
        assert!(find(&layout_of(&p, false), "selected").is_none());
        p.procs
            .get_mut("com.tapflow.demo")
            .unwrap()
            .vars
            .insert("selected".into(), "Selected: Item 3".into());
        assert_eq!(
            find(&layout_of(&p, false), "selected").unwrap().text,
            "Selected: Item 3"
        );
    }

    #[test]
    fn masks_per_character() {
        assert_eq!(mask("ab😀"), "•••");
        assert_eq!(mask(""), "");
    }
}
