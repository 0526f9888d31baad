//! Quoting for the device's `sh -c`, and a builder for device command lines.
//!
//! hdc hands the whole string after `shell` to `sh -c` on the device (the client only wraps it in
//! one pair of double quotes, which the daemon strips again). So the backend passes the complete
//! device command as ONE argv element and makes every user-supplied fragment a single-quoted sh
//! word, where nothing is special except `'` itself (written `'\''`).
//!
//! [`ShellCommand`] is the only way the backend assembles a device command line: user text goes
//! in through [`ShellCommand::arg`] (always quoted); unquoted words are `&'static str`
//! ([`ShellCommand::word`]) or integers ([`ShellCommand::int`]), so no call site can splice
//! untrusted text into the command by concatenation. Text typed into the app goes in through
//! [`ShellCommand::typed`]: quoted the same way, but [`ShellCommand::shown`] (what logs print)
//! carries only its length, so a password typed into a field never reaches a log.

use std::fmt;

/// Quotes `s` as one POSIX `sh` word: `'…'`, with each `'` written as `'\''`.
///
/// Always quotes, even when `s` would be safe bare, so the rule is uniform and visible in argv.
/// NUL cannot be carried by any shell word; callers reject it before building a command
/// (see `validate::no_nul`).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// Builds `program 'arg1' 'arg2' …` with every argument quoted: the generic helper for running one
/// program with arbitrary arguments on the device.
pub fn command_line<S: AsRef<str>>(program: &'static str, args: &[S]) -> String {
    let mut cmd = ShellCommand::new(program);
    for a in args {
        cmd = cmd.arg(a.as_ref());
    }
    cmd.into_string()
}

/// A device command line under construction (one or several commands joined by `;`/`&&`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellCommand {
    line: String,
    /// The same line with typed text replaced by its length: what logs show.
    shown: String,
}

impl ShellCommand {
    /// Starts a command with a fixed program name (never user text).
    pub fn new(program: &'static str) -> Self {
        Self {
            line: program.to_string(),
            shown: program.to_string(),
        }
    }

    fn push(mut self, line: &str, shown: &str) -> Self {
        self.line.push(' ');
        self.line.push_str(line);
        self.shown.push(' ');
        self.shown.push_str(shown);
        self
    }

    /// Appends a trusted, literal word: a sub-command, an option, a redirection (`>/dev/null`).
    pub fn word(self, word: &'static str) -> Self {
        self.push(word, word)
    }

    /// Appends an integer (coordinates, ids, counts): its decimal form needs no quoting.
    pub fn int(self, n: impl Into<i64>) -> Self {
        let n = n.into().to_string();
        self.push(&n, &n)
    }

    /// Appends any text as one single-quoted word.
    pub fn arg(self, text: &str) -> Self {
        let q = quote(text);
        self.push(&q, &q)
    }

    /// Appends text typed into the app (possibly a secret) as one single-quoted word; logs see
    /// `<typed text: N chars>` instead.
    pub fn typed(self, text: &str) -> Self {
        let shown = format!("<typed text: {} chars>", text.chars().count());
        self.push(&quote(text), &shown)
    }

    /// Appends `flag 'value'` (e.g. `-b 'com.example'`).
    pub fn opt(self, flag: &'static str, value: &str) -> Self {
        self.word(flag).arg(value)
    }

    /// Appends `flag 'value'` when `value` is given.
    pub fn opt_maybe(self, flag: &'static str, value: Option<&str>) -> Self {
        match value {
            Some(v) => self.opt(flag, v),
            None => self,
        }
    }

    /// `self; next`: runs `next` whatever `self` did.
    pub fn then(self, next: ShellCommand) -> Self {
        self.join("; ", next)
    }

    /// `self && next`: runs `next` only when `self` exited 0.
    pub fn and_then(self, next: ShellCommand) -> Self {
        self.join(" && ", next)
    }

    fn join(mut self, sep: &str, next: ShellCommand) -> Self {
        self.line.push_str(sep);
        self.line.push_str(&next.line);
        self.shown.push_str(sep);
        self.shown.push_str(&next.shown);
        self
    }

    pub fn as_str(&self) -> &str {
        &self.line
    }

    /// The line as logs show it: typed text replaced by its length.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    pub fn into_string(self) -> String {
        self.line
    }
}

impl fmt::Display for ShellCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.line)
    }
}

/// Renders an argv for humans (error messages): words with characters special to a shell are
/// single-quoted, so the text can be pasted into a terminal as is.
pub fn display_argv(program: &str, args: &[String]) -> String {
    let mut out = display_word(program);
    for a in args {
        out.push(' ');
        out.push_str(&display_word(a));
    }
    out
}

fn display_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain { w.to_string() } else { quote(w) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::process::Command;

    /// What the device's `sh -c` makes of `printf %s <quoted>`: the bytes printf received.
    fn through_sh(text: &str) -> Vec<u8> {
        let out = Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("printf %s {}", quote(text)))
            .output()
            .expect("/bin/sh runs");
        assert!(out.status.success(), "sh failed: {:?}", out);
        out.stdout
    }

    #[test]
    fn quotes_every_word_and_escapes_single_quotes() {
        assert_eq!(quote(""), "''");
        assert_eq!(quote("abc"), "'abc'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote("$HOME `id` \\n"), "'$HOME `id` \\n'");
    }

    #[test]
    fn hostile_fixed_strings_survive_real_sh() {
        for s in [
            "",
            "'",
            "''",
            "a'b\"c",
            "$(reboot)",
            "`reboot`",
            "; rm -rf / #",
            "back\\slash\\",
            "line1\nline2\n",
            "tab\there",
            "-n",
            "%s%d%%",
            "中文输入 😀 שלום مرحبا",
            "e\u{301}\u{200f}\u{202e}rtl",
            "*?[a-z]~",
        ] {
            assert_eq!(through_sh(s), s.as_bytes(), "{s:?}");
        }
    }

    #[test]
    fn builder_quotes_user_text_only() {
        let cmd = ShellCommand::new("aa")
            .word("start")
            .opt("-a", "EntryAbility")
            .opt("-b", "com.x'y")
            .opt_maybe("-m", None);
        assert_eq!(cmd.as_str(), "aa start -a 'EntryAbility' -b 'com.x'\\''y'");
        let chained = ShellCommand::new("uitest")
            .word("dumpLayout")
            .opt("-p", "/p.json")
            .and_then(ShellCommand::new("cat").arg("/p.json"))
            .then(ShellCommand::new("rm").word("-f").arg("/p.json"));
        assert_eq!(
            chained.as_str(),
            "uitest dumpLayout -p '/p.json' && cat '/p.json'; rm -f '/p.json'"
        );
        assert_eq!(
            ShellCommand::new("uitest")
                .word("uiInput")
                .word("click")
                .int(5)
                .int(-1i32)
                .as_str(),
            "uitest uiInput click 5 -1"
        );
        assert_eq!(
            command_line("echo", &["a b", "c'd"]),
            "echo 'a b' 'c'\\''d'"
        );
    }

    #[test]
    fn typed_text_is_sent_quoted_and_shown_as_its_length() {
        let cmd = ShellCommand::new("uitest")
            .word("uiInput")
            .word("text")
            .typed("pa'ss wörd")
            .then(ShellCommand::new("rm").arg("/x"));
        assert_eq!(
            cmd.as_str(),
            "uitest uiInput text 'pa'\\''ss wörd'; rm '/x'"
        );
        assert_eq!(
            cmd.shown(),
            "uitest uiInput text <typed text: 10 chars>; rm '/x'"
        );
        let plain = ShellCommand::new("cat").arg("/p");
        assert_eq!(plain.shown(), plain.as_str());
    }

    #[test]
    fn display_argv_is_pasteable() {
        let args = vec!["-t".to_string(), "X".into(), "shell".into(), "ls -l".into()];
        assert_eq!(display_argv("hdc", &args), "hdc -t X shell 'ls -l'");
    }

    fn hostile_char() -> impl Strategy<Value = char> {
        prop_oneof![
            3 => prop::sample::select(vec![
                '\'', '"', '$', '`', '\\', '\n', '\r', '\t', ' ', '!', '*', '?', '~', '#', ';',
                '&', '|', '<', '>', '(', ')', '{', '}', '[', ']', '-', '%', '=', '^',
                '中', '文', '😀', '🇫', 'ש', 'ا', '\u{200f}', '\u{202e}', '\u{301}', '\u{7f}',
                '\u{1b}',
            ]),
            1 => any::<char>().prop_filter("NUL cannot be a shell word", |c| *c != '\0'),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

        #[test]
        fn any_nul_free_text_reaches_printf_byte_exact(chars in prop::collection::vec(hostile_char(), 0..40)) {
            let text: String = chars.into_iter().collect();
            prop_assert_eq!(through_sh(&text), text.as_bytes().to_vec());
        }

        #[test]
        fn arbitrary_strings_reach_printf_byte_exact(text in any::<String>().prop_map(|s| s.replace('\0', ""))) {
            prop_assert_eq!(through_sh(&text), text.as_bytes().to_vec());
        }
    }
}
