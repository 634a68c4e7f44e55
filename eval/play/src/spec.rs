//! Player specs (`KIND[:key=value,…]`): the grammar, its keys and their
//! ranges, and the error that names a bad spec.

/// A spec string that could not be used.
#[derive(Debug, thiserror::Error)]
#[error("player spec `{spec}`: {why}")]
pub struct PlayerSpecError {
    pub spec: String,
    pub why: String,
}

/// The kinds of player a spec names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlayerKind {
    Random,
    Human,
    AlphaBeta,
    Mcts,
    /// An external engine over the OpenTafl Engine Protocol.
    Otep,
}

impl PlayerKind {
    /// The kind's name in a spec (`alphabeta` also reads as `ab`).
    pub fn as_str(self) -> &'static str {
        match self {
            PlayerKind::Random => "random",
            PlayerKind::Human => "human",
            PlayerKind::AlphaBeta => "alphabeta",
            PlayerKind::Mcts => "mcts",
            PlayerKind::Otep => "otep",
        }
    }

    fn named(name: &str) -> Option<PlayerKind> {
        Some(match name {
            "random" => PlayerKind::Random,
            "human" => PlayerKind::Human,
            "alphabeta" | "ab" => PlayerKind::AlphaBeta,
            "mcts" => PlayerKind::Mcts,
            "otep" => PlayerKind::Otep,
            _ => return None,
        })
    }
}

impl std::fmt::Display for PlayerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A parsed player spec: `KIND[:key=value,key=value…]`, its keys checked
/// against the kind's and their values against their ranges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSpec {
    /// The text it was parsed from.
    pub text: String,
    pub kind: PlayerKind,
    /// The keys given, in order, each once, each value within its range.
    pub params: Vec<(String, String)>,
}

/// The canonical spelling: the kind's name, then its keys as given.
impl std::fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.kind == PlayerKind::Otep {
            return write!(f, "otep:{}", self.value("cmd").unwrap_or_default());
        }
        f.write_str(self.kind.as_str())?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

/// What a spec key's value must be.
enum KeyKind {
    /// A whole number in the range.
    Int(u64, u64),
    /// A number in the range.
    Float(f64, f64),
    /// A path or `uniform`.
    Text,
}

/// The keys each kind of player takes, with their values' types and ranges.
fn keys_of(kind: PlayerKind) -> &'static [(&'static str, KeyKind)] {
    use KeyKind::*;
    const DAY_MS: u64 = 86_400_000;
    match kind {
        PlayerKind::Random | PlayerKind::Human | PlayerKind::Otep => &[],
        PlayerKind::AlphaBeta => &[
            ("depth", Int(1, 64)),
            ("ms", Int(1, DAY_MS)),
            ("nodes", Int(1, 1_000_000_000_000)),
            ("tt", Int(1, 16_384)),
            ("threads", Int(1, 256)),
            ("eval", Text),
        ],
        PlayerKind::Mcts => &[
            ("model", Text),
            ("sims", Int(1, 100_000_000)),
            ("ms", Int(1, DAY_MS)),
            ("batch", Int(1, 1024)),
            ("threads", Int(1, 256)),
            ("gumbel", Int(0, 1)),
            ("cpuct", Float(0.01, 100.0)),
            ("fpu", Float(0.0, 2.0)),
            ("vloss", Float(0.0, 2.0)),
            ("forks", Int(0, 1)),
            ("solver", Int(0, 1)),
            ("ml", Float(0.0, 1.0)),
            ("mlslope", Float(0.0, 1.0)),
            ("verify", Float(0.0, 0.9)),
        ],
    }
}

impl PlayerSpec {
    /// The spec text with `key`'s value replaced (or appended when absent).
    pub fn with_value(&self, key: &str, value: &str) -> String {
        let mut params = self.params.clone();
        match params.iter_mut().find(|(k, _)| k == key) {
            Some(p) => p.1 = value.to_string(),
            None => params.push((key.to_string(), value.to_string())),
        }
        PlayerSpec {
            params,
            ..self.clone()
        }
        .to_string()
    }

    /// Parses and checks a spec; every command accepts the same strings.
    ///
    /// - `random`
    /// - `human`
    /// - `alphabeta:depth=N`, `alphabeta:ms=N`, `alphabeta:nodes=N` (any
    ///   mix; with none, depth 4), plus `tt=MiB` (default 16),
    ///   `threads=N` (a Lazy SMP search on N threads; default every core
    ///   when `ms` is given, else 1, so that depth and node limits give the
    ///   same search every time) and `eval=FILE.toml` (weights; default
    ///   `configs/eval/RULES.toml` where one exists, else
    ///   `configs/eval/default.toml`).
    /// - `mcts:model=DIR|uniform` (default uniform) with `sims=N` and/or
    ///   `ms=T` (whichever comes first; with neither, 400 simulations),
    ///   `batch=N` leaves per evaluation (default 8, at most a 32nd of
    ///   `sims`), `threads=N` evaluating (default all cores), and the MCTS
    ///   settings `cpuct=F`, `fpu=F`, `gumbel=0|1`, `vloss=F`, `forks=0|1`
    ///   (count a king's escape fork as won: `escape_forks`), `solver=0|1`
    ///   (prove wins and losses in the tree: `solver`), `ml=F` and
    ///   `mlslope=F` (the moves-left utility's cap and slope, for nets with
    ///   a moves-left output: `moves_left_effect`, `moves_left_slope`) (defaults:
    ///   `MctsConfig::default()`), and `verify=F` (with `ms=T` or a clock:
    ///   keep this share of each move's time for an alpha-beta check that
    ///   the chosen move does not lose by force; default 0).
    /// - `otep:COMMAND LINE`: an external OpenTafl Engine Protocol engine,
    ///   the rest of the spec its command line (split at whitespace; a
    ///   first word `brandubh` is this program).
    pub fn parse(text: &str) -> Result<PlayerSpec, PlayerSpecError> {
        let err = |why: String| PlayerSpecError {
            spec: text.to_string(),
            why,
        };
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let Some(kind) = PlayerKind::named(name) else {
            return Err(err(
                "unknown player (known: random, human, alphabeta, mcts, otep)".into(),
            ));
        };
        if kind == PlayerKind::Otep {
            // The rest is a command line, commas and colons included.
            if rest.trim().is_empty() {
                return Err(err("`otep:` needs the engine's command line".into()));
            }
            return Ok(PlayerSpec {
                text: text.to_string(),
                kind,
                params: vec![("cmd".into(), rest.trim().to_string())],
            });
        }
        let allowed = keys_of(kind);
        let mut params: Vec<(String, String)> = Vec::new();
        for part in rest.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| err(format!("`{part}` is not key=value")))?;
            let (k, v) = (k.trim(), v.trim());
            let Some((_, want)) = allowed.iter().find(|(name, _)| *name == k) else {
                let names: Vec<&str> = allowed.iter().map(|(n, _)| *n).collect();
                return Err(err(format!(
                    "`{name}` takes no `{k}` (it takes: {})",
                    if names.is_empty() {
                        "nothing".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            };
            if params.iter().any(|(seen, _)| seen == k) {
                return Err(err(format!("`{k}` is given twice")));
            }
            match want {
                KeyKind::Int(lo, hi) => match v.parse::<u64>() {
                    Ok(n) if (*lo..=*hi).contains(&n) => {}
                    Ok(n) => return Err(err(format!("`{k}={n}`: out of range {lo}..={hi}"))),
                    Err(_) => return Err(err(format!("`{k}={v}`: expected a whole number"))),
                },
                KeyKind::Float(lo, hi) => match v.parse::<f64>() {
                    Ok(x) if (*lo..=*hi).contains(&x) => {}
                    Ok(_) => return Err(err(format!("`{k}={v}`: out of range {lo}..={hi}"))),
                    Err(_) => return Err(err(format!("`{k}={v}`: expected a number"))),
                },
                KeyKind::Text if v.is_empty() => {
                    return Err(err(format!("`{k}=` needs a value")));
                }
                KeyKind::Text => {}
            }
            params.push((k.to_string(), v.to_string()));
        }
        Ok(PlayerSpec {
            text: text.to_string(),
            kind,
            params,
        })
    }

    /// The value of `key`, checked by `parse`.
    pub fn value(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn num(&self, key: &str) -> Option<u64> {
        self.value(key)
            .map(|v| v.parse().expect("checked by parse"))
    }

    pub(crate) fn float(&self, key: &str) -> Option<f32> {
        self.value(key)
            .map(|v| v.parse().expect("checked by parse"))
    }

    /// Whether this player thinks for a time per move (`ms=`).
    pub fn is_timed(&self) -> bool {
        self.value("ms").is_some()
    }
}
