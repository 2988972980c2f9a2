//! Fuzz target: the `--p` list and range parser (`parse::ack_loss_list`), also used for
//! `p = "..."` in config files. It must never panic, and whatever it accepts must be a
//! non-empty list of at most `MAX_ACK_LOSS_VALUES` probabilities in [0, 1].

#![no_main]

use libfuzzer_sys::fuzz_target;
use simulate::parse::{self, AckLossList};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(AckLossList(values)) = parse::ack_loss_list(text) {
        assert!(!values.is_empty(), "{text:?} gave an empty list");
        assert!(
            values.len() <= parse::MAX_ACK_LOSS_VALUES,
            "{text:?} gave {} values",
            values.len()
        );
        for value in values {
            assert!((0.0..=1.0).contains(&value), "{text:?} gave {value}");
        }
    }
});
