//! The one `--json` shape of every model, and its JSON Schema:
//!
//! ```text
//! { "model": "contention",
//!   "parameters": { the run's resolved settings, typed },
//!   "results": [ one object per row of the model's results CSV ],
//!   "summary": [ one object per row of its summary.csv, or none yet ],
//!   "files": [ the paths written ] }
//! ```
//!
//! `results` and `summary` are the model's CSV files read back, so they hold exactly what the
//! files hold, row for row and column for column, each cell typed by its column's declared
//! [`Json`] type: numbers as JSON numbers (never numeric strings), an empty cell as `null`.
//! A column the declaration does not name (a swept key's) is typed by its text: a number if
//! it reads as one, else a string. The same declarations ([`Shape`]) write the schemas in
//! `schemas/` (`cargo xtask docs` regenerates them; `--check` fails when one is stale).

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::report::summary::ESTIMATE_COLUMNS;

/// The paths written, as text (lossy where a path is not UTF-8).
pub fn paths(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|path| path.to_string_lossy().into_owned())
        .collect()
}

/// `value` as pretty-printed JSON, ending in a newline.
pub fn pretty(value: &impl Serialize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("serializing into memory cannot fail");
    bytes.push(b'\n');
    bytes
}

/// The JSON type of a column or parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Json {
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// A string.
    Text,
    /// `true` or `false`.
    Boolean,
    /// A list of whole numbers.
    Integers,
    /// A list of numbers.
    Numbers,
    /// A list of strings.
    Texts,
}

impl Json {
    /// Its JSON Schema `type`.
    fn schema(self) -> Value {
        let list = |items: &str| json!({ "type": "array", "items": { "type": items } });
        match self {
            Json::Integer => json!({ "type": "integer" }),
            Json::Number => json!({ "type": "number" }),
            Json::Text => json!({ "type": "string" }),
            Json::Boolean => json!({ "type": "boolean" }),
            Json::Integers => list("integer"),
            Json::Numbers => list("number"),
            Json::Texts => list("string"),
        }
    }
}

/// One declared key of an object of the envelope: a column of a CSV file, or a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// The key (the CSV column's name).
    pub name: &'static str,
    /// Its type.
    pub json: Json,
    /// Whether it may be `null` (an empty CSV cell: an absent value).
    pub nullable: bool,
    /// Whether some files leave the column out (a column written only when a feature is
    /// used): not required in the schema.
    pub optional: bool,
}

impl Field {
    /// A key of type `json` that every object has and that is never `null`.
    pub const fn new(name: &'static str, json: Json) -> Self {
        Self {
            name,
            json,
            nullable: false,
            optional: false,
        }
    }

    /// The same key, in the objects of the files that write its column only.
    pub const fn optional(self) -> Self {
        Self {
            optional: true,
            ..self
        }
    }

    /// The same key, `null` where absent.
    pub const fn nullable(self) -> Self {
        Self {
            nullable: true,
            ..self
        }
    }

    /// The JSON value of one CSV cell of this column.
    fn value(self, cell: &str) -> Value {
        if cell.is_empty() {
            return match self.json {
                Json::Text if !self.nullable => Value::from(""),
                _ => Value::Null,
            };
        }
        let typed = match self.json {
            Json::Integer => integer(cell),
            Json::Number => number(cell),
            Json::Boolean => match cell {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            _ => Some(Value::from(cell)),
        };
        // A cell that does not read as its column's type stays text (the schema refuses it).
        typed.unwrap_or_else(|| Value::from(cell))
    }
}

/// A whole number's JSON value.
fn integer(cell: &str) -> Option<Value> {
    cell.parse::<u64>()
        .map(Value::from)
        .or_else(|_| cell.parse::<i64>().map(Value::from))
        .ok()
}

/// A number's JSON value (`None` for text or a number JSON cannot hold).
fn number(cell: &str) -> Option<Value> {
    let value = cell.parse::<f64>().ok()?;
    serde_json::Number::from_f64(value).map(Value::Number)
}

/// The JSON value of a cell of a column no declaration names: a whole number, a number, or
/// text; `null` when empty.
fn inferred(cell: &str) -> Value {
    if cell.is_empty() {
        return Value::Null;
    }
    integer(cell)
        .or_else(|| number(cell))
        .unwrap_or_else(|| Value::from(cell))
}

/// Declares a model's `--json` parameters once: the struct serialized as the envelope's
/// `parameters`, each field with its doc, its Rust type, its [`Json`] type (`nullable` where
/// it may be `null`) and its value in terms of the model; `FIELDS`, their declarations for
/// [`Shape::parameters`], and `of`, the parameters of one model.
macro_rules! parameters {
    (
        $(#[doc = $doc:literal])+
        struct $name:ident<$lifetime:lifetime>($model:ident: $model_type:ty) {
            $( $(#[doc = $field_doc:literal])+
               $field:ident: $type:ty = $json:ident $($nullable:ident)? => $value:expr, )+
        }
    ) => {
        $(#[doc = $doc])+
        #[derive(Debug, serde::Serialize)]
        struct $name<$lifetime> {
            $( $(#[doc = $field_doc])+ $field: $type, )+
        }

        impl<$lifetime> $name<$lifetime> {
            /// Every parameter's key and type, in the order serialized.
            const FIELDS: &'static [$crate::report::json::Field] = &[
                $( $crate::report::json::Field {
                    name: stringify!($field),
                    json: $crate::report::json::Json::$json,
                    nullable: $crate::report::json::parameters!(@nullable $($nullable)?),
                    optional: false,
                }, )+
            ];

            /// The parameters of `model`'s run.
            fn of($model: &$lifetime $model_type) -> Self {
                Self { $( $field: $value, )+ }
            }
        }
    };
    (@nullable nullable) => { true };
    (@nullable) => { false };
}

pub(crate) use parameters;

/// The shared summary's columns after a cell's labels ([`ESTIMATE_COLUMNS`]), typed.
pub fn estimate_fields() -> Vec<Field> {
    ESTIMATE_COLUMNS
        .iter()
        .map(|column| match column.name {
            "runs" => Field::new(column.name, Json::Integer),
            "mean" => Field::new(column.name, Json::Number),
            "sd" | "se" | "ci_low" | "ci_high" => Field::new(column.name, Json::Number).nullable(),
            "interval" => Field::new(column.name, Json::Text).nullable(),
            _ => Field::new(column.name, Json::Text),
        })
        .collect()
}

/// A CSV file's bytes and its columns' declarations.
#[derive(Debug, Clone, Copy)]
pub struct Table<'a> {
    /// The file's bytes, a header line first.
    pub csv: &'a [u8],
    /// The declared columns (in any order; a column not declared is typed by its text).
    pub fields: &'a [Field],
}

impl Table<'_> {
    /// Every row as an object: the header's names as keys, in the file's order.
    fn objects(&self) -> Vec<Value> {
        let mut reader = csv::Reader::from_reader(self.csv);
        let header = reader
            .headers()
            .expect("the model's own CSV has a header")
            .clone();
        let fields: Vec<Option<&Field>> = header
            .iter()
            .map(|name| self.fields.iter().find(|field| field.name == name))
            .collect();
        reader
            .records()
            .map(|record| {
                let record = record.expect("the model's own CSV reads back");
                let object: Map<String, Value> = header
                    .iter()
                    .zip(&fields)
                    .zip(record.iter())
                    .map(|((name, field), cell)| {
                        let value = field.map_or_else(|| inferred(cell), |field| field.value(cell));
                        (name.to_string(), value)
                    })
                    .collect();
                Value::Object(object)
            })
            .collect()
    }
}

/// What a model's `--json` holds, declared once: the schema is written from it and the
/// envelope types its tables by it.
#[derive(Debug, Clone)]
pub struct Shape {
    /// The model's name, the envelope's `model`.
    pub model: &'static str,
    /// The results CSV file whose rows are `results`.
    pub results_file: &'static str,
    /// The parameters.
    pub parameters: Vec<Field>,
    /// The results CSV's columns.
    pub results: Vec<Field>,
    /// The summary CSV's columns (its cell columns, then [`estimate_fields`] for the shared
    /// shape).
    pub summary: Vec<Field>,
}

/// The one `--json` object: `model`, `parameters` (`parameters` serialized; an object),
/// `results` (the rows of `results`), `summary` (the rows of `summary`, or `[]`) and `files`,
/// pretty-printed, ending in a newline.
pub fn envelope(
    shape: &Shape,
    parameters: &impl Serialize,
    results: &[u8],
    summary: Option<&[u8]>,
    files: &[PathBuf],
) -> Vec<u8> {
    let parameters = serde_json::to_value(parameters).expect("parameters are a plain object");
    let results = Table {
        csv: results,
        fields: &shape.results,
    };
    let summary = summary.map_or_else(Vec::new, |csv| {
        Table {
            csv,
            fields: &shape.summary,
        }
        .objects()
    });
    pretty(&json!({
        "model": shape.model,
        "parameters": parameters,
        "results": results.objects(),
        "summary": summary,
        "files": paths(files),
    }))
}

/// The schema of one row object: the declared keys with their types, those every row has
/// required, and any other key (a swept key's column) a number, a string, a boolean or `null`.
fn object_schema(fields: &[Field], open: bool) -> Value {
    let properties: Map<String, Value> = fields
        .iter()
        .map(|field| {
            let mut schema = field.json.schema();
            if field.nullable {
                schema = json!({ "anyOf": [schema, { "type": "null" }] });
            }
            (field.name.to_string(), schema)
        })
        .collect();
    // Every model writes every column of its files but the optional ones: those keys are
    // required.
    let required: Vec<&str> = fields
        .iter()
        .filter(|field| !field.optional)
        .map(|field| field.name)
        .collect();
    let additional = if open {
        json!({ "type": ["number", "string", "boolean", "null"] })
    } else {
        Value::Bool(false)
    };
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": additional,
    })
}

/// The JSON Schema (draft 2020-12) of a model's `--json` output.
pub fn schema(shape: &Shape) -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": format!("simulate --json, {} model", shape.model),
        "description": format!(
            "The run's parameters, the rows of {} (`results`) and of summary.csv (`summary`, \
             empty where the model writes none yet), numbers as JSON numbers and empty cells \
             as null, and the files written. Generated by `cargo xtask docs` from the \
             declarations in src/report/; do not edit.",
            shape.results_file
        ),
        "type": "object",
        "properties": {
            "model": { "const": shape.model },
            "parameters": parameters_schema(&shape.parameters),
            "results": { "type": "array", "items": object_schema(&shape.results, true) },
            "summary": { "type": "array", "items": object_schema(&shape.summary, true) },
            "files": { "type": "array", "items": { "type": "string" } },
        },
        "required": ["model", "parameters", "results", "summary", "files"],
        "additionalProperties": false,
    })
}

/// The schema of `parameters`: the declared keys, and with a sweep its `sweep` (the swept
/// keys and every point's values as the files' columns show them).
fn parameters_schema(fields: &[Field]) -> Value {
    let mut schema = object_schema(fields, false);
    schema["properties"]["sweep"] = json!({
        "type": "object",
        "properties": {
            "keys": { "type": "array", "items": { "type": "string" } },
            "points": {
                "type": "array",
                "items": { "type": "array", "items": { "type": "string" } }
            },
        },
        "required": ["keys", "points"],
        "additionalProperties": false,
    });
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: [Field; 4] = [
        Field::new("count", Json::Integer),
        Field::new("rate", Json::Number).nullable(),
        Field::new("name", Json::Text),
        Field::new("ok", Json::Boolean).nullable(),
    ];

    #[test]
    fn cells_take_their_columns_types_and_empty_cells_are_null() {
        let csv = b"count,rate,name,ok,swept_ms\n3,0.25,12,true,250\n4,,x,,\n";
        let rows = Table {
            csv,
            fields: &FIELDS,
        }
        .objects();
        assert_eq!(
            rows,
            [
                json!({ "count": 3, "rate": 0.25, "name": "12", "ok": true, "swept_ms": 250 }),
                json!({ "count": 4, "rate": null, "name": "x", "ok": null, "swept_ms": null }),
            ]
        );
        // The keys keep the file's column order.
        let keys: Vec<&String> = rows[0].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["count", "rate", "name", "ok", "swept_ms"]);
    }

    #[test]
    fn a_cell_that_is_not_its_columns_type_stays_text() {
        let rows = Table {
            csv: b"count\n1.5\n",
            fields: &FIELDS,
        }
        .objects();
        assert_eq!(rows, [json!({ "count": "1.5" })]);
    }

    #[test]
    fn every_estimate_column_has_its_type() {
        let types: Vec<(&str, Json, bool)> = estimate_fields()
            .iter()
            .map(|field| (field.name, field.json, field.nullable))
            .collect();
        assert_eq!(
            types,
            [
                ("metric", Json::Text, false),
                ("unit", Json::Text, false),
                ("kind", Json::Text, false),
                ("runs", Json::Integer, false),
                ("mean", Json::Number, false),
                ("sd", Json::Number, true),
                ("se", Json::Number, true),
                ("ci_low", Json::Number, true),
                ("ci_high", Json::Number, true),
                ("interval", Json::Text, true),
            ]
        );
    }
}
