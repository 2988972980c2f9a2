//! The article's numpy code, line by line, with every delivery sent to the real servers.
//!
//! ```python
//! rng = np.random.default_rng(seed)
//! attempts = np.ones(n_requests, dtype=np.int64)
//! still_retrying = np.ones(n_requests, dtype=bool)
//! for _ in range(max_retries):
//!     draws = rng.random(n_requests)
//!     lost = still_retrying & (draws < p_ack_loss)
//!     attempts[lost] += 1
//!     still_retrying = lost
//!     if not still_retrying.any():
//!         break
//! ```
//!
//! This is the definition the fast engine is held to. It keeps one attempt counter and one flag
//! per request (and the servers keep their ledgers), so its memory grows with the requests.

use rand_core::Rng;

use super::{AttemptHistogram, Interrupted, Progress};
use crate::model::article::server::{
    Delivery, IdempotencyKey, PaymentServer, ServerKind, ServerTally,
};
use engine::rng::{SeedSequence, unit_f64};

/// Runs one ACK-loss probability through both servers; returns the attempts per request and
/// what each server did (in the order of [`ServerKind::ALL`]).
pub fn simulate_with_servers(
    seeds: &SeedSequence,
    requests: u64,
    max_retries: u32,
    ack_loss: f64,
    progress: &dyn Progress,
) -> Result<(AttemptHistogram, [ServerTally; 2]), Interrupted> {
    let mut servers: Vec<Box<dyn PaymentServer>> = ServerKind::ALL
        .iter()
        .map(|kind| kind.new_server())
        .collect();
    let mut send = |request: usize, attempt: u32| {
        let delivery = Delivery {
            key: IdempotencyKey(request as u64),
            attempt,
        };
        for server in servers.iter_mut() {
            server.handle(delivery);
        }
    };

    let requests = usize::try_from(requests).expect("the servers engine needs requests in memory");
    let mut rng = seeds.pcg64();
    let mut attempts = vec![1u32; requests];
    let mut still_retrying = vec![true; requests];
    for request in 0..requests {
        send(request, 0);
    }
    for _round in 0..max_retries {
        if progress.should_stop() {
            return Err(Interrupted);
        }
        let mut any_retrying = false;
        for request in 0..requests {
            let draw = unit_f64(rng.next_u64());
            let lost = still_retrying[request] && draw < ack_loss;
            if lost {
                attempts[request] += 1;
                send(request, attempts[request] - 1);
            }
            still_retrying[request] = lost;
            any_retrying |= lost;
        }
        if !any_retrying {
            break;
        }
    }
    progress.advance(requests as u64);

    let mut histogram = AttemptHistogram::new(max_retries);
    for &count in &attempts {
        histogram.record(count, 1);
    }
    let tallies = [servers[0].tally(), servers[1].tally()];
    Ok((histogram, tallies))
}
