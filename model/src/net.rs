//! The policy/value network: a residual 3×3 convolutional trunk with a
//! policy head (1176 logits) and a win/draw/loss value head, optionally
//! followed by a moves-left output (the plies the game has left, over
//! `MOVES_LEFT_SCALE`) read from the value head's hidden layer.

use crate::encoding::{BOARD, PLANES};
use brandubh_rules::POLICY_SIZE;
use burn::config::Config;
use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor};

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
        stem + blocks + heads
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

    /// `x`: `[N, 8, 7, 7]` → (policy logits `[N, 1176]`, value `[N, 3]`:
    /// WDL logits; `[N, 4]` with the moves-left output as the last column).
    pub fn forward(&self, x: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let [n, _, _, _] = x.dims();
        let mut h = self.stem.forward(x); // [N, C, 7, 7]
        for b in &self.blocks {
            h = b.forward(h);
        }
        let p = self.policy_conv.forward(h.clone()); // [N, 4, 7, 7]
        let p = self
            .policy_fc
            .forward(p.reshape([n, POLICY_CHANNELS * BOARD * BOARD])); // [N, 1176]
        let v = self.value_conv.forward(h); // [N, 2, 7, 7]
        let v = relu(
            self.value_fc1
                .forward(v.reshape([n, VALUE_CHANNELS * BOARD * BOARD])),
        ); // [N, hidden]
        match &self.moves_left_fc {
            None => (p, self.value_fc2.forward(v)), // [N, 3]
            Some(m) => {
                let wdl = self.value_fc2.forward(v.clone());
                (p, Tensor::cat(vec![wdl, m.forward(v)], 1)) // [N, 4]
            }
        }
    }
}
