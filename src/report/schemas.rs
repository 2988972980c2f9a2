//! Every model's `--json` shape gathered, and the schema files written from them
//! (`schemas/<model>.schema.json`, by `cargo xtask docs`). The one module that names each
//! model's `report/<name>/json.rs`: the envelope they all build on, [`super::json`], names
//! none of them.

use super::json::{Shape, pretty, schema};

/// Every model's shape, in the order of the model list.
pub fn shapes() -> Vec<Shape> {
    vec![
        crate::report::article::json::shape(),
        crate::report::timeline::json::shape(),
        crate::report::load::json::shape(),
        crate::report::contention::json::shape(),
    ]
}

/// Every model's schema file, `schemas/<model>.schema.json`, as its path and bytes.
pub fn schema_files() -> Vec<(String, Vec<u8>)> {
    shapes()
        .iter()
        .map(|shape| {
            (
                format!("schemas/{}.schema.json", shape.model),
                pretty(&schema(shape)),
            )
        })
        .collect()
}
