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
    /// The keys given, in order, each once, each value within its range
    /// (the spelling `Display` writes back).
    pub params: Vec<(String, String)>,
    /// The same values, typed, for the kind's players to use.
    pub settings: Settings,
}

/// What a spec sets, by kind; `None` leaves the player's default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Settings {
    Random,
    Human,
    AlphaBeta(AlphaBetaSettings),
    Mcts(MctsSpecSettings),
    Otep { cmd: String },
}

/// `alphabeta:` keys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AlphaBetaSettings {
    pub depth: Option<u32>,
    pub ms: Option<u64>,
    pub nodes: Option<u64>,
    /// Transposition table, MiB.
    pub tt: Option<usize>,
    pub threads: Option<usize>,
    /// A weights file.
    pub eval: Option<String>,
}

/// `mcts:` keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MctsSpecSettings {
    /// A model directory, or `uniform`.
    pub model: Option<String>,
    pub sims: Option<u32>,
    pub ms: Option<u64>,
    pub batch: Option<usize>,
    pub threads: Option<usize>,
    pub gumbel: Option<bool>,
    pub cpuct: Option<f32>,
    pub fpu: Option<f32>,
    pub vloss: Option<f32>,
    pub forks: Option<bool>,
    pub solver: Option<bool>,
    pub ml: Option<f32>,
    pub mlslope: Option<f32>,
    pub verify: Option<f32>,
    pub qnorm: Option<f32>,
    pub ptemp: Option<f32>,
}

/// `parse` keeps every float within its finite range, so equality is total.
impl Eq for MctsSpecSettings {}

impl Settings {
    fn empty(kind: PlayerKind) -> Settings {
        match kind {
            PlayerKind::Random => Settings::Random,
            PlayerKind::Human => Settings::Human,
            PlayerKind::AlphaBeta => Settings::AlphaBeta(AlphaBetaSettings::default()),
            PlayerKind::Mcts => Settings::Mcts(MctsSpecSettings::default()),
            PlayerKind::Otep => Settings::Otep { cmd: String::new() },
        }
    }

    /// Stores one checked key; `int` and `float` are its value read as a
    /// number (whichever its type is).
    fn set(&mut self, key: &str, text: &str, int: u64, float: f64) {
        let flag = int != 0;
        // Read as f32 from the text itself, as the players always have (a
        // detour through f64 could round differently).
        let float = text.parse::<f32>().unwrap_or(float as f32);
        match self {
            Settings::AlphaBeta(a) => match key {
                "depth" => a.depth = Some(int as u32),
                "ms" => a.ms = Some(int),
                "nodes" => a.nodes = Some(int),
                "tt" => a.tt = Some(int as usize),
                "threads" => a.threads = Some(int as usize),
                "eval" => a.eval = Some(text.to_string()),
                _ => {}
            },
            Settings::Mcts(m) => match key {
                "model" => m.model = Some(text.to_string()),
                "sims" => m.sims = Some(int.min(u32::MAX as u64) as u32),
                "ms" => m.ms = Some(int),
                "batch" => m.batch = Some(int as usize),
                "threads" => m.threads = Some(int as usize),
                "gumbel" => m.gumbel = Some(flag),
                "cpuct" => m.cpuct = Some(float),
                "fpu" => m.fpu = Some(float),
                "vloss" => m.vloss = Some(float),
                "forks" => m.forks = Some(flag),
                "solver" => m.solver = Some(flag),
                "ml" => m.ml = Some(float),
                "mlslope" => m.mlslope = Some(float),
                "verify" => m.verify = Some(float),
                "qnorm" => m.qnorm = Some(float),
                "ptemp" => m.ptemp = Some(float),
                _ => {}
            },
            Settings::Random | Settings::Human | Settings::Otep { .. } => {}
        }
    }
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
            ("qnorm", Float(0.0, 2.0)),
            ("ptemp", Float(0.1, 10.0)),
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
    ///   a moves-left output: `moves_left_effect`, `moves_left_slope`),
    ///   `qnorm=F` (stretch each node's move values onto −1..1, their
    ///   range taken as at least F wide: `q_normalize`), `ptemp=F` (raise
    ///   each prior to the power 1/F: `policy_temperature`) (defaults:
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
                settings: Settings::Otep {
                    cmd: rest.trim().to_string(),
                },
            });
        }
        let allowed = keys_of(kind);
        let mut params: Vec<(String, String)> = Vec::new();
        let mut settings = Settings::empty(kind);
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
            let (int, float) = match want {
                KeyKind::Int(lo, hi) => match v.parse::<u64>() {
                    Ok(n) if (*lo..=*hi).contains(&n) => (n, n as f64),
                    Ok(n) => return Err(err(format!("`{k}={n}`: out of range {lo}..={hi}"))),
                    Err(_) => return Err(err(format!("`{k}={v}`: expected a whole number"))),
                },
                KeyKind::Float(lo, hi) => match v.parse::<f64>() {
                    Ok(x) if (*lo..=*hi).contains(&x) => (0, x),
                    Ok(_) => return Err(err(format!("`{k}={v}`: out of range {lo}..={hi}"))),
                    Err(_) => return Err(err(format!("`{k}={v}`: expected a number"))),
                },
                KeyKind::Text if v.is_empty() => {
                    return Err(err(format!("`{k}=` needs a value")));
                }
                KeyKind::Text => (0, 0.0),
            };
            settings.set(k, v, int, float);
            params.push((k.to_string(), v.to_string()));
        }
        Ok(PlayerSpec {
            text: text.to_string(),
            kind,
            params,
            settings,
        })
    }

    /// The alpha-beta settings (defaults for any other kind).
    pub fn alphabeta(&self) -> AlphaBetaSettings {
        match &self.settings {
            Settings::AlphaBeta(a) => a.clone(),
            _ => AlphaBetaSettings::default(),
        }
    }

    /// The MCTS settings as the spec gives them (defaults for any other kind).
    pub fn mcts(&self) -> MctsSpecSettings {
        match &self.settings {
            Settings::Mcts(m) => m.clone(),
            _ => MctsSpecSettings::default(),
        }
    }

    /// The spec without `keys` (its other keys as given).
    pub fn without(&self, keys: &[&str]) -> Result<PlayerSpec, PlayerSpecError> {
        let kept = PlayerSpec {
            params: self
                .params
                .iter()
                .filter(|(k, _)| !keys.contains(&k.as_str()))
                .cloned()
                .collect(),
            ..self.clone()
        };
        PlayerSpec::parse(&kept.to_string())
    }

    /// The value of `key`, checked by `parse`.
    pub fn value(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether this player thinks for a time per move (`ms=`).
    pub fn is_timed(&self) -> bool {
        self.value("ms").is_some()
    }
}
