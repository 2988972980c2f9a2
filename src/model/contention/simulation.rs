//! One run of the contention model: clients racing to update one row under optimistic
//! concurrency control, every message a discrete event on the shared clock of an
//! [`EventQueue`].
//!
//! Each client reads the row's version, then writes with it; the server accepts a write whose
//! version is the current one (and increments the version) and rejects a stale one. After a
//! rejection the client waits its backoff and reads again. Every message (read request, read
//! reply, write request, write reply) takes one network delay. The order of the draws from
//! the run's stream: the clients' first read requests in client order at time 0, then, event by
//! event, the delay of the message each event sends and, after a rejected write, the backoff's
//! uniform draw (taken for every policy, used by the jittered ones).

use super::ContentionSetup;
use crate::model::event_queue::EventQueue;
use crate::model::timeline::Backoff;
use crate::rng::{PcgState, unit_f64};

/// A message arriving at the server or at a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    /// A client's read request reaches the server.
    ReadRequest {
        /// The client (0-based).
        client: u32,
    },
    /// The server's reply with the version it read reaches the client.
    ReadReply {
        /// The client.
        client: u32,
        /// The row's version when the server read it.
        version: u64,
    },
    /// A client's conditional write reaches the server.
    WriteRequest {
        /// The client.
        client: u32,
        /// The version the client read: the write succeeds only if it is still current.
        version: u64,
    },
    /// The server's answer to a write reaches the client.
    WriteReply {
        /// The client.
        client: u32,
        /// Whether the write was accepted.
        accepted: bool,
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

/// A client's retry state.
#[derive(Debug, Clone, Copy)]
struct Client {
    /// Writes of this client rejected so far.
    failures: u32,
    /// The previous backoff (decorrelated jitter grows from it), starting at the policy's
    /// initial value.
    previous_sleep_ms: f64,
}

/// Reusable buffers for runs on one thread.
#[derive(Debug, Default)]
pub struct Simulator {
    queue: EventQueue<Message>,
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
        stream: &mut PcgState,
    ) -> RunTally {
        let delay = |stream: &mut PcgState| setup.delay.sample(stream.next_u64());
        self.queue.clear();
        self.clients.clear();
        self.clients.resize(
            clients as usize,
            Client {
                failures: 0,
                previous_sleep_ms: backoff.initial_ms(),
            },
        );
        for client in 0..clients {
            self.queue
                .schedule(delay(stream), Message::ReadRequest { client });
        }
        let mut tally = RunTally::default();
        let mut version = 0u64;
        let mut completion_sum_ms = 0.0;
        while let Some((now, message)) = self.queue.pop() {
            match message {
                Message::ReadRequest { client } => {
                    tally.reads += 1;
                    self.queue
                        .schedule(now + delay(stream), Message::ReadReply { client, version });
                }
                Message::ReadReply { client, version } => {
                    self.queue.schedule(
                        now + delay(stream),
                        Message::WriteRequest { client, version },
                    );
                }
                Message::WriteRequest {
                    client,
                    version: read,
                } => {
                    tally.writes += 1;
                    let accepted = read == version;
                    if accepted {
                        version += 1;
                    } else {
                        tally.failed_writes += 1;
                    }
                    self.queue.schedule(
                        now + delay(stream),
                        Message::WriteReply { client, accepted },
                    );
                }
                Message::WriteReply { client, accepted } => {
                    let state = &mut self.clients[client as usize];
                    if accepted {
                        tally.succeeded += 1;
                        completion_sum_ms += now;
                        continue;
                    }
                    state.failures += 1;
                    if setup.max_retries.is_some_and(|max| state.failures > max) {
                        tally.gave_up += 1;
                        completion_sum_ms += now;
                        continue;
                    }
                    let network_ms = delay(stream);
                    let sleep_ms = backoff.delay_ms(
                        state.failures,
                        state.previous_sleep_ms,
                        unit_f64(stream.next_u64()),
                    );
                    state.previous_sleep_ms = sleep_ms;
                    self.queue
                        .schedule(now + network_ms + sleep_ms, Message::ReadRequest { client });
                }
            }
        }
        tally.completion_ms = self.queue.now_ms();
        tally.mean_client_completion_ms = if clients == 0 {
            0.0
        } else {
            completion_sum_ms / f64::from(clients)
        };
        tally.final_version = version;
        tally
    }
}
