//! Cuts a stream of interleaved samples into frames of a fixed duration (the web's
//! 20 ms), whatever block sizes the radio delivers.

/// See the module docs.
#[derive(Debug, Clone)]
pub struct Reframer {
    frame_len: usize,
    pending: Vec<i16>,
}

impl Reframer {
    /// Frames of `frame_samples` samples per channel with `channels` channels.
    pub fn new(frame_samples: usize, channels: usize) -> Reframer {
        Reframer {
            frame_len: (frame_samples * channels).max(1),
            pending: Vec::new(),
        }
    }

    /// Adds samples; every completed frame is passed to `emit`.
    pub fn push(&mut self, samples: &[i16], mut emit: impl FnMut(&[i16])) {
        let mut rest = samples;
        if !self.pending.is_empty() {
            let need = self.frame_len - self.pending.len();
            let take = need.min(rest.len());
            self.pending.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.pending.len() < self.frame_len {
                return;
            }
            emit(&self.pending);
            self.pending.clear();
        }
        let mut chunks = rest.chunks_exact(self.frame_len);
        for c in &mut chunks {
            emit(c);
        }
        self.pending.extend_from_slice(chunks.remainder());
    }

    /// Samples waiting for a complete frame.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Drops the waiting samples.
    pub fn clear(&mut self) {
        self.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_block_sizes_give_exact_frames_in_order() {
        let mut r = Reframer::new(960, 2);
        let input: Vec<i16> = (0..10_000).map(|i| i as i16).collect();
        let mut frames: Vec<Vec<i16>> = Vec::new();
        for piece in input.chunks(682) {
            r.push(piece, |f| frames.push(f.to_vec()));
        }
        assert_eq!(frames.len(), 5);
        assert!(frames.iter().all(|f| f.len() == 1_920));
        let joined: Vec<i16> = frames.concat();
        assert_eq!(joined, input[..9_600].to_vec());
        assert_eq!(r.pending(), 400);
        r.clear();
        assert_eq!(r.pending(), 0);
    }
}
