//! The speed tables of docs/performance.md: one table per recording under
//! `docs/measurements/` (one machine each), read from the logs as the bench scripts printed
//! them (`benches/speed_record.sh`, `benches/instructions_record.sh`). The figures are the
//! logs' own strings; only the summary lines are computed. Links are relative to docs/.

use super::{no_argument, table};
use crate::data::Ctx;
use crate::numbers::grouped;

/// The folder of the recordings.
const MEASUREMENTS: &str = "docs/measurements";

/// The recordings that have `file`, oldest first (folders are named by date).
fn recordings(ctx: &Ctx, file: &str) -> Result<Vec<String>, String> {
    Ok(ctx
        .folders(MEASUREMENTS)?
        .into_iter()
        .filter(|folder| ctx.exists(&format!("{MEASUREMENTS}/{folder}/{file}")))
        .collect())
}

/// The value of `key: value` in a recording's `machine.txt`.
fn machine(ctx: &Ctx, folder: &str, key: &str) -> Result<String, String> {
    let path = format!("{MEASUREMENTS}/{folder}/machine.txt");
    let prefix = format!("{key}: ");
    ctx.text(&path)?
        .lines()
        .find_map(|line| line.strip_prefix(&prefix).map(str::to_string))
        .ok_or_else(|| format!("{path} has no {key}"))
}

/// The heading of a recording's table: the machine, the date, the commit and the log.
fn heading(ctx: &Ctx, folder: &str, file: &str) -> Result<String, String> {
    let commit = machine(ctx, folder, "commit")?;
    Ok(format!(
        "**{}, {} cores** ({}, code of `{}`; log: [{folder}/{file}](measurements/{folder}/{file}))",
        machine(ctx, folder, "processor")?,
        machine(ctx, folder, "cores")?,
        machine(ctx, folder, "date")?,
        &commit[..commit.len().min(7)],
    ))
}

/// The recordings' parts, one paragraph apart.
fn join(parts: &[String]) -> String {
    parts
        .iter()
        .map(|part| part.trim_end_matches('\n'))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The cells of a Markdown table row, trimmed.
fn cells(line: &str) -> Vec<String> {
    line.trim()
        .trim_matches('|')
        .split('|')
        .map(|cell| cell.trim().to_string())
        .collect()
}

/// The time of day and load average of a line `WORD HH:MM:SS UTC, load average A B C`.
fn stamp<'a>(line: &'a str, word: &str) -> Option<(&'a str, &'a str)> {
    line.strip_prefix(word)?
        .trim_start()
        .split_once(" UTC, load average ")
}

/// A speed-up as printed (`114x`) as a number.
fn speedup(ratio: &str) -> Result<u32, String> {
    ratio
        .strip_suffix('x')
        .and_then(|number| number.parse().ok())
        .ok_or_else(|| format!("not a speed-up: {ratio}"))
}

/// The median of whole numbers (the mean of the two middle ones for an even count, rounded
/// down).
fn median(values: &[u32]) -> u32 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }
}

/// `speed-aws`: every `aws_backoff_speed.log`: per set, the AWS original's wall time and
/// `simulate`'s on one thread and on all cores with the speed-ups, and how many sets reach
/// 100x on one thread.
pub fn aws(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let mut out = Vec::new();
    for folder in recordings(ctx, "aws_backoff_speed.log")? {
        let path = format!("{MEASUREMENTS}/{folder}/aws_backoff_speed.log");
        let log = ctx.text(&path)?;
        let mut rows: Vec<Vec<String>> = Vec::new();
        let (mut one, mut all) = (Vec::new(), Vec::new());
        let mut current: Option<Vec<String>> = None;
        for line in log.lines() {
            if let Some((time, load)) = stamp(line, "set") {
                current = Some(vec![time.to_string(), load.to_string()]);
                continue;
            }
            if !line.starts_with("| original") && !line.starts_with("| simulate") {
                continue;
            }
            let row = cells(line);
            let set = current
                .as_mut()
                .ok_or_else(|| format!("{path}: a table before its set line"))?;
            match (row[0].as_str(), row[1].as_str()) {
                ("original (Python)", _) => set.push(row[2].clone()),
                ("simulate", "1") => {
                    one.push(speedup(&row[4])?);
                    set.push(format!("{} ({})", row[2], row[4]));
                }
                ("simulate", _) => {
                    all.push(speedup(&row[4])?);
                    set.push(format!("{} ({})", row[2], row[4]));
                    rows.push(current.take().expect("checked above"));
                }
                _ => return Err(format!("{path}: unexpected row {line}")),
            }
        }
        let reached = one.iter().filter(|&&speedup| speedup >= 100).count();
        out.push(format!(
            "{}\n\n{}\nOne thread: {}x to {}x, median {}x; {reached} of {} sets at 100x or more. \
             All cores: {}x to {}x.",
            heading(ctx, &folder, "aws_backoff_speed.log")?,
            table(
                &[
                    "set (UTC)",
                    "load average",
                    "original",
                    "`simulate`, one thread (speed-up)",
                    "all cores (speed-up)",
                ],
                &[false, false, true, true, true],
                &rows,
            ),
            one.iter().min().ok_or("no sets")?,
            one.iter().max().ok_or("no sets")?,
            median(&one),
            one.len(),
            all.iter().min().ok_or("no sets")?,
            all.iter().max().ok_or("no sets")?,
        ));
    }
    Ok(join(&out))
}

/// `speed-load-bench`: every `load_bench.log`: per run of `cargo bench --bench load`, the
/// events per second per thread at the median sample of each case, and how many runs reach
/// 10^7 events per second.
pub fn load_bench(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let mut out = Vec::new();
    for folder in recordings(ctx, "load_bench.log")? {
        let path = format!("{MEASUREMENTS}/{folder}/load_bench.log");
        let log = ctx.text(&path)?;
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut figures: Vec<Vec<f64>> = Vec::new();
        for line in log.lines() {
            if let Some((time, load)) = stamp(line, "run") {
                rows.push(vec![time.to_string(), load.to_string()]);
                figures.push(Vec::new());
            } else if let Some(figure) = line.strip_suffix(" Mevents/s") {
                let words: Vec<&str> = figure.split_whitespace().collect();
                // `CASE median X ms fastest Y ms Z`.
                let value = words.last().ok_or_else(|| format!("{path}: {line}"))?;
                let median = words
                    .iter()
                    .position(|w| *w == "median")
                    .map(|at| format!("{} {}", words[at + 1], words[at + 2]))
                    .unwrap_or_default();
                rows.last_mut()
                    .ok_or_else(|| format!("{path}: a figure before its run line"))?
                    .push(format!("{value} × 10^6 ({median})"));
                figures
                    .last_mut()
                    .expect("pushed with the row")
                    .push(value.parse().map_err(|_| format!("{path}: {line}"))?);
            }
        }
        let cases = figures.first().map_or(0, Vec::len);
        let reached: Vec<String> = (0..cases)
            .map(|case| {
                let count = figures.iter().filter(|run| run[case] >= 10.0).count();
                format!("{count} of {}", figures.len())
            })
            .collect();
        out.push(format!(
            "{}\n\n{}\nRuns at 10^7 events per second per thread or more: {} for the steady \
             case, {} for `capacity-drop.toml`.",
            heading(ctx, &folder, "load_bench.log")?,
            table(
                &[
                    "run (UTC)",
                    "load average",
                    "steady 2,000 payments/s (median sample)",
                    "`capacity-drop.toml` (median sample)",
                ],
                &[false, false, true, true],
                &rows,
            ),
            reached.first().map_or("none", String::as_str),
            reached.get(1).map_or("none", String::as_str),
        ));
    }
    Ok(join(&out))
}

/// `speed-brooker`: every `load_speed_compare.log`: per simulation, the event loops, the
/// original's CPU (and wall) time, `simulate`'s on one thread and all cores, and the ratios.
pub fn brooker(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let mut out = Vec::new();
    for folder in recordings(ctx, "load_speed_compare.log")? {
        let path = format!("{MEASUREMENTS}/{folder}/load_speed_compare.log");
        let log = ctx.text(&path)?;
        let mut rows = Vec::new();
        for (simulation, script) in [("retry", "retry_sim"), ("collapse", "simple_collapse_sim")] {
            let loops = log
                .lines()
                .find_map(|line| {
                    let rest = line.strip_prefix("== original ")?;
                    let (script, rest) = rest.split_once(": ")?;
                    script.ends_with(&format!("{simulation}_sim")).then(|| {
                        rest.split(" event loops")
                            .next()
                            .unwrap_or_default()
                            .to_string()
                    })
                })
                .ok_or_else(|| format!("{path}: no original {simulation} line"))?;
            let words = |kind: &str| -> Result<Vec<String>, String> {
                log.lines()
                    .find(|line| {
                        line.split_whitespace().next() == Some(simulation) && line.contains(kind)
                    })
                    .map(|line| line.split_whitespace().map(str::to_string).collect())
                    .ok_or_else(|| format!("{path}: no {simulation} {kind} line"))
            };
            let after = |words: &[String], word: &str, nth: usize| -> Result<String, String> {
                words
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| *w == word)
                    .nth(nth)
                    .and_then(|(at, _)| words.get(at + 1))
                    .map(|w| w.trim_end_matches(',').to_string())
                    .ok_or_else(|| format!("{path}: no {word} in {words:?}"))
            };
            let original = words("original  1 process")?;
            let one = words("simulate  1 thread")?;
            let all = words("threads:")?;
            let ratio = words("ratio")?;
            rows.push(vec![
                format!("`{script}`"),
                loops,
                format!(
                    "{} s ({} s)",
                    after(&original, "CPU", 0)?,
                    after(&original, "wall", 0)?
                ),
                format!(
                    "{} s ({} s)",
                    after(&one, "CPU", 0)?,
                    after(&one, "wall", 0)?
                ),
                format!(
                    "{} ({})",
                    after(&ratio, "CPU", 0)?,
                    after(&ratio, "wall", 0)?
                ),
                format!(
                    "{} s ({})",
                    after(&all, "wall", 0)?,
                    after(&ratio, "wall", 1)?
                ),
            ]);
        }
        out.push(format!(
            "{}\n\n{}",
            heading(ctx, &folder, "load_speed_compare.log")?,
            table(
                &[
                    "simulation",
                    "event loops",
                    "original CPU (wall)",
                    "`simulate` one thread CPU (wall)",
                    "ratio CPU (wall)",
                    "`simulate` all cores wall (ratio)",
                ],
                &[false, true, true, true, true, true],
                &rows,
            )
        ));
    }
    Ok(join(&out))
}

/// `speed-memory`: every `load_memory.log` (`benches/load_memory.sh`): per simulated span, the
/// payments issued, the events, the peak resident memory and the wall time, and the ratio of
/// the two peaks.
pub fn memory(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let mut out = Vec::new();
    for folder in recordings(ctx, "load_memory.log")? {
        let path = format!("{MEASUREMENTS}/{folder}/load_memory.log");
        let log = ctx.text(&path)?;
        let mut rows = Vec::new();
        let mut ratio = None;
        let mut load = String::new();
        for line in log.lines() {
            if let Some((_, average)) = stamp(line, "run") {
                load = average.to_string();
            } else if let Some((span, rest)) = line.trim().split_once(" simulated: ") {
                // `peak X MiB resident, Y s wall, P payments, S succeeded, E events, ...`.
                let parts: Vec<&str> = rest.split(", ").collect();
                let field = |suffix: &str| -> Result<String, String> {
                    parts
                        .iter()
                        .find_map(|part| part.strip_suffix(suffix))
                        .map(|value| value.trim_start_matches("peak ").to_string())
                        .ok_or_else(|| format!("{path}: no {suffix:?} in {line}"))
                };
                rows.push(vec![
                    span.to_string(),
                    field(" payments")?,
                    field(" events")?,
                    format!("{} MiB", field(" MiB resident")?),
                    format!("{} s", field(" s wall")?),
                ]);
            } else if let Some(value) = line.strip_prefix("the hour's peak over the 300 s peak: ") {
                ratio = Some(value.to_string());
            }
        }
        out.push(format!(
            "{} (load average {load} at the start)\n\n{}\nThe hour's peak over the 300 s peak: {} \
             (the script fails above 1.5).",
            heading(ctx, &folder, "load_memory.log")?,
            table(
                &[
                    "simulated",
                    "payments issued",
                    "events",
                    "peak resident",
                    "wall, one thread",
                ],
                &[false, true, true, true, true],
                &rows,
            ),
            ratio.ok_or_else(|| format!("{path}: no ratio line"))?,
        ));
    }
    Ok(join(&out))
}

/// `instructions`: every `instructions.log`: the instruction counts of callgrind per case, in
/// millions, with the commit they were counted at.
pub fn instructions(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let mut out = Vec::new();
    for folder in recordings(ctx, "instructions.log")? {
        let path = format!("{MEASUREMENTS}/{folder}/instructions.log");
        let log = ctx.text(&path)?;
        let mut commit = String::new();
        let mut rows = Vec::new();
        for line in log.lines() {
            if let Some(hash) = line.strip_prefix("commit: ") {
                commit = hash.chars().take(7).collect();
            } else if let Some((case, count)) = line.split_once(": ") {
                let count: u64 = count
                    .strip_suffix(" instructions")
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| format!("{path}: {line}"))?;
                rows.push(vec![
                    case.to_string(),
                    format!("{} M", grouped((count + 500_000) / 1_000_000)),
                ]);
            }
        }
        out.push(format!(
            "{} counted at `{commit}`\n\n{}",
            heading(ctx, &folder, "instructions.log")?,
            table(&["case", "instructions"], &[false, true], &rows)
        ));
    }
    Ok(join(&out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_are_read_as_printed() {
        assert_eq!(
            stamp("set 05:00:26 UTC, load average 1.59 1.05 0.52", "set"),
            Some(("05:00:26", "1.59 1.05 0.52"))
        );
        assert_eq!(speedup("128x"), Ok(128));
        assert!(speedup("fast").is_err());
        assert_eq!(median(&[128, 140, 117, 128, 155]), 128);
        assert_eq!(median(&[1, 2, 3, 5]), 2);
        assert_eq!(
            cells("| simulate | 1 | 1.23 s |"),
            ["simulate", "1", "1.23 s"]
        );
    }
}
