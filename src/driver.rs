//! The driver: from parsed flags to files and stdout. It validates the configuration, runs
//! the model with a progress bar and the stop flag, turns the results into bytes and writes
//! them through [`crate::output`], then prints the table or the JSON summary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use anyhow::Context;

use crate::config::settings::{self, ScenarioSettings};
use crate::config::{Job, OutputSettings, Overrides, Sweep};
use crate::limits::Machine;
use crate::models::{Model, Plan};
use crate::output::OutputError;
use crate::progress::Reporter;
use crate::report::sweep::SweepFiles;
use crate::report::{OutputFile, Report};
use crate::report::{html, parameters};
use crate::{output, signals};
use engine::Interrupted;

mod sharded;
pub use sharded::{ParseArguments, merge};

/// Runs a simulation: validates the configuration, simulates, writes the files atomically
/// and prints the table and the paths written (or the JSON summary with `--json`, nothing
/// with `--quiet`). A stop request (see [`signals`]) at any stage before the files are put in
/// place ends it with [`OutputError::Interrupted`] within a few tens of milliseconds.
pub fn run(overrides: Overrides) -> anyhow::Result<()> {
    let shard = overrides
        .shard
        .as_ref()
        .map(|flag| flag.resolve(|name| std::env::var(name).ok()))
        .transpose()?;
    let (job, text) = Job::with_text(&overrides)?;
    let output = job.output().clone();
    if let Some(shard) = shard {
        let run = sharded::ShardRun {
            shard,
            text,
            overrides: &overrides,
        };
        return sharded::run(job, output, run);
    }
    let page = page_inputs(&overrides, text.as_deref(), &output.out_dir)?;
    match job {
        Job::Article(config) => run_model(config, output, page),
        Job::Timeline(config) => run_model(config, output, page),
        Job::Contention(config) => run_model(config, output, page),
        Job::Load(config) => run_model(config, output, page),
        Job::Sweep(sweep) => run_sweep(sweep, output, page),
    }
}

/// What `report.html` shows of the run's inputs: the config file's comment, every
/// scenario's settings as `simulate check` reads them from the file's `text`, and the command.
fn page_inputs(
    overrides: &Overrides,
    text: Option<&str>,
    out_dir: &Path,
) -> anyhow::Result<html::Inputs> {
    let text = text.unwrap_or_default();
    let path = overrides.config.clone().unwrap_or_default();
    let (_, scenarios) = settings::of(text, &path, overrides)?;
    Ok(html::Inputs::new(text, overrides, scenarios, out_dir))
}

/// Runs a sweep: its points are all of one model (the config checked it).
fn run_sweep(sweep: Sweep, output: OutputSettings, page: html::Inputs) -> anyhow::Result<()> {
    let Sweep { keys, points } = sweep;
    // One model's points, taken out of their jobs.
    macro_rules! sweep_of {
        ($model:ident) => {
            sweep_model(
                keys,
                unpack(points, |job| match job {
                    Job::$model(config) => Some(config),
                    _ => None,
                }),
                output,
                page,
            )
        };
    }
    match &points[0].1 {
        Job::Article(_) => sweep_of!(Article),
        Job::Timeline(_) => sweep_of!(Timeline),
        Job::Contention(_) => sweep_of!(Contention),
        Job::Load(_) => sweep_of!(Load),
        Job::Sweep(_) => unreachable!("a sweep's points are not sweeps"),
    }
}

/// Every point's config of one model, picked out of its job by `pick`.
fn unpack<M>(
    points: Vec<(Vec<String>, Job)>,
    pick: impl Fn(Job) -> Option<M>,
) -> Vec<(Vec<String>, M)> {
    points
        .into_iter()
        .map(|(labels, job)| (labels, pick(job).expect("every point runs the same model")))
        .collect()
}

/// A point's values as a person reads them: `client.timeout_ms = 500, runs = 3`.
fn point_name(keys: &[String], labels: &[String]) -> String {
    keys.iter()
        .zip(labels)
        .map(|(key, label)| format!("{key} = {label}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `warnings` of every point, each once: one that every point gives as is, the others with
/// the points that give them.
fn sweep_warnings(keys: &[String], per_point: &[(Vec<String>, Vec<String>)]) -> Vec<String> {
    let mut seen: Vec<(String, Vec<String>)> = Vec::new();
    for (labels, warnings) in per_point {
        for warning in warnings {
            match seen.iter_mut().find(|(known, _)| known == warning) {
                Some((_, points)) => points.push(point_name(keys, labels)),
                None => seen.push((warning.clone(), vec![point_name(keys, labels)])),
            }
        }
    }
    seen.into_iter()
        .map(|(warning, points)| {
            if points.len() == per_point.len() {
                return warning;
            }
            let rest = warning.strip_prefix("warning: ").unwrap_or(&warning);
            format!("warning: at {}: {rest}", points.join("; "))
        })
        .collect()
}

/// The steps of a sweep: every point checked against this machine and its estimates summed,
/// then the points run one after another on one progress bar, their CSV files combined with
/// the swept keys as first columns.
fn sweep_model<M: Model>(
    keys: Vec<String>,
    points: Vec<(Vec<String>, M)>,
    output: OutputSettings,
    page: html::Inputs,
) -> anyhow::Result<()> {
    announce(&keys, &points, 1.0, output.quiet)?;
    let units = points.iter().map(|(_, config)| config.work_units()).sum();
    let progress = Reporter::new(units, M::UNIT, output.quiet);
    let worker = (output.clone(), progress.clone());
    let rendered = in_background(&output.out_dir, &progress, move || {
        let (output, progress) = worker;
        let results = points.into_iter().map(|(labels, config)| {
            config
                .simulate(&progress)
                .map(|results| (labels, results))
                .map_err(anyhow::Error::from)
        });
        render_sweep::<M>(keys, results, &output, &page)
    })?;
    publish(&output, M::NAME, &rendered)
}

/// The points checked against this machine (a refusal is the error), then their warnings
/// and, for a run estimated to take long, the estimate printed (unless `quiet`): the whole
/// run's, or `share` of it.
fn announce<M: Model>(
    keys: &[String],
    points: &[(Vec<String>, M)],
    share: f64,
    quiet: bool,
) -> anyhow::Result<()> {
    let machine = Machine::this();
    let mut seconds = 0.0;
    let mut how = String::new();
    let mut warnings = Vec::new();
    for (labels, config) in points {
        config.check(machine)?;
        let plan = config.plan(machine);
        seconds += plan.seconds * share;
        how = plan.how;
        warnings.push((labels.clone(), config.warnings()));
    }
    let long_run = crate::limits::long_run_warning(seconds, &how);
    if !quiet {
        for warning in sweep_warnings(keys, &warnings).iter().chain(&long_run) {
            eprintln!("{warning}");
        }
    }
    Ok(())
}

/// A sweep's files and stdout from every point's results, in point order (computed as they
/// are asked for, so only one point's results are held at a time).
fn render_sweep<M: Model>(
    keys: Vec<String>,
    points: impl Iterator<Item = anyhow::Result<(Vec<String>, M::Results)>>,
    output: &OutputSettings,
    page: &html::Inputs,
) -> anyhow::Result<Rendered> {
    let mut combined = SweepFiles::new(keys.clone());
    let mut after = Vec::new();
    let mut summaries = Vec::new();
    let mut marks = Vec::new();
    let mut label = String::new();
    // The model's --json shape and the first point's parameters, for a sweep's --json.
    let mut json_base = None;
    for point in points {
        let (labels, results) = point?;
        after.push((labels.clone(), M::result_warnings(&results)));
        label = results.run_label();
        if output.json && json_base.is_none() {
            let parameters = serde_json::from_slice::<serde_json::Value>(&results.json(&[]))
                .map(|mut value| value["parameters"].take())
                .unwrap_or_default();
            json_base = Some(((M::Results::JSON_SHAPE)(), parameters));
        }
        for mark in results.sweep_marks(&keys[0]) {
            if !marks.contains(&mark) {
                marks.push(mark);
            }
        }
        if let Some(summary) = results.summary() {
            summaries.push((labels.clone(), summary));
        }
        combined.add(labels, results.files());
    }
    let mut files = combined.files();
    files.extend(crate::report::sweep_chart::charts(
        &label,
        &keys,
        &summaries,
        M::Results::HEADLINE,
        &marks,
    ));
    files.push(crate::report::sweep::report_md(
        M::NAME,
        &keys,
        combined.points(),
        &files,
    ));
    let values = crate::report::sweep::axis_values(&keys, combined.points());
    let swept: Vec<(String, Vec<String>)> = keys.iter().cloned().zip(values).collect();
    files.push(parameters::file(M::NAME, &page.scenarios, &swept));
    files.push(html::sweep_page(
        M::NAME,
        page,
        &keys,
        combined.points(),
        &files,
    ));
    let written = paths(&output.out_dir, &files);
    let stdout = if output.json {
        let (shape, parameters) = json_base.expect("a sweep has points");
        crate::report::sweep::json(
            &shape,
            parameters,
            &keys,
            combined.points(),
            &files,
            &written,
        )
    } else {
        let table = crate::report::sweep::table(&keys, combined.points());
        told(&table, &written, output.quiet)
    };
    Ok(Rendered {
        files,
        stdout,
        warnings: sweep_warnings(&keys, &after),
    })
}

/// What `simulate check` finds in a config file: every scenario's settings, the estimate on
/// this machine and the warnings. Serialized as its `--json`.
#[derive(Debug, serde::Serialize)]
pub struct CheckReport {
    /// The file as given.
    pub file: String,
    /// The model that runs it (`article`, `timeline`, `contention`, `load`).
    pub model: &'static str,
    /// Every scenario's settings, defaults filled in.
    pub scenarios: Vec<ScenarioSettings>,
    /// The estimated wall-clock time (s).
    pub estimated_seconds: f64,
    /// The estimated memory at the peak (bytes; 0 where it does not grow with the run).
    pub estimated_memory_bytes: u64,
    /// How the estimate was made (` on 2 threads`).
    pub estimated_on: String,
    /// Settings that are valid but likely not what was meant.
    pub warnings: Vec<String>,
    /// The sweep's points, each as `key = value, ...`; empty when nothing is swept (the
    /// settings are then those of every point but the swept keys).
    pub sweep: Vec<String>,
}

/// Checks a config file without running it: the same reading and the same check against
/// this machine as a run (a refusal is the run's error), then what it found, as text or JSON.
pub fn check(overrides: Overrides) -> anyhow::Result<Vec<u8>> {
    let path = overrides
        .config
        .clone()
        .expect("`simulate check` names a file");
    let job = Job::from_overrides(&overrides)?;
    let text = std::fs::read_to_string(&path).context("reading the config file again")?;
    let (_, scenarios) = settings::of(&text, &path, &overrides)?;
    let (model, plan, warnings) = examine_job(&job)?;
    let sweep = match &job {
        Job::Sweep(sweep) => sweep
            .points
            .iter()
            .map(|(labels, _)| point_name(&sweep.keys, labels))
            .collect(),
        _ => Vec::new(),
    };
    let report = CheckReport {
        sweep,
        file: path.display().to_string(),
        model,
        scenarios,
        estimated_seconds: plan.seconds,
        estimated_memory_bytes: plan.memory_bytes,
        estimated_on: plan.how.trim().to_string(),
        warnings,
    };
    Ok(if overrides.json {
        crate::report::json::pretty(&report)
    } else {
        check_text(&report).into_bytes()
    })
}

/// The job's model, plan and warnings (a sweep's summed over its points); a refusal
/// against this machine is the error.
fn examine_job(job: &Job) -> anyhow::Result<(&'static str, Plan, Vec<String>)> {
    match job {
        Job::Article(config) => examine(config),
        Job::Timeline(config) => examine(config),
        Job::Contention(config) => examine(config),
        Job::Load(config) => examine(config),
        Job::Sweep(sweep) => {
            let mut total: Option<(&'static str, Plan)> = None;
            let mut warnings = Vec::new();
            for (labels, point) in &sweep.points {
                let (model, plan, point_warnings) = examine_job(point)?;
                warnings.push((labels.clone(), point_warnings));
                total = Some(match total {
                    None => (model, plan),
                    Some((model, sum)) => (
                        model,
                        Plan {
                            seconds: sum.seconds + plan.seconds,
                            memory_bytes: sum.memory_bytes.max(plan.memory_bytes),
                            ..plan
                        },
                    ),
                });
            }
            let (model, plan) = total.expect("a sweep has a point");
            Ok((model, plan, sweep_warnings(&sweep.keys, &warnings)))
        }
    }
}

/// The model's name, plan and warnings; a refusal against this machine is the error.
fn examine<M: Model>(config: &M) -> anyhow::Result<(&'static str, Plan, Vec<String>)> {
    let machine = Machine::this();
    config.check(machine)?;
    Ok((M::NAME, config.plan(machine), config.warnings()))
}

/// `simulate check`'s report as text.
fn check_text(report: &CheckReport) -> String {
    use std::fmt::Write as _;
    let mut text = format!(
        "{}: a {} file; it would run (about {} {}, {} of memory)\n",
        report.file,
        report.model,
        crate::limits::human_duration(report.estimated_seconds),
        report.estimated_on,
        crate::limits::human_bytes(report.estimated_memory_bytes),
    );
    for scenario in &report.scenarios {
        let _ = writeln!(text, "\nscenario {}:", scenario.name);
        let width = scenario
            .settings
            .iter()
            .map(|setting| setting.key.len())
            .max()
            .unwrap_or(0);
        for setting in &scenario.settings {
            let value = match (setting.value.as_str(), setting.unit) {
                ("", _) => "-".to_string(),
                (value, "") => value.to_string(),
                // A duration written with its unit says it already: `"2s" (2000 ms)`.
                (value, _) if value.ends_with(')') => value.to_string(),
                (value, unit) => format!("{value} {unit}"),
            };
            let _ = writeln!(
                text,
                "  {:width$}  {value}  ({})",
                setting.key, setting.source
            );
        }
    }
    if !report.sweep.is_empty() {
        let _ = writeln!(
            text,
            "\nthe sweep runs {} points, each with the settings above but:",
            report.sweep.len()
        );
        for point in &report.sweep {
            let _ = writeln!(text, "  {point}");
        }
    }
    if report.warnings.is_empty() {
        text.push_str("\nno warnings\n");
    } else {
        text.push('\n');
        for warning in &report.warnings {
            let _ = writeln!(text, "{warning}");
        }
    }
    text
}

/// What a run hands to the writer: its files and what it prints on success.
struct Rendered {
    /// The output files.
    files: Vec<OutputFile>,
    /// The table and the paths, or the JSON summary; empty with `--quiet`.
    stdout: Vec<u8>,
    /// What the results show that was likely not meant.
    warnings: Vec<String>,
}

/// The steps every model's run takes: the check against this machine (a long-run warning, or
/// a refusal), the progress bar, the model and its report on a thread of their own while this
/// one watches the stop flag, then the files and stdout.
fn run_model<M: Model>(
    config: M,
    output: OutputSettings,
    page: html::Inputs,
) -> anyhow::Result<()> {
    let long_run = config.check(Machine::this())?;
    if !output.quiet {
        for warning in config.warnings().iter().chain(&long_run) {
            eprintln!("{warning}");
        }
    }
    let progress = Reporter::new(config.work_units(), M::UNIT, output.quiet);
    let worker = (output.clone(), progress.clone());
    let rendered = in_background(&output.out_dir, &progress, move || {
        let (output, progress) = worker;
        let results = config.simulate(&progress)?;
        Ok(render::<M>(&results, &output, &page))
    })?;
    publish(&output, M::NAME, &rendered)
}

/// A run's files (report.html last) and stdout from its results.
fn render<M: Model>(
    results: &M::Results,
    output: &OutputSettings,
    page: &html::Inputs,
) -> Rendered {
    let warnings = M::result_warnings(results);
    let mut files = results.files();
    files.push(parameters::file(M::NAME, &page.scenarios, &[]));
    files.push(html::page(M::NAME, page, results, &files));
    let written = paths(&output.out_dir, &files);
    let stdout = if output.json {
        results.json(&written)
    } else {
        told(&results.table(), &written, output.quiet)
    };
    Rendered {
        files,
        stdout,
        warnings,
    }
}

/// Writes a run's files, tells what it wrote and prints its warnings on stderr.
fn publish(
    output: &OutputSettings,
    model: &'static str,
    rendered: &Rendered,
) -> anyhow::Result<()> {
    write_and_tell(&output.out_dir, model, rendered, output.quiet)?;
    if !output.quiet {
        for warning in &rendered.warnings {
            eprintln!("{warning}");
        }
    }
    Ok(())
}

/// How often the driver looks at the stop flag while the model or the report runs.
const STOP_POLL: Duration = Duration::from_millis(20);

/// Runs `work` (the simulation and the rendering, which touch no file) on a thread of its
/// own while this one watches the stop flag: on a stop request it returns at once with
/// [`OutputError::Interrupted`], leaving the thread to end with the process, so no stage of
/// the computation can hold a stop request up. Clears the progress bar either way.
fn in_background<T: Send + 'static>(
    out_dir: &Path,
    progress: &Reporter,
    work: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<T> {
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    let worker = std::thread::Builder::new()
        .name("simulate-run".into())
        .stack_size(8 << 20)
        .spawn(move || {
            let _ = sender.send(work());
        })
        .context("starting the simulation thread")?;
    let outcome = loop {
        match receiver.recv_timeout(STOP_POLL) {
            // A model that saw the stop request first says so in its own words: the user is
            // told the same either way, naming the folder left unchanged.
            Ok(Err(error)) if error.is::<Interrupted>() => {
                break Err(OutputError::Interrupted {
                    path: out_dir.to_path_buf(),
                }
                .into());
            }
            Ok(result) => break result,
            Err(RecvTimeoutError::Timeout) if signals::interrupted() => {
                break Err(OutputError::Interrupted {
                    path: out_dir.to_path_buf(),
                }
                .into());
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => match worker.join() {
                Err(panic) => std::panic::resume_unwind(panic),
                Ok(()) => {
                    break Err(anyhow::anyhow!(
                        "the simulation thread ended without a result"
                    ));
                }
            },
        }
    };
    progress.bar.finish_and_clear();
    outcome
}

/// The paths the files will have in `out_dir`, as [`output::write_all`] returns them.
fn paths(out_dir: &Path, files: &[OutputFile]) -> Vec<PathBuf> {
    files
        .iter()
        .map(|file| out_dir.join(file.name.as_ref()))
        .collect()
}

/// Writes the files (waiting for another run into the same folder, if any, to finish), then
/// prints what the run prints.
fn write_and_tell(
    out_dir: &Path,
    kind: &'static str,
    rendered: &Rendered,
    quiet: bool,
) -> anyhow::Result<()> {
    let written = write_files(out_dir, kind, &rendered.files, quiet)?;
    debug_assert_eq!(written, paths(out_dir, &rendered.files));
    print_to_stdout(&rendered.stdout)
}

/// Writes `files` as a set of `kind` into `out_dir` through [`output::write_all`], saying on
/// stderr (unless `quiet`) when it waits for another run; returns the paths written.
pub fn write_files(
    out_dir: &Path,
    kind: &'static str,
    files: &[OutputFile],
    quiet: bool,
) -> anyhow::Result<Vec<PathBuf>> {
    let waiting = || {
        if !quiet {
            eprintln!(
                "waiting for another simulate run writing into {} to finish",
                out_dir.display()
            );
        }
    };
    let leftover = |staging: &Path, error: &std::io::Error| {
        eprintln!(
            "warning: cannot remove the staging folder {} ({error}); remove it, or the next \
             run into {} will once it can",
            staging.display(),
            out_dir.display()
        );
    };
    let hooks = output::Hooks {
        interrupted: &signals::interrupted,
        waiting: &waiting,
        leftover: &leftover,
    };
    let set = output::FileSet { kind, files };
    // The error names the folder or file that could not be written.
    Ok(output::write_all(out_dir, set, &hooks)?)
}

/// The table and the paths written, unless quiet.
pub fn told(table: &str, written: &[PathBuf], quiet: bool) -> Vec<u8> {
    if quiet {
        return Vec::new();
    }
    let mut text = table.to_string();
    text.push('\n');
    for path in written {
        text.push_str(&format!("wrote {}\n", path.display()));
    }
    text.into_bytes()
}

/// Writes to stdout; a reader that went away (`simulate | head`) is not an error.
pub fn print_to_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(error).context("writing to stdout")
        }
        _ => Ok(()),
    }
}
