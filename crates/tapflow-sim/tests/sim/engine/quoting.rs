//! Shell quoting: one string against tokens, lists, exit status and redirections, and what is
//! outside the simulated subset failing loudly.

use super::*;
use pretty_assertions::assert_eq;

#[test]
fn shell_one_string_vs_tokens() {
    let s = sim();
    // One element: wrapped in quotes by the client, unwrapped by the daemon.
    assert_eq!(run(&s, &["shell", "echo 'a  b'"]), "a  b\n");
    // Tokens: joined with spaces; an element with a space is wrapped in "…".
    assert_eq!(run(&s, &["shell", "echo", "a  b", "c"]), "a  b c\n");
    assert_eq!(run(&s, &["shell", "echo", "x", "y"]), "x y\n");
    // Unquoted tokens lose their inner spacing as in sh.
    assert_eq!(run(&s, &["shell", "echo a   b"]), "a b\n");
    // Single-quote escaping of user text.
    assert_eq!(sh(&s, r"echo 'it'\''s'"), "it's\n");
    assert_eq!(sh(&s, r#"echo "say \"hi\" \$x""#), "say \"hi\" $x\n");
}

#[test]
fn shell_lists_status_and_redirections() {
    let s = sim();
    assert_eq!(
        sh(
            &s,
            "false || echo no; true && echo yes; false && echo never"
        ),
        "no\nyes\n"
    );
    assert_eq!(sh(&s, "false; echo $?; true; echo $?"), "1\n0\n");
    assert_eq!(sh(&s, "echo __RC__$?"), "__RC__0\n");
    assert_eq!(
        sh(&s, "nosuch; echo rc=$?"),
        "sh: nosuch: not found\nrc=127\n"
    );
    assert_eq!(
        sh(
            &s,
            "echo one > /data/local/tmp/f; echo two >> /data/local/tmp/f; cat /data/local/tmp/f"
        ),
        "one\ntwo\n"
    );
    assert_eq!(sh(&s, "echo gone >/dev/null"), "");
    assert_eq!(sh(&s, "cat /nope 2>/dev/null; echo after"), "after\n");
    assert_eq!(
        sh(&s, "cat /nope >/dev/null 2>&1 || echo failed"),
        "failed\n"
    );
    assert_eq!(
        sh(&s, "cat /nope 2>&1 >/dev/null"),
        "cat: /nope: No such file or directory\n"
    );
    assert_eq!(
        sh(
            &s,
            "cat /nope > /data/local/tmp/e 2>&1; cat /data/local/tmp/e"
        ),
        "cat: /nope: No such file or directory\n"
    );
    assert_eq!(sh(&s, "printf '%s-%d\\n' a 1 b 2"), "a-1\nb-2\n");
}

#[test]
fn outside_the_subset_fails_loudly() {
    let s = sim();
    assert_eq!(
        sh(&s, "ls | grep x"),
        "sh: a pipe '|' is not supported by the simulated device\n"
    );
    assert_eq!(
        sh(&s, "echo $HOME"),
        "sh: variable expansion (only $? is) is not supported by the simulated device\n"
    );
    assert_eq!(
        sh(&s, "echo 'open"),
        "sh: syntax error: unterminated quoted string\n"
    );
    assert_eq!(
        sh(&s, "if true; then echo x; fi"),
        "sh: 'if': shell keywords are not supported by the simulated device\n"
    );
    assert_eq!(sh(&s, "vim /x"), "sh: vim: not found\n");
}
