//! Several device commands in ONE `hdc shell` round trip, and their outputs told apart again.
//!
//! Each command is preceded by `echo '==tapflow:<i>=='`; the output is cut at those markers.
//! Commands run with `;` so one failing does not stop the others, and the marker of an empty
//! or failed command is still printed, so sections never shift. Markers are searched as
//! substrings (not whole lines) because a command may end without a newline (`cat` of a file).

use crate::hdc::quote::ShellCommand;

fn marker(i: usize) -> String {
    format!("==tapflow:{i}==")
}

/// `echo '==tapflow:0=='; <c0>; echo '==tapflow:1=='; <c1>; …`
pub fn chain(commands: Vec<ShellCommand>) -> ShellCommand {
    let mut iter = commands.into_iter().enumerate();
    let Some((_, first)) = iter.next() else {
        return ShellCommand::new("true");
    };
    let mut line = ShellCommand::new("echo").arg(&marker(0)).then(first);
    for (i, cmd) in iter {
        line = line
            .then(ShellCommand::new("echo").arg(&marker(i)))
            .then(cmd);
    }
    line
}

/// The output of each of `count` chained commands; `None` when its marker never appeared
/// (the shell stopped early, or the output was truncated).
pub fn split(text: &str, count: usize) -> Vec<Option<String>> {
    // Locate each marker after the previous one, so a marker-like string inside an earlier
    // command's output cannot reorder the sections.
    let mut starts: Vec<Option<(usize, usize)>> = Vec::with_capacity(count);
    let mut from = 0;
    for i in 0..count {
        let m = marker(i);
        match text[from..].find(&m) {
            Some(pos) => {
                let at = from + pos;
                let mut body = at + m.len();
                if text[body..].starts_with('\n') {
                    body += 1;
                }
                starts.push(Some((at, body)));
                from = body;
            }
            None => starts.push(None),
        }
    }
    (0..count)
        .map(|i| {
            let (_, body) = starts[i]?;
            let end = starts[i + 1..]
                .iter()
                .flatten()
                .map(|(at, _)| *at)
                .next()
                .unwrap_or(text.len());
            Some(text[body..end].to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_puts_a_marker_before_each_command() {
        let c = chain(vec![
            ShellCommand::new("param").word("get").arg("a"),
            ShellCommand::new("hidumper")
                .word("-s")
                .word("RenderService"),
        ]);
        assert_eq!(
            c.as_str(),
            "echo '==tapflow:0=='; param get 'a'; echo '==tapflow:1=='; hidumper -s RenderService"
        );
        assert_eq!(chain(vec![]).as_str(), "true");
    }

    #[test]
    fn split_recovers_each_output() {
        let text = "==tapflow:0==\nALN-AL00 \n==tapflow:1==\n==tapflow:2==\ncom.x\0arg==tapflow:3==\nlast\n";
        let s = split(text, 4);
        assert_eq!(s[0].as_deref(), Some("ALN-AL00 \n"));
        assert_eq!(s[1].as_deref(), Some(""));
        assert_eq!(s[2].as_deref(), Some("com.x\0arg"));
        assert_eq!(s[3].as_deref(), Some("last\n"));
    }

    #[test]
    fn missing_markers_give_none_without_shifting() {
        let s = split("==tapflow:0==\na\n==tapflow:2==\nc\n", 3);
        assert_eq!(s[0].as_deref(), Some("a\n"));
        assert_eq!(s[1], None);
        assert_eq!(s[2].as_deref(), Some("c\n"));
        assert_eq!(split("", 2), vec![None, None]);
    }
}
