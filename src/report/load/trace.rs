//! The traces of a load run: for every strategy under which a retry of run 0 was answered 409
//! Conflict because an earlier attempt of its payment still held the key (waiting in the
//! queue for a worker, or being processed), the first such payment drawn as a sequence
//! diagram (`trace_409_<strategy>.svg`, named as the timeline's `trace_stuck_key_<strategy>.svg`
//! is), with a caption in words; both derived from the payment's recorded events
//! ([`crate::model::load::trace::EventKind`]).
//!
//! The lanes are the timeline traces' (client, network, server worker, key store, provider);
//! the server worker's lane also shows a request's wait in the queue. A strategy appears once,
//! at the first scenario (in the file's order) whose run 0 has such a 409. A scenario whose
//! payments are sent as several copies is passed over: the client's lane is one client's
//! attempts, and the copies' would share it.

use crate::model::load::simulation::Answer;
use crate::model::load::trace::{self, Event, EventKind, KeyFound, PaymentTrace};
use crate::model::load::{LoadResults, LoadStrategy};
use crate::report::format::grouped;
use crate::report::sequence::{
    CLIENT, Diagram, Item, KEY_STORE, NETWORK, PAYMENT_LANES, PROVIDER, SERVER, Side, Style,
    TraceFigure, TraceRow, ms, trace_notes,
};
use engine::Silent;

/// The file the 409 trace under `strategy` is written to.
pub fn file_name(strategy: LoadStrategy) -> String {
    format!("trace_409_{}.svg", strategy.name())
}

/// Every trace of `results`: for each strategy, the first payment of run 0 whose retry got a
/// 409 from a key in flight, in the first scenario whose run 0 has one.
pub fn all(results: &LoadResults) -> Vec<TraceFigure> {
    let model = &results.model;
    let mut figures = Vec::new();
    for &strategy in &model.strategies {
        let candidates = results.rows.iter().filter(|row| {
            row.run == 0
                && row.strategy == strategy
                && row.tally.counts.conflicts > 0
                && model.scenarios[row.scenario].arrivals.copies.count == 1
        });
        for row in candidates {
            let found = trace::first_conflict(model, row.scenario, strategy, &Silent)
                .expect("Silent never stops");
            if let Some(trace) = found {
                figures.push(figure(results, &trace));
                break;
            }
        }
    }
    figures
}

/// The figure of one trace.
pub fn figure(results: &LoadResults, trace: &PaymentTrace) -> TraceFigure {
    let caption = caption(results, trace);
    TraceFigure {
        file: file_name(trace.strategy),
        svg: diagram(results, trace, &caption).svg(),
        caption,
    }
}

/// `attempt 2`: attempts counted from 1.
fn attempt_name(attempt: u32) -> String {
    format!("attempt {}", attempt + 1)
}

/// How an answer reads on its arrow.
fn answer_text(answer: Answer) -> &'static str {
    match answer {
        Answer::Ok => "200",
        Answer::Error500 => "500",
        Answer::Conflict409 => "409: key in flight",
        Answer::Shed503 => "503",
        Answer::Rejected422 => "422: another body",
    }
}

/// What a look-up found, on its arrow.
fn found_text(found: KeyFound) -> &'static str {
    match found {
        KeyFound::Absent => "look-up: no key",
        KeyFound::InFlight => "look-up: key in flight",
        KeyFound::Stuck => "look-up: key stuck in flight",
        KeyFound::Complete => "look-up: stored response",
        KeyFound::Failed => "look-up: stored 500",
    }
}

/// How the strategy handles the key, for the diagram's notes.
fn strategy_text(results: &LoadResults, trace: &PaymentTrace) -> String {
    let scenario = &results.model.scenarios[trace.scenario];
    let key_first =
        scenario.server.key_server.key_store == crate::model::semantics::KeyStore::KeyFirst;
    match (trace.strategy, key_first) {
        (LoadStrategy::UniqueKey, true) => "unique_key with key_first: the key is reserved in \
            the other store as the request reaches the server, before it waits for a worker; a \
            request whose key is held gets a 409 there and then."
            .into(),
        (LoadStrategy::UniqueKey, false) => "unique_key: a worker that takes the request inserts \
            the key, in flight, before processing; a request whose key is held gets a 409 at once."
            .into(),
        (strategy, _) => format!(
            "{}: a request whose key is in flight gets a 409.",
            strategy.name()
        ),
    }
}

/// The payment's name: `payment 1,234 of run 0` with its scenario if the file has several.
fn payment_name(results: &LoadResults, trace: &PaymentTrace) -> String {
    let model = &results.model;
    let mut name = format!("payment {} of run {}", grouped(trace.payment), trace.run);
    if model.scenarios.len() > 1 {
        name.push_str(&format!(
            " (scenario {})",
            model.scenarios[trace.scenario].name
        ));
    }
    name
}

/// The first event of attempt `attempt` from index `from` on that `pick` takes.
fn next_of<T>(
    events: &[Event],
    from: usize,
    attempt: u32,
    pick: impl Fn(&Event) -> Option<T>,
) -> Option<T> {
    events[from..]
        .iter()
        .filter(|event| event.attempt == attempt)
        .find_map(pick)
}

/// The index of the 409 the trace is about: the first answer 409 to a retry right after a
/// look-up that found the key in flight.
fn conflict_index(events: &[Event]) -> Option<usize> {
    (1..events.len()).find(|&index| {
        let (before, event) = (&events[index - 1], &events[index]);
        event.attempt > 0
            && event.kind
                == EventKind::Answered {
                    answer: Answer::Conflict409,
                }
            && before.attempt == event.attempt
            && before.kind
                == EventKind::KeyLookedUp {
                    found: KeyFound::InFlight,
                }
    })
}

/// Where a request waited in the queue: ` behind 12 requests`, or first in line.
fn behind(ahead: u32) -> String {
    match ahead {
        0 => " with no request ahead of it".into(),
        1 => " behind 1 request".into(),
        _ => format!(" behind {} requests", grouped(u64::from(ahead))),
    }
}

/// The caption of a trace: what happened, in one sentence, times from the payment's arrival.
pub fn caption(results: &LoadResults, trace: &PaymentTrace) -> String {
    let start = trace.arrived_ms();
    let events = &trace.events;
    let head = format!(
        "{}, {}, arrived at {} of simulated time",
        payment_name(results, trace),
        trace.strategy.name(),
        ms(start)
    );
    let mut sentence = head;
    sentence.push_str(": ");
    let Some(conflict) = conflict_index(events) else {
        sentence.push_str("a retry got a 409 while its key was in flight.");
        sentence[..1].make_ascii_uppercase();
        return sentence;
    };
    let retry = events[conflict].attempt;
    let conflict_ms = events[conflict].at_ms;
    // The attempt holding the key: the last one before the retry that reserved it by then.
    let holder = events[..conflict]
        .iter()
        .rev()
        .find(|event| event.kind == EventKind::KeyReserved && event.attempt < retry)
        .map_or(0, |event| event.attempt);
    let mut clauses = Vec::new();
    let (holder_clause, state) = holder_clause(events, holder, conflict_ms, start);
    clauses.push(holder_clause);
    clauses.push(retry_clause(events, retry, start));
    clauses.push(conflict_clause(events, conflict, holder, state, start));
    clauses.extend(outcome_clauses(events, holder, start));
    sentence.push_str(&clauses.join("; "));
    sentence.push('.');
    // A sentence starts with a capital.
    sentence[..1].make_ascii_uppercase();
    sentence
}

/// How the attempt `holder` holding the key went (reached the server, waited in the queue,
/// was processed), times from `start` (ms); and where it was at the 409, `conflict_ms`.
fn holder_clause(
    events: &[Event],
    holder: u32,
    conflict_ms: f64,
    start: f64,
) -> (String, &'static str) {
    let at = |event_ms: f64| ms(event_ms - start);
    let holder_event = |kind: fn(&EventKind) -> Option<f64>| {
        next_of(events, 0, holder, |event| {
            kind(&event.kind).map(|value| (event.at_ms, value))
        })
    };
    let reached = holder_event(|kind| (*kind == EventKind::Reached).then_some(0.0));
    let queued = next_of(events, 0, holder, |event| match event.kind {
        EventKind::Queued { ahead } => Some((event.at_ms, ahead)),
        _ => None,
    });
    let taken = holder_event(|kind| match kind {
        EventKind::Taken { waited_ms } if *waited_ms > 0.0 => Some(*waited_ms),
        _ => None,
    });
    let processing = holder_event(|kind| match kind {
        EventKind::ProcessingStarted { until_ms } => Some(*until_ms),
        _ => None,
    });
    let mut clause = attempt_name(holder);
    if let Some((reached_ms, _)) = reached {
        clause.push_str(&format!(" reached the server at {}", at(reached_ms)));
    }
    if let Some((_, ahead)) = queued {
        clause.push_str(" and waited in the queue");
        clause.push_str(&behind(ahead));
        if let Some((taken_ms, _)) = taken {
            clause.push_str(&format!(" until a worker took it at {}", at(taken_ms)));
        }
    }
    if let Some((from_ms, until_ms)) = processing {
        clause.push_str(&format!(
            ", processed from {} to {}",
            at(from_ms),
            at(until_ms)
        ));
    }
    // Where the holder was at the 409.
    let state = match (queued, taken, processing) {
        (_, _, Some((from_ms, _))) if from_ms <= conflict_ms => "being processed",
        (Some(_), _, _) => "waiting in the queue",
        _ => "in flight",
    };
    (clause, state)
}

/// How the retry `retry` came: what the client heard of the attempt before it, and when it
/// sent the retry, times from `start` (ms).
fn retry_clause(events: &[Event], retry: u32, start: f64) -> String {
    let at = |event_ms: f64| ms(event_ms - start);
    let before = next_of(events, 0, retry - 1, |event| match event.kind {
        EventKind::TimedOut => Some(format!("the client timed out at {}", at(event.at_ms))),
        EventKind::Received { answer } => Some(format!(
            "the client got a {} at {}",
            &answer_text(answer)[..3],
            at(event.at_ms)
        )),
        EventKind::RequestLost => None,
        _ => None,
    });
    let wait = next_of(events, 0, retry - 1, |event| match event.kind {
        EventKind::BackingOff { wait_ms } => Some(wait_ms),
        _ => None,
    });
    let sent = next_of(events, 0, retry, |event| {
        (event.kind == EventKind::Sent).then_some(event.at_ms)
    });
    let mut clause = before.unwrap_or_else(|| "the client retried".into());
    if let Some(sent_ms) = sent {
        clause.push_str(&format!(
            " and sent {} at {}",
            attempt_name(retry),
            at(sent_ms)
        ));
    }
    if let Some(wait) = wait.filter(|wait| *wait > 0.0) {
        clause.push_str(&format!(" after a backoff of {}", ms(wait)));
    }
    clause
}

/// Why the 409 at `conflict`: the retry reached the server (and perhaps waited in the queue)
/// while `holder` still held the key in `state`; times from `start` (ms).
fn conflict_clause(
    events: &[Event],
    conflict: usize,
    holder: u32,
    state: &str,
    start: f64,
) -> String {
    let at = |event_ms: f64| ms(event_ms - start);
    let (retry, conflict_ms) = (events[conflict].attempt, events[conflict].at_ms);
    let retry_reached = next_of(events, 0, retry, |event| {
        (event.kind == EventKind::Reached).then_some(event.at_ms)
    });
    let retry_queued = next_of(events, 0, retry, |event| match event.kind {
        EventKind::Queued { ahead } => Some(ahead),
        _ => None,
    });
    let heard_late = next_of(events, conflict, retry, |event| match event.kind {
        EventKind::ReceivedLate { .. } => Some(event.at_ms),
        _ => None,
    });
    let mut clause = format!(
        "{} reached the server at {}",
        attempt_name(retry),
        at(retry_reached.unwrap_or(conflict_ms))
    );
    match retry_queued {
        Some(ahead) => clause.push_str(&format!(
            ", waited in the queue{}, and when a worker took it at {} {} still held the key \
             ({state}): 409",
            behind(ahead),
            at(conflict_ms),
            attempt_name(holder)
        )),
        None => clause.push_str(&format!(
            " while {} still held the key ({state}), and got a 409 at once",
            attempt_name(holder)
        )),
    }
    if let Some(late_ms) = heard_late {
        clause.push_str(&format!(
            ", which reached the client at {}, after it had stopped waiting for that attempt",
            at(late_ms)
        ));
    }
    clause
}

/// What became of the holder's charge and how the payment ended, times from `start` (ms).
fn outcome_clauses(events: &[Event], holder: u32, start: f64) -> Vec<String> {
    let at = |event_ms: f64| ms(event_ms - start);
    let mut clauses = Vec::new();
    let charged = next_of(events, 0, holder, |event| match event.kind {
        EventKind::Charged { .. } => Some(event.at_ms),
        _ => None,
    });
    let heard = next_of(events, 0, holder, |event| match event.kind {
        EventKind::Received { .. } => Some(format!(
            "; its 200 reached the client at {}",
            at(event.at_ms)
        )),
        EventKind::ReceivedLate { .. } => Some(format!(
            ", but its answer came at {}, after the client had stopped waiting for it",
            at(event.at_ms)
        )),
        EventKind::ResponseLost => Some(", but its answer was lost".into()),
        _ => None,
    });
    if let Some(charged_ms) = charged {
        clauses.push(format!(
            "{} was charged at {}{}",
            attempt_name(holder),
            at(charged_ms),
            heard.unwrap_or_default()
        ));
    }
    // How the payment ended.
    let end = events.iter().find_map(|event| match event.kind {
        EventKind::Received { answer: Answer::Ok } => Some(format!(
            "the payment succeeded at {} ({})",
            at(event.at_ms),
            attempt_name(event.attempt)
        )),
        EventKind::GaveUp => Some(format!("the client gave up at {}", at(event.at_ms))),
        _ => None,
    });
    clauses.extend(end);
    clauses
}

/// A trace's events as its diagram draws them, and the items of each event's row.
struct Drawing<'a> {
    /// The recorded events, on the simulated clock.
    recorded: &'a [Event],
    /// The same events, times from the payment's arrival (ms).
    events: Vec<Event>,
    /// The payment's arrival on the simulated clock (ms).
    start: f64,
    /// The index of the 409 the trace is about, if any.
    conflict: Option<usize>,
    /// The last event's time from the arrival (ms).
    last_ms: f64,
}

impl<'a> Drawing<'a> {
    /// The drawing of `trace`.
    fn new(trace: &'a PaymentTrace) -> Self {
        let start = trace.arrived_ms();
        let events: Vec<Event> = trace
            .events
            .iter()
            .map(|event| Event {
                at_ms: event.at_ms - start,
                kind: match event.kind {
                    EventKind::ProcessingStarted { until_ms } => EventKind::ProcessingStarted {
                        until_ms: until_ms - start,
                    },
                    EventKind::KeyLeftInFlight { until_ms } => EventKind::KeyLeftInFlight {
                        until_ms: until_ms - start,
                    },
                    kind => kind,
                },
                ..*event
            })
            .collect();
        let conflict = conflict_index(&events);
        let last_ms = events.last().map_or(0.0, |event| event.at_ms);
        Drawing {
            recorded: &trace.events,
            events,
            start,
            conflict,
            last_ms,
        }
    }

    /// The row of the event at `index`.
    fn row(&self, index: usize) -> TraceRow {
        TraceRow {
            at_ms: self.events[index].at_ms,
            last_ms: self.last_ms,
        }
    }

    /// The first event after `index` of the same attempt whose kind `kinds` accepts.
    fn later(&self, index: usize, kinds: &dyn Fn(&EventKind) -> bool) -> Option<&Event> {
        let attempt = self.events[index].attempt;
        self.events[index + 1..]
            .iter()
            .find(|other| other.attempt == attempt && kinds(&other.kind))
    }

    /// Every event's items, in time order.
    fn items(&self) -> Vec<Item> {
        let mut items = Vec::new();
        for (index, event) in self.events.iter().enumerate() {
            match event.kind {
                EventKind::KeyLookedUp { .. }
                | EventKind::KeyReserved
                | EventKind::KeyStoreDown { .. }
                | EventKind::KeySaved
                | EventKind::KeyWriteFailed
                | EventKind::KeyLeftInFlight { .. }
                | EventKind::Queued { .. }
                | EventKind::Shed
                | EventKind::DroppedExpired
                | EventKind::LockWaiting
                | EventKind::ProcessingStarted { .. }
                | EventKind::Charged { .. }
                | EventKind::ProcessingFailed
                | EventKind::Crashed { .. } => self.server_items(index, &mut items),
                EventKind::Sent
                | EventKind::RequestLost
                | EventKind::Reached
                | EventKind::Taken { .. }
                | EventKind::Answered { .. }
                | EventKind::ResponseLost
                | EventKind::Received { .. }
                | EventKind::ReceivedLate { .. }
                | EventKind::TimedOut
                | EventKind::BackingOff { .. }
                | EventKind::GaveUp => self.client_items(index, &mut items),
            }
        }
        items
    }

    /// The items of a message between the client and the server, or of the client's waits,
    /// at `index`.
    fn client_items(&self, index: usize, items: &mut Vec<Item>) {
        let events = &self.events[..];
        let (attempt, at) = (events[index].attempt, events[index].at_ms);
        let row = self.row(index);
        match events[index].kind {
            EventKind::Sent => {
                if let Some(reached) = self.later(index, &|kind| *kind == EventKind::Reached) {
                    let label = attempt_name(attempt);
                    items.push(row.arrow(CLIENT, SERVER, reached.at_ms, label, Style::Normal));
                }
            }
            EventKind::RequestLost => {
                let label = format!("{}: request lost", attempt_name(attempt));
                items.push(row.level(CLIENT, NETWORK, label, Style::Lost));
            }
            EventKind::Answered { answer } => {
                let received = self.later(index, &|kind| {
                    matches!(
                        kind,
                        EventKind::Received { .. } | EventKind::ReceivedLate { .. }
                    )
                });
                if let Some(received) = received {
                    let late = matches!(received.kind, EventKind::ReceivedLate { .. });
                    let (label, style) = if late {
                        (
                            format!("{} (too late: ignored)", answer_text(answer)),
                            Style::Muted,
                        )
                    } else if self.conflict == Some(index) {
                        (answer_text(answer).to_string(), Style::Highlight)
                    } else {
                        (answer_text(answer).to_string(), Style::Normal)
                    };
                    items.push(row.arrow(SERVER, CLIENT, received.at_ms, label, style));
                }
            }
            EventKind::ResponseLost => {
                let label = format!("response to {} lost", attempt_name(attempt));
                items.push(row.level(SERVER, NETWORK, label, Style::Lost));
            }
            EventKind::Received { answer: Answer::Ok } => {
                items.push(row.mark(CLIENT, "success".into(), Style::Normal));
            }
            EventKind::TimedOut => {
                let gave_up = events[index + 1..]
                    .first()
                    .is_some_and(|next| next.kind == EventKind::GaveUp && next.at_ms == at);
                let label = if gave_up {
                    "timeout: gave up"
                } else {
                    "timeout"
                };
                items.push(row.mark(CLIENT, label.into(), Style::Muted));
            }
            EventKind::BackingOff { wait_ms } if wait_ms > 0.0 => {
                let label = format!("backoff {}", ms(wait_ms));
                // Its end on the simulated clock, where the retry's send is, then from the
                // arrival: the same row as the send, bit for bit.
                let until = self.recorded[index].at_ms + wait_ms - self.start;
                items.push(row.span(CLIENT, Side::Left, until, label, Style::Muted));
            }
            EventKind::GaveUp => {
                let after_timeout = index > 0 && {
                    let previous = &events[index - 1];
                    previous.kind == EventKind::TimedOut && previous.at_ms == at
                };
                if !after_timeout {
                    items.push(row.mark(CLIENT, "gave up".into(), Style::Muted));
                }
            }
            // Drawn with the send and the answer, or nothing to draw.
            _ => {}
        }
    }

    /// The items of the server's work and its key store's at `index`.
    fn server_items(&self, index: usize, items: &mut Vec<Item>) {
        let events = &self.events[..];
        let attempt = events[index].attempt;
        let row = self.row(index);
        match events[index].kind {
            EventKind::KeyLookedUp { found } => {
                let reserved = events[index + 1..].first().is_some_and(|next| {
                    next.kind == EventKind::KeyReserved && next.attempt == attempt
                });
                let (label, style) = if reserved {
                    ("no key: insert it, in flight".to_string(), Style::Normal)
                } else if self.conflict == Some(index + 1) {
                    (found_text(found).to_string(), Style::Highlight)
                } else {
                    (found_text(found).to_string(), Style::Normal)
                };
                items.push(row.level(SERVER, KEY_STORE, label, style));
            }
            EventKind::KeyReserved => {
                let released = self.later(index, &|kind| {
                    matches!(
                        kind,
                        EventKind::KeySaved
                            | EventKind::KeyWriteFailed
                            | EventKind::ProcessingFailed
                            | EventKind::Crashed { .. }
                            | EventKind::Shed
                            | EventKind::DroppedExpired
                    )
                });
                let until = released.map_or(self.last_ms, |event| event.at_ms);
                let label = format!("key in flight ({})", attempt_name(attempt));
                items.push(row.span(KEY_STORE, Side::Right, until, label, Style::Normal));
            }
            EventKind::KeyStoreDown { fail_open } => {
                let label = if fail_open {
                    "key store down: processed without the key"
                } else {
                    "key store down: 503"
                };
                items.push(row.mark(KEY_STORE, label.into(), Style::Lost));
            }
            EventKind::Queued { ahead } => {
                let taken = self.later(index, &|kind| matches!(kind, EventKind::Taken { .. }));
                let until = taken.map_or(self.last_ms, |event| event.at_ms);
                let label = format!(
                    "{}: queued, {} ahead",
                    attempt_name(attempt),
                    grouped(u64::from(ahead))
                );
                items.push(row.span(SERVER, Side::Left, until, label, Style::Muted));
            }
            EventKind::ProcessingStarted { until_ms } => {
                let label = format!("processing {}", attempt_name(attempt));
                items.push(row.span(SERVER, Side::Left, until_ms, label, Style::Normal));
            }
            EventKind::Charged { nth } => {
                let (label, style) = if nth >= 2 {
                    (format!("charge {nth}: charged twice"), Style::Highlight)
                } else {
                    (format!("charge {nth}"), Style::Normal)
                };
                items.push(row.level(SERVER, PROVIDER, label, style));
            }
            EventKind::KeyLeftInFlight { until_ms } => items.push(row.span(
                KEY_STORE,
                Side::Right,
                until_ms,
                "key stuck in flight".into(),
                Style::Highlight,
            )),
            kind => {
                if let Some((lane, label, style)) = server_mark(kind) {
                    items.push(if lane == KEY_STORE {
                        row.level(SERVER, KEY_STORE, label.into(), style)
                    } else {
                        row.mark(lane, label.into(), style)
                    });
                }
            }
        }
    }
}

/// The fixed-text items of the server's events: the lane, the label and the style (a level
/// message to the key store, or a mark on the server's worker).
fn server_mark(kind: EventKind) -> Option<(usize, &'static str, Style)> {
    Some(match kind {
        EventKind::Shed => (SERVER, "queue full: 503", Style::Lost),
        EventKind::DroppedExpired => (SERVER, "dropped: waited past the timeout", Style::Lost),
        EventKind::LockWaiting => (SERVER, "waits for the key's lock", Style::Muted),
        EventKind::ProcessingFailed => (SERVER, "processing failed: 500", Style::Lost),
        EventKind::Crashed { .. } => (SERVER, "crash", Style::Highlight),
        EventKind::KeySaved => (KEY_STORE, "store key + response", Style::Normal),
        EventKind::KeyWriteFailed => (KEY_STORE, "key write failed: key lost", Style::Lost),
        _ => return None,
    })
}

/// The sequence diagram of a trace, times from the payment's arrival.
fn diagram(results: &LoadResults, trace: &PaymentTrace, caption: &str) -> Diagram {
    let drawing = Drawing::new(trace);
    let model = &results.model;
    let scenario = &model.scenarios[trace.scenario];
    let notes = trace_notes(
        caption,
        &[
            "The first payment of run 0 whose retry got a 409 while the attempt holding its key \
             had waited in the queue for a worker (or, if no such payment, the first whose retry \
             got a 409 from a key in flight).",
            strategy_text(results, trace).as_str(),
            "Times are ms from the payment's arrival (its first send); rows are in time order, \
             further apart the longer the wait between them (not to scale). Every other payment \
             shares the workers and the queue, and is not drawn.",
            "Solid arrows: messages that arrived; dashed arrows ending in a cross: lost on the \
             way; bars: a wait in the queue, a processing, a backoff, a key in flight; red: the \
             retry's 409 and the look-up that caused it.",
        ],
    );
    Diagram {
        title: format!(
            "A retry answered 409 under load, {}: {}",
            trace.strategy.name(),
            payment_name(results, trace)
        ),
        subtitle: format!(
            "{} · scenario {} · seed {} · arrived at {}",
            model.title,
            scenario.name,
            model.seed,
            ms(drawing.start)
        ),
        lanes: PAYMENT_LANES
            .iter()
            .map(|lane| (*lane).to_string())
            .collect(),
        items: drawing.items(),
        notes,
    }
}
