//! The net run by our own code for search: batch norm folded into the
//! convolutions once at load, every layer of a batch as one matrix
//! product (`gemm`), so the weights of the policy layer — the largest —
//! are read once per batch rather than once per position. Behind the same
//! evaluator interface as `NetEvaluator` and `TractEvaluator`; its outputs
//! match burn's (tested in `model/tests/model.rs`).

use crate::encoding::{INPUT_LEN, PLANES};
use crate::evaluator::evaluate_in_slices;
use crate::net::{ConvBn, Net};
use brandubh_mcts::{EvalRequest, Evaluation, Evaluator};
use brandubh_rules::RuleSet;
use burn::module::Module;
use burn::nn::Linear;
use burn::tensor::Tensor;
use std::sync::Arc;

const SQUARES: usize = 49;

/// Positions per pass of the trunk (4, 8 and 16 measured alike in
/// self-play: docs/model.md).
const TILE: usize = 8;

/// A convolution with its batch norm folded in: `w` is `[cout][cin·k·k]`
/// (burn's own weight layout), `b` the folded bias.
struct Conv {
    cin: usize,
    cout: usize,
    k: usize,
    w: Vec<f32>,
    b: Vec<f32>,
}

/// A dense layer: `w` is `[din][dout]` (burn's layout), `b` is `[dout]`.
struct Dense {
    din: usize,
    dout: usize,
    w: Vec<f32>,
    b: Vec<f32>,
}

fn values<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data()
        .convert::<f32>()
        .try_into_vec::<f32>()
        .expect("f32 weights")
}

impl Conv {
    fn fold(layer: &ConvBn) -> Conv {
        let [cout, cin, k, _] = layer.conv.weight.dims();
        let mut w = values(layer.conv.weight.val());
        let conv_bias = layer
            .conv
            .bias
            .as_ref()
            .map_or_else(|| vec![0.0; cout], |b| values(b.val()));
        let bn = &layer.bn;
        let gamma = values(bn.gamma.val());
        let beta = values(bn.beta.val());
        let mean = values(bn.running_mean.value());
        let var = values(bn.running_var.value());
        let per_out = cin * k * k;
        let mut b = vec![0.0; cout];
        for o in 0..cout {
            let scale = gamma[o] / (var[o] + bn.epsilon as f32).sqrt();
            for x in &mut w[o * per_out..(o + 1) * per_out] {
                *x *= scale;
            }
            b[o] = beta[o] + (conv_bias[o] - mean[o]) * scale;
        }
        Conv { cin, cout, k, w, b }
    }

    /// `x` is `[cin][cols]` with `cols` = positions × 49; returns
    /// `[cout][cols]`, with the ReLU when `relu`.
    fn forward(&self, x: &[f32], cols: usize, scratch: &mut Vec<f32>, relu: bool) -> Vec<f32> {
        let mut y = vec![0.0f32; self.cout * cols];
        let rhs: &[f32] = if self.k == 1 {
            x
        } else {
            im2col(x, self.cin, cols, scratch);
            scratch
        };
        matmul(
            self.cout,
            cols,
            self.cin * self.k * self.k,
            &self.w,
            rhs,
            &mut y,
        );
        for (row, b) in y.chunks_mut(cols).zip(&self.b) {
            for v in row {
                *v += b;
                if relu {
                    *v = v.max(0.0);
                }
            }
        }
        y
    }
}

impl Dense {
    fn new(layer: &Linear) -> Dense {
        let [din, dout] = layer.weight.dims();
        Dense {
            din,
            dout,
            w: values(layer.weight.val()),
            b: layer
                .bias
                .as_ref()
                .map_or_else(|| vec![0.0; dout], |b| values(b.val())),
        }
    }

    /// One layer computing `self`'s outputs, then `other`'s, from the same
    /// input.
    fn beside(self, other: Dense) -> Dense {
        assert_eq!(self.din, other.din, "layers side by side share their input");
        let dout = self.dout + other.dout;
        let mut w = Vec::with_capacity(self.din * dout);
        for i in 0..self.din {
            w.extend_from_slice(&self.w[i * self.dout..(i + 1) * self.dout]);
            w.extend_from_slice(&other.w[i * other.dout..(i + 1) * other.dout]);
        }
        let mut b = self.b;
        b.extend(other.b);
        Dense {
            din: self.din,
            dout,
            w,
            b,
        }
    }

    /// `x` is `[n][din]`; returns `[n][dout]`.
    fn forward(&self, x: &[f32], n: usize, relu: bool) -> Vec<f32> {
        let mut y = vec![0.0f32; n * self.dout];
        matmul(n, self.dout, self.din, x, &self.w, &mut y);
        for row in y.chunks_mut(self.dout) {
            for (v, b) in row.iter_mut().zip(&self.b) {
                *v += b;
                if relu {
                    *v = v.max(0.0);
                }
            }
        }
        y
    }
}

/// `c` (m×n) = `a` (m×k) · `b` (k×n), all row-major.
fn matmul(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
    // SAFETY: the three slices hold the m×k, k×n and m×n row-major
    // matrices the strides describe (checked above), and `c` is borrowed
    // mutably, so it overlaps neither input.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            n as isize,
            false,
            a.as_ptr(),
            1,
            k as isize,
            b.as_ptr(),
            1,
            n as isize,
            0.0f32,
            1.0f32,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Lays out `x` (`[cin][cols]`) as the `[cin·9][cols]` matrix a 3×3
/// convolution with padding 1 multiplies: row `ci·9 + tap` (taps row-major,
/// centre 4) holds, for every position and square, what that tap reads.
///
/// A tap reads the square `7·dy + dx` away, so each row is the channel's
/// plane shifted by that much as one copy; then the squares whose read
/// fell past the board's edge (into a neighbouring row or position) are
/// zeroed.
fn im2col(x: &[f32], cin: usize, cols: usize, out: &mut Vec<f32>) {
    // Every element is written below, so the buffer is resized, not cleared.
    out.resize(cin * 9 * cols, 0.0);
    for ci in 0..cin {
        let plane = &x[ci * cols..(ci + 1) * cols];
        for tap in 0..9 {
            let (dy, dx) = (tap as isize / 3 - 1, tap as isize % 3 - 1);
            let shift = 7 * dy + dx;
            let row = &mut out[(ci * 9 + tap) * cols..(ci * 9 + tap + 1) * cols];
            let t = shift.unsigned_abs().min(cols);
            if shift >= 0 {
                row[..cols - t].copy_from_slice(&plane[t..]);
                row[cols - t..].fill(0.0);
            } else {
                row[t..].copy_from_slice(&plane[..cols - t]);
                row[..t].fill(0.0);
            }
            for board in row.chunks_exact_mut(SQUARES) {
                match dy {
                    -1 => board[..7].fill(0.0),
                    1 => board[SQUARES - 7..].fill(0.0),
                    _ => {}
                }
                if dx != 0 {
                    let edge = if dx < 0 { 0 } else { 6 };
                    for y in 0..7 {
                        board[y * 7 + edge] = 0.0;
                    }
                }
            }
        }
    }
}

/// `x`, laid out `[a][b][49]`, as `[b][a][49]`: between one row per
/// position (`[n][c·49]`, as encoded and as burn's heads flatten) and one
/// row per channel (`[c][n·49]`, as the convolutions multiply).
fn swap_planes(x: &[f32], a: usize, b: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; a * b * SQUARES];
    for i in 0..a {
        for j in 0..b {
            let from = (i * b + j) * SQUARES;
            let to = (j * a + i) * SQUARES;
            out[to..to + SQUARES].copy_from_slice(&x[from..from + SQUARES]);
        }
    }
    out
}

/// The net's weights, folded and laid out for `forward`.
pub struct NativeNet {
    stem: Conv,
    blocks: Vec<(Conv, Conv)>,
    policy_conv: Conv,
    policy_fc: Dense,
    value_conv: Conv,
    /// The value head's dense layers (with side heads, the attackers').
    value: ValueHead,
    /// With side heads, the defenders' dense layers.
    value_def: Option<ValueHead>,
}

/// The dense part of a value head.
struct ValueHead {
    fc1: Dense,
    /// The W/D/L logits, and the moves-left output beside them if the net
    /// has one.
    out: Dense,
}

impl ValueHead {
    fn new(
        fc1: &burn::nn::Linear,
        fc2: &burn::nn::Linear,
        moves_left: Option<&burn::nn::Linear>,
    ) -> ValueHead {
        ValueHead {
            fc1: Dense::new(fc1),
            out: match moves_left {
                None => Dense::new(fc2),
                Some(m) => Dense::new(fc2).beside(Dense::new(m)),
            },
        }
    }

    /// Value planes `[n][98]` → `[n][3 or 4]`.
    fn forward(&self, v: &[f32], n: usize) -> Vec<f32> {
        let h = self.fc1.forward(v, n, true);
        self.out.forward(&h, n, false)
    }
}

impl NativeNet {
    pub fn new(net: &Net) -> NativeNet {
        let net = net.valid();
        NativeNet {
            stem: Conv::fold(&net.stem),
            blocks: net
                .blocks
                .iter()
                .map(|b| (Conv::fold(&b.a), Conv::fold(&b.b)))
                .collect(),
            policy_conv: Conv::fold(&net.policy_conv),
            policy_fc: Dense::new(&net.policy_fc),
            value_conv: Conv::fold(&net.value_conv),
            value: ValueHead::new(&net.value_fc1, &net.value_fc2, net.moves_left_fc.as_ref()),
            value_def: net
                .value_fc1_def
                .as_ref()
                .zip(net.value_fc2_def.as_ref())
                .map(|(fc1, fc2)| ValueHead::new(fc1, fc2, net.moves_left_fc.as_ref())),
        }
    }

    /// Encoded positions (`[n][8][7][7]`, as `encoding::encode` writes
    /// them) → (policy logits `[n][1176]`, value `[n][3]`: WDL logits, or
    /// `[n][4]` with the moves-left output last, as `Net::forward`).
    pub fn forward(&self, input: &[f32]) -> (Vec<f32>, Vec<f32>) {
        let n = input.len() / INPUT_LEN;
        // The trunk and the heads' 1×1 convolutions run on a few positions
        // at a time, so that their working set stays in cache; the dense
        // layers then run on the whole batch, reading their weights once.
        let mut p_rows = Vec::with_capacity(n * self.policy_conv.cout * SQUARES);
        let mut v_rows = Vec::with_capacity(n * self.value_conv.cout * SQUARES);
        let mut scratch = Vec::new();
        for part in input.chunks(TILE * INPUT_LEN) {
            let (p, v) = self.trunk(part, &mut scratch);
            p_rows.extend_from_slice(&p);
            v_rows.extend_from_slice(&v);
        }
        let policy = self.policy_fc.forward(&p_rows, n, false);
        let value = match &self.value_def {
            None => self.value.forward(&v_rows, n),
            Some(defenders) => {
                let width = v_rows.len() / n.max(1);
                let out_w = self.value.out.dout;
                let mut value = vec![0.0; n * out_w];
                for (head, defending) in [(&self.value, false), (defenders, true)] {
                    // This side's rows through its own head, then back in
                    // place (plane 3 is all ones when the defenders move).
                    let rows: Vec<usize> = (0..n)
                        .filter(|&i| (input[i * INPUT_LEN + 3 * SQUARES] > 0.5) == defending)
                        .collect();
                    if rows.is_empty() {
                        continue;
                    }
                    let x: Vec<f32> = rows
                        .iter()
                        .flat_map(|&i| v_rows[i * width..(i + 1) * width].iter().copied())
                        .collect();
                    let out = head.forward(&x, rows.len());
                    for (k, &i) in rows.iter().enumerate() {
                        value[i * out_w..(i + 1) * out_w]
                            .copy_from_slice(&out[k * out_w..(k + 1) * out_w]);
                    }
                }
                value
            }
        };
        (policy, value)
    }

    /// The trunk and the heads' convolutions on `input`'s positions: the
    /// policy and value planes, one row per position.
    fn trunk(&self, input: &[f32], scratch: &mut Vec<f32>) -> (Vec<f32>, Vec<f32>) {
        let n = input.len() / INPUT_LEN;
        let cols = n * SQUARES;
        let x = swap_planes(input, n, PLANES);
        let mut h = self.stem.forward(&x, cols, scratch, true);
        for (a, b) in &self.blocks {
            let mid = a.forward(&h, cols, scratch, true);
            let mut y = b.forward(&mid, cols, scratch, false);
            for (v, skip) in y.iter_mut().zip(&h) {
                *v = (*v + skip).max(0.0);
            }
            h = y;
        }
        let p = self.policy_conv.forward(&h, cols, scratch, true);
        let v = self.value_conv.forward(&h, cols, scratch, true);
        (
            swap_planes(&p, self.policy_conv.cout, n),
            swap_planes(&v, self.value_conv.cout, n),
        )
    }
}

/// `NativeNet` behind the search's evaluator interface: a batch is cut
/// into one slice per thread of the current rayon pool, and each slice
/// runs as one batch.
pub struct NativeEvaluator {
    net: NativeNet,
    rules: Arc<RuleSet>,
    id: String,
}

impl NativeEvaluator {
    pub fn new(net: &Net, rules: Arc<RuleSet>, id: String) -> NativeEvaluator {
        NativeEvaluator {
            net: NativeNet::new(net),
            rules,
            id,
        }
    }
}

impl Evaluator for NativeEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        evaluate_in_slices(&self.rules, batch, |chunk| self.net.forward(chunk))
    }
    fn id(&self) -> String {
        self.id.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry of the column matrix against the definition: row
    /// `ci·9 + tap`, column `p·49 + y·7 + x` holds channel `ci` of position
    /// `p` at `(y + dy, x + dx)`, or 0 off the board.
    #[test]
    fn im2col_reads_each_taps_square_or_zero_off_the_board() {
        let (cin, n) = (3, 4);
        let cols = n * SQUARES;
        let x: Vec<f32> = (0..cin * cols).map(|i| 1.0 + i as f32).collect();
        // A dirty, too-short buffer: every entry must still be written.
        let mut out = vec![f32::NAN; 17];
        for _ in 0..2 {
            im2col(&x, cin, cols, &mut out);
            assert_eq!(out.len(), cin * 9 * cols);
            for ci in 0..cin {
                for tap in 0..9 {
                    let (dy, dx) = (tap as i32 / 3 - 1, tap as i32 % 3 - 1);
                    for p in 0..n {
                        for y in 0..7i32 {
                            for xx in 0..7i32 {
                                let (sy, sx) = (y + dy, xx + dx);
                                let want = if (0..7).contains(&sy) && (0..7).contains(&sx) {
                                    x[ci * cols + p * SQUARES + (sy * 7 + sx) as usize]
                                } else {
                                    0.0
                                };
                                let got = out
                                    [(ci * 9 + tap) * cols + p * SQUARES + (y * 7 + xx) as usize];
                                assert_eq!(got, want, "ci {ci} tap {tap} p {p} ({y},{xx})");
                            }
                        }
                    }
                }
            }
            out.iter_mut().for_each(|v| *v = f32::NAN);
        }
    }
}
