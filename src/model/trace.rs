//! The recorder both event loops share (issue #33): what a loop tells as it handles one
//! payment's events, for the sequence diagram of a single payment. The timeline model records
//! a double charge or a key a crash left in flight; the load model a retry answered 409 while
//! its first attempt still held the key.
//!
//! A loop is generic over its [`Recorder`]; the normal runs use `()`, whose `record` is empty
//! and inlined and whose [`Recorder::RECORDS`] is `false`, so the hooks and whatever
//! bookkeeping only a recording needs compile to nothing there. Each model keeps its own
//! kinds of event (its loop's words); the trait, the switch and the log are these.

/// What an event loop tells as it handles a payment's events, of type `E` (each model's own).
pub trait Recorder<E> {
    /// Whether it keeps anything: `false` lets a loop skip the bookkeeping only a recording
    /// needs (a compile-time constant, so the skipped code is not even compiled in).
    const RECORDS: bool = true;

    /// `event` happened.
    fn record_event(&mut self, event: E);
}

impl<E> Recorder<E> for () {
    const RECORDS: bool = false;

    #[inline(always)]
    fn record_event(&mut self, _: E) {}
}

/// A recorder lent to a loop records into its owner's recorder.
impl<E, R: Recorder<E>> Recorder<E> for &mut R {
    const RECORDS: bool = R::RECORDS;

    #[inline(always)]
    fn record_event(&mut self, event: E) {
        (**self).record_event(event);
    }
}

/// A recorder that keeps every event, in the order they happened.
#[derive(Debug, Clone, PartialEq)]
pub struct EventLog<E> {
    /// The events so far.
    pub events: Vec<E>,
}

impl<E> Default for EventLog<E> {
    fn default() -> Self {
        Self { events: Vec::new() }
    }
}

impl<E> Recorder<E> for EventLog<E> {
    fn record_event(&mut self, event: E) {
        self.events.push(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_recorder_keeps_nothing_and_says_so() {
        let mut nothing = ();
        Recorder::<u32>::record_event(&mut nothing, 7);
        const { assert!(!<() as Recorder<u32>>::RECORDS) };
        let mut log = EventLog::default();
        log.record_event(7u32);
        log.record_event(8);
        assert_eq!(log.events, [7, 8]);
        const { assert!(<EventLog<u32> as Recorder<u32>>::RECORDS) };
    }
}
