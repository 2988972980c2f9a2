//! The driver's sharded runs: `--shard K/N` runs this shard's cells of any model (a sweep's
//! too) and writes its partial folder; `simulate merge` checks the folders, rebuilds every
//! point's results from their cells and writes them as the unsharded run does, through the
//! same rendering ([`super::render`], [`super::render_sweep`]). See [`crate::shard`].

use std::path::PathBuf;

use crate::config::shard::Shard;
use crate::config::{Job, OutputSettings, Overrides};
use crate::models::Model;
use crate::progress::Reporter;
use crate::report::html;
use crate::shard::{self, Manifest, ShardError};

use super::{Rendered, announce, in_background, page_inputs, publish, render, render_sweep};

/// A sweep's points of one model, taken out of their jobs.
macro_rules! points {
    ($sweep:expr, $model:ident) => {
        super::unpack($sweep.points, |job| match job {
            Job::$model(config) => Some(config),
            _ => None,
        })
    };
}

/// What a sharded run is given besides its job: the shard, the command line as typed, the
/// config file's text and the flags.
pub(super) struct ShardRun<'a> {
    /// Which shard of how many.
    pub shard: Shard,
    /// The config file's text, if one was run.
    pub text: Option<String>,
    /// The flags.
    pub overrides: &'a Overrides,
}

/// The folder a shard writes to: `--out`, else the run's folder with `-shard-K-of-N` added.
pub(super) fn shard_folder(output: &mut OutputSettings, overrides: &Overrides, shard: Shard) {
    if overrides.out.is_none() {
        let mut name = output.out_dir.clone().into_os_string();
        name.push(format!("-shard-{}-of-{}", shard.index, shard.count));
        output.out_dir = PathBuf::from(name);
    }
}

/// A sweep's points (a run of one point without a sweep): each point's values, as labels,
/// and its config.
type Points<M> = Vec<(Vec<String>, M)>;

/// What is done with a job's points, whatever their model: a job of one run is one point
/// without swept keys.
trait WithPoints {
    /// Does it with the swept `keys` (none without a sweep) and the `points`.
    fn with<M: Model>(self, keys: Vec<String>, points: Points<M>) -> anyhow::Result<()>;
}

/// `work` done with `job`'s points.
fn by_model(job: Job, work: impl WithPoints) -> anyhow::Result<()> {
    match job {
        Job::Article(config) => work.with(Vec::new(), vec![(Vec::new(), config)]),
        Job::Timeline(config) => work.with(Vec::new(), vec![(Vec::new(), config)]),
        Job::Contention(config) => work.with(Vec::new(), vec![(Vec::new(), config)]),
        Job::Load(config) => work.with(Vec::new(), vec![(Vec::new(), config)]),
        Job::Sweep(sweep) => match &sweep.points[0].1 {
            Job::Article(_) => work.with(sweep.keys, points!(sweep, Article)),
            Job::Timeline(_) => work.with(sweep.keys, points!(sweep, Timeline)),
            Job::Contention(_) => work.with(sweep.keys, points!(sweep, Contention)),
            Job::Load(_) => work.with(sweep.keys, points!(sweep, Load)),
            Job::Sweep(_) => unreachable!("a sweep's points are not sweeps"),
        },
    }
}

/// Runs this shard's cells of `job` into its partial folder.
pub(super) fn run(job: Job, mut output: OutputSettings, run: ShardRun<'_>) -> anyhow::Result<()> {
    shard_folder(&mut output, run.overrides, run.shard);
    by_model(job, Sharding { output, run })
}

/// A shard's run of a job.
struct Sharding<'a> {
    /// Where its partial folder goes and what is printed.
    output: OutputSettings,
    /// The shard and the run's inputs.
    run: ShardRun<'a>,
}

impl WithPoints for Sharding<'_> {
    fn with<M: Model>(self, keys: Vec<String>, points: Points<M>) -> anyhow::Result<()> {
        run_points(keys, points, self.output, self.run)
    }
}

/// Every point's cells, one after another: `(point, first cell's index, cells)` of each.
fn layout<M: Model>(points: &[(Vec<String>, M)]) -> (Vec<(usize, usize)>, Vec<f64>, Vec<u64>) {
    let mut spans = Vec::new();
    let (mut seconds, mut units) = (Vec::new(), Vec::new());
    for (_, config) in points {
        let cells = config.cells();
        spans.push((seconds.len(), cells.len()));
        seconds.extend(cells.iter().map(|cell| cell.seconds));
        units.extend(cells.iter().map(|cell| cell.units));
    }
    (spans, seconds, units)
}

/// The steps of a shard: its cells picked by [`shard::assign`], each point's simulated on
/// one progress bar, and the partial folder written: the manifest and the cells.
fn run_points<M: Model>(
    keys: Vec<String>,
    points: Vec<(Vec<String>, M)>,
    output: OutputSettings,
    run: ShardRun<'_>,
) -> anyhow::Result<()> {
    let (spans, seconds, units) = layout(&points);
    let owner = shard::assign(&seconds, run.shard.count);
    let mine: Vec<usize> = (0..seconds.len())
        .filter(|&cell| owner[cell] == run.shard.index)
        .collect();
    let total: f64 = seconds.iter().sum();
    let share = mine.iter().map(|&cell| seconds[cell]).sum::<f64>() / total.max(f64::MIN_POSITIVE);
    announce(&keys, &points, share, output.quiet)?;
    let command = html::command_line(run.overrides);
    let manifest = Manifest::new(
        M::NAME,
        shard::config_hash(M::NAME, run.text.as_deref(), &command),
        run.shard,
        seconds.len(),
        mine.clone(),
        shard::arguments()?,
        run.text,
    );
    let progress = Reporter::new(
        mine.iter().map(|&cell| units[cell]).sum(),
        M::UNIT,
        output.quiet,
    );
    let worker = (output.clone(), progress.clone());
    let rendered = in_background(&output.out_dir, &progress, move || {
        let (output, progress) = worker;
        // `[[cell, results], ...]`, point by point.
        let mut cells = b"[".to_vec();
        for ((_, config), &(first, count)) in points.iter().zip(&spans) {
            let local: Vec<usize> = mine
                .iter()
                .filter(|&&cell| (first..first + count).contains(&cell))
                .map(|&cell| cell - first)
                .collect();
            let results = config.simulate_cells(&local, &progress)?;
            for (cell, results) in local.iter().zip(&results) {
                if cells.len() > 1 {
                    cells.extend_from_slice(b",\n");
                }
                serde_json::to_writer(&mut cells, &(first + cell, results))?;
            }
        }
        cells.extend_from_slice(b"]\n");
        let files = manifest.files(cells);
        let written = super::paths(&output.out_dir, &files);
        let summary = format!(
            "shard {} holds {} of the run's {} cells; join the {} folders with `simulate merge \
             DIR... --out DIR`",
            manifest.shard,
            manifest.cells.len(),
            manifest.cells_total,
            manifest.shard.count
        );
        let stdout = if output.json {
            files[0].bytes.clone()
        } else {
            super::told(&summary, &written, output.quiet)
        };
        Ok(Rendered {
            files,
            stdout,
            warnings: Vec::new(),
        })
    })?;
    publish(&output, "shard", &rendered)
}

/// How `simulate merge` reads the flags a shard was run with: the command line's parser.
pub type ParseArguments<'a> = &'a dyn Fn(&[String]) -> anyhow::Result<Overrides>;

/// `simulate merge FOLDER... --out DIR`: checks that the shards in `folders` belong together
/// and are complete (one line naming the folder otherwise, nothing written), then writes the
/// unsharded run's files into `out`, byte for byte, and prints what it prints (`quiet`,
/// `json` as its flags). `parse` reads the shards' command line as the binary does.
pub fn merge(
    folders: &[PathBuf],
    out: PathBuf,
    quiet: bool,
    json: bool,
    parse: ParseArguments<'_>,
) -> anyhow::Result<()> {
    let shards = shard::read_manifests(folders)?;
    let (first_folder, first) = &shards[0];
    let mut overrides = parse(&first.arguments)?;
    overrides.shard = None;
    overrides.out = Some(out);
    overrides.quiet = quiet;
    overrides.json = json;
    let text = first.config_text.as_deref();
    let job = match (&overrides.config, text) {
        (Some(path), Some(text)) => Job::from_text(text, path, &overrides)?,
        _ => Job::from_overrides(&overrides)?,
    };
    let output = job.output().clone();
    let page = page_inputs(&overrides, text, &output.out_dir)?;
    let hash = |model: &str| shard::config_hash(model, text, &html::command_line(&overrides));
    let check = move |model: &str| {
        if hash(model) == first.config_hash {
            Ok(())
        } else {
            Err(ShardError::Foreign {
                path: first_folder.clone(),
                reason: format!(
                    "its configuration reads back with config hash {}, not its {}",
                    hash(model),
                    first.config_hash
                ),
            })
        }
    };
    let merge = Merge {
        shards: &shards,
        output,
        page,
        check: &check,
    };
    by_model(job, merge)
}

impl WithPoints for Merge<'_> {
    fn with<M: Model>(self, keys: Vec<String>, points: Points<M>) -> anyhow::Result<()> {
        if keys.is_empty() {
            let config = points.into_iter().next().expect("one point").1;
            merge_one(config, self)
        } else {
            merge_sweep(keys, points, self)
        }
    }
}

/// What a merge writes from: the checked shards, the output settings and the page's inputs.
struct Merge<'a> {
    /// The folders and their manifests, by shard index.
    shards: &'a [(PathBuf, Manifest)],
    /// Where the files go and what is printed.
    output: OutputSettings,
    /// What report.html shows of the run's inputs.
    page: html::Inputs,
    /// Refuses shards whose configuration hash is not that of the configuration they hold,
    /// read back as the model named.
    check: &'a dyn Fn(&str) -> Result<(), ShardError>,
}

/// Every cell's results of `points`, from the shards, each point's in cell order.
fn cells_of<M: Model>(
    points: &[(Vec<String>, M)],
    merge: &Merge<'_>,
) -> anyhow::Result<Vec<Vec<M::Cell>>> {
    (merge.check)(M::NAME)?;
    let (spans, seconds, _) = layout(points);
    let (first_folder, first) = &merge.shards[0];
    if first.model != M::NAME || first.cells_total != seconds.len() {
        return Err(ShardError::Foreign {
            path: first_folder.clone(),
            reason: format!(
                "it holds {} of a {} run of {} cells; its configuration reads back as a {} run \
                 of {} cells",
                first.cells.len(),
                first.model,
                first.cells_total,
                M::NAME,
                seconds.len()
            ),
        }
        .into());
    }
    let mut all: Vec<Option<M::Cell>> = std::iter::repeat_with(|| None)
        .take(seconds.len())
        .collect();
    for (folder, manifest) in merge.shards {
        for (cell, results) in shard::read_cells::<M::Cell>(folder, manifest)? {
            all[cell] = Some(results);
        }
    }
    let mut cells = all
        .into_iter()
        .map(|cell| cell.expect("the manifests cover every cell once"));
    Ok(spans
        .iter()
        .map(|&(_, count)| cells.by_ref().take(count).collect())
        .collect())
}

/// Merges the shards of a run of one point.
fn merge_one<M: Model>(config: M, merge: Merge<'_>) -> anyhow::Result<()> {
    let points = vec![(Vec::new(), config)];
    let cells = cells_of(&points, &merge)?;
    let (_, config) = points.into_iter().next().expect("one point");
    let results = config.assemble(cells.into_iter().next().expect("one point"));
    let rendered = render::<M>(&results, &merge.output, &merge.page);
    publish(&merge.output, M::NAME, &rendered)
}

/// Merges the shards of a sweep, point by point.
fn merge_sweep<M: Model>(
    keys: Vec<String>,
    points: Vec<(Vec<String>, M)>,
    merge: Merge<'_>,
) -> anyhow::Result<()> {
    let cells = cells_of(&points, &merge)?;
    let results = points
        .into_iter()
        .zip(cells)
        .map(|((labels, config), cells)| Ok((labels, config.assemble(cells))));
    let rendered = render_sweep::<M>(keys, results, &merge.output, &merge.page)?;
    publish(&merge.output, M::NAME, &rendered)
}
