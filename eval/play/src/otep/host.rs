//! The host side: any OTEP engine run as a child process and played as a
//! `Player` (`otep:CMD` specs); every move it sends is checked, and it
//! forfeits when it crashes, hangs past its clock or answers nonsense.

use super::wire::*;
use crate::clock::GameClock;
use crate::ending::ForfeitReason;
use crate::{player::Forfeit, player::Player};
use brandubh_rules::{opentafl_rules, Game, Move, MoveRecord, RuleSet};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
/// fails forfeits its games instead: see `Player::choose`.)
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
    fn choose(&mut self, game: &Game, clock: Option<&GameClock>) -> Result<Move, Forfeit> {
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
