//! The policy's checks as a whole: lexical and real roots, links, types, creating directories,
//! read roots apart from write roots, and trusted configuration refused on every write path.

use std::fs;
use std::path::{Path, PathBuf};

use super::*;

fn policy(root: &Path) -> PathPolicy {
    PathPolicy::new(root, [root.to_path_buf()])
}

#[test]
fn lexical_rules() {
    let p = PathPolicy::new("/w/p", [PathBuf::from("/w/p"), PathBuf::from("out")]);
    assert_eq!(
        p.read_roots(),
        &[PathBuf::from("/w/p"), PathBuf::from("/w/p/out")]
    );
    assert_eq!(p.read_roots(), p.write_roots());
    assert!(p.check_lexical("a/b.png").is_ok());
    assert_eq!(
        p.check_lexical("../x").unwrap_err().kind,
        PathErrorKind::NotAllowed
    );
    assert_eq!(
        p.check_lexical("/etc/passwd").unwrap_err().kind,
        PathErrorKind::NotAllowed
    );
    assert_eq!(
        p.check_lexical("/w/p/../../../..").unwrap_err().kind,
        PathErrorKind::NotAllowed
    );
    assert_eq!(
        p.check_lexical("").unwrap_err().kind,
        PathErrorKind::Invalid
    );
    assert_eq!(
        p.check_lexical("a\0b").unwrap_err().kind,
        PathErrorKind::Invalid
    );
    // A sibling whose name starts like the root is not inside it.
    assert!(p.check_lexical("/w/pp/x").is_err());
    assert!(PathPolicy::new("/w", []).check_lexical("/w/x").is_err());
}

#[test]
fn a_huge_path_is_not_echoed_whole() {
    let p = PathPolicy::new("/w", [PathBuf::from("/w")]);
    let big = format!("/etc/{}", "a".repeat(1_000_000));
    let e = p.check_lexical(&big).unwrap_err();
    assert!(e.message.len() < 2_000, "{}", e.message.len());
    assert!(e.given.len() < 400);
}

#[cfg(unix)]
#[test]
fn existing_paths_resolve_links_and_check_types() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let r = root.path();
    fs::write(r.join("f.txt"), "x").unwrap();
    fs::create_dir(r.join("d")).unwrap();
    fs::write(outside.path().join("secret"), "s").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), r.join("out")).unwrap();
    std::os::unix::fs::symlink(r.join("f.txt"), r.join("in")).unwrap();
    let p = policy(r);
    assert!(p.check_existing("f.txt", Expect::File).is_ok());
    assert!(
        p.check_existing("in", Expect::File).is_ok(),
        "a link inside is fine"
    );
    assert_eq!(
        p.check_existing("out", Expect::File).unwrap_err().kind,
        PathErrorKind::NotAllowed
    );
    assert_eq!(
        p.check_existing("d", Expect::File).unwrap_err().kind,
        PathErrorKind::WrongType
    );
    assert!(p.check_existing("d", Expect::Dir).is_ok());
    assert_eq!(
        p.check_existing("nope", Expect::Any).unwrap_err().kind,
        PathErrorKind::NotFound
    );
}

#[cfg(unix)]
#[test]
fn writes_refuse_final_links_and_linked_directories() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let r = root.path();
    let victim = outside.path().join("victim.txt");
    fs::write(&victim, "keep").unwrap();
    std::os::unix::fs::symlink(&victim, r.join("shot.png")).unwrap();
    std::os::unix::fs::symlink(outside.path(), r.join("linkdir")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("none.png"), r.join("dangling.png")).unwrap();
    let p = policy(r);
    assert_eq!(
        p.prepare_write("shot.png").unwrap_err().kind,
        PathErrorKind::Symlink
    );
    assert_eq!(
        p.prepare_write("dangling.png").unwrap_err().kind,
        PathErrorKind::Symlink
    );
    assert_eq!(
        p.prepare_write("linkdir/x.png").unwrap_err().kind,
        PathErrorKind::NotAllowed
    );
    assert_eq!(
        p.prepare_write("linkdir/new/deeper/x.png")
            .unwrap_err()
            .kind,
        PathErrorKind::NotAllowed
    );
    assert!(
        !outside.path().join("new").exists(),
        "nothing created outside"
    );
    assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
    assert!(!outside.path().join("none.png").exists());
    let t = p.prepare_write("a/b/c.png").unwrap();
    assert!(r.join("a/b").is_dir());
    assert!(!t.existed());
}

#[test]
fn a_missing_root_is_created_on_first_use() {
    let tmp = tempfile::tempdir().unwrap();
    let shots = tmp.path().join("home/project/screenshots");
    let p = PathPolicy::new(tmp.path().join("cwd"), [shots.clone()]);
    let t = p
        .prepare_write(shots.join("a.png").to_str().unwrap())
        .unwrap();
    assert!(shots.is_dir());
    assert_eq!(t.path(), fs::canonicalize(&shots).unwrap().join("a.png"));
    // Only roots are created that way: a sibling stays refused and absent.
    let sibling = tmp.path().join("home/project/other/x.png");
    assert_eq!(
        p.prepare_write(sibling.to_str().unwrap()).unwrap_err().kind,
        PathErrorKind::NotAllowed
    );
    assert!(!tmp.path().join("home/project/other").exists());
    assert!(PathPolicy::deny_all().ensure_dir("/tmp").is_err());
}

#[test]
fn ensure_dir_creates_inside_only() {
    let root = tempfile::tempdir().unwrap();
    let p = policy(root.path());
    let d = p.ensure_dir("reports/run-1").unwrap();
    assert!(d.is_dir());
    assert!(p.ensure_dir("../elsewhere").is_err());
    fs::write(root.path().join("file"), "x").unwrap();
    assert_eq!(
        p.ensure_dir("file/sub").unwrap_err().kind,
        PathErrorKind::WrongType
    );
}

#[test]
fn reading_and_writing_have_their_own_roots() {
    let t = tempfile::tempdir().unwrap();
    let project = t.path().join("project");
    let out = project.join("reports");
    fs::create_dir_all(&out).unwrap();
    fs::write(project.join("flow.yaml"), "steps: []\n").unwrap();
    let p = PathPolicy::split(&project, [project.clone()], [out.clone()]);
    assert!(p.read_file("flow.yaml", 100).is_ok());
    // The project is read, never written: only the output root is.
    let e = p.prepare_write("notes.log").unwrap_err();
    assert_eq!(e.kind, PathErrorKind::NotAllowed);
    assert!(e.message.contains("output roots"), "{}", e.message);
    assert_eq!(e.roots, std::slice::from_ref(&out));
    assert_eq!(
        p.ensure_dir("run-1").unwrap_err().kind,
        PathErrorKind::NotAllowed
    );
    assert!(p.prepare_write("reports/a.log").is_ok());
    assert!(p.ensure_dir("reports/run-1").is_ok());
    // An output root alone is not readable unless it is a read root too.
    let w = PathPolicy::split(&project, [], [out.clone()]);
    assert_eq!(
        w.check_existing("reports", Expect::Dir).unwrap_err().kind,
        PathErrorKind::NotAllowed
    );
    let wider = p.with_root(t.path().join("elsewhere"));
    assert!(wider.prepare_write("../elsewhere/x.log").is_ok());
    assert!(!project.join("notes.log").exists());
}

/// Issue 18, seen 1: `logs_query` `save_path: tapflow.toml` created the project file the next
/// process trusts. Every write path of the policy refuses trusted configuration, however it is
/// spelt, before anything is created.
#[test]
fn trusted_configuration_is_never_written() {
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    fs::create_dir_all(r.join("other")).unwrap();
    fs::write(r.join("ci.toml"), "").unwrap();
    let p = PathPolicy::new(r, [r.to_path_buf()]).protecting([r.join("ci.toml")]);
    let absolute = r.join("tapflow.toml").display().to_string();
    for given in [
        "tapflow.toml",
        "./tapflow.toml",
        "sub/../tapflow.toml",
        "TAPFLOW.TOML",
        "TapFlow.toml",
        "tapflow.toml.",
        absolute.as_str(),
        "other/tapflow.toml",
        "new/tapflow.toml",
        ".tapflow/mcp-token",
        ".TAPFLOW/x.log",
        "a/.tapflow/b/c.log",
        "tapflow.toml/x.log",
        "ci.toml",
        "./CI.TOML",
    ] {
        let e = p.prepare_write(given).unwrap_err();
        assert_eq!(
            e.kind,
            PathErrorKind::TrustedConfig,
            "{given}: {}",
            e.message
        );
        assert!(
            e.message.contains("never create or change"),
            "{}",
            e.message
        );
        let d = p.ensure_dir(given).unwrap_err();
        assert_eq!(d.kind, PathErrorKind::TrustedConfig, "{given}");
        assert_eq!(
            p.prepare_inert_write(given).unwrap_err().kind,
            PathErrorKind::TrustedConfig,
            "{given}"
        );
    }
    let mut left: Vec<String> = fs::read_dir(r)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["ci.toml", "other"], "nothing was created");
    assert_eq!(fs::read_to_string(r.join("ci.toml")).unwrap(), "");
    // Names that only look alike are ordinary files.
    assert!(p.prepare_write("tapflow.toml.log").is_ok());
    assert!(p.prepare_write("logs/tapflow.yaml").is_ok());
}

#[cfg(unix)]
#[test]
fn links_into_trusted_configuration_are_judged_where_they_lead() {
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    let state = r.join(".tapflow");
    fs::create_dir(&state).unwrap();
    fs::create_dir(r.join("proj")).unwrap();
    fs::write(r.join("proj/ci.toml"), "keep").unwrap();
    std::os::unix::fs::symlink(&state, r.join("state")).unwrap();
    std::os::unix::fs::symlink(r.join("proj"), r.join("p")).unwrap();
    let p = PathPolicy::new(r, [r.to_path_buf()]).protecting([r.join("proj/ci.toml")]);
    for given in ["state/token", "state/new/x.log", "p/ci.toml", "p/CI.toml"] {
        assert_eq!(
            p.prepare_write(given).unwrap_err().kind,
            PathErrorKind::TrustedConfig,
            "{given}"
        );
    }
    assert_eq!(
        p.ensure_dir("state/run-1").unwrap_err().kind,
        PathErrorKind::TrustedConfig
    );
    assert_eq!(fs::read_dir(&state).unwrap().count(), 0, "nothing created");
    assert_eq!(fs::read_to_string(r.join("proj/ci.toml")).unwrap(), "keep");
    // A final link named like anything is refused as a link (never written through).
    std::os::unix::fs::symlink(r.join("proj/ci.toml"), r.join("notes.log")).unwrap();
    assert_eq!(
        p.prepare_write("notes.log").unwrap_err().kind,
        PathErrorKind::Symlink
    );
}
