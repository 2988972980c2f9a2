//! One random stream's uniform draws made ahead, a block at a time, each with its standard
//! exponential `-ln(1 - u)` computed in the same block (several at a time: [`ln_1p_block`]):
//! the load model takes them in the stream's order, either as a uniform or as an exponential,
//! so the values and their order are those of drawing one at a time.

use rand_core::Rng;
use rand_pcg::Pcg64;

use engine::numerics::log1p::{BLOCK, ln_1p_block};
use engine::rng::unit_f64;

/// A stream's draws, a block ahead.
#[derive(Debug, Clone)]
pub struct Draws {
    /// The stream; it has made every draw of the block.
    stream: Pcg64,
    /// The block's uniform draws in `[0, 1)`, in the stream's order.
    uniform: [f64; BLOCK],
    /// `-ln(1 - u)` of each (`-ln_1p(-u)`, bit for bit the C library's `log1p`).
    exponential: [f64; BLOCK],
    /// The next draw's index in the block (`BLOCK`: none left).
    next: usize,
}

impl Draws {
    /// The draws of `stream`, from its next one.
    pub fn new(stream: Pcg64) -> Self {
        Self {
            stream,
            uniform: [0.0; BLOCK],
            exponential: [0.0; BLOCK],
            next: BLOCK,
        }
    }

    /// Makes the next block.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        for (uniform, exponential) in self.uniform.iter_mut().zip(&mut self.exponential) {
            *uniform = unit_f64(self.stream.next_u64());
            *exponential = -*uniform;
        }
        ln_1p_block(&mut self.exponential);
        for exponential in &mut self.exponential {
            *exponential = -*exponential;
        }
        self.next = 0;
    }

    /// The next draw's index in the block.
    #[inline]
    fn take(&mut self) -> usize {
        if self.next == BLOCK {
            self.refill();
        }
        let index = self.next;
        self.next += 1;
        index
    }

    /// The next draw, uniform in `[0, 1)` (`unit_f64` of the stream's next `u64`).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        let index = self.take();
        self.uniform[index]
    }

    /// The next draw `u` as a standard exponential: `-ln(1 - u)`, bit for bit
    /// `-(-u).ln_1p()` (so `mean * exponential()` is `-mean * (-u).ln_1p()`).
    #[inline]
    pub fn exponential(&mut self) -> f64 {
        let index = self.take();
        self.exponential[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::rng::SeedSequence;

    #[test]
    fn draws_are_the_streams_in_order_as_uniforms_or_exponentials() {
        let mut reference = SeedSequence::new(11).pcg64();
        let mut draws = Draws::new(SeedSequence::new(11).pcg64());
        // Across several blocks, mixing the two kinds irregularly.
        for index in 0..5 * BLOCK + 7 {
            let u = unit_f64(reference.next_u64());
            if index % 3 == 1 || index % 7 == 0 {
                let mean = 50.0;
                assert_eq!(
                    (mean * draws.exponential()).to_bits(),
                    (-mean * (-u).ln_1p()).to_bits(),
                    "draw {index}"
                );
            } else {
                assert_eq!(draws.uniform().to_bits(), u.to_bits(), "draw {index}");
            }
        }
    }
}
