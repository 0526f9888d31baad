//! Parsing of the `sh -c` subset the simulated device understands.
//!
//! Real clients send short command lines: words with POSIX quoting (`'…'`, `"…"` with `\`
//! escapes, backslash outside quotes), `$?`, lists joined by `;`, `&&`, `||` or newlines, and
//! redirections `>f`, `>>f`, `2>f`, `2>>f`, `2>&1`, `1>&2`, `<f` (adb's `rm … </dev/null`).
//! Everything else (pipes, background
//! jobs, subshells, command substitution, variables other than `$?`, here-documents, control
//! keywords) is rejected with a [`SyntaxError`] so that a script outside the subset fails loudly
//! instead of being half-interpreted.

use std::fmt;

/// A parse failure, printed by the device shell as `sh: <message>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError(pub String);

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One piece of a word: literal text or `$?` (expanded at run time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Literal text; `glob` is true when it came unquoted and holds `*` or `?`.
    Lit {
        text: String,
        glob: bool,
    },
    LastStatus,
}

/// A shell word before expansion.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    pub pieces: Vec<Piece>,
}

impl Word {
    /// Expands `$?` and concatenates; returns the text and whether it may be globbed.
    pub fn expand(&self, last_status: i32) -> (String, bool) {
        let mut s = String::new();
        let mut glob = false;
        for p in &self.pieces {
            match p {
                Piece::Lit { text, glob: g } => {
                    s.push_str(text);
                    glob |= *g;
                }
                Piece::LastStatus => s.push_str(&last_status.to_string()),
            }
        }
        (s, glob)
    }
}

/// Where a file descriptor is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redirect {
    /// `N>file` or `N>>file`.
    File { fd: u8, target: Word, append: bool },
    /// `N>&M`.
    Dup { fd: u8, to: u8 },
    /// `<file`: the command's stdin (no simulated program reads stdin; the file must exist).
    Input { source: Word },
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
}

/// How a command is joined to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connector {
    /// First command, `;` or newline: always run.
    Always,
    /// `&&`: run when the previous status is 0.
    And,
    /// `||`: run when the previous status is not 0.
    Or,
}

/// A parsed script: commands in order with their connectors.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    pub commands: Vec<(Connector, SimpleCommand)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Word(Word),
    Redir(Redirect),
    Semi,
    And,
    Or,
}

/// Parses a whole `sh -c` script.
pub fn parse(script: &str) -> Result<Script, SyntaxError> {
    let toks = lex(script)?;
    let mut out = Script::default();
    let mut cur = SimpleCommand::default();
    let mut pending = Connector::Always;
    // Set after `&&`/`||`: a command must follow.
    let mut need_command = false;
    for tok in toks {
        match tok {
            Tok::Word(w) => {
                if cur.words.is_empty() && cur.redirects.is_empty() {
                    check_keyword(&w)?;
                }
                cur.words.push(w);
            }
            Tok::Redir(r) => cur.redirects.push(r),
            sep @ (Tok::Semi | Tok::And | Tok::Or) => {
                let op = match sep {
                    Tok::And => "&&",
                    Tok::Or => "||",
                    _ => ";",
                };
                if cur.words.is_empty() {
                    if cur.redirects.is_empty() && op == ";" && !need_command {
                        // Blank line or leading newline: POSIX accepts it only for newlines,
                        // which the lexer folds into `;` when they are not the first token.
                        if out.commands.is_empty() {
                            continue;
                        }
                    }
                    return Err(SyntaxError(format!("syntax error: unexpected '{op}'")));
                }
                out.commands.push((pending, std::mem::take(&mut cur)));
                pending = match sep {
                    Tok::And => Connector::And,
                    Tok::Or => Connector::Or,
                    _ => Connector::Always,
                };
                need_command = !matches!(sep, Tok::Semi);
            }
        }
    }
    if !cur.words.is_empty() {
        out.commands.push((pending, cur));
    } else if !cur.redirects.is_empty() {
        return Err(SyntaxError(
            "redirection without a command is not supported by the simulated device".into(),
        ));
    } else if need_command {
        return Err(SyntaxError("syntax error: unexpected end of file".into()));
    }
    Ok(out)
}

fn check_keyword(w: &Word) -> Result<(), SyntaxError> {
    if let [Piece::Lit { text, .. }] = w.pieces.as_slice() {
        const KEYWORDS: &[&str] = &[
            "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case",
            "esac", "function", "{", "}", "!",
        ];
        if KEYWORDS.contains(&text.as_str()) {
            return Err(SyntaxError(format!(
                "'{text}': shell keywords are not supported by the simulated device"
            )));
        }
    }
    Ok(())
}

fn unsupported(what: &str) -> SyntaxError {
    SyntaxError(format!("{what} is not supported by the simulated device"))
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    toks: Vec<Tok>,
    word: Word,
    /// A word has started (even an empty quoted one like `''`).
    in_word: bool,
}

impl Lexer<'_> {
    fn push_lit(&mut self, c: char, quoted: bool) {
        self.in_word = true;
        let glob = !quoted && (c == '*' || c == '?');
        if let Some(Piece::Lit { text, glob: g }) = self.word.pieces.last_mut() {
            text.push(c);
            *g |= glob;
        } else {
            self.word.pieces.push(Piece::Lit {
                text: c.to_string(),
                glob,
            });
        }
    }

    fn mark_quoted_empty(&mut self) {
        self.in_word = true;
        if self.word.pieces.is_empty() {
            self.word.pieces.push(Piece::Lit {
                text: String::new(),
                glob: false,
            });
        }
    }

    fn finish_word(&mut self) {
        if self.in_word {
            self.toks.push(Tok::Word(std::mem::take(&mut self.word)));
            self.in_word = false;
        }
    }

    /// `$` outside single quotes: only `$?` is supported.
    fn dollar(&mut self) -> Result<(), SyntaxError> {
        match self.chars.peek() {
            Some('?') => {
                self.chars.next();
                self.in_word = true;
                self.word.pieces.push(Piece::LastStatus);
                Ok(())
            }
            Some('(') => Err(unsupported("command substitution '$(…)'")),
            Some(c)
                if c.is_ascii_alphanumeric()
                    || matches!(c, '_' | '{' | '@' | '*' | '#' | '$' | '!' | '-') =>
            {
                Err(unsupported("variable expansion (only $? is)"))
            }
            // A lone `$` is literal in sh.
            _ => {
                self.push_lit('$', false);
                Ok(())
            }
        }
    }
}

fn lex(src: &str) -> Result<Vec<Tok>, SyntaxError> {
    let mut lx = Lexer {
        chars: src.chars().peekable(),
        toks: Vec::new(),
        word: Word::default(),
        in_word: false,
    };
    while let Some(c) = lx.chars.next() {
        match c {
            ' ' | '\t' => lx.finish_word(),
            '\n' | ';' => {
                lx.finish_word();
                if lx.chars.peek() == Some(&';') {
                    return Err(SyntaxError("syntax error: unexpected ';;'".into()));
                }
                lx.toks.push(Tok::Semi);
            }
            '#' if !lx.in_word => {
                // Comment to end of line.
                while let Some(&n) = lx.chars.peek() {
                    if n == '\n' {
                        break;
                    }
                    lx.chars.next();
                }
            }
            '\'' => {
                lx.mark_quoted_empty();
                loop {
                    match lx.chars.next() {
                        Some('\'') => break,
                        Some(ch) => lx.push_lit(ch, true),
                        None => {
                            return Err(SyntaxError(
                                "syntax error: unterminated quoted string".into(),
                            ));
                        }
                    }
                }
            }
            '"' => {
                lx.mark_quoted_empty();
                loop {
                    match lx.chars.next() {
                        Some('"') => break,
                        Some('\\') => match lx.chars.next() {
                            Some(e @ ('\\' | '"' | '$' | '`')) => lx.push_lit(e, true),
                            Some('\n') => {}
                            Some(other) => {
                                lx.push_lit('\\', true);
                                lx.push_lit(other, true);
                            }
                            None => {
                                return Err(SyntaxError(
                                    "syntax error: unterminated quoted string".into(),
                                ));
                            }
                        },
                        Some('$') => lx.dollar()?,
                        Some('`') => return Err(unsupported("command substitution '`…`'")),
                        Some(ch) => lx.push_lit(ch, true),
                        None => {
                            return Err(SyntaxError(
                                "syntax error: unterminated quoted string".into(),
                            ));
                        }
                    }
                }
            }
            '\\' => match lx.chars.next() {
                Some('\n') => {}
                Some(ch) => lx.push_lit(ch, true),
                None => lx.push_lit('\\', true),
            },
            '$' => lx.dollar()?,
            '`' => return Err(unsupported("command substitution '`…`'")),
            '&' => {
                lx.finish_word();
                if lx.chars.peek() == Some(&'&') {
                    lx.chars.next();
                    lx.toks.push(Tok::And);
                } else if lx.chars.peek() == Some(&'>') {
                    return Err(unsupported("'&>' redirection"));
                } else {
                    return Err(unsupported("running a command in the background with '&'"));
                }
            }
            '|' => {
                lx.finish_word();
                if lx.chars.peek() == Some(&'|') {
                    lx.chars.next();
                    lx.toks.push(Tok::Or);
                } else {
                    return Err(unsupported("a pipe '|'"));
                }
            }
            '(' | ')' => return Err(unsupported("a subshell '( … )'")),
            '<' => {
                lx.finish_word();
                if matches!(lx.chars.peek(), Some('<' | '&' | '>')) {
                    return Err(unsupported("here-documents and '<&' / '<>' redirections"));
                }
                let source = lex_target(&mut lx)?;
                lx.toks.push(Tok::Redir(Redirect::Input { source }));
            }
            '>' => {
                // A pending all-digit word directly before `>` is the fd number (`2>`).
                let fd = take_fd_prefix(&mut lx)?;
                lx.finish_word();
                lex_redirect(&mut lx, fd)?;
            }
            other => lx.push_lit(other, false),
        }
    }
    lx.finish_word();
    Ok(lx.toks)
}

/// If the word being built is a bare single digit (`2` in `2>`), consume it as the fd.
fn take_fd_prefix(lx: &mut Lexer<'_>) -> Result<u8, SyntaxError> {
    if lx.in_word
        && let [Piece::Lit { text, glob: false }] = lx.word.pieces.as_slice()
        && text.len() == 1
        && let Some(d) = text.chars().next().and_then(|c| c.to_digit(10))
    {
        lx.word = Word::default();
        lx.in_word = false;
        if d == 0 || d > 2 {
            return Err(unsupported(&format!("redirecting file descriptor {d}")));
        }
        return Ok(d as u8);
    }
    Ok(1)
}

fn lex_redirect(lx: &mut Lexer<'_>, fd: u8) -> Result<(), SyntaxError> {
    let mut append = false;
    match lx.chars.peek() {
        Some('>') => {
            lx.chars.next();
            append = true;
        }
        Some('&') => {
            lx.chars.next();
            let to = match lx.chars.next() {
                Some(c @ ('1' | '2')) => c as u8 - b'0',
                Some('-') => return Err(unsupported("closing a descriptor with '>&-'")),
                _ => return Err(SyntaxError("syntax error: bad fd number after '>&'".into())),
            };
            if let Some(&n) = lx.chars.peek()
                && !matches!(n, ' ' | '\t' | '\n' | ';' | '&' | '|')
            {
                return Err(SyntaxError("syntax error: bad fd number after '>&'".into()));
            }
            lx.toks.push(Tok::Redir(Redirect::Dup { fd, to }));
            return Ok(());
        }
        Some('|') => return Err(unsupported("'>|' redirection")),
        _ => {}
    }
    let target = lex_target(lx)?;
    lx.toks
        .push(Tok::Redir(Redirect::File { fd, target, append }));
    Ok(())
}

/// The word after a redirection operator, lexed with the normal rules.
fn lex_target(lx: &mut Lexer<'_>) -> Result<Word, SyntaxError> {
    // The target is the next word; lex it with the normal rules by running a nested pass on
    // the following characters up to the end of the word.
    while matches!(lx.chars.peek(), Some(' ' | '\t')) {
        lx.chars.next();
    }
    let before = lx.toks.len();
    // Collect one word by re-entering the main loop logic on a sub-lexer.
    let mut rest = String::new();
    let mut quote: Option<char> = None;
    while let Some(&c) = lx.chars.peek() {
        match quote {
            Some(q) => {
                rest.push(c);
                lx.chars.next();
                if c == q {
                    quote = None;
                } else if c == '\\'
                    && q == '"'
                    && let Some(n) = lx.chars.next()
                {
                    rest.push(n);
                }
            }
            None => {
                if matches!(
                    c,
                    ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')'
                ) {
                    break;
                }
                if c == '\'' || c == '"' {
                    quote = Some(c);
                }
                rest.push(c);
                lx.chars.next();
                if c == '\\'
                    && let Some(n) = lx.chars.next()
                {
                    rest.push(n);
                }
            }
        }
    }
    if quote.is_some() {
        return Err(SyntaxError(
            "syntax error: unterminated quoted string".into(),
        ));
    }
    let sub = lex(&rest)?;
    match sub.as_slice() {
        [Tok::Word(w)] => {
            lx.toks.truncate(before);
            Ok(w.clone())
        }
        _ => Err(SyntaxError(
            "syntax error: a file name must follow the redirection".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Vec<String>> {
        parse(s)
            .unwrap()
            .commands
            .iter()
            .map(|(_, c)| c.words.iter().map(|w| w.expand(7).0).collect())
            .collect()
    }

    #[test]
    fn quoting() {
        assert_eq!(words("echo 'it'\\''s'"), vec![vec!["echo", "it's"]]);
        assert_eq!(
            words(r#"echo "a \"b\" \$c" d\ e"#),
            vec![vec!["echo", "a \"b\" $c", "d e"]]
        );
        assert_eq!(words("echo '' x"), vec![vec!["echo", "", "x"]]);
        assert_eq!(
            words("echo $? \"$?\" '$?'"),
            vec![vec!["echo", "7", "7", "$?"]]
        );
        assert_eq!(words("echo a$ b"), vec![vec!["echo", "a$", "b"]]);
    }

    #[test]
    fn lists_and_connectors() {
        let s = parse("a; b && c || d\ne").unwrap();
        let conns: Vec<Connector> = s.commands.iter().map(|(c, _)| *c).collect();
        assert_eq!(
            conns,
            vec![
                Connector::Always,
                Connector::Always,
                Connector::And,
                Connector::Or,
                Connector::Always
            ]
        );
        assert_eq!(words("a;b;"), vec![vec!["a"], vec!["b"]]);
    }

    #[test]
    fn redirections() {
        let s = parse("uitest dumpLayout -p /x.json >/dev/null 2>&1 && cat /x.json; rm -f /x.json")
            .unwrap();
        let first = &s.commands[0].1;
        assert_eq!(first.words.len(), 4);
        assert_eq!(first.redirects.len(), 2);
        assert!(
            matches!(&first.redirects[0], Redirect::File { fd: 1, append: false, target } if target.expand(0).0 == "/dev/null")
        );
        assert_eq!(first.redirects[1], Redirect::Dup { fd: 2, to: 1 });
        let s = parse("echo hi >> '/data/a b' 2>/dev/null").unwrap();
        let r = &s.commands[0].1.redirects;
        assert!(
            matches!(&r[0], Redirect::File { fd: 1, append: true, target } if target.expand(0).0 == "/data/a b")
        );
        assert!(matches!(
            &r[1],
            Redirect::File {
                fd: 2,
                append: false,
                ..
            }
        ));
        // `a2>x` is the word `a2` redirected, not fd 2.
        let s = parse("echo a2>x").unwrap();
        assert_eq!(s.commands[0].1.words[1].expand(0).0, "a2");
    }

    #[test]
    fn unsupported_fails_loudly() {
        for bad in [
            "ls | grep x",
            "sleep 1 &",
            "echo $(id)",
            "echo `id`",
            "echo $HOME",
            "(ls)",
            // `<f` is in the subset (adb sends `rm … </dev/null`); here-documents are not.
            "cat << x",
            "cat <& 3",
            "if true; then ls; fi",
            "echo 'open",
            "&& ls",
            "ls &&",
            "echo >",
        ] {
            assert!(parse(bad).is_err(), "{bad} should be rejected");
        }
    }

    #[test]
    fn globs_are_marked_only_when_unquoted() {
        let s = parse("rm /d/*.json '/e/*.json'").unwrap();
        let w = &s.commands[0].1.words;
        assert!(w[1].expand(0).1);
        assert!(!w[2].expand(0).1);
    }
}
