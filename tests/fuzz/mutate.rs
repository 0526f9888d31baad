//! The generator's mutations: byte flips, deletions, duplicated lines, invalid UTF-8, alias
//! bombs, deep nesting, very long lines, hostile YAML tokens, truncation, a second document.

use super::*;

/// A line (or a few) of hostile YAML.
fn hostile_token(rng: &mut ChaCha8Rng) -> String {
    const TOKENS: &[&str] = &[
        "*a",
        "&a ",
        "!!binary ",
        "? ",
        "---\n",
        "...\n",
        "%YAML 1.2\n",
        "<<: *a\n",
        ".inf",
        "-.Inf",
        ".nan",
        "{{",
        "}}",
        "\t",
        "\r",
        "\u{feff}",
        "\"\\u0000\"",
        "'",
        "\"",
        "[",
        "]",
        "{",
        "}",
        ": ",
        "- ",
        "#",
        "|",
        ">-",
        "!!str ",
        "!!int ",
        "!custom ",
        "~",
        "null",
        "0x1F",
        "1e999",
        "99999999999999999999999",
        "-",
        "\u{2028}",
        "登录",
        "😀",
    ];
    TOKENS[rng.random_range(0..TOKENS.len())].to_string()
}

/// A billion-laughs block: `levels` anchors, each an alias list of the previous one.
fn alias_bomb(rng: &mut ChaCha8Rng) -> String {
    let levels = rng.random_range(4..12);
    let width = rng.random_range(5..12);
    let mut s = String::from("bomb0: &b0 [{click: OK}]\n");
    for i in 1..levels {
        let refs = vec![format!("*b{}", i - 1); width].join(", ");
        s.push_str(&format!("bomb{i}: &b{i} [{refs}]\n"));
    }
    match rng.random_range(0..3) {
        0 => s.push_str(&format!("steps: *b{}\n", levels - 1)),
        1 => s.push_str(&format!("env: {{X: *b{}}}\n", levels - 1)),
        _ => {}
    }
    s
}

fn deep_nesting(rng: &mut ChaCha8Rng) -> String {
    let depth = rng.random_range(30..5_000);
    match rng.random_range(0..4) {
        0 => format!("{}{}\n", "[".repeat(depth), "]".repeat(depth)),
        1 => format!("{}x{}\n", "{a: ".repeat(depth), "}".repeat(depth)),
        2 => "[".repeat(depth),
        _ => {
            let depth = depth.min(80);
            let mut s = String::from("steps:\n");
            let mut indent = String::from("  ");
            for _ in 0..depth {
                s.push_str(&format!(
                    "{indent}- repeat:\n{indent}    times: 1\n{indent}    steps:\n"
                ));
                indent.push_str("      ");
            }
            s.push_str(&format!("{indent}- click: OK\n"));
            s
        }
    }
}

fn long_line(rng: &mut ChaCha8Rng) -> String {
    let n = rng.random_range(65_000..200_000);
    match rng.random_range(0..6) {
        0 => format!(
            "  - input_text: {{text: \"{}\", element_id: a}}\n",
            "a".repeat(n)
        ),
        1 => format!("{}: 1\n", "k".repeat(n)),
        2 => format!("steps: [{}]\n", vec!["{clik: a}"; n / 10].join(", ")),
        3 => format!("  - input_text: \"{}\"\n", "{{ X }}".repeat(n / 7)),
        4 => format!(
            "  - click: {{text: \"{}{{{{ UNDEFINED }}}}\"}}\n",
            "é".repeat(n)
        ),
        _ => format!("name: {}\n", "登".repeat(n / 3)),
    }
}

/// Applies one random mutation to `bytes`; returns its name (for failure reports).
pub(super) fn mutate(rng: &mut ChaCha8Rng, bytes: &mut Vec<u8>) -> &'static str {
    let at = |rng: &mut ChaCha8Rng, len: usize| rng.random_range(0..=len);
    let line_start = |bytes: &[u8], i: usize| {
        bytes[..i]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |p| p + 1)
    };
    match rng.random_range(0..10) {
        0 if !bytes.is_empty() => {
            for _ in 0..rng.random_range(1..8) {
                let i = rng.random_range(0..bytes.len());
                bytes[i] ^= rng.random_range(1..=255u8);
            }
            "byte flips"
        }
        1 if !bytes.is_empty() => {
            let i = rng.random_range(0..bytes.len());
            let n = rng.random_range(1..64).min(bytes.len() - i);
            bytes.drain(i..i + n);
            "deletion"
        }
        2 => {
            // Duplicate a run of lines, up to many times.
            let i = line_start(bytes, at(rng, bytes.len()));
            let mut j = i;
            for _ in 0..rng.random_range(1..5) {
                j = bytes[j..]
                    .iter()
                    .position(|b| *b == b'\n')
                    .map_or(bytes.len(), |p| j + p + 1);
            }
            let chunk = bytes[i..j].to_vec();
            let times = rng.random_range(1..200);
            for _ in 0..times {
                bytes.splice(j..j, chunk.iter().copied());
            }
            "duplicated lines"
        }
        3 => {
            const BAD: &[&[u8]] = &[
                b"\xff",
                b"\xc3",
                b"\xed\xa0\x80",
                b"\xc0\xaf",
                b"\xf4\x90\x80\x80",
                b"\xe2\x82",
                b"\x00",
            ];
            let i = at(rng, bytes.len());
            let bad = BAD[rng.random_range(0..BAD.len())];
            bytes.splice(i..i, bad.iter().copied());
            "invalid UTF-8"
        }
        4 => {
            let bomb = alias_bomb(rng);
            let i = line_start(bytes, at(rng, bytes.len()));
            bytes.splice(i..i, bomb.into_bytes());
            "alias bomb"
        }
        5 => {
            let deep = deep_nesting(rng);
            let i = line_start(bytes, at(rng, bytes.len()));
            bytes.splice(i..i, deep.into_bytes());
            "deep nesting"
        }
        6 => {
            let long = long_line(rng);
            let i = line_start(bytes, at(rng, bytes.len()));
            bytes.splice(i..i, long.into_bytes());
            "long line"
        }
        7 => {
            let i = at(rng, bytes.len());
            for _ in 0..rng.random_range(1..4) {
                let t = hostile_token(rng);
                bytes.splice(i..i, t.into_bytes());
            }
            "hostile tokens"
        }
        8 => {
            let i = at(rng, bytes.len());
            bytes.truncate(i);
            "truncation"
        }
        _ => {
            // A second document, or a document marker in the middle.
            let i = line_start(bytes, at(rng, bytes.len()));
            bytes.splice(i..i, b"---\nsteps: [click: OK]\n".iter().copied());
            "second document"
        }
    }
}
