//! The models, each pure (parameters and seeds in, counts out; never prints or reads files):
//! the article's model of at-least-once delivery ([`article`]), the timeline model with a
//! clock ([`timeline`]), the contention model of clients racing for one row
//! ([`contention`]) and the load model of many clients sharing one server ([`load`]). What
//! they share with their caller sits in [`progress`]; their run-time
//! estimates in [`cost`]; the discrete-event queue in [`event_queue`], and a calendar queue for
//! events that are small numbers in [`calendar_queue`] (its rings, shared with the load
//! model's agenda, in [`calendar_ring`]); the C library's
//! `log1p`, bit for bit and a block at a time, in [`log1p`]; running simulations on several threads in
//! [`parallel`]; the one-declaration
//! counters macro in [`counters`].

pub mod article;
pub mod calendar_queue;
pub mod calendar_ring;
pub mod contention;
pub mod cost;
pub mod counters;
pub mod event_queue;
pub mod load;
pub mod log1p;
pub mod parallel;
pub mod progress;
pub mod timeline;

pub use progress::{Interrupted, Progress, Silent};
