//! The traces of a timeline run: for every strategy with double charges in run 0, its first
//! double-charged payment drawn as a sequence diagram (`trace_<strategy>.svg`), and for every
//! strategy whose keys a crash left in flight, the first such payment
//! (`trace_stuck_key_<strategy>.svg`); each with a one-sentence caption in words, both derived
//! from the payment's recorded events ([`crate::model::timeline::events::EventKind`]).
//!
//! The lanes are the client, the network, the server's worker, the key store and the
//! provider (whom a charge reaches). A strategy appears once per kind of trace, at the first
//! scenario (in the file's order) whose run 0 has the outcome.

use crate::model::timeline::events::{Answer, Event, EventKind, KeyFound};
use crate::model::timeline::trace::{self, PaymentTrace, Traced};
use crate::model::timeline::{CrashPoint, Strategy, TimelineModel, TimelineResults};
use crate::report::format::grouped;
pub use crate::report::sequence::TraceFigure;
use crate::report::sequence::{
    CLIENT, Diagram, Item, KEY_STORE, NETWORK, PAYMENT_LANES, PROVIDER, SERVER, Side, Style,
    TraceRow, ms, trace_notes,
};
use engine::Silent;

/// The file a trace of `traced` under `strategy` is written to.
pub fn file_name(traced: Traced, strategy: Strategy) -> String {
    match traced {
        Traced::DoubleCharge => format!("trace_{}.svg", strategy.name()),
        Traced::StuckKey => format!("trace_stuck_key_{}.svg", strategy.name()),
    }
}

/// Every trace of `results`: for each kind and strategy, the first payment of run 0 with the
/// outcome, in the first scenario whose run 0 has it.
pub fn all(results: &TimelineResults) -> Vec<TraceFigure> {
    let model = &results.model;
    let mut figures = Vec::new();
    for traced in Traced::ALL {
        for &strategy in &model.strategies {
            let scenario = results.rows.iter().find(|row| {
                row.run == 0 && row.strategy == strategy && traced.holds(&row.tally.counts)
            });
            let Some(row) = scenario else { continue };
            let found = trace::first(model, row.scenario, strategy, traced, &Silent)
                .expect("Silent never stops");
            // The counters say some payment has it, and the walk runs every payment.
            let trace = found.expect("the payment the counters count");
            figures.push(figure(model, &trace));
        }
    }
    figures
}

/// The figure of one trace.
pub fn figure(model: &TimelineModel, trace: &PaymentTrace) -> TraceFigure {
    let caption = caption(model, trace);
    TraceFigure {
        file: file_name(trace.traced, trace.strategy),
        svg: diagram(model, trace, &caption).svg(),
        caption,
    }
}

/// `attempt 2` (one copy) or `attempt 2 of copy 3`: attempts and copies counted from 1.
fn attempt_name(model: &TimelineModel, trace: &PaymentTrace, copy: u32, attempt: u32) -> String {
    if model.scenarios[trace.scenario].arrivals.copies > 1 {
        format!("attempt {} of copy {}", attempt + 1, copy + 1)
    } else {
        format!("attempt {}", attempt + 1)
    }
}

/// How an answer reads on its arrow.
fn answer_text(answer: Answer) -> &'static str {
    match answer {
        Answer::Charged => "200: charged",
        Answer::Replayed => "200: stored response",
        Answer::Conflict => "409: key in flight",
        Answer::ServerError => "500",
        Answer::Rejected => "422: another body",
    }
}

/// What a look-up found, on its arrow.
fn found_text(found: KeyFound) -> &'static str {
    match found {
        KeyFound::Absent => "look-up: no key",
        KeyFound::InFlight => "look-up: key in flight",
        KeyFound::Complete => "look-up: stored response",
        KeyFound::Failed => "look-up: stored 500",
    }
}

/// Where a crash fell, in words.
fn crash_text(point: CrashPoint) -> &'static str {
    match point {
        CrashPoint::BeforeCharge => "before the charge",
        CrashPoint::AfterCharge => "after the charge and before saving the key",
        CrashPoint::AfterSave => "after saving the key and before answering",
    }
}

/// How the strategy handles the key, for the diagram's notes.
fn strategy_text(strategy: Strategy) -> &'static str {
    match strategy {
        Strategy::None => "none: the server keeps no key; every delivery it processes charges.",
        Strategy::CheckThenInsert => {
            "check_then_insert: the server looks the key up on arrival and stores it only after \
             the charge."
        }
        Strategy::UniqueKey => {
            "unique_key: the server inserts the key (in flight) on arrival, before processing."
        }
    }
}

/// The events the diagram draws: for a double charge, those up to the second charge, and the
/// answers to the attempts answered by then (however late they come); for a stuck key, all.
fn drawn(trace: &PaymentTrace) -> Vec<Event> {
    let events = &trace.events;
    let second = events
        .iter()
        .position(|event| matches!(event.kind, EventKind::Charged { nth: 2 }));
    let Some(second) = second.filter(|_| trace.traced == Traced::DoubleCharge) else {
        return events.clone();
    };
    let until = events[second].at_ms;
    let answered = |copy: u32, attempt: u32| {
        events.iter().any(|event| {
            event.copy == copy
                && event.attempt == attempt
                && event.at_ms <= until
                && matches!(event.kind, EventKind::Answered { .. })
        })
    };
    events
        .iter()
        .enumerate()
        .filter(|&(index, event)| {
            index <= second
                || event.at_ms == until
                || (matches!(
                    event.kind,
                    EventKind::Received { .. } | EventKind::ReceivedLate { .. }
                ) && answered(event.copy, event.attempt))
        })
        .map(|(_, event)| *event)
        .collect()
}

/// The first event after `from` (an index) of attempt `attempt` of copy `copy` that `pick`
/// takes.
fn next_of<T>(
    events: &[Event],
    from: usize,
    copy: u32,
    attempt: u32,
    pick: impl Fn(&Event) -> Option<T>,
) -> Option<T> {
    events[from..]
        .iter()
        .filter(|event| event.copy == copy && event.attempt == attempt)
        .find_map(pick)
}

/// The payment's name: `payment 1,234 of run 0` with its scenario if the file has several.
fn payment_name(model: &TimelineModel, trace: &PaymentTrace) -> String {
    let mut name = format!("payment {} of run {}", grouped(trace.payment), trace.run);
    if model.scenarios.len() > 1 {
        name.push_str(&format!(
            " (scenario {})",
            model.scenarios[trace.scenario].name
        ));
    }
    name
}

/// The caption of a trace: what happened, in one sentence.
pub fn caption(model: &TimelineModel, trace: &PaymentTrace) -> String {
    let events = &trace.events;
    let head = format!("{}, {}", payment_name(model, trace), trace.strategy.name());
    let clauses = match trace.traced {
        Traced::DoubleCharge => double_charge_clauses(model, trace, events),
        Traced::StuckKey => stuck_key_clauses(model, trace, events),
    };
    let mut sentence = format!("{head}: {}.", clauses.join("; "));
    // A sentence starts with a capital.
    sentence[..1].make_ascii_uppercase();
    sentence
}

/// The two charged attempts in the order they were sent: how the earlier one went, how the
/// later one came (a timeout and a backoff, or another copy), why the server did not answer
/// it from the key, and the two charges.
fn double_charge_clauses(
    model: &TimelineModel,
    trace: &PaymentTrace,
    events: &[Event],
) -> Vec<String> {
    let charge = |nth: u64| {
        events
            .iter()
            .position(|event| event.kind == EventKind::Charged { nth })
    };
    let (Some(first), Some(second)) = (charge(1), charge(2)) else {
        return vec!["it was charged twice".into()];
    };
    let name = |event: &Event| attempt_name(model, trace, event.copy, event.attempt);
    let (charged_first, charged_second) = (&events[first], &events[second]);
    let sent = |event: &Event| when(events, event, EventKind::Sent).unwrap_or(0.0);
    // The attempt sent first, and the later one.
    let in_order = sent(charged_first) <= sent(charged_second);
    let (early, late) = if in_order {
        (charged_first, charged_second)
    } else {
        (charged_second, charged_first)
    };
    let mut clauses = vec![
        early_clause(model, trace, events, early, in_order),
        late_clause(model, trace, events, late),
        no_key_clause(trace, events, late, first.max(second)),
    ];
    clauses.push(if in_order {
        format!("the server charged again at {}", ms(charged_second.at_ms))
    } else {
        format!(
            "{} was charged at {}, and {} charged again at {}",
            name(late),
            ms(charged_first.at_ms),
            name(early),
            ms(charged_second.at_ms)
        )
    });
    clauses
}

/// When the first event of kind `kind` of `of`'s attempt happened (ms), if it did.
fn when(events: &[Event], of: &Event, kind: EventKind) -> Option<f64> {
    next_of(events, 0, of.copy, of.attempt, |event| {
        (event.kind == kind).then_some(event.at_ms)
    })
}

/// How the attempt `early`, sent first, went: when it reached the server and, if it was
/// charged first (`in_order`), its charge and the fate of its answer.
fn early_clause(
    model: &TimelineModel,
    trace: &PaymentTrace,
    events: &[Event],
    early: &Event,
    in_order: bool,
) -> String {
    let mut clause = attempt_name(model, trace, early.copy, early.attempt);
    if let Some(at) = when(events, early, EventKind::Delivered) {
        clause.push_str(&format!(" reached the server at {}", ms(at)));
    }
    if in_order {
        let fate = next_of(events, 0, early.copy, early.attempt, |event| {
            match event.kind {
                // Recorded as the attempt is sent, before its answer's fate.
                EventKind::WentOffline { until_ms } => Some(format!(
                    ", but the client had gone offline as it sent it, until {}",
                    ms(until_ms)
                )),
                EventKind::ResponseLost => Some(format!(
                    ", but its response was lost at {}",
                    ms(event.at_ms)
                )),
                EventKind::ReceivedLate { .. } => Some(format!(
                    ", but its response came at {}, after the client's timeout",
                    ms(event.at_ms)
                )),
                EventKind::Received { .. } => Some(format!(
                    "; its answer reached the client at {}",
                    ms(event.at_ms)
                )),
                EventKind::Crashed { point } => Some(format!(
                    ", and the server crashed {}, never answering",
                    crash_text(point)
                )),
                _ => None,
            }
        });
        clause.push_str(&format!(" and was charged at {}", ms(early.at_ms)));
        clause.push_str(&fate.unwrap_or_default());
    } else {
        clause.push_str(" and was still processing");
    }
    clause
}

/// How the later attempt `late` came: what the client heard of the attempt before it and
/// the backoff, or, for a first attempt (another copy's), when it was sent.
fn late_clause(
    model: &TimelineModel,
    trace: &PaymentTrace,
    events: &[Event],
    late: &Event,
) -> String {
    let name = |event: &Event| attempt_name(model, trace, event.copy, event.attempt);
    let late_sent = when(events, late, EventKind::Sent).unwrap_or(0.0);
    if late.attempt > 0 {
        let before = next_of(
            events,
            0,
            late.copy,
            late.attempt - 1,
            |event| match event.kind {
                EventKind::TimedOut => Some(format!("the client timed out at {}", ms(event.at_ms))),
                EventKind::WentOffline { until_ms } => {
                    Some(format!("the client came back online at {}", ms(until_ms)))
                }
                EventKind::Received { answer } => Some(format!(
                    "the client got a {} at {}",
                    &answer_text(answer)[..3],
                    ms(event.at_ms)
                )),
                _ => None,
            },
        );
        let wait = next_of(
            events,
            0,
            late.copy,
            late.attempt - 1,
            |event| match event.kind {
                EventKind::BackingOff { wait_ms } => Some(wait_ms),
                _ => None,
            },
        );
        let mut clause = before.unwrap_or_else(|| "the client retried".into());
        clause.push_str(&format!(" and sent {} at {}", name(late), ms(late_sent)));
        if let Some(wait) = wait {
            clause.push_str(&format!(" after a backoff of {}", ms(wait)));
        }
        clause
    } else {
        format!("{} was sent at {}", name(late), ms(late_sent))
    }
}

/// Why the server did not answer the later attempt `late` from the key: its key had expired,
/// had been released, had never been stored (a failed write or a crash before `until`, the
/// later charge's index), or the strategy keeps none.
fn no_key_clause(trace: &PaymentTrace, events: &[Event], late: &Event, until: usize) -> String {
    let why = next_of(events, 0, late.copy, late.attempt, |event| {
        match event.kind {
            EventKind::KeyExpired => Some("its key had expired"),
            EventKind::KeyReleased { .. } => Some("the key a crash had left in flight was gone"),
            _ => None,
        }
    })
    .or_else(|| {
        events[..until].iter().find_map(|event| match event.kind {
            EventKind::KeyWriteFailed => Some("the first charge's key write had failed"),
            EventKind::Crashed {
                point: CrashPoint::AfterCharge,
            } => Some("a crash had lost the first charge's key"),
            _ => None,
        })
    })
    .or_else(|| {
        (trace.strategy == Strategy::CheckThenInsert)
            .then_some("the key is stored only after a charge, and none had been stored yet")
    });
    let mut clause = match when(events, late, EventKind::Delivered) {
        Some(at) => format!("it reached the server at {}", ms(at)),
        None => "it reached the server".to_string(),
    };
    match (trace.strategy, why) {
        (Strategy::None, _) => clause.push_str(", which keeps no key"),
        (_, Some(why)) => clause.push_str(&format!(" and found no key ({why})")),
        (_, None) => clause.push_str(" and found no key"),
    }
    clause
}

/// `one` for a count of 1, else `many`.
fn one_or_many(count: usize, one: &'static str, many: &'static str) -> &'static str {
    if count == 1 { one } else { many }
}

/// The crash, how long the key stayed in flight, what the deliveries meanwhile got, and what
/// came after.
fn stuck_key_clauses(model: &TimelineModel, trace: &PaymentTrace, events: &[Event]) -> Vec<String> {
    let Some(left) = events
        .iter()
        .position(|event| matches!(event.kind, EventKind::KeyLeftInFlight { .. }))
    else {
        return vec!["a crash left its key in flight".into()];
    };
    let EventKind::KeyLeftInFlight { until_ms, becomes } = events[left].kind else {
        unreachable!("found above")
    };
    let crash = events[..left]
        .iter()
        .rev()
        .find_map(|event| match event.kind {
            EventKind::Crashed { point } => Some((point, event.at_ms, event.copy, event.attempt)),
            _ => None,
        });
    let mut clauses = Vec::new();
    if let Some((point, at, copy, attempt)) = crash {
        clauses.push(format!(
            "the server crashed at {} while processing {}, {}",
            ms(at),
            attempt_name(model, trace, copy, attempt),
            crash_text(point)
        ));
    }
    let how = match release(model, trace, events[left].at_ms, until_ms, becomes) {
        Release::Completed => "when the completer marked it complete",
        Release::Released => "when the completer released it",
        Release::LockExpired => "when its lock expired",
    };
    clauses.push(format!(
        "the key stayed in flight until {} ({how})",
        ms(until_ms)
    ));
    let conflicts = events[left..]
        .iter()
        .filter(|event| {
            event.kind
                == EventKind::KeyLookedUp {
                    found: KeyFound::InFlight,
                }
        })
        .count();
    if conflicts > 0 {
        clauses.push(format!(
            "{conflicts} {} in between got a 409",
            one_or_many(conflicts, "delivery", "deliveries")
        ));
    }
    let after = events[left..].iter().find_map(|event| match event.kind {
        EventKind::Charged { nth } if event.at_ms >= until_ms => Some(format!(
            "{} was charged {}at {}",
            attempt_name(model, trace, event.copy, event.attempt),
            if nth > 1 { "again " } else { "" },
            ms(event.at_ms)
        )),
        EventKind::KeyLookedUp {
            found: KeyFound::Complete,
        } if event.at_ms >= until_ms => Some(format!(
            "{} got the stored response at {}",
            attempt_name(model, trace, event.copy, event.attempt),
            ms(event.at_ms)
        )),
        EventKind::GaveUp => Some(format!("the client gave up at {}", ms(event.at_ms))),
        _ => None,
    });
    clauses.extend(after);
    clauses
}

/// How a key a crash left in flight leaves that state.
enum Release {
    /// The completer marks it complete (its charge had committed).
    Completed,
    /// The completer releases it (nothing had committed).
    Released,
    /// Its lock expires and the store drops it.
    LockExpired,
}

/// How the key left in flight at `at_ms` until `until_ms`, when it `becomes` that, is
/// released: the completer comes `completer_interval_ms` after the crash, if before the lock
/// expires.
fn release(
    model: &TimelineModel,
    trace: &PaymentTrace,
    at_ms: f64,
    until_ms: f64,
    becomes: KeyFound,
) -> Release {
    let completer = model.scenarios[trace.scenario]
        .backend
        .key
        .completer_interval_ms
        .is_some_and(|interval| at_ms + interval == until_ms);
    match (completer, becomes) {
        (true, KeyFound::Complete) => Release::Completed,
        (true, _) => Release::Released,
        (false, _) => Release::LockExpired,
    }
}

/// A trace's drawn events and the items of each event's row.
struct Drawing<'a> {
    model: &'a TimelineModel,
    trace: &'a PaymentTrace,
    /// The events drawn (see [`drawn`]).
    events: Vec<Event>,
    /// The last drawn event's time (ms).
    last_ms: f64,
}

impl<'a> Drawing<'a> {
    /// The drawing of `trace`.
    fn new(model: &'a TimelineModel, trace: &'a PaymentTrace) -> Self {
        let events = drawn(trace);
        let last_ms = events.last().map_or(0.0, |event| event.at_ms);
        Drawing {
            model,
            trace,
            events,
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

    /// The name of the attempt of the event at `index`.
    fn name(&self, index: usize) -> String {
        let event = &self.events[index];
        attempt_name(self.model, self.trace, event.copy, event.attempt)
    }

    /// The first event after `index` of the same attempt of the same copy whose kind `kinds`
    /// accepts.
    fn later(&self, index: usize, kinds: &dyn Fn(&EventKind) -> bool) -> Option<&Event> {
        let (copy, attempt) = (self.events[index].copy, self.events[index].attempt);
        self.events[index + 1..]
            .iter()
            .find(|other| other.copy == copy && other.attempt == attempt && kinds(&other.kind))
    }

    /// Every event's items, in time order.
    fn items(&self) -> Vec<Item> {
        let mut items = Vec::new();
        for (index, event) in self.events.iter().enumerate() {
            match event.kind {
                EventKind::Sent
                | EventKind::RequestLost
                | EventKind::Answered { .. }
                | EventKind::ResponseLost
                | EventKind::Received { .. }
                | EventKind::ReceivedLate { .. }
                | EventKind::Delivered
                | EventKind::TimedOut
                | EventKind::WentOffline { .. }
                | EventKind::BackingOff { .. }
                | EventKind::GaveUp => self.client_items(index, &mut items),
                EventKind::KeyLookedUp { .. }
                | EventKind::KeyReserved
                | EventKind::KeySaved
                | EventKind::KeyWriteFailed
                | EventKind::KeyExpired
                | EventKind::KeyReleased { .. }
                | EventKind::KeyLeftInFlight { .. }
                | EventKind::KeyDropped
                | EventKind::ProcessingStarted { .. }
                | EventKind::Charged { .. }
                | EventKind::ProcessingFailed
                | EventKind::Crashed { .. } => self.server_items(index, &mut items),
            }
        }
        items
    }

    /// The items of a message between the client and the server, or of the client's waits,
    /// at `index`.
    fn client_items(&self, index: usize, items: &mut Vec<Item>) {
        let events = &self.events[..];
        let (copy, at) = (events[index].copy, events[index].at_ms);
        let row = self.row(index);
        match events[index].kind {
            EventKind::Sent => {
                if let Some(delivered) = self.later(index, &|kind| *kind == EventKind::Delivered) {
                    let label = self.name(index);
                    items.push(row.arrow(CLIENT, SERVER, delivered.at_ms, label, Style::Normal));
                }
            }
            EventKind::RequestLost => {
                let label = format!("{}: request lost", self.name(index));
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
                    let label = if late {
                        format!("{} (too late: ignored)", answer_text(answer))
                    } else {
                        answer_text(answer).to_string()
                    };
                    let style = if late { Style::Muted } else { Style::Normal };
                    items.push(row.arrow(SERVER, CLIENT, received.at_ms, label, style));
                }
            }
            EventKind::ResponseLost => {
                let label = format!("response to {} lost", self.name(index));
                items.push(row.level(SERVER, NETWORK, label, Style::Lost));
            }
            EventKind::Received { answer } => {
                if matches!(answer, Answer::Charged | Answer::Replayed) {
                    items.push(row.mark(CLIENT, "success".into(), Style::Normal));
                }
            }
            EventKind::TimedOut => {
                let gave_up = events[index + 1..].first().is_some_and(|next| {
                    next.kind == EventKind::GaveUp && next.copy == copy && next.at_ms == at
                });
                let copies = self.model.scenarios[self.trace.scenario].arrivals.copies;
                let label = format!(
                    "{}timeout{}",
                    if copies > 1 {
                        format!("copy {}: ", copy + 1)
                    } else {
                        String::new()
                    },
                    if gave_up { ": gave up" } else { "" }
                );
                items.push(row.mark(CLIENT, label, Style::Muted));
            }
            EventKind::WentOffline { until_ms } => {
                let label = format!("offline {}", ms(until_ms - at));
                items.push(row.span(CLIENT, Side::Left, until_ms, label, Style::Muted));
            }
            EventKind::BackingOff { wait_ms } => {
                let label = format!("backoff {}", ms(wait_ms));
                items.push(row.span(CLIENT, Side::Left, at + wait_ms, label, Style::Muted));
            }
            EventKind::GaveUp => {
                let after_timeout = index > 0 && {
                    let previous = &events[index - 1];
                    previous.kind == EventKind::TimedOut
                        && previous.copy == copy
                        && previous.at_ms == at
                };
                if !after_timeout {
                    items.push(row.mark(CLIENT, "gave up".into(), Style::Muted));
                }
            }
            // Drawn with the send and the answer.
            _ => {}
        }
    }

    /// The items of the server's work and its key store's at `index`.
    fn server_items(&self, index: usize, items: &mut Vec<Item>) {
        let events = &self.events[..];
        let (copy, attempt, at) = (
            events[index].copy,
            events[index].attempt,
            events[index].at_ms,
        );
        let row = self.row(index);
        match events[index].kind {
            EventKind::KeyLookedUp { found } => {
                let reserved = events[index + 1..].first().is_some_and(|next| {
                    next.kind == EventKind::KeyReserved
                        && next.copy == copy
                        && next.attempt == attempt
                });
                let label = if reserved {
                    "no key: insert it, in flight".to_string()
                } else {
                    found_text(found).to_string()
                };
                items.push(row.level(SERVER, KEY_STORE, label, Style::Normal));
            }
            EventKind::KeyExpired => {
                items.push(row.mark(KEY_STORE, "key expired (TTL)".into(), Style::Muted));
            }
            EventKind::KeyLeftInFlight { until_ms, becomes } => {
                let label = "key stuck in flight".into();
                items.push(row.span(KEY_STORE, Side::Right, until_ms, label, Style::Highlight));
                if until_ms <= self.last_ms {
                    let label = match release(self.model, self.trace, at, until_ms, becomes) {
                        Release::Completed => "completer: key completed",
                        Release::Released => "completer: key released",
                        Release::LockExpired => "lock expired: key dropped",
                    };
                    items.push(Item::Mark {
                        lane: KEY_STORE,
                        side: Side::Right,
                        at_ms: until_ms,
                        label: label.into(),
                        style: Style::Muted,
                    });
                }
            }
            EventKind::ProcessingStarted { until_ms } => {
                let label = format!("processing {}", self.name(index));
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
            EventKind::ProcessingFailed => {
                items.push(row.mark(SERVER, "processing failed: 500".into(), Style::Lost));
            }
            EventKind::Crashed { point } => {
                let label = format!("crash {}", crash_text(point));
                items.push(row.mark(SERVER, label, Style::Highlight));
            }
            kind => {
                if let Some((label, style)) = key_store_message(kind) {
                    items.push(row.level(SERVER, KEY_STORE, label.into(), style));
                }
            }
        }
    }
}

/// The fixed-text messages from the server to the key store: the label and the style. The
/// reservation is drawn with the look-up, a released key at the end of its stuck span.
fn key_store_message(kind: EventKind) -> Option<(&'static str, Style)> {
    match kind {
        EventKind::KeySaved => Some(("store key + response", Style::Normal)),
        EventKind::KeyWriteFailed => Some(("key write failed: key lost", Style::Lost)),
        EventKind::KeyDropped => Some(("in-flight key lost with the request", Style::Lost)),
        _ => None,
    }
}

/// The sequence diagram of a trace.
fn diagram(model: &TimelineModel, trace: &PaymentTrace, caption: &str) -> Diagram {
    let drawing = Drawing::new(model, trace);
    let scenario = &model.scenarios[trace.scenario];
    let title = match trace.traced {
        Traced::DoubleCharge => format!(
            "The first double charge under {}: {}",
            trace.strategy.name(),
            payment_name(model, trace)
        ),
        Traced::StuckKey => format!(
            "A key left in flight by a crash, under {}: {}",
            trace.strategy.name(),
            payment_name(model, trace)
        ),
    };
    let mut notes = trace_notes(
        caption,
        &[
            strategy_text(trace.strategy),
            "Times are ms from the payment's first send; rows are in time order, further apart \
             the longer the wait between them (not to scale).",
            "Solid arrows: messages that arrived; dashed arrows ending in a cross: lost on the \
             way; bars: a processing, a backoff, a key stuck in flight; red: the second charge \
             or the stuck key.",
        ],
    );
    let hidden = trace.events.len() - drawing.events.len();
    if hidden > 0 {
        notes.push(format!(
            "The payment goes on after this: {hidden} later {} not drawn.",
            one_or_many(hidden, "event is", "events are")
        ));
    }
    Diagram {
        title,
        subtitle: format!(
            "{} · scenario {} · seed {}",
            model.title, scenario.name, model.seed
        ),
        lanes: PAYMENT_LANES
            .iter()
            .map(|lane| (*lane).to_string())
            .collect(),
        items: drawing.items(),
        notes,
    }
}
