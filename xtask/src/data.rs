//! The committed files the generators read: CSV files by column name, and text files. Every
//! file read is recorded, so that a region's start line names exactly its sources.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::rc::Rc;

/// A CSV file: its header and its records, every cell as written.
#[derive(Debug)]
pub struct Csv {
    /// The file, relative to the repository's root.
    pub path: String,
    columns: HashMap<String, usize>,
    records: Vec<Vec<String>>,
}

/// One record of a [`Csv`].
#[derive(Clone, Copy)]
pub struct Row<'a> {
    csv: &'a Csv,
    cells: &'a [String],
}

impl Csv {
    /// Parses `text`, the contents of `path`.
    pub fn parse(path: &str, text: &str) -> Result<Self, String> {
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let headers = reader
            .headers()
            .map_err(|error| format!("{path}: {error}"))?
            .clone();
        let columns = headers
            .iter()
            .enumerate()
            .map(|(index, name)| (name.to_string(), index))
            .collect();
        let records = reader
            .records()
            .map(|record| {
                record
                    .map(|record| record.iter().map(str::to_string).collect())
                    .map_err(|error| format!("{path}: {error}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            path: path.to_string(),
            columns,
            records,
        })
    }

    /// Every record, in file order.
    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        self.records.iter().map(|cells| Row { csv: self, cells })
    }

    /// Whether the file has `column`.
    pub fn has(&self, column: &str) -> bool {
        self.columns.contains_key(column)
    }

    /// The distinct values of `column`, in order of first appearance.
    pub fn distinct(&self, column: &str) -> Vec<String> {
        let mut seen = Vec::new();
        for row in self.rows() {
            let value = row.get(column).to_string();
            if !seen.contains(&value) {
                seen.push(value);
            }
        }
        seen
    }
}

impl<'a> Row<'a> {
    /// The cell of `column` as written. Panics naming the file if it has no such column: the
    /// outputs' columns are fixed by the code, so a missing one is a generator's mistake.
    pub fn get(&self, column: &str) -> &'a str {
        let index = self.csv.columns.get(column).unwrap_or_else(|| {
            panic!("{} has no column {column}", self.csv.path);
        });
        &self.cells[*index]
    }

    /// The cell of `column` as a number (an empty cell is NaN).
    pub fn num(&self, column: &str) -> f64 {
        let cell = self.get(column);
        if cell.is_empty() {
            return f64::NAN;
        }
        cell.parse().unwrap_or_else(|_| {
            panic!("{}: {column} = {cell:?} is not a number", self.csv.path);
        })
    }

    /// The cell of `column` as a whole number.
    pub fn int(&self, column: &str) -> u64 {
        let cell = self.get(column);
        cell.parse().unwrap_or_else(|_| {
            panic!(
                "{}: {column} = {cell:?} is not a whole number",
                self.csv.path
            );
        })
    }
}

/// Where the generators read from: the repository's root, and what they read.
pub struct Ctx {
    root: PathBuf,
    read: RefCell<BTreeSet<String>>,
    csvs: RefCell<HashMap<String, Rc<Csv>>>,
}

impl Ctx {
    /// Files under `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            read: RefCell::default(),
            csvs: RefCell::default(),
        }
    }

    /// Records `path` (relative to the root) as a source without reading it: a declaration
    /// in the code, which the region is written from through the library.
    pub fn declared(&self, path: &str) {
        self.read.borrow_mut().insert(path.to_string());
    }

    /// The text of `path` (relative to the root), recorded as read.
    pub fn text(&self, path: &str) -> Result<String, String> {
        self.read.borrow_mut().insert(path.to_string());
        std::fs::read_to_string(self.root.join(path)).map_err(|error| format!("{path}: {error}"))
    }

    /// The CSV file at `path`, recorded as read (parsed once).
    pub fn csv(&self, path: &str) -> Result<Rc<Csv>, String> {
        self.read.borrow_mut().insert(path.to_string());
        if let Some(csv) = self.csvs.borrow().get(path) {
            return Ok(Rc::clone(csv));
        }
        let text = std::fs::read_to_string(self.root.join(path))
            .map_err(|error| format!("{path}: {error}"))?;
        let csv = Rc::new(Csv::parse(path, &text)?);
        self.csvs
            .borrow_mut()
            .insert(path.to_string(), Rc::clone(&csv));
        Ok(csv)
    }

    /// The names of the folders in `path`, sorted.
    pub fn folders(&self, path: &str) -> Result<Vec<String>, String> {
        let mut names: Vec<String> = std::fs::read_dir(self.root.join(path))
            .map_err(|error| format!("{path}: {error}"))?
            .filter_map(Result::ok)
            .filter(|entry| entry.path().is_dir())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        Ok(names)
    }

    /// Whether `path` exists (not recorded: a file that is absent is not a source).
    pub fn exists(&self, path: &str) -> bool {
        self.root.join(path).exists()
    }

    /// The files read since the last call, sorted, and forgets them.
    pub fn take_sources(&self) -> Vec<String> {
        std::mem::take(&mut *self.read.borrow_mut())
            .into_iter()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_read_by_column_name() {
        let csv = Csv::parse("t.csv", "a,b,c\n1,x,\n2,y,3.5\n").unwrap();
        let rows: Vec<Row> = csv.rows().collect();
        assert_eq!(rows[0].get("b"), "x");
        assert_eq!(rows[1].int("a"), 2);
        assert_eq!(rows[1].num("c"), 3.5);
        assert!(rows[0].num("c").is_nan());
        assert_eq!(csv.distinct("b"), ["x", "y"]);
        assert!(csv.has("c") && !csv.has("d"));
    }
}
