//! One run of the contention model: clients racing to update one row under optimistic
//! concurrency control on one shared clock, a [`CalendarQueue`] (an
//! [`IdQueue`] when the delay is fixed), both popping
//! requests in the same order.
//!
//! Each client reads the row's version, then writes with it; the server accepts a write whose
//! version is the current one (and increments the version) and rejects a stale one. After a
//! rejection the client waits its backoff and reads again. Every message (read request, read
//! reply, write request, write reply) takes one network delay.
//!
//! Only the server's state is shared, and a client handles a reply at once, so the events on
//! the queue are the requests reaching the server: a read request at time `t` puts the
//! client's write request at `t + reply delay + request delay`, and a rejected write at `t`
//! puts its next read request at `t + reply delay + backoff + request delay` (its accepted
//! write ends it at `t + reply delay`). Each client has exactly one request in flight, so an
//! event is a client's number, and what it carries sits with the client. This is the AWS
//! simulator's loop with the client-side events folded into the server-side ones: the same
//! times, half the queue operations.
//!
//! The order of the draws from the run's stream: the clients' first read requests in client
//! order at time 0, then, request by request: after a read, the reply's and the write's
//! delays; after a write, the reply's delay and, if rejected (and retrying), the next read
//! request's delay and the backoff's uniform draw (taken for every policy, used by the
//! jittered ones).

use rand_core::Rng;
use rand_pcg::Pcg64;

use super::delay::{folded_normal_sample, timeline_sample};
use super::{ContentionSetup, Delay};
use engine::backoff::Backoff;
use engine::distribution::Distribution;
use engine::queue::EventQueue;
use engine::queue::calendar::CalendarQueue;
use engine::queue::heap::IdQueue;
use engine::rng::unit_f64;

/// One message's delay, drawn from a run's stream: [`Delay::sample`] for one kind of delay,
/// always inlined into the simulation loop.
trait DrawDelay {
    /// The delay (ms).
    fn draw(&self, stream: &mut Pcg64) -> f64;
}

/// [`Delay::FoldedNormal`].
struct FoldedNormal {
    /// The mean of the normal before folding (ms).
    mean_ms: f64,
    /// Its standard deviation (ms).
    sd_ms: f64,
}

impl DrawDelay for FoldedNormal {
    #[inline(always)]
    fn draw(&self, stream: &mut Pcg64) -> f64 {
        folded_normal_sample(self.mean_ms, self.sd_ms, stream)
    }
}

/// [`Delay::Timeline`].
struct TimelineDelay(Distribution);

impl DrawDelay for TimelineDelay {
    #[inline(always)]
    fn draw(&self, stream: &mut Pcg64) -> f64 {
        timeline_sample(self.0, stream)
    }
}

/// The request a client has in flight to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// A read of the row's version.
    Read,
    /// A conditional write, carrying the version the client read: accepted only if it is
    /// still the current one.
    Write {
        /// The version the client read.
        version: u64,
    },
}

/// What one run counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunTally {
    /// Read requests the server answered (calls).
    pub reads: u64,
    /// Write requests the server answered, accepted or not: the AWS post's "calls" (calls).
    pub writes: u64,
    /// Writes rejected because their version was stale (calls).
    pub failed_writes: u64,
    /// Clients whose write was eventually accepted (clients).
    pub succeeded: u32,
    /// Clients that gave up after `max_retries` retries (clients).
    pub gave_up: u32,
    /// When the last client received its final write reply: the AWS post's "time" (ms).
    pub completion_ms: f64,
    /// The mean over clients of the time each received its final write reply (ms).
    pub mean_client_completion_ms: f64,
    /// The row's version at the end: one per accepted write.
    pub final_version: u64,
}

/// A client's state.
#[derive(Debug, Clone, Copy)]
struct Client {
    /// The request it has in flight.
    request: Request,
    /// Writes of this client rejected so far.
    failures: u32,
    /// The previous backoff (decorrelated jitter grows from it), starting at the policy's
    /// initial value.
    previous_sleep_ms: f64,
}

/// Reusable buffers for runs on one thread.
#[derive(Debug, Default)]
pub struct Simulator {
    /// The queue of the runs whose delays spread (see [`calendar_width_ms`]).
    calendar: CalendarQueue,
    /// The queue of the runs whose delays do not: many requests at one time.
    heap: IdQueue,
    /// The clients of the run.
    clients: Vec<Client>,
}

/// The bucket width of a calendar queue for `clients` clients with `delay` per message (ms):
/// half the mean gap between two requests when each client sends one per two typical message
/// delays, so that most buckets hold one request or none (measured: narrower or twice as wide
/// is no faster, four times as wide is slower). `None` when the delay does not spread (a fixed
/// delay): clients in lockstep would put all their requests in one bucket, where a heap is
/// faster. The width is a choice of speed only; any width gives the same order.
fn calendar_width_ms(delay: Delay, clients: u32) -> Option<f64> {
    let (typical_ms, spread_ms) = match delay {
        Delay::FoldedNormal { mean_ms, sd_ms } => (mean_ms.abs().max(sd_ms), sd_ms),
        Delay::Timeline(distribution) => (
            distribution.quantile(0.5),
            distribution.quantile(0.75) - distribution.quantile(0.25),
        ),
    };
    let width_ms = typical_ms / f64::from(clients.max(1));
    (spread_ms > 0.0 && width_ms > 0.0 && width_ms.is_finite()).then_some(width_ms)
}

impl Simulator {
    /// Runs `clients` clients with `backoff` until every client has succeeded or given up,
    /// drawing from `stream`.
    pub fn run(
        &mut self,
        setup: &ContentionSetup,
        backoff: Backoff,
        clients: u32,
        stream: &mut Pcg64,
    ) -> RunTally {
        // One copy of the loop per kind of delay, each with its draw inlined: the same draws
        // in the same order as `setup.delay.sample`.
        match setup.delay {
            Delay::FoldedNormal { mean_ms, sd_ms } => self.run_with(
                setup,
                backoff,
                clients,
                stream,
                FoldedNormal { mean_ms, sd_ms },
            ),
            Delay::Timeline(distribution) => {
                self.run_with(setup, backoff, clients, stream, TimelineDelay(distribution))
            }
        }
    }

    /// [`Simulator::run`] with `draw` drawing one message's delay, on the queue that suits
    /// the delay (see [`calendar_width_ms`]); the loop itself is [`race`].
    fn run_with<D: DrawDelay>(
        &mut self,
        setup: &ContentionSetup,
        backoff: Backoff,
        clients: u32,
        stream: &mut Pcg64,
        draw: D,
    ) -> RunTally {
        match calendar_width_ms(setup.delay, clients) {
            Some(width_ms) => {
                self.calendar.reset(clients, width_ms);
                race(
                    setup,
                    backoff,
                    clients,
                    stream,
                    &mut self.calendar,
                    &mut self.clients,
                    draw,
                )
            }
            None => {
                self.heap.clear();
                race(
                    setup,
                    backoff,
                    clients,
                    stream,
                    &mut self.heap,
                    &mut self.clients,
                    draw,
                )
            }
        }
    }
}

/// One run on `queue` (empty), with `states` for the clients' states: every client's first
/// read request in client order at time 0, then request by request until no client has one
/// in flight. Never inlined: one copy per queue and kind of delay, each compiled on its own
/// with the draw and the queue's steps inlined into it (inlined into one caller with both
/// queues, the two copies compiled worse: 4% more instructions).
#[inline(never)]
fn race(
    setup: &ContentionSetup,
    backoff: Backoff,
    clients: u32,
    stream: &mut Pcg64,
    queue: &mut impl EventQueue<Event = u32>,
    states: &mut Vec<Client>,
    draw: impl DrawDelay,
) -> RunTally {
    let delay = |stream: &mut Pcg64| draw.draw(stream);
    states.clear();
    states.resize(
        clients as usize,
        Client {
            request: Request::Read,
            failures: 0,
            previous_sleep_ms: backoff.initial_ms(),
        },
    );
    for client in 0..clients {
        queue.schedule(delay(stream), client);
    }
    let mut tally = RunTally::default();
    let mut version = 0u64;
    let mut completion_sum_ms = 0.0;
    while let Some((now, client)) = queue.pop() {
        let state = &mut states[client as usize];
        // When the client's next request reaches the server; `None` after its final reply.
        let next_arrival_ms = match state.request {
            Request::Read => {
                tally.reads += 1;
                state.request = Request::Write { version };
                let reply_at = now + delay(stream);
                Some(reply_at + delay(stream))
            }
            Request::Write { version: read } => {
                tally.writes += 1;
                let reply_at = now + delay(stream);
                let accepted = read == version;
                let retry = if accepted {
                    version += 1;
                    tally.succeeded += 1;
                    false
                } else {
                    tally.failed_writes += 1;
                    state.failures += 1;
                    setup.max_retries.is_none_or(|max| state.failures <= max)
                };
                if retry {
                    let network_ms = delay(stream);
                    let sleep_ms = backoff.delay_ms(
                        state.failures,
                        state.previous_sleep_ms,
                        unit_f64(stream.next_u64()),
                    );
                    state.previous_sleep_ms = sleep_ms;
                    state.request = Request::Read;
                    Some(reply_at + network_ms + sleep_ms)
                } else {
                    // The client's final reply: accepted, or rejected once too often.
                    tally.gave_up += u32::from(!accepted);
                    completion_sum_ms += reply_at;
                    tally.completion_ms = tally.completion_ms.max(reply_at);
                    None
                }
            }
        };
        // One place that schedules, so that its code is inlined once.
        if let Some(arrival_ms) = next_arrival_ms {
            queue.schedule(arrival_ms, client);
        }
    }
    tally.mean_client_completion_ms = if clients == 0 {
        0.0
    } else {
        completion_sum_ms / f64::from(clients)
    };
    tally.final_version = version;
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::contention::Policy;
    use engine::rng::SeedSequence;

    /// Any delay through [`Delay::sample`]: the same draws as the loop's own copies make, for
    /// tests that compare queues rather than draws.
    impl DrawDelay for Delay {
        fn draw(&self, stream: &mut Pcg64) -> f64 {
            self.sample(stream)
        }
    }

    /// One run on `queue` with `delay`, from seed 11.
    fn race_on(
        queue: &mut impl EventQueue<Event = u32>,
        delay: Delay,
        policy: Policy,
        clients: u32,
        max_retries: Option<u32>,
    ) -> RunTally {
        let setup = ContentionSetup { delay, max_retries };
        let backoff = policy.backoff(5.0, 2_000.0);
        let mut stream = SeedSequence::new(11).pcg64();
        let mut states = Vec::new();
        race(
            &setup,
            backoff,
            clients,
            &mut stream,
            queue,
            &mut states,
            delay,
        )
    }

    /// The calendar queue gives the runs of the heap, every count and time equal, for every
    /// policy, normal, log-normal and uniform delays, with and without a retry limit, at the
    /// width the model picks and at one so narrow that most requests wait in the overflow.
    #[test]
    fn the_calendar_queue_gives_the_runs_of_the_heap() {
        let delays = [
            Delay::FoldedNormal {
                mean_ms: 10.0,
                sd_ms: 2.0,
            },
            Delay::Timeline(Distribution::LogNormal {
                median_ms: 8.0,
                p99_ms: 40.0,
            }),
            Delay::Timeline(Distribution::Uniform {
                low_ms: 1.0,
                high_ms: 3.0,
            }),
        ];
        for delay in delays {
            for policy in Policy::ALL {
                for (clients, max_retries) in [(1, None), (7, Some(2)), (40, None)] {
                    let heap = race_on(&mut IdQueue::new(), delay, policy, clients, max_retries);
                    assert!(heap.writes > u64::from(clients) || clients == 1);
                    let chosen = calendar_width_ms(delay, clients).expect("these delays spread");
                    for width_ms in [chosen, 0.001] {
                        let mut calendar = CalendarQueue::new(clients, width_ms);
                        let tally = race_on(&mut calendar, delay, policy, clients, max_retries);
                        assert_eq!(
                            tally, heap,
                            "{delay:?}, {policy:?}, {clients} clients, {width_ms} ms"
                        );
                    }
                }
            }
        }
    }

    /// Delays that do not spread run on the heap: clients in lockstep would share a bucket.
    #[test]
    fn fixed_delays_run_on_the_heap() {
        assert_eq!(
            calendar_width_ms(Delay::Timeline(Distribution::Fixed { ms: 10.0 }), 5),
            None
        );
        let no_spread = Delay::FoldedNormal {
            mean_ms: 10.0,
            sd_ms: 0.0,
        };
        assert_eq!(calendar_width_ms(no_spread, 5), None);
        let normal = Delay::FoldedNormal {
            mean_ms: 10.0,
            sd_ms: 2.0,
        };
        assert_eq!(calendar_width_ms(normal, 5), Some(2.0));
    }
}
