//! No module cycles inside any crate of the workspace: within a crate, the
//! top-level modules (the files and folders beside `lib.rs`) must depend
//! on each other one way only, as the crates do. A module depends on
//! another when its code (comments and unit-test files left out) names a
//! path `crate::other…`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates' source folders, from the workspace's member list.
fn crate_sources(root: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let doc: toml::Table = manifest.parse().unwrap();
    let members = doc["workspace"]["members"].as_array().unwrap();
    let mut out: Vec<PathBuf> = members
        .iter()
        .map(|m| root.join(m.as_str().unwrap()).join("src"))
        .collect();
    out.push(root.join("src"));
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level modules `text` names through `crate::`.
fn named_modules(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            group[..end].split(',').collect()
        } else {
            vec![rest]
        };
        for n in names {
            let ident: String = n
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if modules.contains(&ident) {
                found.insert(ident);
            }
        }
    }
    found
}

/// A cycle in `graph`, if there is one, as the modules along it.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|p| p == m).unwrap();
                    let mut c = path[start..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, graph, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_crate_has_a_module_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for src in crate_sources(root) {
        let mut modules = BTreeSet::new();
        for e in std::fs::read_dir(&src).unwrap() {
            let p = e.unwrap().path();
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            if stem != "lib"
                && stem != "main"
                && (p.is_dir() || p.extension().is_some_and(|x| x == "rs"))
            {
                modules.insert(stem);
            }
        }
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for m in &modules {
            let mut files = Vec::new();
            let dir = src.join(m);
            if dir.is_dir() {
                rust_files(&dir, &mut files);
            } else {
                files.push(src.join(format!("{m}.rs")));
            }
            let deps = graph.entry(m.clone()).or_default();
            for f in files {
                let name = f.file_name().unwrap().to_string_lossy();
                if name == "tests.rs" || name.ends_with("_tests.rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&f).unwrap();
                deps.extend(
                    named_modules(&text, &modules)
                        .into_iter()
                        .filter(|d| d != m),
                );
            }
        }
        if let Some(cycle) = find_cycle(&graph) {
            panic!("module cycle in {}: {}", src.display(), cycle.join(" -> "));
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} crates checked");
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mods: BTreeSet<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    assert_eq!(
        named_modules(
            "use crate::{a::X, b};\n// crate::c in a comment\nlet x = crate::c::f();",
            &mods
        ),
        mods
    );
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default();
    assert_eq!(find_cycle(&g), None);
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(find_cycle(&g).unwrap(), ["a", "b", "c", "a"]);
}
