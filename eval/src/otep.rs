//! The OpenTafl Engine Protocol (OTEP), both ways.
//!
//! [`Engine`] is the engine side (`brandubh engine`): it reads the host's
//! commands line by line and answers on its output, which carries nothing
//! but protocol. [`OtepPlayer`] is the host side: a [`Player`] that runs any
//! OTEP engine as a child process (`otep:CMD` player specs), checks every
//! move it sends, and forfeits the game when the engine crashes, hangs past
//! its clock or answers nonsense.
//!
//! Where OpenTafl's protocol text and its code differ we follow the code:
//! `clock` carries milliseconds (a `*` marks a side in overtime), and
//! `opponent-move` may carry several moves joined by `|`.

use crate::ending::ForfeitReason;
use crate::player::{Forfeit, Player, PlayerSpec};
use crate::search::time::GameClock;
use brandubh_rules::{
    from_opentafl, opentafl_rules, Board, Game, Move, MoveRecord, Position, RuleSet, Side,
};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn side_word(side: Side) -> &'static str {
    match side {
        Side::Attackers => "attackers",
        Side::Defenders => "defenders",
    }
}

fn parse_side(word: &str) -> Option<Side> {
    match word {
        "attackers" => Some(Side::Attackers),
        "defenders" => Some(Side::Defenders),
        _ => None,
    }
}

/// One side's time from a `clock` value: milliseconds, `*` when the side is
/// in overtime (the value is then what is left of the current period).
fn clock_value(text: &str) -> Option<(i64, bool)> {
    let (num, over) = match text.strip_suffix('*') {
        Some(n) => (n, true),
        None => (text, false),
    };
    num.parse::<i64>().ok().map(|v| (v, over))
}

const DAY_MS: i64 = 86_400_000;

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
}

impl<W: Write> Engine<W> {
    /// An engine that plays `spec` (any player but `human` and `otep:`).
    pub fn new(out: W, spec: PlayerSpec, seed: u64, prefer: Vec<Arc<RuleSet>>) -> Engine<W> {
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
        let preferred = self
            .prefer
            .iter()
            .find(|r| opentafl_rules(r).0 == text)
            .cloned();
        let rules = match preferred {
            Some(r) => r,
            None => match from_opentafl(text) {
                Ok(r) => Arc::new(r),
                Err(e) => {
                    self.rules = None;
                    self.game = None;
                    self.player = None;
                    return self.error(&format!("rules not supported: {e}"));
                }
            },
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

    fn ensure_player(&mut self) -> Result<(), String> {
        if self.player.is_some() {
            return Ok(());
        }
        let rules = self.rules.clone().ok_or("no rules yet")?;
        let seed = brandubh_rules::splitmix64(self.seed ^ self.games);
        let player = self.spec.build(&rules, seed).map_err(|e| e.to_string())?;
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
        let mv = match player.try_choose(&game, clock.as_ref()) {
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

/// How long an engine may take for a move when no clock is kept.
pub const NO_CLOCK_TIMEOUT: Duration = Duration::from_secs(300);
/// How long an engine may take to say `hello`.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(60);
/// Time an engine may run past its clock before the host gives up on it.
pub const CLOCK_GRACE: Duration = Duration::from_secs(2);

/// An external OTEP engine as a player.
pub struct OtepPlayer {
    spec: String,
    rules: Arc<RuleSet>,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Plies of the game the engine has been told of (or played itself).
    told: usize,
    /// Whether the engine has been told its side and the start.
    started: bool,
    /// A failure at start, reported on the first move.
    broken: Option<String>,
}

/// An engine that could not be started. (An engine that starts but then
/// fails forfeits its games instead: see `Player::try_choose`.)
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpawnError {
    #[error("empty engine command")]
    EmptyCommand,
    #[error("cannot find this program: {0}")]
    NoSelf(String),
    #[error("cannot start `{command}`: {why}")]
    Start { command: String, why: String },
}

impl OtepPlayer {
    /// Starts `command` (split at whitespace; a first word `brandubh` is
    /// this program) and waits for its `hello`.
    pub fn spawn(spec: &str, command: &str, rules: Arc<RuleSet>) -> Result<OtepPlayer, SpawnError> {
        let mut words = command.split_whitespace();
        let program = words.next().ok_or(SpawnError::EmptyCommand)?;
        let program = if program == "brandubh" {
            std::env::current_exe().map_err(|e| SpawnError::NoSelf(e.to_string()))?
        } else {
            program.into()
        };
        let mut child = Command::new(&program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| SpawnError::Start {
                command: command.to_string(),
                why: e.to_string(),
            })?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(l).is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
        });
        let mut p = OtepPlayer {
            spec: spec.to_string(),
            rules,
            child,
            stdin,
            lines: rx,
            told: 0,
            started: false,
            broken: None,
        };
        let deadline = Instant::now() + HELLO_TIMEOUT;
        loop {
            match p.next_line(deadline) {
                Ok(l) if l.trim() == "hello" => break,
                Ok(_) => continue,
                Err(e) => {
                    p.broken = Some(format!("no hello: {e}"));
                    return Ok(p);
                }
            }
        }
        // The rules now, so that the engine sets up before the first move's
        // clock runs.
        let (text, _) = opentafl_rules(&p.rules);
        if let Err(e) = p.send(&format!("rules {text}")) {
            p.broken = Some(e);
        }
        Ok(p)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| format!("cannot write to the engine: {e}"))
    }

    fn next_line(&mut self, deadline: Instant) -> Result<String, String> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => Err("no answer in time".into()),
            Err(RecvTimeoutError::Disconnected) => {
                let status = self
                    .child
                    .try_wait()
                    .ok()
                    .flatten()
                    .map_or("closed its output".to_string(), |s| format!("exited ({s})"));
                Err(format!("the engine {status}"))
            }
        }
    }

    fn clock_line(clock: &GameClock) -> String {
        let (ms, star) = if clock.remaining.is_zero() && clock.overtime_periods > 0 {
            (clock.overtime.as_millis(), "*")
        } else {
            (clock.remaining.as_millis(), "")
        };
        let t = format!("{ms}{star}");
        format!(
            "clock {t} {t} {} {} {}",
            clock.overtime.as_secs(),
            clock.overtime_periods,
            clock.overtime_periods
        )
    }

    fn ask(&mut self, game: &Game, clock: Option<&GameClock>) -> Result<Move, Forfeit> {
        let fail = |detail: String| Forfeit {
            reason: ForfeitReason::EngineFailure,
            detail,
        };
        if let Some(why) = &self.broken {
            return Err(fail(why.clone()));
        }
        let side = game.side_to_move();
        if !self.started {
            let (text, _) = opentafl_rules(&self.rules);
            self.send(&format!("rules {text}")).map_err(fail)?;
            self.send(&format!("side {}", side_word(side)))
                .map_err(fail)?;
            self.send("start").map_err(fail)?;
            self.started = true;
        }
        let plies = game.plies();
        if plies.len() > self.told {
            let moves: Vec<String> = plies[self.told..]
                .iter()
                .map(|p| p.record().to_string())
                .collect();
            let record = game.position().board().to_record();
            self.send(&format!("opponent-move {} {record}", moves.join("|")))
                .map_err(fail)?;
        }
        if let Some(c) = clock {
            self.send(&Self::clock_line(c)).map_err(fail)?;
        }
        self.send(&format!("play {}", side_word(side)))
            .map_err(fail)?;
        let limit = match clock {
            Some(c) => c.remaining + c.overtime * c.overtime_periods.max(1) + CLOCK_GRACE,
            None => NO_CLOCK_TIMEOUT,
        };
        let deadline = Instant::now() + limit;
        loop {
            let line = self.next_line(deadline).map_err(fail)?;
            let line = line.trim();
            let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
            match cmd {
                "move" => {
                    let rest = rest.trim();
                    if rest == "---" {
                        return Err(fail("the engine resigned".into()));
                    }
                    let rec: MoveRecord = rest
                        .parse()
                        .map_err(|e| fail(format!("unreadable move: {e}")))?;
                    let mut probe = game.clone();
                    if let Err(e) = probe.play(rec.mv) {
                        return Err(Forfeit {
                            reason: ForfeitReason::IllegalMove,
                            detail: format!("the engine played `{rest}`: {e}"),
                        });
                    }
                    self.told = plies.len() + 1;
                    return Ok(rec.mv);
                }
                "error" if rest.trim_start().starts_with("-1") => {
                    return Err(fail(format!("the engine gave up: {line}")));
                }
                // Requests the host answers, as OpenTafl does.
                "rules" => {
                    let (text, _) = opentafl_rules(&self.rules);
                    self.send(&format!("rules {text}")).map_err(fail)?;
                }
                "position" => {
                    let record = game.position().board().to_record();
                    self.send(&format!("position {record}")).map_err(fail)?;
                }
                "side" => {
                    self.send(&format!("side {}", side_word(side)))
                        .map_err(fail)?;
                }
                "clock" => {
                    if let Some(c) = clock {
                        self.send(&Self::clock_line(c)).map_err(fail)?;
                    }
                }
                // status, analysis, hello, simple-moves, error 0 …
                _ => {}
            }
        }
    }
}

impl Player for OtepPlayer {
    fn name(&self) -> String {
        self.spec.clone()
    }
    fn choose(&mut self, game: &Game) -> Move {
        self.try_choose(game, None)
            .unwrap_or_else(|f| panic!("{}: {}", self.spec, f.detail))
    }
    fn choose_clocked(&mut self, game: &Game, clock: &GameClock) -> Move {
        self.try_choose(game, Some(clock))
            .unwrap_or_else(|f| panic!("{}: {}", self.spec, f.detail))
    }
    fn try_choose(&mut self, game: &Game, clock: Option<&GameClock>) -> Result<Move, Forfeit> {
        let r = self.ask(game, clock);
        if r.is_err() {
            // The engine's view of the game can no longer be trusted.
            self.broken.get_or_insert_with(|| "failed earlier".into());
        }
        r
    }
}

impl Drop for OtepPlayer {
    fn drop(&mut self) {
        let _ = self.send("goodbye");
        let until = Instant::now() + Duration::from_millis(500);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
