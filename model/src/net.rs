//! The policy/value network: a residual 3×3 convolutional trunk with a
//! policy head (1176 logits) and a win/draw/loss value head, optionally
//! followed by a moves-left output (the plies the game has left, over
//! `MOVES_LEFT_SCALE`) read from the value head's hidden layer.
//!
//! Optionally the value head's two dense layers come twice, one pair for
//! each side to move (`side_value_heads`): the position's side-to-move
//! plane picks the pair, so each side's values are fitted by weights of
//! their own over the shared trunk.

use crate::encoding::{BOARD, PLANES};
use brandubh_rules::POLICY_SIZE;
use burn::config::Config;
use burn::module::{Module, Param};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData};

/// Width and depth of the net; saved beside every checkpoint.
#[derive(Config, Debug, PartialEq)]
pub struct NetConfig {
    /// Channels of the trunk.
    #[config(default = 32)]
    pub channels: usize,
    /// Residual blocks (two 3×3 convolutions each).
    #[config(default = 2)]
    pub blocks: usize,
    /// Hidden units of the value head.
    #[config(default = 64)]
    pub value_hidden: usize,
    /// A moves-left output beside the W/D/L logits.
    #[config(default = false)]
    pub moves_left: bool,
    /// The value head's dense layers once per side to move.
    #[config(default = false)]
    pub side_value_heads: bool,
}

/// The moves-left output is the expected number of plies to the game's end
/// divided by this, so that its targets are of the order of one.
pub const MOVES_LEFT_SCALE: f32 = 100.0;

#[derive(Module, Debug)]
pub struct ConvBn {
    pub(crate) conv: Conv2d,
    pub(crate) bn: BatchNorm,
}

impl ConvBn {
    fn new(cin: usize, cout: usize, k: usize, device: &Device) -> ConvBn {
        let pad = k / 2;
        ConvBn {
            conv: Conv2dConfig::new([cin, cout], [k, k])
                .with_padding(PaddingConfig2d::Explicit(pad, pad, pad, pad))
                .with_bias(false)
                .init(device),
            bn: BatchNormConfig::new(cout).init(device),
        }
    }
    /// `[N, cin, 7, 7]` → `[N, cout, 7, 7]`, batch-normed, before the ReLU.
    fn forward_linear(&self, x: Tensor<4>) -> Tensor<4> {
        self.bn.forward(self.conv.forward(x))
    }
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        relu(self.forward_linear(x))
    }
}

#[derive(Module, Debug)]
pub struct ResBlock {
    pub(crate) a: ConvBn,
    pub(crate) b: ConvBn,
}

impl ResBlock {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let y = self.b.forward_linear(self.a.forward(x.clone()));
        relu(y + x)
    }
}

#[derive(Module, Debug)]
pub struct Net {
    pub(crate) stem: ConvBn,
    pub(crate) blocks: Vec<ResBlock>,
    pub(crate) policy_conv: ConvBn,
    pub(crate) policy_fc: Linear,
    pub(crate) value_conv: ConvBn,
    pub(crate) value_fc1: Linear,
    pub(crate) value_fc2: Linear,
    pub(crate) moves_left_fc: Option<Linear>,
    /// With `side_value_heads`: the dense layers used when the defenders
    /// are to move (`value_fc1`, `value_fc2` then serve the attackers).
    pub(crate) value_fc1_def: Option<Linear>,
    pub(crate) value_fc2_def: Option<Linear>,
}

const POLICY_CHANNELS: usize = 4;
const VALUE_CHANNELS: usize = 2;

impl NetConfig {
    pub fn init(&self, device: &Device) -> Net {
        let c = self.channels;
        Net {
            stem: ConvBn::new(PLANES, c, 3, device),
            blocks: (0..self.blocks)
                .map(|_| ResBlock {
                    a: ConvBn::new(c, c, 3, device),
                    b: ConvBn::new(c, c, 3, device),
                })
                .collect(),
            policy_conv: ConvBn::new(c, POLICY_CHANNELS, 1, device),
            policy_fc: LinearConfig::new(POLICY_CHANNELS * 49, POLICY_SIZE).init(device),
            value_conv: ConvBn::new(c, VALUE_CHANNELS, 1, device),
            value_fc1: LinearConfig::new(VALUE_CHANNELS * 49, self.value_hidden).init(device),
            value_fc2: LinearConfig::new(self.value_hidden, 3).init(device),
            moves_left_fc: self
                .moves_left
                .then(|| LinearConfig::new(self.value_hidden, 1).init(device)),
            value_fc1_def: self
                .side_value_heads
                .then(|| LinearConfig::new(VALUE_CHANNELS * 49, self.value_hidden).init(device)),
            value_fc2_def: self
                .side_value_heads
                .then(|| LinearConfig::new(self.value_hidden, 3).init(device)),
        }
    }

    /// Multiply-adds per position, for throughput figures (×2 for FLOPs).
    pub fn macs_per_position(&self) -> u64 {
        let c = self.channels as u64;
        let sq = 49u64;
        let stem = PLANES as u64 * c * 9 * sq;
        let blocks = self.blocks as u64 * 2 * c * c * 9 * sq;
        let heads = c * (POLICY_CHANNELS + VALUE_CHANNELS) as u64 * sq
            + (POLICY_CHANNELS as u64 * sq) * POLICY_SIZE as u64
            + (VALUE_CHANNELS as u64 * sq) * self.value_hidden as u64
            + self.value_hidden as u64 * (3 + self.moves_left as u64);
        // A position runs through one side's value layers, but both are
        // computed in a batch.
        let side = if self.side_value_heads {
            (VALUE_CHANNELS as u64 * sq) * self.value_hidden as u64 + self.value_hidden as u64 * 3
        } else {
            0
        };
        stem + blocks + heads + side
    }
}

impl Net {
    /// Columns of the value output: 3, or 4 with the moves-left output.
    pub fn value_width(&self) -> usize {
        3 + self.moves_left_fc.is_some() as usize
    }

    /// This net with a freshly initialised moves-left output (the same net
    /// if it has one), to train the output onto an existing net.
    pub fn with_moves_left(mut self, device: &Device) -> Net {
        if self.moves_left_fc.is_none() {
            let hidden = self.value_fc2.weight.dims()[0];
            self.moves_left_fc = Some(LinearConfig::new(hidden, 1).init(device));
        }
        self
    }

    /// This net with a value head per side to move (the same net if it has
    /// them), each side's starting as a copy of the shared one, so that a
    /// run can go on from a net without them.
    pub fn with_side_value_heads(mut self) -> Net {
        let copy = |l: &Linear| Linear {
            weight: Param::from_tensor(l.weight.val()),
            bias: l.bias.as_ref().map(|b| Param::from_tensor(b.val())),
        };
        if self.value_fc1_def.is_none() {
            self.value_fc1_def = Some(copy(&self.value_fc1));
            self.value_fc2_def = Some(copy(&self.value_fc2));
        }
        self
    }

    /// The value head's output from the value planes `v` (`[N, 2·49]`)
    /// with one pair of dense layers: W/D/L logits, then the moves-left
    /// output if the net has one.
    fn value_out(&self, v: Tensor<2>, fc1: &Linear, fc2: &Linear) -> Tensor<2> {
        let h = relu(fc1.forward(v)); // [N, hidden]
        match &self.moves_left_fc {
            None => fc2.forward(h), // [N, 3]
            Some(m) => Tensor::cat(vec![fc2.forward(h.clone()), m.forward(h)], 1), // [N, 4]
        }
    }

    /// `x`: `[N, 8, 7, 7]` → (policy logits `[N, 1176]`, value `[N, 3]`:
    /// WDL logits; `[N, 4]` with the moves-left output as the last column).
    pub fn forward(&self, x: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let [n, _, _, _] = x.dims();
        let defenders = self.value_fc1_def.is_some().then(|| defenders_to_move(&x));
        let mut h = self.stem.forward(x); // [N, C, 7, 7]
        for b in &self.blocks {
            h = b.forward(h);
        }
        let p = self.policy_conv.forward(h.clone()); // [N, 4, 7, 7]
        let p = self
            .policy_fc
            .forward(p.reshape([n, POLICY_CHANNELS * BOARD * BOARD])); // [N, 1176]
        let v = self
            .value_conv
            .forward(h)
            .reshape([n, VALUE_CHANNELS * BOARD * BOARD]); // [N, 98]
        let attackers = self.value_out(v.clone(), &self.value_fc1, &self.value_fc2);
        match (defenders, &self.value_fc1_def, &self.value_fc2_def) {
            (Some(d), Some(fc1), Some(fc2)) => {
                let for_defenders = self.value_out(v, fc1, fc2);
                // Each row takes its own side's output: d is 0 or 1.
                let mixed = attackers * (d.clone().neg() + 1.0) + for_defenders * d;
                (p, mixed)
            }
            _ => (p, attackers),
        }
    }
}

/// `[N, 1]`: 1 for each position with the defenders to move, else 0 (the
/// first square of plane 3, which is constant). Read through a constant
/// mask rather than a slice, so that the ONNX export keeps its dynamic
/// batch axis.
fn defenders_to_move(x: &Tensor<4>) -> Tensor<2> {
    let [n, _, _, _] = x.dims();
    let mut mask = vec![0.0f32; PLANES * BOARD * BOARD];
    mask[3 * BOARD * BOARD] = 1.0;
    let mask = Tensor::<4>::from_data(
        TensorData::new(mask, [1, PLANES, BOARD, BOARD]),
        &x.device(),
    );
    (x.clone() * mask)
        .sum_dim(3)
        .sum_dim(2)
        .sum_dim(1)
        .reshape([n, 1])
}
