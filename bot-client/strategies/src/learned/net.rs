//! A small multilayer perceptron, hand-written: two ReLU hidden layers and a linear output,
//! its first layer read sparsely (an input is a list of `(index, value)` pairs, most of them
//! one-hot card planes), trained by Adam on minibatches. Single-threaded and deterministic:
//! the same samples in the same order give the same bits.
//!
//! The parameter file: the 8 bytes `GINLRN01`, the four sizes (inputs, hidden 1, hidden 2,
//! outputs) as little-endian `u32`, then every `f32` little-endian: `w1` (inputs × hidden 1,
//! a row per input), `b1`, `w2` (hidden 1 × hidden 2), `b2`, `w3` (hidden 2 × outputs), `b3`.

use crate::rng::Rng;

const MAGIC: &[u8; 8] = b"GINLRN01";

/// One input: `(index, value)` pairs (indices may repeat: they add).
pub type Input = [(u16, f32)];

/// The network's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    /// Inputs, hidden 1, hidden 2, outputs.
    pub dims: [usize; 4],
    w1: Vec<f32>,
    b1: Vec<f32>,
    w2: Vec<f32>,
    b2: Vec<f32>,
    w3: Vec<f32>,
    b3: Vec<f32>,
}

/// The activations of one forward pass (kept for the backward pass).
#[derive(Clone, Debug, Default)]
pub struct Acts {
    a1: Vec<f32>,
    a2: Vec<f32>,
    /// The outputs.
    pub out: Vec<f32>,
}

/// Why a parameter file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadParams(pub &'static str);

impl std::fmt::Display for BadParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad parameter file: {}", self.0)
    }
}

impl std::error::Error for BadParams {}

impl Net {
    /// A network of the given sizes, its weights drawn (He initialisation, uniform) from
    /// `seed`, its biases zero.
    pub fn new(dims: [usize; 4], seed: u64) -> Net {
        let mut rng = Rng::new(seed);
        let mut init = |n: usize, fan_in: usize| -> Vec<f32> {
            let a = (6.0 / fan_in as f64).sqrt();
            (0..n).map(|_| ((rng.unit() * 2.0 - 1.0) * a) as f32).collect()
        };
        // The first layer's fan-in is the number of active inputs, about 40, not all of them.
        let w1 = init(dims[0] * dims[1], 40);
        let w2 = init(dims[1] * dims[2], dims[1]);
        let mut w3 = init(dims[2] * dims[3], dims[2]);
        for w in &mut w3 {
            *w *= 0.1;
        }
        Net { dims, w1, b1: vec![0.0; dims[1]], w2, b2: vec![0.0; dims[2]], w3, b3: vec![0.0; dims[3]] }
    }

    /// Number of parameters.
    pub fn len(&self) -> usize {
        self.w1.len() + self.b1.len() + self.w2.len() + self.b2.len() + self.w3.len() + self.b3.len()
    }

    /// Never: a network has parameters.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn parts(&self) -> [&Vec<f32>; 6] {
        [&self.w1, &self.b1, &self.w2, &self.b2, &self.w3, &self.b3]
    }

    fn parts_mut(&mut self) -> [&mut Vec<f32>; 6] {
        [&mut self.w1, &mut self.b1, &mut self.w2, &mut self.b2, &mut self.w3, &mut self.b3]
    }

    /// The parameter file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24 + 4 * self.len());
        out.extend_from_slice(MAGIC);
        for d in self.dims {
            out.extend_from_slice(&(d as u32).to_le_bytes());
        }
        for p in self.parts() {
            for x in p {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out
    }

    /// The network of a parameter file.
    pub fn from_bytes(b: &[u8]) -> Result<Net, BadParams> {
        if b.len() < 24 || &b[..8] != MAGIC {
            return Err(BadParams("no GINLRN01 header"));
        }
        let mut dims = [0usize; 4];
        for (i, d) in dims.iter_mut().enumerate() {
            let s = 8 + 4 * i;
            *d = u32::from_le_bytes([b[s], b[s + 1], b[s + 2], b[s + 3]]) as usize;
            if *d == 0 || *d > 4096 {
                return Err(BadParams("a size out of range"));
            }
        }
        let mut net = Net::new(dims, 0);
        if b.len() != 24 + 4 * net.len() {
            return Err(BadParams("its length does not match its sizes"));
        }
        let mut at = 24;
        for p in net.parts_mut() {
            for x in p.iter_mut() {
                *x = f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
                at += 4;
            }
        }
        Ok(net)
    }

    /// The forward pass into `acts`.
    pub fn forward(&self, x: &Input, acts: &mut Acts) {
        let [_, h1, h2, no] = self.dims;
        acts.a1.clear();
        acts.a1.extend_from_slice(&self.b1);
        for &(i, v) in x {
            let row = &self.w1[i as usize * h1..(i as usize + 1) * h1];
            for (a, w) in acts.a1.iter_mut().zip(row) {
                *a += v * w;
            }
        }
        for a in &mut acts.a1 {
            *a = a.max(0.0);
        }
        acts.a2.clear();
        acts.a2.extend_from_slice(&self.b2);
        for (i, &a) in acts.a1.iter().enumerate() {
            if a == 0.0 {
                continue;
            }
            let row = &self.w2[i * h2..(i + 1) * h2];
            for (o, w) in acts.a2.iter_mut().zip(row) {
                *o += a * w;
            }
        }
        for a in &mut acts.a2 {
            *a = a.max(0.0);
        }
        acts.out.clear();
        acts.out.extend_from_slice(&self.b3);
        for (i, &a) in acts.a2.iter().enumerate() {
            if a == 0.0 {
                continue;
            }
            let row = &self.w3[i * no..(i + 1) * no];
            for (o, w) in acts.out.iter_mut().zip(row) {
                *o += a * w;
            }
        }
    }

    /// The outputs for `x`.
    pub fn outputs(&self, x: &Input) -> Vec<f32> {
        let mut acts = Acts::default();
        self.forward(x, &mut acts);
        acts.out
    }
}

/// Adam over a [`Net`], gradients summed over a minibatch.
pub struct Trainer {
    grad: Net,
    m: Net,
    v: Net,
    t: i32,
    /// Learning rate.
    pub lr: f32,
    /// L2 weight decay (decoupled, AdamW).
    pub decay: f32,
    d2: Vec<f32>,
    d1: Vec<f32>,
    /// Rows of `w1` touched in this batch (the sparse first layer).
    touched: Vec<bool>,
}

impl Trainer {
    /// A trainer for nets shaped like `net`.
    pub fn new(net: &Net, lr: f32) -> Trainer {
        let zero = |n: &Net| {
            let mut z = n.clone();
            for p in z.parts_mut() {
                p.iter_mut().for_each(|x| *x = 0.0);
            }
            z
        };
        Trainer {
            grad: zero(net),
            m: zero(net),
            v: zero(net),
            t: 0,
            lr,
            decay: 1e-5,
            d2: Vec::new(),
            d1: Vec::new(),
            touched: vec![false; net.dims[0]],
        }
    }

    /// Adds the gradient of one sample: `x`, its activations `acts` (from `net.forward`), and
    /// `dout`, the loss's derivative by each output.
    pub fn backward(&mut self, net: &Net, x: &Input, acts: &Acts, dout: &[f32]) {
        let [_, h1, h2, no] = net.dims;
        let g = &mut self.grad;
        for (b, d) in g.b3.iter_mut().zip(dout) {
            *b += d;
        }
        self.d2.clear();
        self.d2.resize(h2, 0.0);
        for i in 0..h2 {
            let a = acts.a2[i];
            if a == 0.0 {
                continue;
            }
            let row = &net.w3[i * no..(i + 1) * no];
            let grow = &mut g.w3[i * no..(i + 1) * no];
            let mut s = 0.0;
            for k in 0..no {
                grow[k] += a * dout[k];
                s += row[k] * dout[k];
            }
            self.d2[i] = s;
        }
        for (b, d) in g.b2.iter_mut().zip(&self.d2) {
            *b += d;
        }
        self.d1.clear();
        self.d1.resize(h1, 0.0);
        for i in 0..h1 {
            let a = acts.a1[i];
            if a == 0.0 {
                continue;
            }
            let row = &net.w2[i * h2..(i + 1) * h2];
            let grow = &mut g.w2[i * h2..(i + 1) * h2];
            let mut s = 0.0;
            for k in 0..h2 {
                grow[k] += a * self.d2[k];
                s += row[k] * self.d2[k];
            }
            self.d1[i] = s;
        }
        for (b, d) in g.b1.iter_mut().zip(&self.d1) {
            *b += d;
        }
        for &(i, v) in x {
            let i = i as usize;
            self.touched[i] = true;
            let grow = &mut g.w1[i * h1..(i + 1) * h1];
            for (gw, d) in grow.iter_mut().zip(&self.d1) {
                *gw += v * d;
            }
        }
    }

    /// One Adam step with the gradients summed over `batch` samples; clears them.
    pub fn step(&mut self, net: &mut Net, batch: usize) {
        self.t += 1;
        let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
        let c1 = 1.0 - b1.powi(self.t);
        let c2 = 1.0 - b2.powi(self.t);
        let scale = 1.0 / batch as f32;
        let (lr, decay) = (self.lr, self.decay);
        let h1 = net.dims[1];
        let update = |p: &mut [f32], g: &mut [f32], m: &mut [f32], v: &mut [f32]| {
            for i in 0..p.len() {
                let gi = g[i] * scale;
                m[i] = b1 * m[i] + (1.0 - b1) * gi;
                v[i] = b2 * v[i] + (1.0 - b2) * gi * gi;
                p[i] -= lr * ((m[i] / c1) / ((v[i] / c2).sqrt() + eps) + decay * p[i]);
                g[i] = 0.0;
            }
        };
        // The first layer: only the rows some input of the batch touched (lazy Adam).
        for r in 0..net.dims[0] {
            if !self.touched[r] {
                continue;
            }
            self.touched[r] = false;
            let s = r * h1..(r + 1) * h1;
            update(
                &mut net.w1[s.clone()],
                &mut self.grad.w1[s.clone()],
                &mut self.m.w1[s.clone()],
                &mut self.v.w1[s],
            );
        }
        let [_, pb1, pw2, pb2, pw3, pb3] = net.parts_mut();
        let [_, gb1, gw2, gb2, gw3, gb3] = self.grad.parts_mut();
        let [_, mb1, mw2, mb2, mw3, mb3] = self.m.parts_mut();
        let [_, vb1, vw2, vb2, vw3, vb3] = self.v.parts_mut();
        update(pb1, gb1, mb1, vb1);
        update(pw2, gw2, mw2, vw2);
        update(pb2, gb2, mb2, vb2);
        update(pw3, gw3, mw3, vw3);
        update(pb3, gb3, mb3, vb3);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_learns_a_toy_function() {
        let mut net = Net::new([8, 16, 8, 2], 3);
        let bytes = net.to_bytes();
        assert_eq!(Net::from_bytes(&bytes).unwrap(), net);
        assert!(Net::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        // Output 0 learns x0 + x1 (two inputs on or off); output 1 learns 1.
        let mut tr = Trainer::new(&net, 0.01);
        let mut acts = Acts::default();
        let cases: Vec<Vec<(u16, f32)>> =
            vec![vec![], vec![(0, 1.0)], vec![(1, 1.0)], vec![(0, 1.0), (1, 1.0)]];
        for _ in 0..400 {
            for x in &cases {
                net.forward(x, &mut acts);
                let target = x.len() as f32;
                let d = [acts.out[0] - target, acts.out[1] - 1.0];
                tr.backward(&net, x, &acts, &d);
            }
            tr.step(&mut net, cases.len());
        }
        for x in &cases {
            let o = net.outputs(x);
            assert!((o[0] - x.len() as f32).abs() < 0.1, "{o:?}");
            assert!((o[1] - 1.0).abs() < 0.1, "{o:?}");
        }
    }
}
