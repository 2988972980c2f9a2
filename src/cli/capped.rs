//! clap value parsers that repeat at most the first
//! [`ECHO_CHARACTERS`](simulate::parse::ECHO_CHARACTERS) characters of a refused value (clap's
//! own message repeats all of it), running the library's checks.

use simulate::parse::echo;

/// A clap value parser that runs `parse` and, on a rejection, repeats at most
/// [`ECHO_CHARACTERS`] characters of the value (clap's own message repeats all of it).
pub fn capped<T>(parse: fn(&str) -> Result<T, String>) -> CappedParser<T> {
    CappedParser(parse)
}

/// See [`capped`].
#[derive(Clone)]
pub struct CappedParser<T>(fn(&str) -> Result<T, String>);

impl<T: Clone + Send + Sync + 'static> clap::builder::TypedValueParser for CappedParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        command: &clap::Command,
        argument: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let text = value.to_string_lossy();
        (self.0)(&text).map_err(|reason| {
            let argument = argument.map_or_else(|| "...".to_string(), ToString::to_string);
            let message = format!(
                "invalid value '{}' for '{argument}': {reason}\n",
                echo(&text)
            );
            clap::Error::raw(clap::error::ErrorKind::ValueValidation, message).with_cmd(command)
        })
    }
}
