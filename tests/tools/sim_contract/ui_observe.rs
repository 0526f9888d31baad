//! Cases of the UI tools that observe: find_elements, screenshot, get_ui_tree and list_windows.

use super::*;

/// The observing UI tools' cases.
pub(super) fn cases() -> Vec<Case> {
    use Given::*;
    vec![
        // ---- find_elements
        case(
            "find_elements › Key result fields › elements[].element_handle, lookup_is_broad, bounds",
            "find_elements",
            Login,
            |e| {
                let r = e.ok(
                    "find_elements",
                    json!({"element_id": "username", "include_cost": true}),
                );
                assert_eq!(r["count"], 1);
                let el = &r["elements"][0];
                assert_eq!(el["lookup_is_broad"], false);
                assert_eq!(el["type"], "TextInput");
                assert_eq!(el["bundle_name"], DEMO);
                let h = &el["element_handle"];
                assert_eq!(
                    h["compid"],
                    format!("{}:{}", h["window_id"], h["id"].as_str().unwrap())
                );
                assert!(el["bounds"]["right"].as_i64() > el["bounds"]["left"].as_i64());
                assert_eq!(cost(&r), (1, 1), "one dump");
            },
        ),
        case(
            "find_elements › Key result fields › lookup_is_broad for several matches",
            "find_elements",
            Items,
            |e| {
                let r = e.ok(
                    "find_elements",
                    json!({"text": "Item ", "match_mode": "contains", "bundle_name": DEMO}),
                );
                let n = r["count"].as_u64().unwrap();
                assert!(n > 3 && n < 60, "only the viewport: {n}");
                assert!(
                    r["elements"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|x| x["lookup_is_broad"] == true)
                );
                assert_eq!(r["elements"][0]["text"], "Item 1");
            },
        ),
        case(
            "find_elements › Parameters › window_id narrows the scope",
            "find_elements",
            Login,
            |e| {
                let w = e.ok("list_windows", json!({"bundle_name": DEMO}));
                let wid = w["windows"][0]["window_id"].as_i64().unwrap();
                let r = e.ok(
                    "find_elements",
                    json!({"element_id": "login", "window_id": wid}),
                );
                assert_eq!(r["elements"][0]["window_id"], wid);
                let (code, _) = e.err(
                    "find_elements",
                    json!({"element_id": "login", "window_id": wid + 1000}),
                );
                assert_eq!(code, "ELEMENT_NOT_FOUND");
                let (code, _) = e.err(
                    "find_elements",
                    json!({"element_id": "login", "bundle_name": "com.other.app"}),
                );
                assert_eq!(code, "ELEMENT_NOT_FOUND");
            },
        ),
        fails(
            "find_elements › Rules › at least one criterion",
            "find_elements",
            Login,
            json!({"bundle_name": DEMO}),
            "MISSING_SEARCH_CRITERIA",
        ),
        fails(
            "find_elements › Common errors › ELEMENT_NOT_FOUND",
            "find_elements",
            Login,
            json!({"text": "Nothing"}),
            "ELEMENT_NOT_FOUND",
        ),
        case(
            "design Devices › a password field never exposes its value",
            "find_elements",
            Login,
            |e| {
                let at = e.center(json!({"element_id": "password"}));
                e.device().input_text(TextTarget::At(at), "s3cret").unwrap();
                let r = e.ok("find_elements", json!({"element_id": "password"}));
                assert!(!r.to_string().contains("s3cret"));
            },
        ),
        // ---- screenshot
        case(
            "screenshot › Rules › default path under the screenshots directory; full size",
            "screenshot",
            Home,
            |e| {
                let r = e.ok("screenshot", json!({"include_cost": true}));
                assert_eq!(
                    cost(&r),
                    (2, 0),
                    "capture + receive; the device file is deleted by the next command"
                );
                let path = r["local_path"].as_str().unwrap();
                assert!(
                    Path::new(path).starts_with(e.tmp.path().join("shots")),
                    "{path}"
                );
                let img = image::open(path).unwrap();
                assert_eq!((img.width(), img.height()), (1260, 2720));
                assert_eq!(r["file_size"], std::fs::metadata(path).unwrap().len());
                assert_eq!(r["bounds"], Value::Null);
            },
        ),
        case(
            "screenshot › Key result fields › bounds for region screenshots",
            "screenshot",
            Home,
            |e| {
                let out = e.tmp.path().join("region.png");
                let r = e.ok(
                    "screenshot",
                    json!({"local_path": out, "left": 10, "top": 20, "right": 310, "bottom": 220}),
                );
                assert_eq!(
                    r["bounds"],
                    json!({"left": 10, "top": 20, "right": 310, "bottom": 220})
                );
                let img = image::open(&out).unwrap();
                assert_eq!((img.width(), img.height()), (300, 200));
                let jpg = e.tmp.path().join("full.jpg");
                e.ok("screenshot", json!({"local_path": jpg}));
                assert_eq!(
                    image::ImageFormat::from_path(&jpg).unwrap(),
                    image::ImageFormat::Jpeg
                );
                assert_eq!(image::open(&jpg).unwrap().width(), 1260);
            },
        ),
        case(
            "screenshot › different screens give different images",
            "screenshot",
            Login,
            |e| {
                let a = e.tmp.path().join("a.png");
                e.ok("screenshot", json!({"local_path": a}));
                e.ok("click", json!({"text": "Login"}));
                let b = e.tmp.path().join("b.png");
                e.ok("screenshot", json!({"local_path": b}));
                assert_ne!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
            },
        ),
        case(
            "docs/tools.md screenshot › a name without an extension is saved as .png",
            "screenshot",
            Home,
            |e| {
                let bare = e.tmp.path().join("login");
                let r = e.ok("screenshot", json!({"local_path": bare}));
                let written = e.tmp.path().join("login.png");
                assert_eq!(r["local_path"], written.display().to_string());
                assert_eq!(r["format"], "png");
                assert_eq!(
                    image::ImageFormat::from_path(&written).unwrap(),
                    image::ImageFormat::Png
                );
                assert!(image::open(&written).is_ok());
                assert!(!bare.exists());
            },
        ),
        fails(
            "docs/tools.md screenshot › another extension is INVALID_PARAM",
            "screenshot",
            Home,
            json!({"local_path": "shot.gif"}),
            "INVALID_PARAM",
        ),
        fails(
            "screenshot › Rules › region requires left, top, right, bottom together",
            "screenshot",
            Home,
            json!({"left": 1, "top": 1, "right": 10}),
            "PARAM_CONFLICT",
        ),
        fails(
            "screenshot › Parameters › display_id is for full screenshots only",
            "screenshot",
            Home,
            json!({"display_id": 0, "left": 1, "top": 1, "right": 10, "bottom": 10}),
            "PARAM_CONFLICT",
        ),
        fails(
            "docs/tools.md screenshot › PATH_NOT_ALLOWED",
            "screenshot",
            Home,
            json!({"local_path": "/etc/tapflow-shot.png"}),
            "PATH_NOT_ALLOWED",
        ),
        // ---- get_ui_tree
        case(
            "get_ui_tree › Key result fields (global dump)",
            "get_ui_tree",
            Login,
            |e| {
                let r = e.ok("get_ui_tree", json!({"include_cost": true}));
                assert_eq!(r["capture_scope"], "global");
                assert_eq!(r["validation_applied"], false);
                assert!(r["node_count"].as_u64().unwrap() > 5);
                assert!(r["ui_tree"].to_string().contains("\"login\""));
                assert_eq!(cost(&r).1, 1);
            },
        ),
        case(
            "get_ui_tree › Behavior › bundle_name resolves and validates a target window",
            "get_ui_tree",
            Login,
            |e| {
                let r = e.ok("get_ui_tree", json!({"bundle_name": DEMO}));
                assert_eq!(r["capture_scope"], "window");
                assert_eq!(r["validation_applied"], true);
                let wid = r["validated_window_id"].as_i64().unwrap();
                let r2 = e.ok("get_ui_tree", json!({"window_id": wid}));
                assert_eq!(r2["validated_window_id"], wid);
                assert_eq!(r2["window_id"], wid);
                assert!(r2["ui_tree"].to_string().contains("\"username\""));
                assert!(
                    r2["node_count"].as_u64()
                        < e.ok("get_ui_tree", json!({}))["node_count"].as_u64()
                );
            },
        ),
        fails(
            "get_ui_tree › Common errors › WINDOW_RESOLUTION_ERROR (unknown window)",
            "get_ui_tree",
            Login,
            json!({"window_id": 99999}),
            "WINDOW_RESOLUTION_ERROR",
        ),
        fails(
            "get_ui_tree › Common errors › WINDOW_RESOLUTION_ERROR (bundle without a window)",
            "get_ui_tree",
            Launcher,
            json!({"bundle_name": DEMO}),
            "WINDOW_RESOLUTION_ERROR",
        ),
        // ---- list_windows
        case(
            "list_windows › is_foreground: the visible app window with the highest z-order",
            "list_windows",
            Login,
            |e| {
                let r = e.ok("list_windows", json!({}));
                let ws = r["windows"].as_array().unwrap();
                let fg: Vec<&Value> = ws.iter().filter(|w| w["is_foreground"] == true).collect();
                assert_eq!(fg.len(), 1, "{r}");
                assert_eq!(fg[0]["bundle_name"], DEMO);
                assert!(
                    ws.iter().any(|w| w["bundle_name"] == "com.ohos.sceneboard"
                        && w["is_foreground"] == false)
                );
                assert_eq!(r["total_count"], ws.len());
                let f = e.ok("list_windows", json!({"bundle_name": DEMO}));
                assert_eq!(f["count"], 1);
                assert_eq!(f["total_count"], r["total_count"]);
            },
        ),
        case(
            "list_windows › SceneBoard layers are not application foreground windows",
            "list_windows",
            Launcher,
            |e| {
                let r = e.ok("list_windows", json!({}));
                assert!(
                    r["windows"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|w| w["bundle_name"] != DEMO)
                );
            },
        ),
    ]
}
