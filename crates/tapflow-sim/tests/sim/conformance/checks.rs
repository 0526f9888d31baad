//! The comparisons rows make between the simulator's answer and a capture: line shapes, lines,
//! JSON key paths of `bm dump -n`, layout keys, crash-file headers, `param get`, refusals.

use super::*;

pub(super) fn ensure(ok: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if ok { Ok(()) } else { Err(msg()) }
}

/// Set equality of line shapes.
pub(super) fn same_shapes(ours: &str, real: &str) -> Result<(), String> {
    let (a, b) = (shapes(ours), shapes(real));
    ensure(a == b, || {
        format!(
            "only ours: {:#?}\nonly the capture: {:#?}\n--- ours ---\n{ours}",
            a.difference(&b).collect::<Vec<_>>(),
            b.difference(&a).collect::<Vec<_>>()
        )
    })
}

/// Line for line, trailing whitespace aside (README captures keep stray spaces).
pub(super) fn same_lines(ours: &str, real: &str) -> Result<(), String> {
    let norm = |t: &str| t.lines().map(str::trim_end).collect::<Vec<_>>().join("\n");
    ensure(norm(ours) == norm(real), || {
        format!("ours:\n{ours}\ncapture:\n{real}")
    })
}

/// Every JSON key path (array elements merged) of a value.
fn key_paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{prefix}/{k}");
                out.insert(p.clone());
                key_paths(x, &p, out);
            }
        }
        Value::Array(a) => a
            .iter()
            .for_each(|x| key_paths(x, &format!("{prefix}[]"), out)),
        _ => {}
    }
}

fn json_after_first_line(t: &str) -> Value {
    let body = &t[t.find('{').expect("JSON object")..];
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// The capture's key paths that our `bm dump -n` lacks, ignoring paths under `skip`.
pub(super) fn missing_bm_keys(bundle: &str, fixture_name: &str, skip: &[&str]) -> Vec<String> {
    let p = Phone::new();
    let ours = json_after_first_line(&p.sh(&format!("bm dump -n {bundle}")));
    let real = json_after_first_line(&fixture(fixture_name));
    let (mut a, mut b) = (BTreeSet::new(), BTreeSet::new());
    key_paths(&ours, "", &mut a);
    key_paths(&real, "", &mut b);
    b.difference(&a)
        .filter(|k| !skip.iter().any(|s| k.contains(s)))
        .cloned()
        .collect()
}

/// The attribute keys of a layout's nodes at depth 0 (root) and 1 (windows).
pub(super) fn layout_keys(v: &Value) -> (BTreeSet<String>, BTreeSet<String>) {
    let keys = |n: &Value| -> BTreeSet<String> {
        n["attributes"]
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    let win = v["children"]
        .as_array()
        .and_then(|c| c.first())
        .map(keys)
        .unwrap_or_default();
    (keys(v), win)
}

fn dump(p: &Phone) -> Value {
    let t = p
        .sh("uitest dumpLayout -p /data/local/tmp/c.json >/dev/null && cat /data/local/tmp/c.json");
    serde_json::from_str(&t).unwrap_or_else(|e| panic!("{e}: {t}"))
}

/// Our root and window keys contain the capture's.
pub(super) fn layout_keys_cover(fixture_name: &str) -> Result<(), String> {
    let p = Phone::new();
    p.demo();
    let (our_root, our_win) = layout_keys(&dump(&p));
    let real: Value = serde_json::from_str(&fixture(fixture_name)).unwrap();
    let (root, win) = layout_keys(&real);
    let miss_root: Vec<_> = root.difference(&our_root).collect();
    let miss_win: Vec<_> = win.difference(&our_win).collect();
    ensure(miss_root.is_empty() && miss_win.is_empty(), || {
        format!("root lacks {miss_root:?}, window lacks {miss_win:?}")
    })
}

/// Same root and window key sets as the capture.
pub(super) fn layout_keys_equal(fixture_name: &str) -> Result<(), String> {
    let p = Phone::new();
    p.demo();
    let ours = layout_keys(&dump(&p));
    let real: Value = serde_json::from_str(&fixture(fixture_name)).unwrap();
    let theirs = layout_keys(&real);
    ensure(ours == theirs, || {
        format!(
            "root: ours-only {:?} capture-only {:?}; window: ours-only {:?} capture-only {:?}",
            ours.0.difference(&theirs.0).collect::<Vec<_>>(),
            theirs.0.difference(&ours.0).collect::<Vec<_>>(),
            ours.1.difference(&theirs.1).collect::<Vec<_>>(),
            theirs.1.difference(&ours.1).collect::<Vec<_>>()
        )
    })
}

/// The `Key:` names of a faultlogger file's header (before the stack trace).
fn crash_header_keys(t: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(r"^([A-Z][A-Za-z ()]*?):").unwrap();
    t.lines()
        .take_while(|l| !l.starts_with("Stacktrace:"))
        .filter_map(|l| re.captures(l).map(|c| c[1].to_string()))
        .collect()
}

fn our_jscrash() -> String {
    let p = Phone::new();
    p.demo();
    let tree = dump(&p);
    let center = |id: &str| -> (i32, i32) {
        fn find<'a>(n: &'a Value, id: &str) -> Option<&'a Value> {
            if n["attributes"]["id"] == id {
                return Some(n);
            }
            n["children"].as_array()?.iter().find_map(|c| find(c, id))
        }
        let b = find(&tree, id).unwrap()["attributes"]["bounds"]
            .as_str()
            .unwrap()
            .to_string();
        let v: Vec<i32> = b
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        ((v[0] + v[2]) / 2, (v[1] + v[3]) / 2)
    };
    let (x, y) = center("username");
    p.sh(&format!("uitest uiInput inputText {x} {y} ann"));
    let (x, y) = center("login");
    p.sh(&format!("uitest uiInput click {x} {y}"));
    // The home page appears after 800 ms of device time; poll with a hang guard.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let t = p.sh(
            "uitest dumpLayout -p /data/local/tmp/h.json >/dev/null && cat /data/local/tmp/h.json",
        );
        if t.contains("\"crash\"") {
            break;
        }
        assert!(std::time::Instant::now() < until, "home page never came");
    }
    let tree2 = dump(&p);
    let b = {
        fn find<'a>(n: &'a Value, id: &str) -> Option<&'a Value> {
            if n["attributes"]["id"] == id {
                return Some(n);
            }
            n["children"].as_array()?.iter().find_map(|c| find(c, id))
        }
        find(&tree2, "crash").unwrap()["attributes"]["bounds"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let v: Vec<i32> = b
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    p.sh(&format!(
        "uitest uiInput click {} {}",
        (v[0] + v[2]) / 2,
        (v[1] + v[3]) / 2
    ));
    let ls = p.sh("ls /data/log/faultlog/faultlogger/");
    let name = ls
        .lines()
        .find(|l| l.starts_with("jscrash-"))
        .expect("a jscrash file")
        .to_string();
    p.sh(&format!("cat /data/log/faultlog/faultlogger/{name}"))
}

pub(super) fn crash_keys_cover(fixture_name: &str) -> Result<(), String> {
    let ours = crash_header_keys(&our_jscrash());
    let real = crash_header_keys(&fixture(fixture_name));
    let missing: Vec<_> = real.difference(&ours).collect();
    ensure(missing.is_empty(), || {
        format!("our jscrash lacks {missing:?}")
    })
}

pub(super) fn param(key: &str, fixture_name: &str) -> Result<(), String> {
    same_lines(
        &Phone::new().sh(&format!("param get {key}")),
        &fixture(fixture_name),
    )
}

pub(super) fn refused(cmd_answer: String, marker: &str) -> Result<(), String> {
    ensure(cmd_answer.contains(marker), || {
        format!("expected a loud refusal containing {marker:?}, got {cmd_answer:?}")
    })
}

/// Rewrites an hdc list to one line per device with whitespace-separated fields, USB serials
/// (`FMR0223C13000649` shape) replaced by `SERIAL`.
pub(super) fn fields(t: &str) -> String {
    let serial = regex::Regex::new(r"^[A-Z]{3}\d{4}[A-Z]\d{8}$").unwrap();
    t.lines()
        .map(|l| {
            l.split_whitespace()
                .map(|w| if serial.is_match(w) { "SERIAL" } else { w })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}
