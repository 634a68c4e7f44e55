//! The five rule sets shipped in `configs/rules/`, compiled in so the
//! binary works from any directory. A file of the same name in
//! `configs/rules/` under the working directory takes precedence, so edits
//! to those files take effect without rebuilding.

use crate::ruleset::{RuleSet, RulesError};
use std::path::Path;

/// (name, file text) of every built-in rule set.
pub const BUILTIN: [(&str, &str); 5] = [
    ("modern", include_str!("../../configs/rules/modern.toml")),
    ("ludii", include_str!("../../configs/rules/ludii.toml")),
    ("wtf", include_str!("../../configs/rules/wtf.toml")),
    (
        "wtf-plain",
        include_str!("../../configs/rules/wtf-plain.toml"),
    ),
    ("raven", include_str!("../../configs/rules/raven.toml")),
];

/// Where user rule files are looked up by name.
pub const RULES_DIR: &str = "configs/rules";

impl RuleSet {
    /// A built-in rule set by name (ignores files on disk).
    pub fn builtin(name: &str) -> Option<RuleSet> {
        BUILTIN.iter().find(|(n, _)| *n == name).map(|(n, text)| {
            RuleSet::from_toml(text, &format!("<built-in {n}.toml>"))
                .expect("built-in rule sets are valid")
        })
    }

    /// A rule set by name or path: a path to a `.toml` file; else
    /// `configs/rules/NAME.toml` if it exists; else a built-in.
    pub fn named(name_or_path: &str) -> Result<RuleSet, RulesError> {
        let p = Path::new(name_or_path);
        if name_or_path.ends_with(".toml") || p.components().count() > 1 {
            return RuleSet::from_file(p);
        }
        let local = Path::new(RULES_DIR).join(format!("{name_or_path}.toml"));
        if local.is_file() {
            return RuleSet::from_file(&local);
        }
        RuleSet::builtin(name_or_path).ok_or_else(|| RulesError::Unknown {
            name: name_or_path.to_string(),
            known: all_names().join(", "),
        })
    }
}

/// Built-in names plus any extra files in `configs/rules/`.
pub fn all_names() -> Vec<String> {
    let mut names: Vec<String> = BUILTIN.iter().map(|(n, _)| n.to_string()).collect();
    for n in crate::ruleset::list_names(Path::new(RULES_DIR)) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
}
