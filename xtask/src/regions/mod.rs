//! The generators of the docs' regions, by name. Each reads committed files through the
//! [`Ctx`] (which records them as the region's sources) and returns Markdown.

mod article;
mod brooker;
mod contention;
mod cookbook;
mod declared;
mod load;
mod offline;
mod speed;
mod timeline;

use crate::data::Ctx;

/// A generator: the context and the region's argument give its Markdown.
type Generator = fn(&Ctx, Option<&str>) -> Result<String, String>;

/// Every generator, by the name a region gives.
const GENERATORS: &[(&str, Generator)] = &[
    // README and docs/models/article.md.
    ("article-table", article::table),
    ("article-summary", article::summary),
    ("numpy-article", article::numpy),
    // docs/models/timeline.md.
    ("companion-table", timeline::companion),
    ("timeline-outcomes", timeline::outcomes),
    ("ttl-sweep", timeline::ttl_sweep),
    ("offline-ttl", offline::ttl),
    // docs/models/contention.md and docs/validation.md.
    ("contention-means", contention::means),
    ("aws-comparison", contention::comparison),
    // docs/models/load.md.
    ("load-table", load::table),
    ("key-store-table", load::key_store_table),
    // docs/validation.md.
    ("brooker-retry-comparison", brooker::retry),
    ("brooker-collapse-comparison", brooker::collapse),
    // docs/performance.md.
    ("speed-aws", speed::aws),
    ("speed-load-bench", speed::load_bench),
    ("speed-brooker", speed::brooker),
    ("instructions", speed::instructions),
    ("speed-memory", speed::memory),
    // docs/models/*.md: the keys and columns as the code declares them.
    ("keys", declared::keys),
    ("columns", declared::columns),
    // The README's tour and docs/cookbook.md.
    ("tour", cookbook::tour),
    ("cookbook-key", cookbook::key),
    ("cookbook-redis", cookbook::redis),
    ("cookbook-capacity-drop", cookbook::capacity_drop),
    ("cookbook-ttl", cookbook::ttl),
    ("cookbook-backoff", cookbook::backoff),
];

/// The Markdown of region `name` with `argument`.
pub fn render(ctx: &Ctx, name: &str, argument: Option<&str>) -> Result<String, String> {
    let (_, generator) = GENERATORS
        .iter()
        .find(|(known, _)| *known == name)
        .ok_or_else(|| {
            let names: Vec<&str> = GENERATORS.iter().map(|(known, _)| *known).collect();
            format!("no generator {name}; known: {}", names.join(", "))
        })?;
    generator(ctx, argument)
}

/// The argument a generator needs, or an error naming it.
fn required<'a>(argument: Option<&'a str>, what: &str) -> Result<&'a str, String> {
    argument.ok_or_else(|| format!("needs an argument: {what}"))
}

/// Fails if a generator that takes no argument was given one.
fn no_argument(argument: Option<&str>) -> Result<(), String> {
    match argument {
        Some(argument) => Err(format!("takes no argument (got {argument})")),
        None => Ok(()),
    }
}

/// A Markdown table: a header row, an alignment row (`right` per column) and the rows.
fn table(header: &[&str], right: &[bool], rows: &[Vec<String>]) -> String {
    let mut out = format!("| {} |\n", header.join(" | "));
    let aligns: Vec<&str> = right
        .iter()
        .map(|&right| if right { "---:" } else { "---" })
        .collect();
    out.push_str(&format!("|{}|\n", aligns.join("|")));
    for row in rows {
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_generator_is_an_error_listing_the_known_ones() {
        let ctx = Ctx::new(".");
        let error = render(&ctx, "no-such-table", None).unwrap_err();
        assert!(error.contains("no generator no-such-table"), "{error}");
        assert!(error.contains("article-table"), "{error}");
    }

    #[test]
    fn every_generator_has_one_name() {
        let mut names: Vec<&str> = GENERATORS.iter().map(|(name, _)| *name).collect();
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count);
    }

    #[test]
    fn tables_are_markdown() {
        let text = table(&["a", "b"], &[false, true], &[vec!["x".into(), "1".into()]]);
        assert_eq!(text, "| a | b |\n|---|---:|\n| x | 1 |\n");
    }

    /// Every region of the repository's documents renders from the committed files.
    #[test]
    fn the_committed_documents_render() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap();
        let ctx = Ctx::new(root);
        for file in crate::documents(root).unwrap() {
            let text = std::fs::read_to_string(root.join(&file)).unwrap();
            for region in crate::markers::parse(&text).unwrap() {
                render(&ctx, &region.name, region.argument.as_deref())
                    .unwrap_or_else(|error| panic!("{file}: {}: {error}", region.label()));
            }
        }
    }
}
