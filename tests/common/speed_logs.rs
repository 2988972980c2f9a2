//! The speed logs that `benches/speed_record.sh` writes under `docs/measurements/`, read back
//! so that the README's Speed tables are checked against them: the figures as the bench
//! scripts printed them (strings, so that a table row is compared digit for digit).

use std::path::Path;

use simulate::report::format::grouped;

use super::{project_file, table_cells};

/// One recording of `benches/speed_record.sh`: its folder, from the project's root.
#[derive(Debug, Clone, Copy)]
pub struct Measurements(pub &'static str);

/// The recording the README's Speed tables quote.
pub const LATEST: Measurements = Measurements("docs/measurements/2026-12-02-family-25");

/// The recording before it, on the machine before, which the README's Speed sections compare
/// with in a sentence.
pub const PREVIOUS: Measurements = Measurements("docs/measurements/2026-12-02");

impl Measurements {
    /// The text of `file` in the folder.
    pub fn file(self, file: &str) -> String {
        project_file(Path::new(self.0).join(file))
    }

    /// A Markdown link to `file` in the folder, named by its path (`[FOLDER/file](FOLDER/file)`):
    /// each Speed section of the README links the logs it quotes.
    pub fn link(self, file: &str) -> String {
        let path = format!("{}/{file}", self.0);
        format!("[{path}]({path})")
    }

    /// The value of the line `key: value` of `machine.txt`.
    fn machine(self, key: &str) -> String {
        let prefix = format!("{key}: ");
        self.file("machine.txt")
            .lines()
            .find_map(|line| line.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("machine.txt has no {key}"))
            .to_string()
    }

    /// The machine as the README names it: `` `PROCESSOR`, N cores ``, e.g. `` `AMD EPYC,
    /// family 26, model 2, with AVX-512`, 2 cores ``.
    pub fn machine_name(self) -> String {
        format!(
            "`{}`, {} cores",
            self.machine("processor"),
            self.machine("cores")
        )
    }

    /// The Python of the originals' runs, e.g. `Python 3.11.7`.
    pub fn python(self) -> String {
        self.machine("python")
    }

    /// The count of `what` in `instructions.log` (`contention`, `load steady`, `load
    /// capacity-drop`).
    pub fn instructions(self, what: &str) -> u64 {
        let prefix = format!("{what}: ");
        self.file("instructions.log")
            .lines()
            .find_map(|line| line.strip_prefix(&prefix)?.strip_suffix(" instructions"))
            .unwrap_or_else(|| panic!("instructions.log has no count of {what}"))
            .parse()
            .unwrap()
    }
}

/// An instruction count in millions as the README quotes it, rounded, with thousands
/// separators (`2,038,552,046` gives `2,039 M`).
pub fn millions(count: u64) -> String {
    format!("{} M", grouped((count + 500_000) / 1_000_000))
}

/// A count of sets or runs as a word, as the README writes it (`five`).
pub fn count_word(count: usize) -> &'static str {
    [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ]
    .get(count)
    .unwrap_or_else(|| panic!("no word for {count}"))
}

/// The time of day (`HH:MM:SS`) and load average (`A B C`) of a line `WORD HH:MM:SS UTC, load
/// average A B C`.
fn stamp(line: &str, word: &str) -> Option<(String, String)> {
    let rest = line.strip_prefix(word)?.trim_start();
    let (time, load) = rest.split_once(" UTC, load average ")?;
    Some((time.to_string(), load.to_string()))
}

/// One set of `aws_backoff_speed.log`: the AWS original and `simulate` on its parameters.
#[derive(Debug, Clone)]
pub struct AwsSet {
    /// When the set started (`HH:MM:SS`, UTC).
    pub time: String,
    /// The original's wall time (s, as printed).
    pub original_wall: String,
    /// `simulate`'s wall time on one thread (s, as printed).
    pub one_thread_wall: String,
    /// The original's wall time over it, as printed (`114x`).
    pub one_thread_ratio: String,
    /// `simulate`'s wall time on all cores (s, as printed).
    pub all_cores_wall: String,
    /// The original's wall time over it, as printed.
    pub all_cores_ratio: String,
}

/// A speed-up as printed (`114x`) as a number.
pub fn speedup(ratio: &str) -> u32 {
    ratio
        .strip_suffix('x')
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("not a speed-up: {ratio}"))
}

impl Measurements {
    /// The sets of `aws_backoff_speed.log`, in order.
    pub fn aws_sets(self) -> Vec<AwsSet> {
        let log = self.file("aws_backoff_speed.log");
        let mut sets = Vec::new();
        let mut time = None;
        let mut original = None;
        let mut one_thread = None;
        for line in log.lines() {
            if let Some((at, _load)) = stamp(line, "set") {
                time = Some(at);
                continue;
            }
            if !line.starts_with("| original") && !line.starts_with("| simulate") {
                continue;
            }
            let row = table_cells(line);
            let wall = row[2].trim_end_matches(" s").to_string();
            match (row[0].as_str(), row[1].as_str()) {
                ("original (Python)", _) => original = Some(wall),
                ("simulate", "1") => one_thread = Some((wall, row[4].clone())),
                ("simulate", _) => {
                    let (one_thread_wall, one_thread_ratio) = one_thread.take().unwrap();
                    sets.push(AwsSet {
                        time: time.take().expect("each set starts with its time"),
                        original_wall: original.take().unwrap(),
                        one_thread_wall,
                        one_thread_ratio,
                        all_cores_wall: wall,
                        all_cores_ratio: row[4].clone(),
                    });
                }
                _ => unreachable!("{line}"),
            }
        }
        sets
    }
}

/// One run of `cargo bench --bench load` in `load_bench.log`.
#[derive(Debug, Clone)]
pub struct LoadRun {
    /// When it started (`HH:MM:SS`, UTC).
    pub time: String,
    /// The load average then (`A B C`).
    pub load_average: String,
    /// Events per second per thread at the median sample, per case (`10^6`, as printed), in
    /// the bench's order: the steady case, then `capacity-drop.toml`.
    pub million_events_per_second: Vec<String>,
}

impl Measurements {
    /// The runs of `load_bench.log`, in order.
    pub fn load_runs(self) -> Vec<LoadRun> {
        let log = self.file("load_bench.log");
        let mut runs: Vec<LoadRun> = Vec::new();
        for line in log.lines() {
            if let Some((time, load_average)) = stamp(line, "run") {
                runs.push(LoadRun {
                    time,
                    load_average,
                    million_events_per_second: Vec::new(),
                });
            } else if let Some(figure) = line.strip_suffix(" Mevents/s") {
                let value = figure.split_whitespace().last().unwrap().to_string();
                runs.last_mut()
                    .expect("a run starts with its time")
                    .million_events_per_second
                    .push(value);
            }
        }
        runs
    }
}

/// The figures of one simulation (`retry` or `collapse`) in `load_speed_compare.log`, as
/// printed.
#[derive(Debug, Clone, PartialEq)]
pub struct BrookerSpeed {
    /// The event loops each side ran (`120`).
    pub event_loops: String,
    /// The original's CPU seconds (user + system).
    pub original_cpu: String,
    /// The original's wall seconds.
    pub original_wall: String,
    /// `simulate`'s CPU seconds on one thread.
    pub one_thread_cpu: String,
    /// `simulate`'s wall seconds on one thread.
    pub one_thread_wall: String,
    /// `simulate`'s wall seconds on all cores.
    pub all_cores_wall: String,
    /// The original's CPU time over `simulate`'s on one thread (`137x`).
    pub ratio_cpu: String,
    /// The original's wall time over `simulate`'s on one thread.
    pub ratio_wall: String,
    /// The original's wall time over `simulate`'s on all cores.
    pub ratio_all_cores: String,
    /// The original's CPU time per event loop, with its unit (`278.0 ms`).
    pub original_per_loop: String,
    /// `simulate`'s CPU time per event loop on one thread, with its unit.
    pub one_thread_per_loop: String,
}

impl Measurements {
    /// [`BrookerSpeed`] for `simulation` (`retry` or `collapse`).
    pub fn brooker_speed(self, simulation: &str) -> BrookerSpeed {
        let log = self.file("load_speed_compare.log");
        // `== original retry_sim: 120 event loops (...), 1 process`.
        let event_loops = log
            .lines()
            .find_map(|line| {
                let rest = line.strip_prefix("== original ")?;
                let (script, rest) = rest.split_once(": ")?;
                script
                    .ends_with(&format!("{simulation}_sim"))
                    .then(|| rest.split(" event loops").next().unwrap().to_string())
            })
            .unwrap_or_else(|| panic!("no line of the original {simulation} simulation"));
        let line = |kind: &str| {
            log.lines()
                .find(|line| {
                    line.split_whitespace().next() == Some(simulation) && line.contains(kind)
                })
                .unwrap_or_else(|| panic!("no {simulation} {kind} line"))
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        // `after` the word `word` in a line's words.
        let after = |words: &[String], word: &str| {
            let at = words.iter().position(|w| w == word).unwrap();
            words[at + 1].trim_end_matches(',').to_string()
        };
        // The `(N UNIT CPU per event loop)` at a line's end, as `N UNIT`.
        let per_loop = |words: &[String]| {
            let at = words.iter().position(|w| w.starts_with('(')).unwrap();
            format!("{} {}", words[at].trim_start_matches('('), words[at + 1])
        };
        let original = line("original  1 process");
        let one_thread = line("simulate  1 thread");
        let all_cores = line("threads:");
        let ratio = line("ratio");
        let ratio_walls: Vec<&String> = ratio
            .iter()
            .enumerate()
            .filter(|(_, w)| *w == "wall")
            .map(|(at, _)| &ratio[at + 1])
            .collect();
        BrookerSpeed {
            event_loops,
            original_cpu: after(&original, "CPU"),
            original_wall: after(&original, "wall"),
            one_thread_cpu: after(&one_thread, "CPU"),
            one_thread_wall: after(&one_thread, "wall"),
            all_cores_wall: after(&all_cores, "wall"),
            ratio_cpu: after(&ratio, "CPU"),
            ratio_wall: ratio_walls[0].trim_end_matches(',').to_string(),
            ratio_all_cores: ratio_walls[1].trim_end_matches(',').to_string(),
            original_per_loop: per_loop(&original),
            one_thread_per_loop: per_loop(&one_thread),
        }
    }
}

/// The median of decimal figures as printed (`["1.23", "1.19", "1.31"]` gives `"1.23"`; the
/// lower middle one for an even count).
pub fn median_figure(figures: &[String]) -> String {
    let mut sorted = figures.to_vec();
    sorted.sort_by(|a, b| {
        let value = |figure: &String| figure.parse::<f64>().unwrap();
        value(a).total_cmp(&value(b))
    });
    sorted[(sorted.len() - 1) / 2].clone()
}

/// The median of `values` (the lower middle one for an even count).
pub fn median<T: Ord + Copy>(values: &[T]) -> T {
    let mut sorted = values.to_vec();
    sorted.sort();
    sorted[(sorted.len() - 1) / 2]
}
