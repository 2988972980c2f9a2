//! The models, each pure (parameters and seeds in, counts out; never prints or reads files):
//! the article's model of at-least-once delivery ([`article`]), the timeline model with a
//! clock ([`timeline`]), the contention model of clients racing for one row
//! ([`contention`]) and the load model of many clients sharing one server ([`load`]), all
//! built from the `engine` crate's blocks; the server semantics two of them share in
//! [`semantics`]; their run-time estimates in [`cost`].

pub mod article;
pub mod contention;
pub mod cost;
pub mod load;
pub mod semantics;
pub mod timeline;
