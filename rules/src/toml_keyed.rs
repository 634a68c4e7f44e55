//! Deserialising TOML with the failing key named: the `toml` crate's own
//! message ("invalid type: string, expected usize") does not say which key
//! it is about, and every config file of ours is read through this.

use serde::de::DeserializeOwned;

/// Where a TOML document failed to deserialise, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", key.as_deref().unwrap_or("(top level)"), line.map(|l| format!(" (line {l})")).unwrap_or_default())]
pub struct TomlProblem {
    /// The dotted key (`mcts.temperature`); none for a syntax error or a
    /// problem with the document as a whole.
    pub key: Option<String>,
    /// The 1-based line, when the parser knows it.
    pub line: Option<usize>,
    pub message: String,
}

/// Deserialises `text`, naming the key and line of the first problem.
pub fn from_toml<T: DeserializeOwned>(text: &str) -> Result<T, TomlProblem> {
    let line_of = |e: &toml::de::Error| {
        e.span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
    };
    let de = toml::Deserializer::parse(text).map_err(|e| TomlProblem {
        key: None,
        line: line_of(&e),
        message: e.message().trim().to_string(),
    })?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        TomlProblem {
            key: (key != ".").then_some(key),
            line: line_of(&inner),
            message: inner.message().trim().to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        #[allow(dead_code)]
        games: usize,
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        #[allow(dead_code)]
        name: String,
        #[allow(dead_code)]
        inner: Inner,
    }

    #[test]
    fn the_problem_names_its_key_and_line() {
        let e = from_toml::<Outer>("name = \"x\"\n[inner]\ngames = \"many\"\n").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("inner.games"));
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("usize"), "{e}");
        assert!(e.to_string().starts_with("inner.games (line 3): "), "{e}");
        let e = from_toml::<Outer>("name = \"x\"\n[inner\n").unwrap_err();
        assert_eq!((e.key, e.line), (None, Some(2)));
        let e = from_toml::<Outer>("name = \"x\"\n[inner]\ngames = 1\nmore = 2\n").unwrap_err();
        assert!(e.to_string().contains("more"), "{e}");
        assert!(from_toml::<Outer>("name = \"x\"\n[inner]\ngames = 1\n").is_ok());
    }
}
