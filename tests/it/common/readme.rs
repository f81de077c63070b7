//! The README's shell blocks, read from README.md itself, so that tests run what a user copies
//! (`tests/it/readme_commands.rs`, the stream demo in `tests/it/feed_nats.rs`).
#![allow(dead_code)]

use super::bin::repo;

/// The README's ```sh blocks, each as its logical lines (`\` continuations joined).
pub(crate) fn sh_blocks() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    let mut pending = String::new();
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, l) if l.starts_with("```sh") => current = Some(Vec::new()),
            (Some(_), l) if l.starts_with("```") => blocks.push(current.take().unwrap_or_default()),
            (Some(lines), _) => {
                if let Some(head) = line.strip_suffix('\\') {
                    pending.push_str(head);
                    pending.push(' ');
                } else {
                    pending.push_str(line);
                    let joined = std::mem::take(&mut pending);
                    if !joined.trim().is_empty() {
                        lines.push(joined.trim().to_string());
                    }
                }
            }
            (None, _) => {}
        }
    }
    blocks
}

/// The one block whose lines contain `marker` (the test fails loudly if the README lost it).
pub(crate) fn block(marker: &str) -> Vec<String> {
    let found: Vec<Vec<String>> = sh_blocks().into_iter().filter(|b| b.iter().any(|l| l.contains(marker))).collect();
    assert_eq!(found.len(), 1, "README: expected one sh block containing `{marker}`, found {}", found.len());
    found.into_iter().next().unwrap_or_default()
}

/// `cargo run [flags] -- ARGS` or `tonroute ARGS` → `"$TONROUTE" ARGS`.
pub(crate) fn as_binary(line: &str) -> String {
    if let Some(start) = line.find("cargo run") {
        if let Some(end) = line[start..].find(" -- ") {
            return format!("{}\"$TONROUTE\" {}", &line[..start], &line[start + end + 4..]);
        }
    }
    match line.strip_prefix("tonroute ") {
        Some(rest) => format!("\"$TONROUTE\" {rest}"),
        None => line.to_string(),
    }
}
