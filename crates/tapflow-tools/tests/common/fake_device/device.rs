//! [`FakeDevice`] as a [`Device`]: dumps with their injectable faults and latency, taps, gestures
//! and keys moving the state machine, app management, logs, crash files and counted round trips.

use super::screens::package;
use super::*;

impl FakeDevice {
    /// One dump as the device answers it (the caller counts the round trip).
    fn dump(&self) -> DeviceResult<UiNode> {
        self.cost.ui_dump();
        let latency = *self.dump_latency.lock().unwrap();
        if !latency.is_zero() {
            std::thread::sleep(latency); // simulated device time
        }
        if let Some(e) = self.next_dump_error.lock().unwrap().take() {
            return Err(e);
        }
        if self
            .failing_dumps
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
        {
            return Err(DeviceError::Command {
                code: tapflow_core::codes::UI_TREE_FETCH_ERROR,
                what: "uitest dumpLayout".into(),
                device_says: "DumpLayout failed:get root failed".into(),
            });
        }
        Ok(self.tree())
    }
}

impl Device for FakeDevice {
    fn serial(&self) -> &str {
        &self.serial
    }
    fn platform(&self) -> tapflow_device::Platform {
        tapflow_device::Platform::Harmonyos
    }
    fn info(&self) -> DeviceResult<DeviceInfo> {
        self.trip();
        Ok(DeviceInfo {
            serial: self.serial.clone(),
            platform: tapflow_device::Platform::Harmonyos,
            model: Some("FAKE-AL00".into()),
            screen: Some(ScreenSize {
                width: W as u32,
                height: H as u32,
            }),
            ..Default::default()
        })
    }
    fn power_state(&self) -> DeviceResult<PowerState> {
        self.trip();
        Ok(PowerState {
            state: "AWAKE".into(),
            awake: true,
        })
    }
    fn ui_tree(&self, _scope: &DumpScope) -> DeviceResult<UiNode> {
        self.trip();
        self.dump()
    }
    /// Mirrors the hdc backend: the action and the dump observing it are ONE round trip (the
    /// action's own counts it); a refused action yields no tree.
    fn act_then_tree(&self, action: &UiAction, scope: &DumpScope) -> ActObserved {
        let action = self.act(action);
        let tree = action.is_ok().then(|| {
            if self.no_chaining.load(Ordering::SeqCst) {
                return self.ui_tree(scope);
            }
            self.chained_dumps.fetch_add(1, Ordering::SeqCst);
            if self
                .failing_chained_dumps
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok()
            {
                self.cost.ui_dump();
                return Err(DeviceError::Command {
                    code: tapflow_core::codes::UI_TREE_FETCH_ERROR,
                    what: "uitest dumpLayout".into(),
                    device_says: "DumpLayout failed:get root failed".into(),
                });
            }
            self.dump()
        });
        ActObserved { action, tree }
    }
    fn windows(&self) -> DeviceResult<WindowTable> {
        self.trip();
        let tree = self.tree();
        let names = *self.windows_name_bundles.lock().unwrap();
        let mut rows = Vec::new();
        for (z, w) in tree.children.iter().enumerate() {
            let id = w.window_id().unwrap_or_default();
            let b = w.bounds().unwrap_or(Bounds::new(0, 0, 0, 0));
            let app = id == APP_WINDOW;
            rows.push(WindowInfo {
                name: match id {
                    APP_WINDOW => "demo0".into(),
                    2 => "SCBDesktop".into(),
                    _ => "SCBStatusBar".into(),
                },
                display_id: 0,
                pid: if app { 4242 } else { 1000 + id },
                window_id: id,
                window_type: if app { 1 } else { 2108 },
                mode: 1,
                flag: 0,
                z_order: 10 - z as i64,
                orientation: 0,
                rect: Rect {
                    x: b.left,
                    y: b.top,
                    w: b.width(),
                    h: b.height(),
                },
                visible: true,
                bundle_name: names.then(|| w.attr("bundleName").to_string()),
            });
        }
        rows.push(WindowInfo {
            name: "settings0".into(),
            display_id: 0,
            pid: 777,
            window_id: 11,
            window_type: 1,
            mode: 1,
            flag: 0,
            z_order: -1,
            orientation: 0,
            rect: Rect::default(),
            visible: false,
            bundle_name: names.then(|| "com.ohos.settings".to_string()),
        });
        Ok(WindowTable {
            focus_window: rows.first().map(|w| w.window_id),
            total: Some(rows.len()),
            windows: rows,
        })
    }
    fn missions(&self) -> DeviceResult<Vec<Mission>> {
        self.trip();
        Ok(vec![])
    }
    fn tap(&self, at: Point, kind: TapKind) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Tap(at, kind));
        if kind != TapKind::Long {
            self.on_tap(at);
        }
        Ok(())
    }
    fn gesture(&self, gesture: &Gesture) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Gesture(gesture.clone()));
        if let Gesture::Swipe { from, to, .. } = gesture {
            let mut st = self.state.lock().unwrap();
            if st.screen == Screen::Home {
                if from.y > to.y {
                    st.offset = (st.offset + 5).min(ROWS - VISIBLE_ROWS);
                } else if from.y < to.y {
                    st.offset = st.offset.saturating_sub(5);
                }
            }
        }
        Ok(())
    }
    fn input_text(&self, _target: TextTarget, text: &str) -> DeviceResult<()> {
        self.trip();
        self.state.lock().unwrap().typed.push_str(text);
        Ok(())
    }
    fn key_event(&self, key: &KeyInput) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Key(key.clone()));
        let mut st = self.state.lock().unwrap();
        match key {
            KeyInput::Back if st.screen == Screen::Home => st.screen = Screen::Login,
            KeyInput::Home => st.screen = Screen::Desktop,
            _ => {}
        }
        Ok(())
    }
    fn screenshot(&self, request: &ScreenshotRequest) -> DeviceResult<Screenshot> {
        self.trip();
        self.record(Action::Screenshot(request.region));
        if let Some(e) = self.next_screenshot_error.lock().unwrap().take() {
            return Err(e);
        }
        let (w, h) = match request.region {
            Some(b) => (b.width() as u32, b.height() as u32),
            None => (W as u32 / 10, H as u32 / 10),
        };
        let img = image::RgbImage::from_pixel(w.max(1), h.max(1), image::Rgb([30, 60, 90]));
        let mut bytes = Vec::new();
        let fmt = match request.format {
            ImageFormat::Png => image::ImageFormat::Png,
            ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        };
        img.write_to(&mut std::io::Cursor::new(&mut bytes), fmt)
            .map_err(|e| DeviceError::Io {
                what: "encode".into(),
                detail: e.to_string(),
            })?;
        Ok(Screenshot {
            format: request.format,
            width: w,
            height: h,
            bytes,
        })
    }
    fn install(&self, package: &Path, _replace: bool) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Install(package.display().to_string()));
        if package.to_string_lossy().contains("unsigned") {
            return Err(DeviceError::Command {
                code: tapflow_core::codes::INSTALL_FAILED,
                what: "install".into(),
                device_says:
                    "error: failed to install bundle. code:9568320 error: no signature file.".into(),
            });
        }
        Ok(())
    }
    fn uninstall(&self, bundle: &str) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Uninstall(bundle.into()));
        let mut inst = self.installed.lock().unwrap();
        match inst.iter().position(|b| b == bundle) {
            Some(i) => {
                inst.remove(i);
                Ok(())
            }
            None => Err(DeviceError::Command {
                code: tapflow_core::codes::UNINSTALL_FAILED,
                what: "uninstall".into(),
                device_says: "error: failed to uninstall bundle. code:9568386 error: uninstall missing installed bundle.".into(),
            }),
        }
    }
    fn start_app(&self, bundle: &str, ability: &str, module: Option<&str>) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Start {
            bundle: bundle.into(),
            ability: ability.into(),
            module: module.map(Into::into),
        });
        let known = package(bundle).is_some_and(|p| p.abilities.iter().any(|a| a.name == ability));
        if !known {
            return Err(DeviceError::Command {
                code: tapflow_core::codes::RUN_APP_FAILED,
                what: "aa start".into(),
                device_says: "error: failed to start ability.\nError Code:10104001  Error Message:The specified ability does not exist".into(),
            });
        }
        if bundle == BUNDLE {
            let delay = *self.launch_delay.lock().unwrap();
            let mut st = self.state.lock().unwrap();
            st.screen = Screen::Login;
            st.window_at = Some(Instant::now() + delay);
        }
        Ok(())
    }
    fn stop_app(&self, bundle: &str) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Stop(bundle.into()));
        if !self.installed.lock().unwrap().iter().any(|b| b == bundle) {
            return Err(DeviceError::Command {
                code: tapflow_core::codes::STOP_APP_FAILED,
                what: "aa force-stop".into(),
                device_says: "error: failed to force stop process.".into(),
            });
        }
        if bundle == BUNDLE {
            self.state.lock().unwrap().screen = Screen::Desktop;
        }
        Ok(())
    }
    fn clear_app_data(&self, bundle: &str) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Clear(bundle.into()));
        if !self.installed.lock().unwrap().iter().any(|b| b == bundle) {
            return Err(DeviceError::Command {
                code: tapflow_core::codes::CLEAR_APP_DATA_FAILED,
                what: "bm clean".into(),
                device_says: "error: failed to clean bundle data files.".into(),
            });
        }
        Ok(())
    }
    fn packages(&self) -> DeviceResult<Vec<String>> {
        self.trip();
        Ok(self.installed.lock().unwrap().clone())
    }
    fn package_info(&self, bundle: &str) -> DeviceResult<PackageInfo> {
        self.trip();
        package(bundle).ok_or_else(|| DeviceError::Command {
            code: tapflow_core::codes::PACKAGE_QUERY_FAILED,
            what: "bm dump -n".into(),
            device_says: "error: failed to get information and the parameters may be wrong.".into(),
        })
    }
    fn pid_of(&self, bundle: &str) -> DeviceResult<Option<u32>> {
        self.trip();
        let st = self.state.lock().unwrap();
        Ok((bundle == BUNDLE && st.screen != Screen::Desktop).then_some(4242))
    }
    fn logs(&self, _query: &LogQuery) -> DeviceResult<String> {
        self.trip();
        Ok(self.log_text.lock().unwrap().clone())
    }
    fn clear_logs(&self) -> DeviceResult<()> {
        self.trip();
        Ok(())
    }
    fn crash_files(&self) -> DeviceResult<Vec<CrashEntry>> {
        self.trip();
        Ok(vec![])
    }
    fn read_crash_file(&self, file_name: &str) -> DeviceResult<String> {
        self.trip();
        Err(DeviceError::Command {
            code: tapflow_core::codes::FILE_NOT_FOUND,
            what: "cat".into(),
            device_says: format!("{file_name}: No such file"),
        })
    }
    fn cost(&self) -> Cost {
        self.cost.snapshot()
    }
}
