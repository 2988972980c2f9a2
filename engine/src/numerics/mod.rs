//! Bit-exact numerics: the C library's `exp` ([`exp`]) and `log1p` ([`log1p`]) replicated
//! instruction by instruction, a value or a vector of lanes at a time ([`vector`], x86-64
//! only), the standard normal quantile ([`normal`]) and the same of eight lanes at a time
//! ([`quantile_simd`], x86-64 only), and a fast estimate of `ln(1 - u)` that decides a rounded
//! result only when it is certain ([`ln_estimate`]). Which vector path runs is decided in [`crate::cpu`].

pub mod exp;
pub mod exp_table;
pub mod ln_estimate;
pub mod log1p;
pub mod normal;
#[cfg(target_arch = "x86_64")]
pub mod quantile_simd;
#[cfg(target_arch = "x86_64")]
pub mod vector;
