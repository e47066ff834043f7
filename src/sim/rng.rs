//! Tiny deterministic randomness for the simulator: a splitmix64 mixer for stateless
//! hashing ("the value of signal 17 at syllable 4711") and a xoshiro256++ generator for
//! streams (noise). No wall clock, no OS entropy: the same seed always gives the same
//! numbers.

/// The golden-ratio increment of splitmix64.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The splitmix64 finalizer: a strong 64-bit mixing function.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(GOLDEN);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Hash of two words.
pub fn hash2(a: u64, b: u64) -> u64 {
    mix64(a ^ mix64(b))
}

/// Hash of three words.
pub fn hash3(a: u64, b: u64, c: u64) -> u64 {
    mix64(hash2(a, b) ^ mix64(c.wrapping_add(GOLDEN)))
}

/// Maps a hash to a float in `[0, 1)`.
pub fn unit(h: u64) -> f32 {
    (h >> 40) as f32 / (1u64 << 24) as f32
}

/// Maps a hash to a float in `[lo, hi)`.
pub fn range(h: u64, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * unit(h)
}

/// xoshiro256++: a small, fast generator for sample-rate noise streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator whose state is expanded from `seed` with splitmix64.
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut s = [0u64; 4];
        for w in &mut s {
            x = x.wrapping_add(GOLDEN);
            *w = mix64(x);
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng { s }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A float in `[0, 1)`.
    pub fn next_f32(&mut self) -> f32 {
        unit(self.next_u64())
    }

    /// A float in `[lo, hi)`.
    pub fn range_f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// An integer in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    /// A float in `[0, 1)` with 53 bits of precision.
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p` (0.0 never, 1.0 always).
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit_f64() < p
    }

    /// A random non-zero 32-bit value (ids, tokens).
    pub fn nonzero_u32(&mut self) -> u32 {
        loop {
            let v = (self.next_u64() >> 32) as u32;
            if v != 0 {
                return v;
            }
        }
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A float in `[-1, 1)`: white noise.
    pub fn bipolar(&mut self) -> f32 {
        // 24 random bits scaled to [-1, 1).
        ((self.next_u64() >> 40) as i32 - (1 << 23)) as f32 / (1 << 23) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_different_seed_different_stream() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        let mut c = Rng::new(43);
        let va: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let vc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
    }

    #[test]
    fn floats_stay_in_range_and_spread() {
        let mut r = Rng::new(7);
        let mut sum = 0.0f64;
        for _ in 0..10_000 {
            let u = r.next_f32();
            assert!((0.0..1.0).contains(&u));
            let b = r.bipolar();
            assert!((-1.0..1.0).contains(&b));
            sum += f64::from(u);
        }
        let mean = sum / 10_000.0;
        assert!((0.45..0.55).contains(&mean), "mean {mean}");
        assert_eq!(r.below(0), 0);
        assert!(r.below(5) < 5);
    }

    #[test]
    fn hashes_are_stable_and_sensitive() {
        assert_eq!(hash3(1, 2, 3), hash3(1, 2, 3));
        assert_ne!(hash3(1, 2, 3), hash3(1, 3, 2));
        assert_ne!(hash2(0, 0), hash2(0, 1));
        let u = unit(hash2(9, 9));
        assert!((0.0..1.0).contains(&u));
        let v = range(hash2(9, 10), 5.0, 6.0);
        assert!((5.0..6.0).contains(&v));
    }
}
