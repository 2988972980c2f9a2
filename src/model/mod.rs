//! The models, each pure (parameters and seeds in, counts out; never prints or reads files):
//! the article's model of at-least-once delivery ([`article`]), the timeline model with a
//! clock ([`timeline`]), the contention model of clients racing for one row
//! ([`contention`]) and the load model of many clients sharing one server ([`load`]), all
//! built from the `engine` crate's blocks; the server semantics two of them share in
//! [`semantics`], and the recorder of a single payment's events two of them share in [`trace`].
//! Each model's folder holds its parameters, its simulation and its run-time
//! estimate (`estimate.rs`).

pub mod article;
pub mod contention;
pub mod load;
pub mod semantics;
pub mod timeline;
pub mod trace;
