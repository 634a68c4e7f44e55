//! Match statistics: Elo from a score, confidence intervals and likelihood
//! of superiority from the pentanomial distribution of game-pair results,
//! and a generalised sequential probability ratio test on that
//! distribution (the method fishtest uses for logistic Elo).

/// Logistic Elo difference that gives expected score `s`.
pub fn elo_from_score(s: f64) -> f64 {
    let s = s.clamp(1e-9, 1.0 - 1e-9);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score at Elo difference `elo`.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The standard normal cumulative distribution (Abramowitz–Stegun 7.1.26
/// erf, accurate to 1.5e-7).
pub fn normal_cdf(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-z * z).exp();
    if x >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

/// Pair scores of the five pentanomial outcomes (A's points over two games / 2).
pub const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// Counts of game pairs by A's points in the pair: 0, ½, 1, 1½, 2.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pentanomial(pub [u64; 5]);

/// Elo estimate of a match.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct EloEstimate {
    pub score: f64,
    pub elo: f64,
    pub ci95: (f64, f64),
    pub los: f64,
}

impl Pentanomial {
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Adds one pair, given A's points in it (0, 0.5, …, 2).
    pub fn add(&mut self, points: f64) {
        let i = (points * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[i] += 1;
    }

    fn mean_var(&self) -> (f64, f64) {
        let n = self.pairs() as f64;
        let mean: f64 = self
            .0
            .iter()
            .zip(PAIR_SCORES)
            .map(|(&c, x)| c as f64 * x)
            .sum::<f64>()
            / n;
        let var: f64 = self
            .0
            .iter()
            .zip(PAIR_SCORES)
            .map(|(&c, x)| c as f64 * (x - mean).powi(2))
            .sum::<f64>()
            / n;
        (mean, var)
    }

    /// Score, Elo, 95 % interval and likelihood of superiority of A.
    pub fn elo(&self) -> Option<EloEstimate> {
        if self.pairs() == 0 {
            return None;
        }
        let n = self.pairs() as f64;
        let (mean, var) = self.mean_var();
        let se = (var / n).sqrt();
        let los = if se > 0.0 {
            normal_cdf((mean - 0.5) / se)
        } else if mean > 0.5 {
            1.0
        } else if mean < 0.5 {
            0.0
        } else {
            0.5
        };
        Some(EloEstimate {
            score: mean,
            elo: elo_from_score(mean),
            ci95: (
                elo_from_score(mean - 1.959_964 * se),
                elo_from_score(mean + 1.959_964 * se),
            ),
            los,
        })
    }

    /// The generalised log-likelihood ratio of H1 (Elo = elo1) against H0
    /// (Elo = elo0): for each hypothesis the pentanomial distribution closest
    /// to the observed one with that mean score (maximum likelihood under
    /// the constraint), then the log ratio of the two likelihoods.
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return 0.0;
        }
        // Regularise empty cells a little so the constrained MLE exists.
        let probs: Vec<f64> = self
            .0
            .iter()
            .map(|&c| (c as f64 + 1e-3) / (n + 5e-3))
            .collect();
        let p0 = constrained_mle(&probs, score_from_elo(elo0));
        let p1 = constrained_mle(&probs, score_from_elo(elo1));
        self.0
            .iter()
            .zip(p0.iter().zip(&p1))
            .map(|(&c, (a, b))| c as f64 * (b / a).ln())
            .sum()
    }
}

/// The distribution q maximising Σ p log q subject to Σ q x = mu:
/// q_k = p_k / (1 + λ (x_k − mu)), with λ found by bisection.
fn constrained_mle(p: &[f64], mu: f64) -> Vec<f64> {
    let x = PAIR_SCORES;
    let f = |lam: f64| -> f64 {
        p.iter()
            .zip(x)
            .map(|(&pk, xk)| pk * (xk - mu) / (1.0 + lam * (xk - mu)))
            .sum()
    };
    // λ keeps every 1 + λ (x_k − mu) positive.
    let hi_lim = 1.0 / (mu - x[0]).max(1e-12);
    let lo_lim = -1.0 / (x[4] - mu).max(1e-12);
    let (mut lo, mut hi) = (lo_lim * (1.0 - 1e-9), hi_lim * (1.0 - 1e-9));
    // f is decreasing in λ.
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let lam = 0.5 * (lo + hi);
    p.iter()
        .zip(x)
        .map(|(&pk, xk)| pk / (1.0 + lam * (xk - mu)))
        .collect()
}

/// The verdict of a sequential probability ratio test.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtVerdict {
    /// H1 accepted: A is at least elo1 stronger.
    AcceptH1,
    /// H0 accepted: A is at most elo0 stronger.
    AcceptH0,
    Continue,
}

/// An SPRT with alpha = beta = 0.05 by default.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

impl Sprt {
    pub fn new(elo0: f64, elo1: f64) -> Sprt {
        Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        }
    }
    /// (lower, upper) bounds on the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }
    pub fn verdict(&self, penta: &Pentanomial) -> (f64, SprtVerdict) {
        let llr = penta.llr(self.elo0, self.elo1);
        let (lo, hi) = self.bounds();
        let v = if llr >= hi {
            SprtVerdict::AcceptH1
        } else if llr <= lo {
            SprtVerdict::AcceptH0
        } else {
            SprtVerdict::Continue
        };
        (llr, v)
    }
}
