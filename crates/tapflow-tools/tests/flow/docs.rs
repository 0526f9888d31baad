//! The generated blocks of the docs match the code: the shorthand table of
//! `docs/flow-format.md` (from the tool registry) and the code tables of `docs/errors.md` (from
//! `src/codes.rs`, the one list of codes). `TAPFLOW_BLESS=1 cargo test -p tapflow-tools --test flow`
//! rewrites them after an intended change.

use std::path::Path;

use tapflow_tools::RegistryCatalog;

/// Replaces (when blessing) or checks the block between `begin` and `end` of `doc`.
fn generated_block(doc: &str, begin: &str, end: &str, fresh: &str) {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(doc);
    let text = std::fs::read_to_string(&path).unwrap();
    let (head, rest) = text
        .split_once(begin)
        .unwrap_or_else(|| panic!("{doc} has no `{begin}`"));
    let (block, tail) = rest
        .split_once(end)
        .unwrap_or_else(|| panic!("{doc} has no `{end}`"));
    if block.trim() == fresh.trim() {
        return;
    }
    if std::env::var_os("TAPFLOW_BLESS").is_some() {
        std::fs::write(
            &path,
            format!("{head}{begin}\n{}\n{end}{tail}", fresh.trim()),
        )
        .unwrap();
        return;
    }
    panic!(
        "{doc}: the generated block is stale; rerun with TAPFLOW_BLESS=1\n{}",
        pretty_assertions::StrComparison::new(block.trim(), fresh.trim())
    );
}

#[test]
fn flow_format_shorthand_table_is_the_registrys() {
    use tapflow_core::plan::flow_docs::{BEGIN, END, shorthand_table};
    let table = shorthand_table(&RegistryCatalog::builtin());
    assert!(
        table.contains("| `click` | `text` | `tapOn`, `tap`, `doubleTapOn` (with `count: 2`) |")
    );
    assert!(table.contains("| `query_package` | — (give a mapping) | — |"));
    generated_block("docs/flow-format.md", BEGIN, END, &table);
}

#[test]
fn errors_md_lists_every_code_of_the_one_list() {
    use tapflow_core::codes::{ALL, BEGIN, END, diag, markdown};
    let tables = markdown();
    for c in ALL {
        assert!(tables.contains(&format!("| `{}` |", c.code)), "{}", c.code);
    }
    for d in diag::ALL {
        assert!(tables.contains(&format!("| `{}` |", d.code)), "{}", d.code);
    }
    generated_block("docs/errors.md", BEGIN, END, &tables);
}
