//! The engine side (`brandubh engine`): reads the host's commands line by
//! line and answers on its output, which carries nothing but protocol.

use super::wire::*;
use crate::clock::GameClock;
use crate::context::PlayContext;
use crate::{player::Player, spec::PlayerSpec};
use brandubh_rules::{
    from_opentafl, opentafl_rules, Board, Game, MoveRecord, Position, RuleSet, Side,
};
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

/// What the engine does after a command.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// The engine side of the protocol.
pub struct Engine<W: Write> {
    out: W,
    spec: PlayerSpec,
    seed: u64,
    /// Played in full when the host sends exactly its OpenTafl string (a
    /// string cannot carry every option of ours).
    prefer: Vec<Arc<RuleSet>>,
    rules: Option<Arc<RuleSet>>,
    game: Option<Game>,
    player: Option<Box<dyn Player>>,
    /// Each side's clock from the last `clock` command.
    clocks: Option<[GameClock; 2]>,
    games: u64,
    /// Where the player's net and workers come from.
    ctx: Arc<PlayContext>,
}

impl<W: Write> Engine<W> {
    /// An engine that plays `spec` (any player but `human` and `otep:`).
    pub fn new(
        out: W,
        spec: PlayerSpec,
        seed: u64,
        prefer: Vec<Arc<RuleSet>>,
        ctx: Arc<PlayContext>,
    ) -> Engine<W> {
        Engine {
            out,
            spec,
            seed,
            prefer,
            rules: None,
            game: None,
            player: None,
            clocks: None,
            games: 0,
            ctx,
        }
    }

    /// Says hello, then answers commands until `goodbye` or the end of input.
    pub fn run<R: BufRead>(&mut self, input: R) -> std::io::Result<()> {
        self.send("hello")?;
        for line in input.lines() {
            let line = match line {
                Ok(l) => l,
                // Bytes that are not UTF-8: answer and read on.
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    self.send("error 0 input is not UTF-8 text")?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            if self.handle(&line)? == Flow::Quit {
                break;
            }
        }
        Ok(())
    }

    fn send(&mut self, line: &str) -> std::io::Result<()> {
        writeln!(self.out, "{line}")?;
        self.out.flush()
    }

    fn error(&mut self, why: &str) -> std::io::Result<Flow> {
        // One line: the host reads line by line.
        let why = why.replace(['\n', '\r'], " ");
        self.send(&format!("error 0 {why}"))?;
        Ok(Flow::Continue)
    }

    /// Answers one command line.
    pub fn handle(&mut self, line: &str) -> std::io::Result<Flow> {
        let line = line.trim();
        let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        match cmd {
            "" | "hello" | "start" | "simple-moves" | "status" | "move" => Ok(Flow::Continue),
            "goodbye" => Ok(Flow::Quit),
            "rules" => self.rules(rest),
            "position" => self.position(rest),
            "side" => match parse_side(rest) {
                Some(_) => Ok(Flow::Continue),
                None => self.error(&format!("side: `{rest}` is not attackers or defenders")),
            },
            "clock" => self.clock(rest),
            "play" => self.play(rest),
            "opponent-move" => self.opponent_move(rest),
            "analyze" => self.analyze(rest),
            "finish" => self.finish(),
            // The host refused our last move: nothing to do but say so.
            "error" => {
                eprintln!("host reports error {rest}");
                Ok(Flow::Continue)
            }
            _ => {
                let shown: String = cmd.chars().take(40).collect();
                self.error(&format!("unknown command `{shown}`"))
            }
        }
    }

    fn new_game(&mut self) {
        self.game = self.rules.as_ref().map(|r| Game::new(r.clone()));
        self.player = None;
        self.clocks = None;
        self.games += 1;
    }

    /// After `finish`: a fresh player for the next game, built at once.
    fn finish(&mut self) -> std::io::Result<Flow> {
        self.new_game();
        if self.rules.is_some() {
            if let Err(e) = self.ensure_player() {
                return self.error(&format!("player: {e}"));
            }
        }
        Ok(Flow::Continue)
    }

    fn rules(&mut self, text: &str) -> std::io::Result<Flow> {
        let host = match from_opentafl(text) {
            Ok(r) => Arc::new(r),
            Err(e) => {
                self.rules = None;
                self.game = None;
                self.player = None;
                return self.error(&format!("rules not supported: {e}"));
            }
        };
        let rules = match self.choose_rules(text, &host) {
            Ok(r) => r,
            Err(why) => {
                self.rules = None;
                self.game = None;
                return self.error(&format!("player: {why}"));
            }
        };
        self.rules = Some(rules);
        self.new_game();
        // Built now, before the clock runs on the first `play`.
        if let Err(e) = self.ensure_player() {
            return self.error(&format!("player: {e}"));
        }
        Ok(Flow::Continue)
    }

    fn position(&mut self, text: &str) -> std::io::Result<Flow> {
        let Some(rules) = self.rules.clone() else {
            return self.error("position before rules");
        };
        let record = text.split_whitespace().next().unwrap_or("");
        let side = self
            .game
            .as_ref()
            .map_or(rules.options.first_to_move, |g| g.side_to_move());
        match Self::from_record(&rules, record, side) {
            Ok(g) => {
                self.game = Some(g);
                Ok(Flow::Continue)
            }
            Err(e) => self.error(&format!("position: {e}")),
        }
    }

    fn from_record(rules: &Arc<RuleSet>, record: &str, side: Side) -> Result<Game, String> {
        let board = Board::from_record(record).map_err(|e| e.to_string())?;
        Self::from_board(rules, board, side)
    }

    fn from_board(rules: &Arc<RuleSet>, board: Board, side: Side) -> Result<Game, String> {
        let pos = Position::from_board(rules, board, side).map_err(|e| e.to_string())?;
        Ok(Game::from_position(rules.clone(), pos))
    }

    fn clock(&mut self, text: &str) -> std::io::Result<Flow> {
        let parts: Vec<&str> = text.split_whitespace().collect();
        let parsed = (parts.len() >= 5)
            .then(|| {
                let a = clock_value(parts[0])?;
                let d = clock_value(parts[1])?;
                let ot = parts[2].parse::<u64>().ok()?;
                let ao = parts[3].parse::<u32>().ok()?;
                let dov = parts[4].parse::<u32>().ok()?;
                Some((a, d, ot, ao, dov))
            })
            .flatten();
        let Some((a, d, ot, ao, dov)) = parsed else {
            return self.error(&format!(
                "clock: expected `clock ATTACKER-MS DEFENDER-MS OVERTIME-S ATTACKER-PERIODS DEFENDER-PERIODS`, got `{text}`"
            ));
        };
        let one = |(ms, over): (i64, bool), periods: u32| {
            // -1: no main time; the overtime periods (if any) are the clock.
            // Values beyond a day are taken as a day.
            let ms = Duration::from_millis(ms.clamp(0, DAY_MS) as u64);
            let period = Duration::from_secs(ot.min(DAY_MS as u64 / 1000));
            let periods = periods.min(1000);
            if over {
                GameClock {
                    remaining: Duration::ZERO,
                    overtime: ms.min(period).max(Duration::from_millis(1)),
                    overtime_periods: periods.max(1),
                    ..GameClock::default()
                }
            } else {
                GameClock {
                    remaining: ms,
                    overtime: period,
                    overtime_periods: periods,
                    ..GameClock::default()
                }
            }
        };
        let clocks = [one(a, ao), one(d, dov)];
        let no_time = |c: &GameClock| c.remaining.is_zero() && c.overtime_periods == 0;
        // A clock with neither side's time (both -1, no overtime): untimed.
        self.clocks = (!clocks.iter().all(no_time)).then_some(clocks);
        Ok(Flow::Continue)
    }

    /// The rule set to play for the host's string: a `--rules` set with
    /// exactly that string; else one of our named sets whose string means
    /// the same rules (it differs from the host's only in what a string
    /// cannot carry) and that the player can play (a net plays only its
    /// own rule set); else the rules as OpenTafl means them. A net that
    /// fits none of these is refused, naming its rule set and how it
    /// differs from the host's.
    fn choose_rules(&self, text: &str, host: &Arc<RuleSet>) -> Result<Arc<RuleSet>, String> {
        let same_string = |r: &RuleSet| {
            from_opentafl(&opentafl_rules(r).0).is_ok_and(|parsed| parsed.hash == host.hash)
        };
        let named: Vec<Arc<RuleSet>> = brandubh_rules::BUILTIN
            .iter()
            .filter_map(|(n, _)| RuleSet::builtin(n).map(Arc::new))
            .collect();
        let mut candidates: Vec<Arc<RuleSet>> = self
            .prefer
            .iter()
            .filter(|r| opentafl_rules(r).0 == text)
            .cloned()
            .collect();
        candidates.extend(named.iter().filter(|r| same_string(r)).cloned());
        candidates.push(host.clone());
        let mut first_error = None;
        for r in &candidates {
            match self.build_player(r) {
                Ok(_) => return Ok(r.clone()),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        let why = first_error.unwrap_or_default();
        // A net for one of our rule sets: say which, and what differs.
        for r in &named {
            if self.build_player(r).is_ok() {
                let theirs: Vec<String> = host.describe();
                let differs: Vec<String> = r
                    .describe()
                    .into_iter()
                    .filter(|l| !theirs.contains(l))
                    .collect();
                return Err(format!(
                    "the net plays rule set `{}`, and the host's rules differ from it (`{}` has: {}); its OpenTafl string is {}",
                    r.name(),
                    r.name(),
                    if differs.is_empty() {
                        "nothing else".to_string()
                    } else {
                        differs.join("; ")
                    },
                    opentafl_rules(r).0
                ));
            }
        }
        Err(why)
    }

    fn build_player(&self, rules: &Arc<RuleSet>) -> Result<Box<dyn Player>, String> {
        let seed = brandubh_rules::splitmix64(self.seed ^ self.games);
        self.spec
            .build(rules, seed, &self.ctx)
            .map_err(|e| e.to_string())
    }

    fn ensure_player(&mut self) -> Result<(), String> {
        if self.player.is_some() {
            return Ok(());
        }
        let rules = self.rules.clone().ok_or("no rules yet")?;
        let seed = brandubh_rules::splitmix64(self.seed ^ self.games);
        let player = self
            .spec
            .build(&rules, seed, &self.ctx)
            .map_err(|e| e.to_string())?;
        self.player = Some(player);
        Ok(())
    }

    fn play(&mut self, text: &str) -> std::io::Result<Flow> {
        let Some(side) = parse_side(text) else {
            return self.error(&format!("play: `{text}` is not attackers or defenders"));
        };
        let Some(mut game) = self.game.take() else {
            return self.error("play before rules (or the rules were refused)");
        };
        if game.side_to_move() != side {
            // The host says the other side is to move: take its word, from
            // the present board.
            let rules = game.rules().clone();
            match Self::from_board(&rules, *game.position().board(), side) {
                Ok(g) => game = g,
                Err(e) => {
                    self.game = Some(game);
                    return self.error(&format!("play: cannot give the move to {side}: {e}"));
                }
            }
        }
        if game.is_over() {
            self.game = Some(game);
            return self.error("play: the game is over");
        }
        if let Err(e) = self.ensure_player() {
            self.game = Some(game);
            return self.error(&format!("play: {e}"));
        }
        let clock = self.clocks.map(|c| c[side.index()]);
        let player = self.player.as_mut().expect("just built");
        let mv = match player.choose(&game, clock.as_ref()) {
            Ok(mv) => mv,
            Err(f) => {
                self.game = Some(game);
                let line = format!("error -1 {}", f.detail.replace('\n', " "));
                self.send(&line)?;
                return Ok(Flow::Continue);
            }
        };
        let captured = game.play(mv).expect("players return legal moves");
        self.game = Some(game);
        self.send(&format!("move {}", MoveRecord::new(mv, captured)))?;
        Ok(Flow::Continue)
    }

    fn opponent_move(&mut self, text: &str) -> std::io::Result<Flow> {
        let Some(mut game) = self.game.take() else {
            return self.error("opponent-move before rules");
        };
        let mut parts = text.split_whitespace();
        let moves = parts.next().unwrap_or("");
        let record = parts.next();
        let mut trouble = None;
        for m in moves.split('|').filter(|m| !m.is_empty()) {
            let played = m
                .parse::<MoveRecord>()
                .map_err(|e| e.to_string())
                .and_then(|rec| game.play(rec.mv).map_err(|e| format!("`{m}`: {e}")));
            if let Err(e) = played {
                trouble = Some(e);
                break;
            }
        }
        // The host's board decides: resynchronise when ours differs.
        if let Some(record) = record {
            if game.position().board().to_record() != record {
                let rules = game.rules().clone();
                let side = game.side_to_move();
                match Self::from_record(&rules, record, side) {
                    Ok(g) => {
                        game = g;
                        trouble = None;
                    }
                    Err(e) => trouble = Some(format!("position `{record}`: {e}")),
                }
            }
        }
        self.game = Some(game);
        match trouble {
            Some(e) => self.error(&format!("opponent-move: {e}")),
            None => Ok(Flow::Continue),
        }
    }

    fn analyze(&mut self, text: &str) -> std::io::Result<Flow> {
        let mut parts = text.split_whitespace();
        let n = parts.next().and_then(|p| p.parse::<usize>().ok());
        let secs = parts.next().and_then(|p| p.parse::<u64>().ok());
        let (Some(n), Some(secs)) = (n, secs) else {
            return self.error(&format!(
                "analyze: expected `analyze MOVES SECONDS`, got `{text}`"
            ));
        };
        let Some(game) = self.game.clone() else {
            return self.error("analyze before rules");
        };
        if game.is_over() {
            return self.error("analyze: the game is over");
        }
        if let Err(e) = self.ensure_player() {
            return self.error(&format!("analyze: {e}"));
        }
        let time = Duration::from_secs(secs.clamp(1, 3600));
        let player = self.player.as_mut().expect("just built");
        let lines = player.analyse_lines(&game, time, n.clamp(1, 64));
        let mut out = format!("analysis {}", lines.len());
        for (line, value) in &lines {
            let moves: Vec<String> = line.iter().map(|m| m.to_string()).collect();
            out.push_str(&format!(" {} {value}", moves.join("|")));
        }
        self.send(&out)?;
        Ok(Flow::Continue)
    }
}
