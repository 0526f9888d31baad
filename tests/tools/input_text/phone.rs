//! [`FormPhone`], the in-test fake device: a tap focuses a field and raises an IME window, keys
//! edit at the caret, `uitest text` types or pastes; an action and the dump observing it are one
//! round trip unless the `no_chaining` knob is on. [`OnePhone`] provides it to the tools.

use super::*;

pub(super) struct FormPhone {
    pub(super) state: Mutex<State>,
    knobs: Mutex<Knobs>,
    cost: CostCounter,
    /// Inside one chained round trip: the actions do not count trips of their own.
    in_chain: std::sync::atomic::AtomicBool,
}
impl FormPhone {
    pub(super) fn new() -> Arc<Self> {
        let mut fields = BTreeMap::new();
        for s in SPECS.iter().filter(|s| s.ty == "TextInput") {
            fields.insert(s.aid, Field::default());
        }
        Arc::new(FormPhone {
            state: Mutex::new(State {
                fields,
                ..State::default()
            }),
            knobs: Mutex::new(Knobs::default()),
            cost: CostCounter::default(),
            in_chain: std::sync::atomic::AtomicBool::new(false),
        })
    }

    pub(super) fn set_value(&self, aid: u32, text: &str) {
        let mut st = self.state.lock().unwrap();
        let f = st.fields.get_mut(&aid).unwrap();
        f.text = text.into();
        f.caret = text.chars().count();
    }

    pub(super) fn value(&self, aid: u32) -> String {
        self.state.lock().unwrap().fields[&aid].text.clone()
    }

    pub(super) fn clipboard(&self) -> String {
        self.state.lock().unwrap().clipboard.clone()
    }

    pub(super) fn chained(&self) -> u32 {
        self.state.lock().unwrap().chained
    }

    pub(super) fn acts(&self) -> Vec<Act> {
        self.state.lock().unwrap().acts.clone()
    }

    pub(super) fn knobs(&self) -> std::sync::MutexGuard<'_, Knobs> {
        self.knobs.lock().unwrap()
    }

    fn tree(&self, st: &State, fields: &BTreeMap<u32, Field>) -> UiNode {
        let knobs = self.knobs.lock().unwrap();
        let mut kids = Vec::new();
        for s in SPECS {
            let b = bounds_of(s);
            let text = match fields.get(&s.aid) {
                Some(f) if s.password => "\u{2022}".repeat(f.text.chars().count()),
                Some(f) => f.text.clone(),
                None if s.ty == "Text" => "Name".into(),
                None => "Submit".into(),
            };
            kids.push(node(
                &[
                    ("accessibilityId", s.aid.to_string()),
                    ("bounds", b.to_string()),
                    ("clickable", (s.ty != "Text").to_string()),
                    ("enabled", s.enabled.to_string()),
                    ("focused", (st.focus == Some(s.aid)).to_string()),
                    ("hashcode", format!("{APP}:{}", s.aid)),
                    ("hint", String::new()),
                    ("hostWindowId", APP.to_string()),
                    ("id", s.id.into()),
                    ("key", s.id.into()),
                    ("text", text),
                    ("type", s.ty.into()),
                    ("visible", "true".into()),
                ],
                vec![],
            ));
        }
        let column = node(
            &[
                ("accessibilityId", "1".into()),
                ("bounds", Bounds::new(0, 136, W, H).to_string()),
                ("hashcode", format!("{APP}:1")),
                ("hostWindowId", APP.to_string()),
                ("type", "Column".into()),
                ("visible", "true".into()),
            ],
            kids,
        );
        let mut windows = vec![window(
            APP,
            BUNDLE,
            Bounds::new(0, 136, W, H),
            !knobs.dialog_on_top,
            vec![column],
        )];
        windows.push(window(
            30,
            "com.ohos.sceneboard",
            Bounds::new(0, 0, W, 136),
            false,
            vec![],
        ));
        if st.focus.is_some() {
            windows.push(window(
                IME_WINDOW,
                "com.huawei.hmos.inputmethod",
                Bounds::new(0, 1622, W, H),
                false,
                vec![],
            ));
        }
        if knobs.dialog_on_top {
            windows.push(window(
                DIALOG_WINDOW,
                "com.ohos.systemui",
                Bounds::new(100, 1000, 1160, 1400),
                true,
                vec![],
            ));
        }
        node(
            &[
                ("bounds", Bounds::new(0, 0, W, H).to_string()),
                ("hostWindowId", String::new()),
                ("type", String::new()),
            ],
            windows,
        )
    }

    fn focus_at(&self, st: &mut State, p: Point) {
        let knobs = self.knobs.lock().unwrap();
        let hit = SPECS
            .iter()
            .find(|s| s.ty == "TextInput" && s.enabled && bounds_of(s).contains(p));
        match hit {
            Some(_) if knobs.never_focus => {}
            Some(s) if knobs.focus_lag > 0 => st.pending_focus = Some((s.aid, knobs.focus_lag)),
            Some(s) => {
                st.focus = Some(s.aid);
                let f = st.fields.get_mut(&s.aid).unwrap();
                f.caret = f.text.chars().count();
                f.all_selected = knobs.select_on_focus_ignore_end;
            }
            None => st.focus = None,
        }
    }

    /// Starts a "value lag": dumps keep showing the current values for `value_lag` dumps.
    fn lag_values(&self, st: &mut State) {
        let lag = self.knobs.lock().unwrap().value_lag;
        if lag > 0 && st.shown.is_none() {
            st.shown = Some((lag, st.fields.clone()));
        }
    }

    fn type_text(&self, st: &mut State, text: &str) -> DeviceResult<()> {
        let Some(aid) = st.focus else {
            return Err(DeviceError::Command {
                code: tapflow_core::codes::INPUT_FAILED,
                what: "text input".into(),
                device_says: "no focused input field".into(),
            });
        };
        self.lag_values(st);
        let knobs = self.knobs.lock().unwrap();
        if text.is_ascii() && text.chars().count() <= 200 {
            let kept: String = text
                .chars()
                .filter(|c| Some(*c) != knobs.drop_char)
                .collect();
            st.fields.get_mut(&aid).unwrap().insert(&kept);
        } else {
            st.clipboard = text.to_string();
            if !knobs.paste_lost {
                st.fields.get_mut(&aid).unwrap().insert(text);
            }
        }
        Ok(())
    }
}

impl FormPhone {
    /// One round trip, unless the action travels in a chain that was counted once.
    fn trip(&self) {
        if !self.in_chain.load(std::sync::atomic::Ordering::SeqCst) {
            self.cost.round_trip();
        }
    }

    /// The dump chained to actions: the `fail_chained` knob fails the N-th one (still counted
    /// as a dump, as the device made it).
    fn chained_dump(&self) -> DeviceResult<UiNode> {
        let n = {
            let mut st = self.state.lock().unwrap();
            st.chained += 1;
            st.chained
        };
        let mut k = self.knobs();
        if k.fail_chained.as_ref().is_some_and(|(at, _)| *at == n) {
            let (_, e) = k.fail_chained.take().unwrap();
            self.cost.ui_dump();
            return Err(e);
        }
        drop(k);
        self.dump()
    }

    /// One dump as the device answers it (the caller counts the round trip).
    fn dump(&self) -> DeviceResult<UiNode> {
        self.cost.ui_dump();
        {
            let mut k = self.knobs.lock().unwrap();
            match k.refuse_dumps_after {
                Some(0) if k.refused_dumps > 0 => {
                    k.refused_dumps -= 1;
                    return Err(DeviceError::Command {
                        code: tapflow_core::codes::UI_TREE_FETCH_ERROR,
                        what: "uitest dumpLayout".into(),
                        device_says: "DumpLayout failed:get root failed".into(),
                    });
                }
                Some(n) if n > 0 => k.refuse_dumps_after = Some(n - 1),
                _ => {}
            }
        }
        let mut st = self.state.lock().unwrap();
        // Device-side state moves on between dumps (focus and values arrive late).
        if let Some((aid, left)) = st.pending_focus {
            if left == 0 {
                st.pending_focus = None;
                st.focus = Some(aid);
            } else {
                st.pending_focus = Some((aid, left - 1));
            }
        }
        let fields = match st.shown.take() {
            Some((left, old)) if left > 0 => {
                st.shown = Some((left - 1, old.clone()));
                old
            }
            _ => st.fields.clone(),
        };
        let tree = self.tree(&st, &fields);
        let focused_value = st
            .focus
            .and_then(|a| fields.get(&a))
            .map(|f| f.text.clone());
        st.acts.push(Act::Dump { focused_value });
        Ok(tree)
    }
}

fn unsupported(op: &str) -> DeviceError {
    DeviceError::Unsupported {
        op: op.into(),
        backend: "form-phone".into(),
    }
}

impl Device for FormPhone {
    fn serial(&self) -> &str {
        "FORM0001"
    }
    fn platform(&self) -> tapflow_device::Platform {
        tapflow_device::Platform::Harmonyos
    }
    fn info(&self) -> DeviceResult<DeviceInfo> {
        self.cost.round_trip();
        Err(unsupported("info"))
    }
    fn power_state(&self) -> DeviceResult<PowerState> {
        self.cost.round_trip();
        Err(unsupported("power_state"))
    }
    fn ui_tree(&self, _scope: &DumpScope) -> DeviceResult<UiNode> {
        self.cost.round_trip();
        self.dump()
    }
    /// Mirrors the hdc backend: the action and the dump observing it are ONE round trip (the
    /// action's own counts it); a refused action yields no tree.
    fn act_then_tree(&self, action: &UiAction, scope: &DumpScope) -> ActObserved {
        let action = self.act(action);
        let chain = !self.knobs().no_chaining;
        let tree = action.is_ok().then(|| {
            if chain {
                self.chained_dump()
            } else {
                self.ui_tree(scope)
            }
        });
        ActObserved { action, tree }
    }
    /// Mirrors the hdc backend: every action and the dump after them are ONE round trip, and
    /// the shell sends every action whatever the previous one answered.
    fn acts_then_tree(&self, actions: &[UiAction], scope: &DumpScope) -> ActsObserved {
        if self.knobs().no_chaining {
            // The trait's default: one call per action, the last one with its dump.
            return tapflow_device::acts_one_by_one(self, actions, scope);
        }
        self.cost.round_trip();
        self.in_chain
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let verdicts: Vec<DeviceResult<()>> = actions.iter().map(|a| self.act(a)).collect();
        self.in_chain
            .store(false, std::sync::atomic::Ordering::SeqCst);
        let tree = verdicts
            .iter()
            .all(Result::is_ok)
            .then(|| self.chained_dump());
        ActsObserved {
            actions: verdicts,
            tree,
        }
    }
    fn windows(&self) -> DeviceResult<WindowTable> {
        self.cost.round_trip();
        Err(unsupported("windows"))
    }
    fn missions(&self) -> DeviceResult<Vec<Mission>> {
        self.cost.round_trip();
        Err(unsupported("missions"))
    }
    fn tap(&self, at: Point, _kind: TapKind) -> DeviceResult<()> {
        self.trip();
        let mut st = self.state.lock().unwrap();
        st.acts.push(Act::Tap(at));
        if let Some(e) = self.knobs.lock().unwrap().tap_error.clone() {
            return Err(e);
        }
        self.focus_at(&mut st, at);
        Ok(())
    }
    fn gesture(&self, _gesture: &Gesture) -> DeviceResult<()> {
        self.cost.round_trip();
        Err(unsupported("gesture"))
    }
    fn input_text(&self, target: TextTarget, text: &str) -> DeviceResult<()> {
        self.trip();
        let mut st = self.state.lock().unwrap();
        st.acts.push(Act::Text(target, text.to_string()));
        if let Some(e) = self.knobs.lock().unwrap().text_error.clone() {
            return Err(e);
        }
        if let TextTarget::At(p) = target {
            // uitest inputText taps first, then types.
            self.focus_at(&mut st, p);
        }
        self.type_text(&mut st, text)
    }
    fn key_event(&self, key: &KeyInput) -> DeviceResult<()> {
        self.trip();
        let KeyInput::Codes(codes) = key else {
            return Err(unsupported("named keys"));
        };
        let mut st = self.state.lock().unwrap();
        st.acts.push(Act::Key(codes.clone()));
        let knobs = self.knobs.lock().unwrap();
        if let Some(e) = knobs.key_error.clone() {
            return Err(e);
        }
        let Some(aid) = st.focus else { return Ok(()) };
        let f = st.fields.get_mut(&aid).unwrap();
        match codes.as_slice() {
            [2072, 2017] => f.all_selected = true,
            [BACKSPACE] if !knobs.ignore_backspace => f.backspace(),
            [MOVE_END] if !knobs.select_on_focus_ignore_end => {
                f.all_selected = false;
                f.caret = f.text.chars().count();
            }
            _ => {}
        }
        Ok(())
    }
    fn screenshot(&self, _request: &ScreenshotRequest) -> DeviceResult<Screenshot> {
        self.cost.round_trip();
        Err(unsupported("screenshot"))
    }
    fn install(&self, _package: &Path, _replace: bool) -> DeviceResult<()> {
        Err(unsupported("install"))
    }
    fn uninstall(&self, _bundle: &str) -> DeviceResult<()> {
        Err(unsupported("uninstall"))
    }
    fn start_app(&self, _b: &str, _a: &str, _m: Option<&str>) -> DeviceResult<()> {
        Err(unsupported("start_app"))
    }
    fn stop_app(&self, _bundle: &str) -> DeviceResult<()> {
        Err(unsupported("stop_app"))
    }
    fn clear_app_data(&self, _bundle: &str) -> DeviceResult<()> {
        Err(unsupported("clear_app_data"))
    }
    fn packages(&self) -> DeviceResult<Vec<String>> {
        Err(unsupported("packages"))
    }
    fn package_info(&self, _bundle: &str) -> DeviceResult<PackageInfo> {
        Err(unsupported("package_info"))
    }
    fn pid_of(&self, _bundle: &str) -> DeviceResult<Option<u32>> {
        Err(unsupported("pid_of"))
    }
    fn logs(&self, _query: &LogQuery) -> DeviceResult<String> {
        Err(unsupported("logs"))
    }
    fn clear_logs(&self) -> DeviceResult<()> {
        Err(unsupported("clear_logs"))
    }
    fn crash_files(&self) -> DeviceResult<Vec<CrashEntry>> {
        Err(unsupported("crash_files"))
    }
    fn read_crash_file(&self, _file_name: &str) -> DeviceResult<String> {
        Err(unsupported("read_crash_file"))
    }
    fn cost(&self) -> Cost {
        self.cost.snapshot()
    }
}

pub(super) struct OnePhone(pub(super) Arc<FormPhone>);

impl DeviceProvider for OnePhone {
    fn resolve(&self, _route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        Ok(self.0.clone() as Arc<dyn Device>)
    }
    fn targets(&self, _hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        Ok(vec![])
    }
}
