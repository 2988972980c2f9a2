//! One run of the contention model: clients racing to update one row under optimistic
//! concurrency control on the shared clock of an [`IdQueue`](crate::model::event_queue::IdQueue).
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
use crate::model::event_queue::IdQueue;
use crate::model::timeline::{Backoff, Distribution};
use crate::rng::unit_f64;

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
#[derive(Debug, Clone, Copy, Default, PartialEq)]
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
    /// Requests reaching the server: the client's number, at the arrival time.
    queue: IdQueue,
    clients: Vec<Client>,
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

    /// [`Simulator::run`] with `draw` drawing one message's delay. A function of its own per
    /// kind of delay (never inlined into `run`), so that the compiler inlines the draw and the
    /// queue's steps into it.
    #[inline(never)]
    fn run_with(
        &mut self,
        setup: &ContentionSetup,
        backoff: Backoff,
        clients: u32,
        stream: &mut Pcg64,
        draw: impl DrawDelay,
    ) -> RunTally {
        let delay = |stream: &mut Pcg64| draw.draw(stream);
        self.queue.clear();
        self.clients.clear();
        self.clients.resize(
            clients as usize,
            Client {
                request: Request::Read,
                failures: 0,
                previous_sleep_ms: backoff.initial_ms(),
            },
        );
        for client in 0..clients {
            self.queue.schedule(delay(stream), client);
        }
        let mut tally = RunTally::default();
        let mut version = 0u64;
        let mut completion_sum_ms = 0.0;
        while let Some((now, client)) = self.queue.peek() {
            let state = &mut self.clients[client as usize];
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
            // One place that moves the queue on, so that its code is inlined once.
            match next_arrival_ms {
                Some(arrival_ms) => {
                    self.queue.replace_earliest(arrival_ms, client);
                }
                None => {
                    self.queue.pop();
                }
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
}
