//! The command line as typed: clap's view of the flags, turned into the library's plain
//! [`Overrides`] (the config file and every check that needs it are the library's), the two
//! helper commands, and how clap's own outcomes are reported.

mod capped;

use std::io::Write;
use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;

use simulate::config::assignment::{Assignment, SweepFlag};
use simulate::config::shard::ShardFlag;
use simulate::config::{EngineName, Overrides};
use simulate::exit::{EXIT_FAILURE, EXIT_USAGE};
use simulate::parse::{self, AckLossList};

use capped::capped;

/// Deterministic Monte Carlo of at-least-once delivery: how many customers get charged twice
/// when responses are lost and clients retry, with and without an Idempotency-Key.
///
/// Without a config file, the article's model: every payment request reaches the server; its
/// response (ACK) is lost with probability p; a client without an ACK sends the same request
/// again, up to --max-retries times. A server without a key and an Idempotency-Key server
/// process the same deliveries. The draws are numpy's `default_rng(seed)`, so the defaults
/// reproduce the article's table bit for bit.
///
/// A config file describes the other models: `model = "timeline"` (latencies, timeouts,
/// backoff, three server designs, the key's lifecycle, crashes and key stores, providers,
/// receipts; with a shared-server key such as `[server] workers`, the load model of a server
/// that can collapse), or `model = "contention"` (clients racing for one row).
/// `simulate keys MODEL` lists every key of a model; `simulate check FILE` checks a file
/// without running it; `simulate compare DIR... --out DIR` puts output folders of one model
/// side by side.
///
/// Exit codes: 0 success; 1 failure while running (e.g. the output folder cannot be written);
/// 2 usage error (a bad flag, config file or value, or a run too big for this machine);
/// 130 interrupted (Ctrl-C, SIGTERM or SIGHUP, at any stage; the previous outputs are left
/// intact).
#[derive(Debug, Parser)]
#[command(
    name = "simulate",
    version,
    about,
    long_about,
    max_term_width = 100,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// A helper command instead of a simulation (the flags below run the simulation).
    #[command(subcommand)]
    pub command: Option<Command>,

    /// A config file to run: the same as --config FILE
    #[arg(value_name = "FILE", conflicts_with = "config")]
    pub file: Option<PathBuf>,

    /// The simulation's settings.
    #[command(flatten)]
    pub run: RunArgs,
}

/// The flags of a simulation (also those of `simulate check`).
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// ACK-loss probabilities: comma-separated values in [0, 1] and ranges START:STOP:STEP
    /// (STOP included, built from decimal steps) [default: 0.01,0.05,0.10]
    #[arg(long = "p", value_name = "LIST", value_parser = capped(parse::ack_loss_list), allow_hyphen_values = true)]
    pub ack_loss: Option<AckLossList>,

    /// Seed of numpy's default_rng (0 to 2^64-1) [default: 42]
    #[arg(long, value_name = "N", value_parser = capped(parse::seed), allow_hyphen_values = true)]
    pub seed: Option<u64>,

    /// Payment requests per run [default: 10000]
    #[arg(long, value_name = "N", value_parser = capped(parse::requests), allow_hyphen_values = true)]
    pub requests: Option<u64>,

    /// Retries a client makes at most after its first send [default: 20]
    #[arg(long, value_name = "N", value_parser = capped(parse::max_retries), allow_hyphen_values = true)]
    pub max_retries: Option<u32>,

    /// Payments per run and scenario of a timeline file [default: the file's `payments`, else
    /// 10000]
    #[arg(long, value_name = "N", value_parser = capped(parse::payments), allow_hyphen_values = true)]
    pub payments: Option<u64>,

    /// Independent replications of every p, scenario or client count; run 0 is the article's
    /// run [default: 1, 100 for a contention file]
    #[arg(long, value_name = "K", value_parser = capped(parse::runs), allow_hyphen_values = true)]
    pub runs: Option<u32>,

    /// Folder the CSV files, charts and report are written to (created if missing) [default:
    /// output, or output/<file name> for a config file of another model]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// A config file (TOML): `model = "timeline"`, `"contention"` or none (the article's
    /// model); flags override it. `simulate keys MODEL` lists every key
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Worker threads [default: all cores]
    #[arg(long, value_name = "N", value_parser = capped(parse::threads), allow_hyphen_values = true)]
    pub threads: Option<usize>,

    /// How the model is computed: `fast` (constant memory, all cores) or `servers` (the
    /// article's numpy code with every delivery sent to both real servers; memory grows with
    /// --requests). Both give identical results [default: fast]
    #[arg(long, value_name = "ENGINE")]
    pub engine: Option<EngineChoice>,

    /// Sets a key of the config file, written as in the file, for every scenario (repeatable;
    /// later ones win): `--set client.timeout_ms=2s`, `--set server.error_policy=retry`.
    /// `simulate keys MODEL` lists the keys
    #[arg(long, value_name = "KEY=VALUE", value_parser = capped(Assignment::parse), allow_hyphen_values = true)]
    pub set: Vec<Assignment>,

    /// Runs the file at every value of a key (repeatable: a grid, the first key outermost):
    /// a list `client.timeout_ms=500,1000,2s`, a range `server.error_rate=0:0.5:0.1` (STOP
    /// included) or a log range `server.key_ttl_ms=1000:100000000:10:log`. Every CSV gets a
    /// column per swept key
    #[arg(long, value_name = "KEY=VALUES", value_parser = capped(SweepFlag::parse), allow_hyphen_values = true)]
    pub sweep: Vec<SweepFlag>,

    /// Run shard K of N (K from 0 to N-1) of the run's cells, balanced by their estimated
    /// cost, into a partial folder (--out; `simulate merge` joins the N folders into the
    /// unsharded run's files, byte for byte). `slurm/N` reads K from SLURM_ARRAY_TASK_ID,
    /// `k8s/N` from JOB_COMPLETION_INDEX
    #[arg(long, value_name = "K/N", value_parser = capped(ShardFlag::parse))]
    pub shard: Option<ShardFlag>,

    /// Print nothing on success and draw no progress bar (errors still go to stderr)
    #[arg(long, short)]
    pub quiet: bool,

    /// Print the results as JSON on stdout instead of the table: the parameters, the results
    /// and the files written
    #[arg(long, conflicts_with = "quiet")]
    pub json: bool,
}

/// The models whose keys `simulate keys` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModelChoice {
    /// The article's model (a file without `model`, or `model = "article"`).
    Article,
    /// Timeline files, the shared server's keys included.
    Timeline,
    /// Contention files.
    Contention,
}

/// The helper commands.
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Print every key a config file of a model may hold: its type, default, range and
    /// meaning (every model's without MODEL)
    Keys {
        /// The model whose keys to list
        model: Option<ModelChoice>,
    },
    /// Check a config file without running it: every scenario's resolved settings (defaults
    /// filled in, units shown), the time and memory estimate and the warnings; exit 0 if it
    /// would run, 2 if not
    Check {
        /// The config file to check
        file: PathBuf,
        /// The flags the run would have
        #[command(flatten)]
        run: Box<RunArgs>,
    },
    /// Print a shell completion script on stdout, e.g.
    /// `simulate completions bash > ~/.local/share/bash-completion/completions/simulate`
    Completions {
        /// The shell to complete for
        shell: Shell,
    },
    /// Print the man page (roff) on stdout, e.g. `simulate man > simulate.1`
    Man,
    /// Compare two or more output folders of one model side by side: each folder's headline
    /// answer with its 95% interval, each later folder minus the first (independent samples:
    /// Welch's t for means, Newcombe's interval for shares) and the parameters that differ,
    /// into compare.csv, a chart per headline metric and a self-contained report.html in
    /// --out; exit 2, nothing written, for folders of different models
    Compare {
        /// The output folders, the first the baseline
        #[arg(value_name = "DIR")]
        folders: Vec<PathBuf>,
        /// The folder to write the comparison into (created if missing; not one of the
        /// folders compared)
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// The question the comparison answers: the page's title [default: "How do A and B
        /// compare?"]
        #[arg(long, value_name = "TEXT")]
        title: Option<String>,
        /// Print nothing on success
        #[arg(long, short)]
        quiet: bool,
    },
    /// Join the partial folders of a run sharded with `--shard K/N` (one per shard, 0 to
    /// N-1) into the files the unsharded run writes, byte for byte; a missing, duplicated or
    /// foreign shard is refused (exit 2) and nothing is written
    Merge {
        /// The shards' folders
        #[arg(value_name = "DIR", required = true)]
        folders: Vec<PathBuf>,
        /// Folder the merged files are written to (created if missing)
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Print nothing on success (errors still go to stderr)
        #[arg(long, short)]
        quiet: bool,
        /// Print the results as JSON on stdout instead of the table
        #[arg(long, conflicts_with = "quiet")]
        json: bool,
    },
}

/// Parses the command line like [`Parser::try_parse_from`], but a flag followed by another
/// flag instead of its value (`--p --seed 5`) is reported as that flag's missing value,
/// rather than as whatever clap makes of the rest. Values may start with one `-` (`--p -0.1`
/// gets a message about -0.1), not with `--`.
pub fn parse_args(
    args: impl IntoIterator<Item = impl Into<std::ffi::OsString>>,
) -> Result<Cli, clap::Error> {
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    let mut command = Cli::command();
    command.build();
    for pair in args.windows(2).skip(1) {
        let (flag, next) = (pair[0].to_string_lossy(), pair[1].to_string_lossy());
        if flag == "--" {
            break;
        }
        let takes_value = command.get_arguments().find(|arg| {
            arg.get_long()
                .is_some_and(|long| flag.strip_prefix("--") == Some(long))
                && arg.get_action().takes_values()
        });
        if let (Some(arg), true) = (takes_value, next.starts_with("--")) {
            let value_name = arg
                .get_value_names()
                .and_then(|names| names.first())
                .map_or_else(|| "VALUE".to_string(), ToString::to_string);
            return Err(command.error(
                clap::error::ErrorKind::InvalidValue,
                format!(
                    "a value is required for '{flag} <{value_name}>' but none was supplied \
                     ('{next}' is the next flag)"
                ),
            ));
        }
    }
    Cli::try_parse_from(args)
}

/// Prints a clap outcome and gives the exit code: `--help` and `--version` go to stdout (exit
/// code 0, or 1 if stdout cannot be written; a reader that went away is not an error), usage
/// errors to stderr (exit code 2).
pub fn report_clap_error(error: &clap::Error) -> u8 {
    use clap::error::ErrorKind;
    use std::io::IsTerminal;
    if !matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = error.print();
        return EXIT_USAGE;
    }
    let mut stdout = std::io::stdout().lock();
    let rendered = error.render();
    let text = if stdout.is_terminal() {
        rendered.ansi().to_string()
    } else {
        rendered.to_string()
    };
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(write) if write.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("error: writing to stdout: {write}");
            EXIT_FAILURE
        }
        _ => 0,
    }
}

/// Every key of `model`'s files (every model's without one), as text.
pub fn keys(model: Option<ModelChoice>) -> String {
    let wanted = model.map(|model| match model {
        ModelChoice::Article => "article",
        ModelChoice::Timeline => "timeline",
        ModelChoice::Contention => "contention",
    });
    let mut text = String::new();
    for schema in simulate::config::SCHEMAS {
        if wanted.is_some_and(|wanted| wanted != schema.model) {
            continue;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!(
            "Keys of {} files{}:\n\n",
            schema.model,
            match schema.model {
                "article" => " (no `model`, or model = \"article\")",
                "timeline" => " (model = \"timeline\"; a shared-server key runs the load model)",
                _ => " (model = \"contention\")",
            }
        ));
        text.push_str(&schema.text());
    }
    text
}

/// The completion script of `shell` for the whole command line.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "simulate", &mut script);
    script
}

/// The man page, `simulate.1`, in roff: clap's sections, with a synopsis that shows every
/// value name and a section on the two helper commands (rather than references to man pages
/// `simulate-completions(1)` and the like, which do not exist).
pub fn man_page() -> Vec<u8> {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    let man = clap_mangen::Man::new(command.clone());
    let mut page = Vec::new();
    let render = |page: &mut Vec<u8>| -> std::io::Result<()> {
        man.render_title(page)?;
        man.render_name_section(page)?;
        page.write_all(man_synopsis(&command).as_bytes())?;
        man.render_description_section(page)?;
        man.render_options_section(page)?;
        page.write_all(man_helper_commands(&command).as_bytes())?;
        page.write_all(man_config_keys().as_bytes())?;
        man.render_version_section(page)
    };
    render(&mut page).expect("rendering into memory cannot fail");
    page
}

/// Escapes text for roff: backslashes and hyphens.
fn roff_escape(text: &str) -> String {
    text.replace('\\', "\\e").replace('-', "\\-")
}

/// The SYNOPSIS section: every flag with its value name, then the helper commands.
fn man_synopsis(command: &clap::Command) -> String {
    let mut line = String::from("\\fBsimulate\\fR");
    for arg in command.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        let mut item = match arg.get_short() {
            Some(short) => format!("\\fB\\-{short}\\fR|\\fB\\-\\-{}\\fR", roff_escape(long)),
            None => format!("\\fB\\-\\-{}\\fR", roff_escape(long)),
        };
        if arg.get_action().takes_values() {
            let value = arg
                .get_value_names()
                .and_then(|names| names.first())
                .map_or_else(|| "VALUE".to_string(), ToString::to_string);
            item.push_str(&format!(" \\fI{}\\fR", roff_escape(&value)));
        }
        line.push_str(&format!(" [{item}]"));
    }
    let mut text = format!(".SH SYNOPSIS\n{line}\n");
    for sub in command.get_subcommands() {
        text.push_str(&format!(
            ".br\n\\fBsimulate {}\\fR",
            roff_escape(sub.get_name())
        ));
        for positional in sub.get_positionals() {
            text.push_str(&format!(
                " \\fI{}\\fR",
                roff_escape(&positional.get_id().as_str().to_uppercase())
            ));
        }
        text.push('\n');
    }
    text
}

/// The HELPER COMMANDS section: what `simulate completions` and `simulate man` do.
fn man_helper_commands(command: &clap::Command) -> String {
    let mut text = String::from(".SH \"HELPER COMMANDS\"\n");
    for sub in command.get_subcommands() {
        let about = sub
            .get_long_about()
            .or(sub.get_about())
            .map(ToString::to_string);
        text.push_str(&format!(
            ".TP\n\\fBsimulate {}\\fR\n{}\n",
            roff_escape(sub.get_name()),
            roff_escape(&about.unwrap_or_default().replace('\n', " "))
        ));
    }
    text
}

/// The CONFIG FILES section: for each model, every key with its type, default, meaning and
/// form, from the keys the config reads.
fn man_config_keys() -> String {
    let mut text = String::from(
        ".SH \"CONFIG FILES\"\nA config file is TOML; its \\fBmodel\\fR key picks the model \
         (none: the article's). Durations may carry a unit (\\fB\"2s\"\\fR, \\fB\"150ms\"\\fR, \
         \\fB\"24h\"\\fR). Each model's keys follow.\n",
    );
    for schema in simulate::config::SCHEMAS {
        text.push_str(&format!(".SS \"{} files\"\n", roff_escape(schema.model)));
        for key in schema.keys {
            let default = key.default.map_or_else(
                || "no default".to_string(),
                |value| format!("default {value}"),
            );
            text.push_str(&format!(
                ".TP\n\\fB{}\\fR ({}, {})\n{} Expected: {}.\n",
                roff_escape(key.name),
                key.kind.type_name(),
                roff_escape(&default),
                roff_escape(key.doc),
                roff_escape(&key.kind.expected())
            ));
        }
    }
    text
}

/// The `--engine` choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineChoice {
    /// Per-request draws with jump-ahead, constant memory, all cores.
    Fast,
    /// The article's numpy code with the real servers (memory grows with the requests).
    Servers,
}

impl Cli {
    /// The flags as the library's plain settings (a positional file is `--config`).
    pub fn overrides(&self) -> Overrides {
        let mut overrides = self.run.overrides();
        if self.file.is_some() {
            overrides.config = self.file.clone();
        }
        overrides
    }
}

impl RunArgs {
    /// The flags as the library's plain settings.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            config: self.config.clone(),
            ack_loss: self
                .ack_loss
                .as_ref()
                .map(|AckLossList(values)| values.clone()),
            seed: self.seed,
            requests: self.requests,
            max_retries: self.max_retries,
            payments: self.payments,
            runs: self.runs,
            out: self.out.clone(),
            threads: self.threads,
            engine: self.engine.map(|engine| match engine {
                EngineChoice::Fast => EngineName::Fast,
                EngineChoice::Servers => EngineName::Servers,
            }),
            quiet: self.quiet,
            json: self.json,
            set: self.set.clone(),
            sweep: self.sweep.clone(),
            shard: self.shard.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("simulate").chain(args.iter().copied()))
    }

    #[test]
    fn help_and_man_list_every_key_of_every_model() {
        let all = keys(None);
        let man = String::from_utf8(man_page()).unwrap();
        for schema in simulate::config::SCHEMAS {
            for key in schema.keys {
                assert!(
                    all.contains(&format!(
                        "
{} (",
                        key.name
                    )),
                    "{}",
                    key.name
                );
                assert!(
                    man.contains(&format!("\\fB{}\\fR (", roff_escape(key.name))),
                    "{}",
                    key.name
                );
            }
        }
        assert!(all.starts_with("Keys of article files"));
        assert!(keys(Some(ModelChoice::Contention)).starts_with("Keys of contention files"));
    }

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn flags_work_without_a_subcommand() {
        let cli = parse(&["--p", "0.1", "--json"]).unwrap();
        assert!(cli.command.is_none());
        assert!(cli.run.json);
        assert_eq!(cli.run.ack_loss, Some(AckLossList(vec![0.1])));
        // A file alone is the config.
        let cli = parse(&["a.toml", "--runs", "2"]).unwrap();
        assert_eq!(cli.overrides().config, Some(PathBuf::from("a.toml")));
        assert!(parse(&["a.toml", "--config", "b.toml"]).is_err());
    }

    #[test]
    fn subcommands_parse_and_refuse_simulation_flags() {
        assert!(matches!(
            parse(&["completions", "zsh"]).unwrap().command,
            Some(Command::Completions { shell: Shell::Zsh })
        ));
        assert!(matches!(
            parse(&["man"]).unwrap().command,
            Some(Command::Man)
        ));
        assert!(matches!(
            parse(&["check", "a.toml", "--seed", "3"]).unwrap().command,
            Some(Command::Check { run, .. }) if run.seed == Some(3)
        ));
        assert!(matches!(
            parse(&["keys", "timeline"]).unwrap().command,
            Some(Command::Keys {
                model: Some(ModelChoice::Timeline)
            })
        ));
        assert!(matches!(
            parse(&["compare", "a", "b", "--out", "c", "-q"]).unwrap().command,
            Some(Command::Compare { folders, out: Some(out), quiet: true, .. })
                if folders.len() == 2 && out.as_path() == std::path::Path::new("c")
        ));
        // After a flag, a word is the file to run, not a helper command.
        assert_eq!(
            parse(&["--p", "0.1", "man"]).unwrap().file,
            Some(PathBuf::from("man"))
        );
        assert!(parse(&["completions", "tcsh"]).is_err());
        assert!(parse(&["--json", "--quiet"]).is_err());
    }
}
