//! `getopt_long` as the device's C library (musl) runs it, for the tools that parse their
//! options with it (`aa`, `bm`): short clusters (`-cd`), attached or separate values (`-nB`,
//! `-n B`), long options with exact or unique-prefix names (`--bundle-name B`, `--bundle=B`),
//! `--` ending the options, and musl's permutation (operands are skipped and moved behind the
//! options parsed so far, so `optind` keeps pointing at the first operand). `opterr` is 0 in
//! those tools, so nothing is printed here: the caller reads `Opt::Unknown` / `Opt::Missing`.
//!
//! The argv is owned and mutable (`args`), because `aa start` reads and reorders it while
//! parsing, as the real tool does.

/// Whether a long option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HasArg {
    No,
    Required,
}

/// One long option: name, value rule, the id returned for it.
#[derive(Debug, Clone, Copy)]
pub struct LongOpt {
    pub name: &'static str,
    pub has_arg: HasArg,
    pub id: i32,
}

/// What one call found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opt {
    /// An option (its character, or a long option's id) and its value.
    Found(i32, Option<String>),
    /// `'?'` with `optopt` = the option whose value is missing.
    Missing(i32),
    /// `'?'` with `optopt` = the unknown short option, or 0 for an unknown long option.
    Unknown(i32),
}

/// A getopt_long scan over `args` (`args[0]` is the program name).
#[derive(Debug, Clone)]
pub struct Getopt {
    pub args: Vec<String>,
    pub optind: usize,
    /// Position inside a short-option cluster (0 = at the start of `args[optind]`).
    pos: usize,
}

impl Getopt {
    pub fn new(args: Vec<String>) -> Self {
        Getopt {
            args,
            optind: 1,
            pos: 0,
        }
    }

    /// The next option, or `None` when the options end (musl returns -1).
    pub fn next(&mut self, short: &str, long: &[LongOpt]) -> Option<Opt> {
        if self.optind >= self.args.len() {
            return None;
        }
        let skipped = self.optind;
        // Skip operands: the next word that starts with `-` and is not `-` alone. musl scans on
        // every call, also in the middle of a cluster (`optind` was moved back to the operands).
        let i = (self.optind..self.args.len()).find(|&i| {
            let a = self.args[i].as_bytes();
            a.len() > 1 && a[0] == b'-'
        })?;
        self.optind = i;
        let resumed = self.optind;
        let ret = self.core(short, long);
        if resumed > skipped {
            // Move the words just parsed in front of the skipped operands.
            let cnt = self.optind - resumed;
            for _ in 0..cnt {
                let w = self.args.remove(self.optind - 1);
                self.args.insert(skipped, w);
            }
            self.optind = skipped + cnt;
        }
        ret
    }

    fn core(&mut self, short: &str, long: &[LongOpt]) -> Option<Opt> {
        let word = self.args[self.optind].clone();
        if self.pos == 0 && word.starts_with("--") {
            if word == "--" {
                self.optind += 1;
                return None;
            }
            return Some(self.long(&word[2..], long));
        }
        if self.pos == 0 {
            self.pos = 1;
        }
        // Characters, not bytes: a non-ASCII word must not split a code point.
        let chars: Vec<char> = word.chars().collect();
        let c = chars[self.pos];
        self.pos += 1;
        let rest: String = chars[self.pos..].iter().collect();
        let spec = short.find(c).filter(|_| c != ':');
        let Some(i) = spec else {
            self.end_cluster_if(rest.is_empty());
            return Some(Opt::Unknown(c as i32));
        };
        let after = &short[i + c.len_utf8()..];
        if !after.starts_with(':') {
            self.end_cluster_if(rest.is_empty());
            return Some(Opt::Found(c as i32, None));
        }
        // A value ends the cluster: attached (`-nB`), or the next word.
        self.end_cluster_if(true);
        if !rest.is_empty() {
            return Some(Opt::Found(c as i32, Some(rest)));
        }
        if after.starts_with("::") {
            return Some(Opt::Found(c as i32, None));
        }
        match self.args.get(self.optind) {
            Some(v) => {
                let v = v.clone();
                self.optind += 1;
                Some(Opt::Found(c as i32, Some(v)))
            }
            None => Some(Opt::Missing(c as i32)),
        }
    }

    fn end_cluster_if(&mut self, done: bool) {
        if done {
            self.optind += 1;
            self.pos = 0;
        }
    }

    fn long(&mut self, body: &str, long: &[LongOpt]) -> Opt {
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        self.optind += 1;
        let exact = long.iter().find(|o| o.name == name);
        let found = exact.or_else(|| {
            let mut hits = long.iter().filter(|o| o.name.starts_with(name));
            match (hits.next(), hits.next()) {
                (Some(one), None) => Some(one),
                _ => None,
            }
        });
        let Some(o) = found else {
            return Opt::Unknown(0);
        };
        match o.has_arg {
            HasArg::No => Opt::Found(o.id, None),
            HasArg::Required => match inline {
                Some(v) => Opt::Found(o.id, Some(v)),
                None => match self.args.get(self.optind) {
                    Some(v) => {
                        let v = v.clone();
                        self.optind += 1;
                        Opt::Found(o.id, Some(v))
                    }
                    None => Opt::Missing(o.id),
                },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    const LONG: &[LongOpt] = &[
        LongOpt {
            name: "bundle-name",
            has_arg: HasArg::Required,
            id: 'n' as i32,
        },
        LongOpt {
            name: "data",
            has_arg: HasArg::No,
            id: 'd' as i32,
        },
    ];

    fn all(v: &[&str]) -> (Vec<Opt>, Getopt) {
        let mut g = Getopt::new(argv(v));
        let mut out = Vec::new();
        while let Some(o) = g.next("hn:cdu:", LONG) {
            out.push(o);
        }
        (out, g)
    }

    #[test]
    fn clusters_values_and_long_names() {
        let (o, _) = all(&["bm", "clean", "-n", "B", "-dc"]);
        assert_eq!(
            o,
            vec![
                Opt::Found('n' as i32, Some("B".into())),
                Opt::Found('d' as i32, None),
                Opt::Found('c' as i32, None),
            ]
        );
        let (o, _) = all(&["bm", "clean", "-nB", "--data", "--bundle=C", "--bun", "D"]);
        assert_eq!(o[0], Opt::Found('n' as i32, Some("B".into())));
        assert_eq!(o[1], Opt::Found('d' as i32, None));
        assert_eq!(o[2], Opt::Found('n' as i32, Some("C".into())));
        assert_eq!(o[3], Opt::Found('n' as i32, Some("D".into())));
    }

    #[test]
    fn unknown_missing_and_permutation() {
        let (o, g) = all(&["bm", "clean", "-x", "-n"]);
        assert_eq!(o, vec![Opt::Unknown('x' as i32), Opt::Missing('n' as i32)]);
        assert_eq!(g.args, argv(&["bm", "-x", "-n", "clean"]));
        let (o, _) = all(&["bm", "clean", "--nope"]);
        assert_eq!(o, vec![Opt::Unknown(0)]);
        // Operands move behind the options: optind ends at the first operand.
        let (o, g) = all(&["bm", "clean", "x", "-d", "y", "-c"]);
        assert_eq!(o.len(), 2);
        assert_eq!(g.args, argv(&["bm", "-d", "-c", "clean", "x", "y"]));
        assert_eq!(g.optind, 3);
        // No option at all: optind stays at the first operand.
        let (o, g) = all(&["bm", "clean"]);
        assert!(o.is_empty());
        assert_eq!(g.optind, 1);
        // `--` ends the options.
        let (o, _) = all(&["bm", "--", "-d"]);
        assert!(o.is_empty());
    }
}
