//! The progress bar on stderr (only on a terminal, never with `--quiet`), which also passes
//! the stop flag of [`crate::signals`] to the models.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use crate::signals::interrupted;
use engine::Progress;

/// The progress bar on stderr (only on a terminal, never with `--quiet`) and the interrupt
/// flag, as the model's [`Progress`]. Clones share the bar.
#[derive(Clone)]
pub struct Reporter {
    /// The bar; finish it before printing to stdout.
    pub bar: ProgressBar,
}

impl Reporter {
    /// A bar for `total` units of work named `unit` (e.g. "requests").
    pub fn new(total: u64, unit: &'static str, quiet: bool) -> Self {
        let target = if quiet || !std::io::stderr().is_terminal() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target).with_style(
            ProgressStyle::with_template(&format!(
                "{{elapsed_precise}} [{{wide_bar}}] {{human_pos}}/{{human_len}} {unit} \
                 ({{rate}}, ETA {{eta}})"
            ))
            .expect("the template is valid")
            .with_key(
                "rate",
                move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                    let _ = write!(out, "{:.2} M {unit}/s", state.per_sec() / 1e6);
                },
            )
            .progress_chars("=> "),
        );
        Self { bar }
    }
}

impl Progress for Reporter {
    fn advance(&self, units: u64) {
        self.bar.inc(units);
    }

    fn should_stop(&self) -> bool {
        interrupted()
    }
}
