//! A sweep's files: every CSV of every point in one file, the swept keys as its first
//! columns (a column a point lacks is an empty cell), so that a sweep loads with one
//! `pandas.read_csv`; and the sweep's report.

use std::borrow::Cow;

use crate::report::OutputFile;

/// One CSV file of every point, built a point at a time.
#[derive(Debug)]
struct Combined {
    /// The columns of the points' files, in the order first seen.
    columns: Vec<String>,
    /// Every point's rows: the point, where each of its file's columns is in `columns`, and
    /// its records as read.
    rows: Vec<(usize, Vec<usize>, Vec<csv::StringRecord>)>,
}

/// The CSV files of a sweep's points, combined as the points come in.
#[derive(Debug)]
pub struct SweepFiles {
    /// The swept keys: the first columns of every file.
    keys: Vec<String>,
    /// Every point's labels, in order.
    points: Vec<Vec<String>>,
    /// The files by name, in the order first seen.
    files: Vec<(Cow<'static, str>, Combined)>,
}

impl SweepFiles {
    /// Files of a sweep over `keys`.
    pub fn new(keys: Vec<String>) -> Self {
        Self {
            keys,
            points: Vec::new(),
            files: Vec::new(),
        }
    }

    /// Adds one point's files: its CSV files are kept, the rest (charts, a report of the
    /// point alone) left out.
    ///
    /// # Panics
    /// If a CSV file is not valid CSV (the reports write every one with the `csv` crate).
    pub fn add(&mut self, labels: Vec<String>, files: Vec<OutputFile>) {
        let point = self.points.len();
        self.points.push(labels);
        for file in files.into_iter().filter(|file| file.name.ends_with(".csv")) {
            let position = match self.files.iter().position(|(name, _)| *name == file.name) {
                Some(position) => position,
                None => {
                    let combined = Combined {
                        columns: Vec::new(),
                        rows: Vec::new(),
                    };
                    self.files.push((file.name, combined));
                    self.files.len() - 1
                }
            };
            let combined = &mut self.files[position].1;
            let mut reader = csv::Reader::from_reader(file.bytes.as_slice());
            let header = reader
                .headers()
                .expect("a CSV written by the reports")
                .clone();
            let indices: Vec<usize> = header
                .iter()
                .map(
                    |name| match combined.columns.iter().position(|known| known == name) {
                        Some(index) => index,
                        None => {
                            combined.columns.push(name.to_string());
                            combined.columns.len() - 1
                        }
                    },
                )
                .collect();
            let records = reader
                .records()
                .map(|record| record.expect("a CSV written by the reports"))
                .collect();
            combined.rows.push((point, indices, records));
        }
    }

    /// Every combined CSV file, in the order first seen.
    pub fn files(&self) -> Vec<OutputFile> {
        self.files
            .iter()
            .map(|(name, combined)| {
                // A swept key the file has as a column of its own (the article model's
                // `max_retries`) is that column, not a second one.
                let prepended: Vec<usize> = (0..self.keys.len())
                    .filter(|&key| !combined.columns.contains(&self.keys[key]))
                    .collect();
                let mut writer = csv::Writer::from_writer(Vec::new());
                let header = prepended
                    .iter()
                    .map(|&key| &self.keys[key])
                    .chain(&combined.columns);
                writer
                    .write_record(header)
                    .expect("writing into memory cannot fail");
                let mut cells = vec![""; combined.columns.len()];
                for (point, indices, records) in &combined.rows {
                    for record in records {
                        cells.fill("");
                        for (&index, value) in indices.iter().zip(record.iter()) {
                            cells[index] = value;
                        }
                        let labels = prepended
                            .iter()
                            .map(|&key| self.points[*point][key].as_str());
                        writer
                            .write_record(labels.chain(cells.iter().copied()))
                            .expect("writing into memory cannot fail");
                    }
                }
                OutputFile {
                    name: name.clone(),
                    bytes: writer
                        .into_inner()
                        .expect("flushing into memory cannot fail"),
                }
            })
            .collect()
    }

    /// The points' labels, in order.
    pub fn points(&self) -> &[Vec<String>] {
        &self.points
    }
}

/// Each swept key's values, in order of first appearance among `points`.
pub fn axis_values(keys: &[String], points: &[Vec<String>]) -> Vec<Vec<String>> {
    (0..keys.len())
        .map(|axis| {
            let mut values: Vec<String> = Vec::new();
            for point in points {
                if !values.contains(&point[axis]) {
                    values.push(point[axis].clone());
                }
            }
            values
        })
        .collect()
}

/// The sweep in one line per key: `client.timeout_ms over 3 values: 500, 1000, 2000`.
fn axes_text(keys: &[String], points: &[Vec<String>]) -> Vec<String> {
    keys.iter()
        .zip(axis_values(keys, points))
        .map(|(key, values)| {
            let count = match values.len() {
                1 => "1 value".to_string(),
                count => format!("{count} values"),
            };
            format!("{key} over {count}: {}", values.join(", "))
        })
        .collect()
}

/// What a sweep prints: its keys and values and how many points ran.
pub fn table(keys: &[String], points: &[Vec<String>]) -> String {
    let mut text = format!("swept {} points:\n", points.len());
    for line in axes_text(keys, points) {
        text.push_str(&format!("  {line}\n"));
    }
    text.push_str(
        "\nevery CSV below holds every point's rows, the swept keys as its first columns\n",
    );
    text
}

/// The sweep's `report.md`: what was swept, the points, and the files.
pub fn report_md(
    model: &str,
    keys: &[String],
    points: &[Vec<String>],
    files: &[OutputFile],
) -> OutputFile {
    let mut text = format!("# A sweep of the {model} model\n\n");
    text.push_str(&format!(
        "The file was run at {} points, every combination of:\n\n",
        points.len()
    ));
    for line in axes_text(keys, points) {
        text.push_str(&format!("- {line}\n"));
    }
    text.push_str(
        "\nEvery point runs with the same seed, so the points share their random numbers: a \
         difference between two points is the swept key's, not chance's alone.\n\n\
         Every CSV file holds every point's rows, the swept keys as its first columns:\n\n",
    );
    let (charts, tables): (Vec<&OutputFile>, Vec<&OutputFile>) =
        files.iter().partition(|file| file.name.ends_with(".svg"));
    for file in tables {
        text.push_str(&format!("- [`{0}`]({0})\n", file.name));
    }
    if !charts.is_empty() {
        text.push_str(
            "\nEach headline metric against the first swept key, a line per design (the band \
             is the 95% interval where the points ran more than once):\n\n",
        );
        for file in charts {
            text.push_str(&format!("![{0}]({0})\n\n", file.name));
        }
    }
    text.push_str(
        "\nThe charts and the report of one point alone: run the file with `--set KEY=VALUE` \
         for each swept key.\n",
    );
    OutputFile::report_md(text)
}

/// The sweep's `--json`, in the model's one shape ([`crate::report::json::envelope`]):
/// `parameters` the first point's with `sweep` (the keys and every point's values) added,
/// `results` and `summary` the rows of the combined files (the swept keys' columns typed by
/// their text), `files` the paths written.
pub fn json(
    shape: &crate::report::json::Shape,
    first_parameters: serde_json::Value,
    keys: &[String],
    points: &[Vec<String>],
    files: &[OutputFile],
    written: &[std::path::PathBuf],
) -> Vec<u8> {
    let mut parameters = match first_parameters {
        serde_json::Value::Object(object) => object,
        _ => serde_json::Map::new(),
    };
    parameters.insert(
        "sweep".into(),
        serde_json::json!({ "keys": keys, "points": points }),
    );
    let bytes = |name: &str| {
        files
            .iter()
            .find(|file| file.name == name)
            .map(|file| file.bytes.as_slice())
    };
    crate::report::json::envelope(
        shape,
        &parameters,
        bytes(shape.results_file).unwrap_or_default(),
        bytes("summary.csv"),
        written,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(name: &'static str, text: &str) -> OutputFile {
        OutputFile {
            name: name.into(),
            bytes: text.as_bytes().to_vec(),
        }
    }

    #[test]
    fn points_are_stacked_under_the_swept_columns() {
        let mut sweep = SweepFiles::new(vec!["client.timeout_ms".into(), "run".into()]);
        sweep.add(
            vec!["500".into(), "0".into()],
            vec![
                csv("a.csv", "run,charges\n0,3\n1,4\n"),
                csv("a.svg", "<svg/>"),
            ],
        );
        // A point whose file has a column more, and one fewer; a swept key the files have
        // as a column (`run`) is not repeated.
        sweep.add(
            vec!["1000".into(), "0".into()],
            vec![
                csv("a.csv", "run,extra,charges\n0,x,5\n"),
                csv("b.csv", "n\n1\n"),
            ],
        );
        let files = sweep.files();
        let names: Vec<&str> = files.iter().map(|file| file.name.as_ref()).collect();
        assert_eq!(names, ["a.csv", "b.csv"]);
        assert_eq!(
            String::from_utf8(files[0].bytes.clone()).unwrap(),
            "client.timeout_ms,run,charges,extra\n500,0,3,\n500,1,4,\n1000,0,5,x\n"
        );
        assert_eq!(
            String::from_utf8(files[1].bytes.clone()).unwrap(),
            "client.timeout_ms,run,n\n1000,0,1\n"
        );
    }
}
